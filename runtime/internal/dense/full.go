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
	if HasFMA && n >= luBlockedMin {
		luFactorBlocked(a, piv, n)
		return
	}
	luFactor(a, piv, n)
}

// luBlockedMin is the order from which FactorFull factorises by panels
// of luPanel columns (luFactorBlocked); below it, the rank-1 updates of
// luFactor (the paper's networks, 11 and 21 states, keep their
// factorisation bit for bit). The rank-1 updates stream the whole
// trailing block through memory once per column: at n = 124 (the
// W-method matrix of runtime/sens on Lang_PLOSComputBiol2024) luFactor
// took 0.10 ms on a random matrix (testing.Benchmark, GOMAXPROCS=1)
// and 0.36 ms a call in the CPU profile of a PBSR solve on Lang, the
// panels 0.05 ms (panels of 8: the same, 32: 0.06 ms).
const luBlockedMin = 64

// luPanel is the panel width of luFactorBlocked.
const luPanel = 16

// luFactorBlocked is luFactor by panels (right-looking, as LAPACK's
// dgetrf): the luPanel columns of a panel are factorised with rank-1
// updates restricted to the panel, the panel's rows of U right of it by
// forward substitution, and the trailing block by one product
// A22 -= L21 U12 with the AVX2 kernel, which keeps its accumulators in
// registers. The pivots are those of luFactor (partial pivoting, whole
// rows exchanged), the rounding of the updates is grouped differently.
// A zero pivot is left in place, as in luFactor: the solve then produces
// Inf/NaN.
func luFactorBlocked(a []float64, piv []int, n int) {
	for k0 := 0; k0 < n; k0 += luPanel {
		k1 := min(k0+luPanel, n)
		for k := k0; k < k1; k++ {
			d := pivotRow(a, piv, n, k)
			if d == 0 {
				continue
			}
			rd := 1 / d
			rk := a[k*n+k+1 : k*n+k1]
			for i := k + 1; i < n; i++ {
				l := a[i*n+k] * rd
				a[i*n+k] = l
				if l == 0 {
					continue
				}
				ri := a[i*n+k+1 : i*n+k1]
				ri = ri[:len(rk)]
				for j, x := range rk {
					ri[j] -= l * x
				}
			}
		}
		if k1 == n {
			break
		}
		// U12 = L11^{-1} A12.
		for k := k0; k < k1; k++ {
			rk := a[k*n+k1 : k*n+n]
			for i := k + 1; i < k1; i++ {
				if l := a[i*n+k]; l != 0 {
					Axpy(a[i*n+k1:i*n+n], rk, -l)
				}
			}
		}
		// A22 -= L21 U12.
		r := n - k1
		gemmAVX(a[k1*n+k1:], a[k1*n+k0:], a[k0*n+k1:], r, k1-k0, r, n, n, n, -1)
	}
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

// pivotRow is step k of partial pivoting on the n x n row-major a: the
// row of the largest |a[i][k]|, i >= k, recorded in piv[k] and exchanged
// (whole rows) with row k. It returns the pivot a[k][k].
func pivotRow(a []float64, piv []int, n, k int) float64 {
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
	return a[k*n+k]
}

// luFactor factorizes the n x n row-major a in place with partial pivoting
// (P a = L U, unit lower L). A zero pivot is left in place: the solve then
// produces Inf/NaN, which the callers propagate (the Padé denominator is
// nonsingular for norms within theta).
func luFactor(a []float64, piv []int, n int) {
	for k := 0; k < n; k++ {
		d := pivotRow(a, piv, n, k)
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
	if n >= luBlockedMin && nrhs >= trsmPanel {
		trsmBlocked(lu[:n*n], b[:n*nrhs], n, nrhs)
		return
	}
	if n > 0 && nrhs > 0 {
		trsmAVX(lu[:n*n], b[:n*nrhs], n, nrhs)
	}
}

// trsmPanel is the panel height of trsmBlocked.
const trsmPanel = 16

// trsmBlocked is trsmAVX by panels of trsmPanel rows, for n >= luBlockedMin:
// each panel of b first takes the product with the rows already solved
// (the AVX2 product, whose row pairs use every load of b twice), then
// its own triangle row by row. trsmAVX subtracts one row at a time, a
// load of b per multiply-add: at n = 124 with 317 right-hand sides (the
// W-method solve of runtime/sens on Lang_PLOSComputBiol2024) it took
// 0.40 to 0.56 ms, panels of 16 rows 0.22 to 0.25 ms and of 32 rows
// 0.31 to 0.33 ms (testing.Benchmark, GOMAXPROCS=1, three runs each on
// a shared machine). The rounding is grouped differently; the diagonal
// of U is applied as its reciprocal. Orders below luBlockedMin (the
// paper's networks) and fewer than trsmPanel right-hand sides keep
// trsmAVX.
func trsmBlocked(lu, b []float64, n, m int) {
	// L (unit lower), forward.
	for k0 := 0; k0 < n; k0 += trsmPanel {
		k1 := min(k0+trsmPanel, n)
		if k0 > 0 {
			gemmAVX(b[k0*m:], lu[k0*n:], b, k1-k0, k0, m, n, m, m, -1)
		}
		for i := k0 + 1; i < k1; i++ {
			bi := b[i*m : (i+1)*m]
			for j := k0; j < i; j++ {
				if l := lu[i*n+j]; l != 0 {
					Axpy(bi, b[j*m:(j+1)*m], -l)
				}
			}
		}
	}
	// U, backward.
	for k1 := n; k1 > 0; k1 -= trsmPanel {
		k0 := max(k1-trsmPanel, 0)
		if k1 < n {
			gemmAVX(b[k0*m:], lu[k0*n+k1:], b[k1*m:], k1-k0, n-k1, m, n, m, m, -1)
		}
		for i := k1 - 1; i >= k0; i-- {
			bi := b[i*m : (i+1)*m]
			for j := i + 1; j < k1; j++ {
				if u := lu[i*n+j]; u != 0 {
					Axpy(bi, b[j*m:(j+1)*m], -u)
				}
			}
			r := 1 / lu[i*n+i]
			for c := range bi {
				bi[c] *= r
			}
		}
	}
}
