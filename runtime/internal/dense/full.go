package dense

import "math"

// FactorFull factorizes the n x n row-major a in place with partial
// pivoting (P a = L U, unit lower L, the row exchanges in piv), with the
// AVX2/FMA rank-1 update kernel for the trailing block where available.
// It is the LU of full matrices: the Padé denominators of runtime/expm
// and the end-point matrices of runtime/sens, which have no zeros to skip.
// For the sparse iteration matrices I - gamma Jx of the BDF use Factor,
// which skips zero multipliers and reports singular pivots. A zero pivot
// is left in place: SolveFull then produces Inf/NaN. Short operands panic.
func FactorFull(a []float64, piv []int, n int) {
	if n < 0 || len(a) < n*n || len(piv) < n {
		panic("dense: FactorFull: short operand")
	}
	luFactor(a, piv, n)
}

// SolveFull overwrites the n x nrhs row-major b with a^{-1} b from the
// factorization of FactorFull (forward and backward substitution in one
// AVX2/FMA kernel call where available). Short operands panic.
func SolveFull(lu []float64, piv []int, n int, b []float64, nrhs int) {
	if n < 0 || nrhs < 0 || len(lu) < n*n || len(piv) < n || len(b) < n*nrhs {
		panic("dense: SolveFull: short operand")
	}
	luSolve(lu, piv, n, b, nrhs)
}

// luFactor factorizes the n x n row-major a in place with partial pivoting
// (P a = L U, unit lower L). A zero pivot is left in place: the solve then
// produces Inf/NaN, which the callers propagate (the Padé denominator is
// nonsingular for norms within theta).
func luFactor(a []float64, piv []int, n int) {
	for k := 0; k < n; k++ {
		p := k
		mx := math.Abs(a[k*n+k])
		for i := k + 1; i < n; i++ {
			if v := math.Abs(a[i*n+k]); v > mx {
				mx, p = v, i
			}
		}
		piv[k] = p
		if p != k {
			rk, rp := a[k*n:k*n+n], a[p*n:p*n+n]
			for j := range rk {
				rk[j], rp[j] = rp[j], rk[j]
			}
		}
		d := a[k*n+k]
		if d == 0 {
			continue
		}
		if HasFMA && k+1 < n {
			// Multipliers, then the rank-1 update of the trailing block
			// with the AVX2 kernel (strided rows).
			// One division per column (divisions have a long latency).
			rd := 1 / d
			for i := k + 1; i < n; i++ {
				a[i*n+k] *= rd
			}
			r := n - k - 1
			gerAVX(a[(k+1)*n+k+1:], a[(k+1)*n+k:], a[k*n+k+1:], r, r, n, n)
			continue
		}
		rk := a[k*n+k+1 : k*n+n]
		for i := k + 1; i < n; i++ {
			l := a[i*n+k] / d
			a[i*n+k] = l
			if l == 0 {
				continue
			}
			ri := a[i*n+k+1 : i*n+n]
			for j, x := range rk {
				ri[j] -= l * x
			}
		}
	}
}

// luSolve overwrites the n x nrhs row-major b with a^{-1} b using the
// factorization from luFactor: with AVX2 the row exchanges here and both
// substitutions in one kernel call, otherwise SolveMulti (the same
// substitutions in Go loops).
func luSolve(lu []float64, piv []int, n int, b []float64, nrhs int) {
	if !HasFMA {
		SolveMulti(lu, n, piv, b, nrhs)
		return
	}
	permuteRows(b, piv, n, nrhs)
	if n > 0 && nrhs > 0 {
		trsmAVX(lu[:n*n], b[:n*nrhs], n, nrhs)
	}
}
