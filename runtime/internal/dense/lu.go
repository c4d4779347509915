// Package dense is the one home of the runtime's low-level dense kernels,
// on flat row-major []float64 without allocation:
//
//   - CPU feature detection (HasFMA: AVX2 and FMA, with OS support for the
//     YMM registers), done once for the whole runtime;
//   - the AVX2/FMA assembly kernels of kernel_amd64.s (built on amd64
//     without the purego tag) behind Go wrappers that fall back to gonum
//     or plain loops elsewhere: MulAdd (dense product), FactorFull and
//     SolveFull (LU of full matrices), MulRows4 and SpMul4 (products with
//     ProbeCols columns), ForceCols and AddTrans4 (the end-point forcing
//     of runtime/sens);
//   - Factor, Solve and SolveMulti: the LU of the sparse iteration
//     matrices I - gamma Jx of the BDF in runtime/ode; TransposeTo and
//     SolveT, Solve on transposed factors for the BDF's repeated small
//     solves;
//   - AxpyExact, ErrorWeights, NewtonResidual and NewtonUpdate
//     (exact.go): the BDF's elementwise state loops in AVX kernels that
//     round as the plain loops (no fused multiply-adds), so that x does
//     not depend on the CPU.
//
// There are two LU factorizations, for different callers. Factor (with
// Solve and SolveMulti) is the BDF's: Go loops that skip zero multipliers
// (the iteration matrices of reaction networks are mostly zeros) and
// report singular pivots, which the BDF turns into a step retry; with AVX2
// the row updates run in elimAVX (elim_amd64.s), four entries per
// instruction with separate multiplies and subtracts, so that they round
// exactly as the Go loop does. FactorFull and SolveFull are for the full Padé denominators of
// runtime/expm and the end-point matrices of runtime/sens: the trailing
// updates and substitutions in AVX2/FMA kernels, no singularity report
// (Inf/NaN propagate). With AVX2 FactorFull is the faster of the two even
// at 30% fill (BenchmarkFactorChoice21: 21 x 21, about 1.0 vs 1.4 us
// sparse, 1.1 vs 2.0 us full), but its fused multiply-adds round
// differently, so moving the BDF onto it would change every integrated
// number; it stays a separate decision from this package's layout.
//
// Hand-written loops are used instead of gonum's mat.LU because, for the
// n <= 100 systems of reaction networks, LAPACK blocking and interface
// dispatch cost more than the arithmetic.
package dense

import "math"

// Factor factors the row-major n x n matrix a in place into P*A = L*U (L
// unit lower triangular below the diagonal, U on and above it) and records
// the row interchanges in piv. It reports false when a pivot is zero or not
// finite; the factorisation is still completed (a zero pivot's column is
// left uneliminated), so a solve then yields Inf or NaN that callers may
// propagate instead of checking.
func Factor(a []float64, n int, piv []int) bool {
	return factor(a, n, piv, HasFMA)
}

// factor is Factor, with the row updates in elimAVX when vec is set (the
// tests compare the two paths bit for bit).
func factor(a []float64, n int, piv []int, vec bool) bool {
	ok := true
	// next: p and maxv are already column k's pivot search (elimAVX did
	// it with step k-1's updates).
	next, p, maxv := false, 0, 0.0
	for k := 0; k < n; k++ {
		if !next {
			p = k
			maxv = math.Abs(a[k*n+k])
			for i := k + 1; i < n; i++ {
				if v := math.Abs(a[i*n+k]); v > maxv {
					maxv, p = v, i
				}
			}
		}
		next = false
		piv[k] = p
		if p != k {
			rk, rp := a[k*n:(k+1)*n], a[p*n:(p+1)*n]
			for j := range rk {
				rk[j], rp[j] = rp[j], rk[j]
			}
		}
		if maxv == 0 || maxv > math.MaxFloat64 || maxv != maxv {
			ok = false
			if maxv == 0 {
				continue
			}
		}
		inv := 1 / a[k*n+k]
		if vec && n-k-1 >= elimMin {
			// The same multipliers and row updates, four entries at a
			// time (rounded as the loop below rounds them), and the next
			// column's pivot search.
			p, maxv = elimAVX(a, n, k, inv)
			next = true
			continue
		}
		rowk := a[k*n+k+1 : (k+1)*n]
		for i := k + 1; i < n; i++ {
			lik := a[i*n+k]
			if lik == 0 {
				continue
			}
			lik *= inv
			a[i*n+k] = lik
			rowi := a[i*n+k+1 : (i+1)*n]
			rowi = rowi[:len(rowk)]
			for j, v := range rowk {
				rowi[j] -= lik * v
			}
		}
	}
	return ok
}

