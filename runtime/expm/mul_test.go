package expm

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// TestMulAdd checks MulAdd (the AVX2 kernel where available) against a
// naive triple loop for sizes around its column blocks (32, 16, masked
// 1..15), k = 0, and alpha, beta in {0, 1, other}, with guard entries
// after every operand that must stay untouched.
func TestMulAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const guard = 7
	for _, n := range []int{1, 2, 3, 4, 21} {
		for _, k := range []int{0, 1, 2, 21, 40} {
			for _, m := range []int{1, 3, 4, 5, 15, 16, 17, 31, 32, 33, 47, 48, 59, 64, 65} {
				for _, ab := range [][2]float64{{1, 0}, {1, 1}, {-1, 1}, {0.5, 2}, {0, 3}} {
					alpha, beta := ab[0], ab[1]
					mk := func(l int) []float64 {
						v := make([]float64, l+guard)
						for i := range v {
							v[i] = rng.NormFloat64()
						}
						return v
					}
					a, b, dst := mk(n*k), mk(k*m), mk(n*m)
					want := append([]float64(nil), dst...)
					for i := 0; i < n; i++ {
						for j := 0; j < m; j++ {
							var s float64
							for l := 0; l < k; l++ {
								s += a[i*k+l] * b[l*m+j]
							}
							want[i*m+j] = alpha*s + beta*want[i*m+j]
						}
					}
					MulAdd(dst[:n*m], a[:n*k], b[:k*m], n, k, m, alpha, beta)
					for i := range dst {
						if !scalar.EqualWithinAbsOrRel(dst[i], want[i], 1e-13, 1e-13) {
							t.Fatalf("n %d k %d m %d alpha %v beta %v: dst[%d] = %v, want %v (FMA %v)",
								n, k, m, alpha, beta, i, dst[i], want[i], HasFMA())
						}
					}
				}
			}
		}
	}
}

func TestMulAddPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("short operand: no panic")
		}
	}()
	MulAdd(make([]float64, 4), make([]float64, 3), make([]float64, 4), 2, 2, 2, 1, 0)
}

// TestLUFactorSolve solves random systems (diagonally weighted, so well
// conditioned, but pivoting) with LUFactor and LUSolve for sizes and
// right-hand side counts around the kernel's column blocks and checks the
// solution.
func TestLUFactorSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 5, 17, 21, 40} {
		for _, nrhs := range []int{1, 4, 11, 16, 17, 21, 31, 32, 33, 48, 59} {
			a := make([]float64, n*n)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			for i := 0; i < n; i++ {
				a[i*n+i] += float64(n)
			}
			x := make([]float64, n*nrhs)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			b := make([]float64, n*nrhs)
			for i := 0; i < n; i++ {
				for j := 0; j < nrhs; j++ {
					for l := 0; l < n; l++ {
						b[i*nrhs+j] += a[i*n+l] * x[l*nrhs+j]
					}
				}
			}
			piv := make([]int, n)
			LUFactor(a, piv, n)
			LUSolve(a, piv, n, b, nrhs)
			for i := range b {
				if !scalar.EqualWithinAbsOrRel(b[i], x[i], 1e-11, 1e-11) {
					t.Fatalf("n %d nrhs %d: x[%d] = %v, want %v", n, nrhs, i, b[i], x[i])
				}
			}
		}
	}
}
