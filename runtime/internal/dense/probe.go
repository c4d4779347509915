package dense

// ProbeCols is the number of columns of the thin products MulRows4 and
// SpMul4: the random probe vectors of runtime/sens's local error estimate,
// one YMM register per row of the right operand.
const ProbeCols = 4

// MulRows4 writes dst = a b for row-major a (n x k) and b (k x ProbeCols):
// the dense products of the error estimate. The AVX2/FMA kernel runs four
// rows of a at a time (four independent FMA chains). Short operands panic.
func MulRows4(dst, a, b []float64, n, k int) {
	const q = ProbeCols
	if n < 0 || k < 0 || len(dst) < n*q || len(a) < n*k || len(b) < k*q {
		panic("dense: MulRows4: short operand")
	}
	if HasFMA && n > 0 && k > 0 {
		rows4AVX(dst, a, b, n, k)
		return
	}
	for i := 0; i < n; i++ {
		var d0, d1, d2, d3 float64
		for l, x := range a[i*k : i*k+k] {
			r := b[l*q : l*q+q : l*q+q]
			d0 += x * r[0]
			d1 += x * r[1]
			d2 += x * r[2]
			d3 += x * r[3]
		}
		d := dst[i*q : i*q+q : i*q+q]
		d[0], d[1], d[2], d[3] = d0, d1, d2, d3
	}
}

// SpMul4 writes (add: adds) the product of the CSR matrix (ptr, idx, vals)
// and the row-major x with ProbeCols columns into dst (len(ptr)-1 rows):
// the sparse Jacobian products of the error estimate. The column indices
// must be rows of x (a model pattern's, in range by construction): they
// are not checked, so that the kernel stays a pass over the entries.
// Short dst, vals or idx panic.
func SpMul4(dst, vals []float64, ptr, idx []int, x []float64, add bool) {
	const k = ProbeCols
	n := len(ptr) - 1
	if n < 0 || len(dst) < n*k || len(vals) < ptr[n] || len(idx) < ptr[n] {
		panic("dense: SpMul4: short operand")
	}
	if HasFMA {
		spRows4AVX(dst, x, vals, idx, ptr, add)
		return
	}
	for i := 0; i < n; i++ {
		var d0, d1, d2, d3 float64
		for q := ptr[i]; q < ptr[i+1]; q++ {
			a := vals[q]
			r := x[idx[q]*k : idx[q]*k+k : idx[q]*k+k]
			d0 += a * r[0]
			d1 += a * r[1]
			d2 += a * r[2]
			d3 += a * r[3]
		}
		d := dst[i*k : i*k+k : i*k+k]
		if add {
			d0, d1, d2, d3 = d0+d[0], d1+d[1], d2+d[2], d3+d[3]
		}
		d[0], d[1], d[2], d[3] = d0, d1, d2, d3
	}
}