// elimMin is the shortest row update that Factor leaves to elimAVX (one
// full vector of four). With it the LU of Blasi_CellSystems2016's 16 x 16
// iteration matrices takes 580 ns instead of 770, of a full 32 x 32 one
// 3.7 us instead of 7.4 (BenchmarkFactorKernel).
const elimMin = 4

// Solve solves A x = b in place (b becomes x) with the factors from Factor.
//
// Up to colSolveMax unknowns it goes column by column, in the order and
// rounding of SUNDIALS's denseGETRS (CVODE's dense solver): each solved
// entry is subtracted from the entries below it (forward) or, once divided
// by its pivot, above it (backward) as soon as it is known. Such small
// solves are bound by latency, not arithmetic: row by row, each entry
// waits for its row's whole sum (and going backward a division after it);
// column by column it waits for one multiply and subtract. Larger systems
// go row by row, where the rows' contiguous dot products win over the
// columns' strided access (BenchmarkSolveSmall, ns per solve):
//
//	n          16    21    32    60    100
//	columns   240   370   725  2390   6080
//	rows      290   400   680  1720   3890
func Solve(a []float64, n int, piv []int, b []float64) {
	b = b[:n]
	for k := 0; k < n; k++ {
		if p := piv[k]; p != k {
			b[k], b[p] = b[p], b[k]
		}
	}
	if n <= colSolveMax {
		solveCols(a[:n*n], n, b)
		return
	}
	for i := 1; i < n; i++ {
		b[i] -= dot(a[i*n:i*n+i], b[:i])
	}
	for i := n - 1; i >= 0; i-- {
		b[i] = (b[i] - dot(a[i*n+i+1:(i+1)*n], b[i+1:])) / a[i*n+i]
	}
}

// colSolveMax is the largest system Solve solves column by column. At 21
// unknowns the two orders are within 10% of each other in isolation (the
// table above), and end to end the column order (SolveT with it) made
// generated CaMKII's FS (21 states, ErrCon, 601 outputs) 4-5% slower
// (BenchmarkCaMKIISolveFS, 18.0-18.6 against 19.7-19.9 ms; callgrind
// 7.37e9 against 7.68e9 instructions for the same steps, Newton
// iterations and factorisations: the cause was not found), while
// Blasi_CellSystems2016 (16 states) gains 19% (llh + gradient 0.129 to
// 0.107 ms): the limit is 16, not 24.
const colSolveMax = 16

// TransposeMax is the largest n for which SolveT's result is Solve's bit
// for bit (Solve goes row by row beyond).
const TransposeMax = colSolveMax

// solveCols is Solve's substitutions column by column (b permuted).
func solveCols(a []float64, n int, b []float64) {
	for k := 0; k < n-1; k++ {
		bk := b[k]
		for i := k + 1; i < n; i++ {
			b[i] -= a[i*n+k] * bk
		}
	}
	for k := n - 1; k > 0; k-- {
		bk := b[k] / a[k*n+k]
		b[k] = bk
		for i := 0; i < k; i++ {
			b[i] -= a[i*n+k] * bk
		}
	}
	if n > 0 {
		b[0] /= a[0]
	}
}

// TransposeTo writes the transpose of the row-major n x n a into at (the
// factors of Factor for SolveT).
func TransposeTo(at, a []float64, n int) {
	a, at = a[:n*n], at[:n*n]
	m := 0 // the leading m x m block, in 4 x 4 blocks with AVX
	if HasFMA {
		m = n &^ 3
		transposeAVX(at, a, n, m)
	}
	for i := 0; i < n; i++ {
		j0 := 0
		if i < m {
			j0 = m
		}
		for j, v := range a[i*n+j0 : i*n+n] {
			at[(j0+j)*n+i] = v
		}
	}
}

