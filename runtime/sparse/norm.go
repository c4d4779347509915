package sparse

import "math"

// The norms propagate NaN: a Jacobian with a NaN entry has a NaN norm, so
// that a threshold test on it fails instead of passing.

// NormInf is ||A||_inf, the largest absolute row sum.
func (a CSR) NormInf() float64 {
	rp, v := a.Pat.RowPtr, a.Val
	var mx float64
	for i := 0; i < a.Pat.Rows; i++ {
		var s float64
		for _, x := range v[rp[i]:rp[i+1]] {
			s += math.Abs(x)
		}
		if !(s <= mx) {
			mx = s
		}
	}
	return mx
}

// DistInf is ||A - B||_inf for B of A's pattern, given by its values.
func (a CSR) DistInf(b []float64) float64 {
	rp, v := a.Pat.RowPtr, a.Val
	b = b[:len(v)]
	var mx float64
	for i := 0; i < a.Pat.Rows; i++ {
		var s float64
		for k := rp[i]; k < rp[i+1]; k++ {
			s += math.Abs(b[k] - v[k])
		}
		if !(s <= mx) {
			mx = s
		}
	}
	return mx
}

// SubNormInf writes the values of A - B into dst, for B of A's pattern
// given by its values, and returns ||A - B||_inf: one pass where a caller
// needs the difference and its norm.
func (a CSR) SubNormInf(dst, b []float64) float64 {
	rp, v := a.Pat.RowPtr, a.Val
	b, dst = b[:len(v)], dst[:len(v)]
	var mx float64
	for i := 0; i < a.Pat.Rows; i++ {
		var s float64
		for k := rp[i]; k < rp[i+1]; k++ {
			d := v[k] - b[k]
			dst[k] = d
			s += math.Abs(d)
		}
		if !(s <= mx) {
			mx = s
		}
	}
	return mx
}

// Norm1 is ||A||_1, the largest absolute column sum; work holds Cols
// column sums.
func (a CSR) Norm1(work []float64) float64 { return a.Norm1Shifted(0, work) }

// Norm1Shifted is ||A - mu I||_1 for a square A (a diagonal entry missing
// from the pattern counts as zero); work holds Cols column sums.
func (a CSR) Norm1Shifted(mu float64, work []float64) float64 {
	rp, ci, v := a.Pat.RowPtr, a.Pat.ColIdx, a.Val
	cs := work[:a.Pat.Cols]
	clear(cs)
	for i := 0; i < a.Pat.Rows; i++ {
		hasDiag := false
		for q := rp[i]; q < rp[i+1]; q++ {
			x := v[q]
			if ci[q] == i {
				x -= mu
				hasDiag = true
			}
			cs[ci[q]] += math.Abs(x)
		}
		if !hasDiag && mu != 0 {
			cs[i] += math.Abs(mu)
		}
	}
	var mx float64
	for _, x := range cs {
		if x > mx || x != x {
			mx = x
		}
	}
	return mx
}

// Trace is the sum of the diagonal entries of a square A.
func (a CSR) Trace() float64 {
	rp, ci, v := a.Pat.RowPtr, a.Pat.ColIdx, a.Val
	var tr float64
	for i := 0; i < a.Pat.Rows; i++ {
		for q := rp[i]; q < rp[i+1]; q++ {
			if ci[q] == i {
				tr += v[q]
			}
		}
	}
	return tr
}

// NormFro is the Frobenius norm of A.
func (a CSR) NormFro() float64 {
	var s float64
	for _, x := range a.Val {
		s += x * x
	}
	return math.Sqrt(s)
}

// Norm2 estimates the spectral norm ||A||_2 by power iteration on A^T A
// from a fixed start, to a relative change of 1e-3 or 30 iterations; u
// holds Cols and w Rows values. The estimate is a lower bound (it is what
// the published Julia code of the Peano-Baker methods uses).
func (a CSR) Norm2(u, w []float64) float64 {
	u, w = u[:a.Pat.Cols], w[:a.Pat.Rows]
	for i := range u {
		u[i] = 1 / math.Sqrt(float64(len(u))+float64(i))
	}
	var sig float64
	for it := 0; it < 30; it++ {
		clear(w)
		a.MulVecTo(w, u)
		clear(u)
		a.MulVecTransTo(u, w)
		var n2 float64
		for _, x := range u {
			n2 += x * x
		}
		n2 = math.Sqrt(n2)
		if n2 == 0 {
			return 0
		}
		next := math.Sqrt(n2)
		for i := range u {
			u[i] /= n2
		}
		if math.Abs(next-sig) <= 1e-3*next {
			return next
		}
		sig = next
	}
	return sig
}

// LogNormInf is the logarithmic infinity norm mu_inf(A) of a square A:
// the largest over rows of the diagonal entry plus the absolute values of
// the others. It bounds the growth rate of x' = A x in the infinity norm
// (and is 0 for an empty pattern).
func (a CSR) LogNormInf() float64 {
	rp, ci, v := a.Pat.RowPtr, a.Pat.ColIdx, a.Val
	mx := math.Inf(-1)
	for i := 0; i < a.Pat.Rows; i++ {
		var r float64
		for k := rp[i]; k < rp[i+1]; k++ {
			if ci[k] == i {
				r += v[k]
			} else {
				r += math.Abs(v[k])
			}
		}
		if !(r <= mx) {
			mx = r
		}
	}
	if math.IsInf(mx, -1) {
		return 0
	}
	return mx
}
