package mcmc

import "math"

// Small dense kernels on row-major n×n slices. They allocate nothing, so
// the sampling loop stays allocation-free; the matrices are Dim×Dim with
// Dim the number of estimated parameters (tens), where gonum's generality
// buys nothing.

// cholTo writes the lower Cholesky factor of the symmetric matrix a (only
// its lower triangle is read) into dst and reports whether a is positive
// definite. dst's strict upper triangle is zeroed. dst and a may be the
// same slice.
func cholTo(dst, a []float64, n int) bool {
	for j := 0; j < n; j++ {
		s := a[j*n+j]
		for k := 0; k < j; k++ {
			s -= dst[j*n+k] * dst[j*n+k]
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return false
		}
		d := math.Sqrt(s)
		dst[j*n+j] = d
		for i := j + 1; i < n; i++ {
			s := a[i*n+j]
			for k := 0; k < j; k++ {
				s -= dst[i*n+k] * dst[j*n+k]
			}
			dst[i*n+j] = s / d
		}
		for k := j + 1; k < n; k++ {
			dst[j*n+k] = 0
		}
	}
	return true
}

// jitters are the ridge terms, relative to the mean diagonal, tried when a
// metric is not numerically positive definite (a Fisher information is
// singular for non-identifiable parameters without an informative prior).
// The ridge chosen depends only on the matrix, so the regularised metric
// is still a deterministic function of the position and the
// Metropolis-Hastings ratio stays exact.
var jitters = [...]float64{0, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2, 1}

// factorSPD writes the lower Cholesky factor of a, regularised by the
// smallest ridge in jitters that makes it positive definite, into dst
// (using tmp, n*n, as workspace) and returns log det of the regularised
// matrix. ok is false when no ridge helps (non-finite entries). dst must
// not alias a: each attempt starts again from a.
func factorSPD(dst, tmp, a []float64, n int) (logDet float64, ok bool) {
	mean := 0.0
	for i := 0; i < n; i++ {
		mean += math.Abs(a[i*n+i])
	}
	mean /= float64(n)
	if !(mean > 0) || math.IsInf(mean, 0) {
		mean = 1
	}
	for _, j := range jitters {
		copy(tmp, a[:n*n])
		for i := 0; i < n; i++ {
			tmp[i*n+i] += j * mean
		}
		if cholTo(dst, tmp, n) {
			for i := 0; i < n; i++ {
				logDet += 2 * math.Log(dst[i*n+i])
			}
			return logDet, true
		}
	}
	return 0, false
}

// solveLower solves L x = b in place (b becomes x).
func solveLower(l, b []float64, n int) {
	for i := 0; i < n; i++ {
		s := b[i]
		for k := 0; k < i; k++ {
			s -= l[i*n+k] * b[k]
		}
		b[i] = s / l[i*n+i]
	}
}

// solveLowerT solves Lᵀ x = b in place.
func solveLowerT(l, b []float64, n int) {
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for k := i + 1; k < n; k++ {
			s -= l[k*n+i] * b[k]
		}
		b[i] = s / l[i*n+i]
	}
}

// mulLowerTo writes L x into dst (dst must not alias x).
func mulLowerTo(dst, l, x []float64, n int) {
	for i := 0; i < n; i++ {
		s := 0.0
		for k := 0; k <= i; k++ {
			s += l[i*n+k] * x[k]
		}
		dst[i] = s
	}
}

// normLowerT returns |Lᵀ x|², that is xᵀ L Lᵀ x.
func normLowerT(l, x []float64, n int) float64 {
	q := 0.0
	for i := 0; i < n; i++ {
		s := 0.0
		for k := i; k < n; k++ {
			s += l[k*n+i] * x[k]
		}
		q += s * s
	}
	return q
}

// invertSPDTo writes the inverse of the SPD matrix whose lower Cholesky
// factor is l into dst, using col (length n) as workspace.
func invertSPDTo(dst, l, col []float64, n int) {
	for j := 0; j < n; j++ {
		for i := range col[:n] {
			col[i] = 0
		}
		col[j] = 1
		solveLower(l, col, n)
		solveLowerT(l, col, n)
		for i := 0; i < n; i++ {
			dst[i*n+j] = col[i]
		}
	}
}

func allFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