// SolveT is Solve with the factors transposed (at from TransposeTo), so
// that the columns it walks are contiguous: bit for bit Solve's result for
// n <= colSolveMax (column by column at any n), with AVX2 four entries
// per instruction and without the strided indexing, which made Solve's
// small solves bound by instructions (16 x 16: 130 ns instead of 240,
// BenchmarkSolveSmall). A BDF that solves several times with one
// factorisation pays the transpose once.
func SolveT(at []float64, n int, piv []int, b []float64) {
	b = b[:n]
	at = at[:n*n]
	permuteRows(b, piv, n, 1)
	if n == 0 {
		return
	}
	if HasFMA {
		solveTAVX(at, b, n)
		return
	}
	solveColsT(at, n, b)
}

// solveColsT is solveCols on the transposed factors, in Go.
func solveColsT(at []float64, n int, b []float64) {
	for k := 0; k < n-1; k++ {
		bk := b[k]
		col := at[k*n+k+1 : (k+1)*n]
		bb := b[k+1:]
		bb = bb[:len(col)]
		for i, v := range col {
			bb[i] -= v * bk
		}
	}
	for k := n - 1; k > 0; k-- {
		bk := b[k] / at[k*n+k]
		b[k] = bk
		col := at[k*n : k*n+k]
		bb := b[:len(col)]
		for i, v := range col {
			bb[i] -= v * bk
		}
	}
	b[0] /= at[0]
}

// dot returns sum x[i]*y[i] over len(x) with four independent accumulators:
// the triangular solves are latency-bound on a single running sum.
func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		xx, yy := x[i:i+4:i+4], y[i:i+4:i+4]
		s0 += xx[0] * yy[0]
		s1 += xx[1] * yy[1]
		s2 += xx[2] * yy[2]
		s3 += xx[3] * yy[3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// SolveMulti solves A X = B in place for the row-major n x m matrix B (all
// m right-hand sides at once, so the inner loops run over contiguous rows
// of B).
func SolveMulti(a []float64, n int, piv []int, b []float64, m int) {
	permuteRows(b, piv, n, m)
	for i := 1; i < n; i++ {
		bi := b[i*m : (i+1)*m]
		for j := 0; j < i; j++ {
			l := a[i*n+j]
			if l == 0 {
				continue
			}
			subScaled(bi, b[j*m:(j+1)*m], l)
		}
	}
	for i := n - 1; i >= 0; i-- {
		bi := b[i*m : (i+1)*m]
		for j := i + 1; j < n; j++ {
			u := a[i*n+j]
			if u == 0 {
				continue
			}
			subScaled(bi, b[j*m:(j+1)*m], u)
		}
		inv := 1 / a[i*n+i]
		for c := range bi {
			bi[c] *= inv
		}
	}
}

// permuteRows applies the row exchanges piv of a factorization to the
// n x m row-major b.
func permuteRows(b []float64, piv []int, n, m int) {
	for k := 0; k < n; k++ {
		if p := piv[k]; p != k {
			rk, rp := b[k*m:(k+1)*m], b[p*m:(p+1)*m]
			for j := range rk {
				rk[j], rp[j] = rp[j], rk[j]
			}
		}
	}
}

// subScaled sets x[c] -= a*y[c] for c < len(x), unrolled by four: the
// element operations are those of the plain loop (same roundings), but
// the loop overhead is shared, and the BDF's sensitivity solves (rows of
// ns = 25 on POLLU) ran up to 1.5x slower with the plain loop when the
// code layout put its few instructions across a cache-line boundary.
func subScaled(x, y []float64, a float64) {
	y = y[:len(x)]
	c := 0
	for ; c+4 <= len(x); c += 4 {
		xx, yy := x[c:c+4:c+4], y[c:c+4:c+4]
		xx[0] -= a * yy[0]
		xx[1] -= a * yy[1]
		xx[2] -= a * yy[2]
		xx[3] -= a * yy[3]
	}
	for ; c < len(x); c++ {
		x[c] -= a * y[c]
	}
}
