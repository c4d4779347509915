package dense

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// MulAdd sets dst = alpha a b + beta dst for row-major a (n x k), b (k x
// m) and dst (n x m), each with its number of columns as stride. It is
// the dense product of the exponentials of runtime/expm and of the
// sensitivity steps of runtime/sens: at their sizes (tens of rows) gonum's SSE2 loop is
// bound by loads and stores, while the AVX2 kernel keeps a block of up to
// 32 columns of a row of dst in registers over the whole k loop; without
// AVX2/FMA it calls gonum. dst must not overlap a or b. Short operands
// panic.
func MulAdd(dst, a, b []float64, n, k, m int, alpha, beta float64) {
	if n < 0 || k < 0 || m < 0 {
		panic("dense: MulAdd: negative dimension")
	}
	if len(a) < n*k || len(b) < k*m || len(dst) < n*m {
		panic("dense: MulAdd: short operand")
	}
	if n == 0 || m == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		scale(dst[:n*m], beta)
		return
	}
	if !HasFMA {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, alpha,
			blas64.General{Rows: n, Cols: k, Stride: max(k, 1), Data: a},
			blas64.General{Rows: k, Cols: m, Stride: m, Data: b},
			beta, blas64.General{Rows: n, Cols: m, Stride: m, Data: dst})
		return
	}
	d := dst[:n*m]
	scale(d, beta)
	gemmAVX(d, a, b, n, k, m, k, m, m, alpha)
}

// scale multiplies d by beta (beta = 0 clears NaN too, as in BLAS).
func scale(d []float64, beta float64) {
	switch beta {
	case 1:
	case 0:
		clear(d)
	default:
		for i := range d {
			d[i] *= beta
		}
	}
}
