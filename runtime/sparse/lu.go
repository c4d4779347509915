package sparse

import (
	"fmt"
	"math"

	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/model"
)

// This file is the sparse direct solver of the Newton systems
// (I - gamma Jx) of large networks: a fill-reducing ordering computed once
// per pattern (Analyze), a left-looking LU with threshold partial pivoting
// (Factor), a numerical refactorisation that keeps the pivot order
// (Refactor) and solves with one or many right-hand sides. Its cost grows
// with the non-zeros of the factors, not with n^3.
//
// The factorisation is that of J. R. Gilbert and T. Peierls, "Sparse
// partial pivoting in time proportional to arithmetic operations" (SIAM J.
// Sci. Stat. Comput. 9(5), 1988), as KLU uses it (T. A. Davis and
// E. Palamadai Natarajan, ACM TOMS 37(3), 2010; T. A. Davis, "Direct
// Methods for Sparse Linear Systems", SIAM 2006, describes both): column k
// of L and U is the solution of a sparse triangular system L x = A(:,k)
// whose non-zero pattern is the set of nodes reachable from the pattern of
// A(:,k) in the graph of the columns of L computed so far; a depth-first
// search finds that set in topological order, so the numerical work is
// proportional to the flops.

// Symbolic is the analysis of a square pattern shared by every matrix of
// that shape: the fill-reducing ordering and the column-wise view of the
// row-wise pattern. It is computed once (Analyze) and read only afterwards,
// so several LU values, in several goroutines, may share one.
type Symbolic struct {
	n   int
	pat *model.Pattern
	q   []int // q[k] = original row and column at position k (AMD)
	// The permuted matrix A(q, q) by columns: column k has rows
	// ri[cp[k]:cp[k+1]] (positions, not original indices), with values at
	// Val[src[.]] of the CSR.
	cp, ri, src []int
}

// Ordering selects the fill-reducing ordering of Analyze.
type Ordering int

const (
	// OrderAMD is the approximate minimum degree ordering of p + p^T.
	OrderAMD Ordering = iota
	// OrderNatural keeps the pattern's own order (for comparisons).
	OrderNatural
)

// Analyze returns the symbolic analysis of the square pattern p with the
// given ordering. It panics on a non-square or malformed pattern (misuse).
func Analyze(p *model.Pattern, ord Ordering) *Symbolic {
	if p.Rows != p.Cols {
		panic("sparse: Analyze of a non-square pattern")
	}
	if err := p.Validate(); err != nil {
		panic("sparse: " + err.Error())
	}
	n := p.Rows
	var q []int
	switch ord {
	case OrderAMD:
		q = AMD(p)
	case OrderNatural:
		q = make([]int, n)
		for i := range q {
			q[i] = i
		}
	default:
		panic("sparse: unknown ordering")
	}
	qinv := make([]int, n)
	for k, i := range q {
		qinv[i] = k
	}
	s := &Symbolic{n: n, pat: p, q: q, cp: make([]int, n+1), ri: make([]int, p.NNZ()), src: make([]int, p.NNZ())}
	for _, j := range p.ColIdx {
		s.cp[qinv[j]+1]++
	}
	for k := 0; k < n; k++ {
		s.cp[k+1] += s.cp[k]
	}
	next := append([]int(nil), s.cp[:n]...)
	for i := 0; i < n; i++ { // rows in original order: sorted later
		for k := p.RowPtr[i]; k < p.RowPtr[i+1]; k++ {
			c := qinv[p.ColIdx[k]]
			s.ri[next[c]] = qinv[i]
			s.src[next[c]] = k
			next[c]++
		}
	}
	return s
}

// N is the dimension of the analysed pattern.
func (s *Symbolic) N() int { return s.n }

// Perm returns the fill-reducing ordering: element k is the original row
// and column placed k-th. The slice is the analysis's own; do not modify it.
func (s *Symbolic) Perm() []int { return s.q }

// SingularError reports a matrix that the LU could not factorise: no
// usable pivot in column Col (an original column index of the matrix).
type SingularError struct {
	Col int
	// Reason says why: "structurally singular" (no candidate row left),
	// "zero pivot" (all candidates cancelled to zero or to rounding level)
	// or "not finite" (an Inf or NaN in the matrix or its factors).
	Reason string
}

func (e *SingularError) Error() string {
	return fmt.Sprintf("sparse: matrix is singular: %s in column %d", e.Reason, e.Col)
}

// LU is the factorisation P A(q,q) = L U of one square matrix of an
// analysed pattern (L unit lower, U upper, P the row pivoting, q the
// symmetric fill-reducing order). It owns all its storage: after the first
// Factor, Refactor and the solves allocate nothing (a fresh Factor
// allocates only if the factors grow beyond what an earlier one needed).
// An LU is not safe for concurrent use.
type LU struct {
	// PivotTol is the threshold of partial pivoting: the diagonal is kept as
	// pivot when its magnitude is at least PivotTol times the largest in
	// its column (KLU's rule; it keeps the fill-reducing order and, for the
	// diagonally dominant I - gamma Jx, never pivots off the diagonal).
	// Refactor reuses a pivot order only while every pivot still passes
	// this test. Zero means the default 0.1 (UMFPACK's; KLU's 0.001
	// let the random nonsymmetric matrices of the tests reach backward
	// errors of 3e-13, against 2e-15 at 0.1).
	PivotTol float64

	sym *Symbolic
	ok  bool // a successful factorisation is held

	// L by columns without its unit diagonal; U by columns without its
	// diagonal, entries in the topological order of the elimination (the
	// order in which Refactor must apply them). Row indices are pivot
	// positions once a factorisation has completed.
	lp, li []int
	lx     []float64
	up, ui []int
	ux     []float64
	ud     []float64 // U's diagonal
	pinv   []int     // pinv[r] = position of row r (positions of A(q,q)) as pivot
	rowOf  []int     // rowOf[k] = original row pivotal at position k
	colOf  []int     // = sym.q, original column of position k

	// The factors by rows, for the block solves (solveRows): L's row i
	// has the positions lrc[lrp[i]:lrp[i+1]] (increasing) with values
	// lrv = -L there, and U's row i the original columns urc (of the
	// positions j > i, decreasing) with urv = -U; lrm and urm map each
	// entry to its place in lx and ux. rowsPat says the patterns are those
	// of the current factors, rowsVal that the values are.
	lrp, lrc, lrm []int
	lrv           []float64
	urp, urc, urm []int
	urv           []float64
	rowsPat       bool
	rowsVal       bool

	// Workspace.
	x      []float64
	stack  []int
	pstack []int
	xi     []int
	mark   []int
	stamp  int
	work   []float64 // solve workspace, n * nrhs

	// Statistics.
	Stats LUStats
}

// LUStats counts what an LU has done.
type LUStats struct {
	Factors   int // fresh factorisations (with pivot search)
	Refactors int // numerical refactorisations that kept the pivot order
	Fallbacks int // refactorisations that found a bad pivot and factorised afresh
	OffDiag   int // pivots taken off the diagonal in the last fresh factorisation
}

// NewLU returns an LU for matrices of the analysed pattern sym.
func NewLU(sym *Symbolic) *LU {
	n := sym.n
	f := &LU{
		sym:    sym,
		lp:     make([]int, n+1),
		up:     make([]int, n+1),
		ud:     make([]float64, n),
		pinv:   make([]int, n),
		rowOf:  make([]int, n),
		colOf:  sym.q,
		x:      make([]float64, n),
		stack:  make([]int, n),
		pstack: make([]int, n),
		xi:     make([]int, n),
		mark:   make([]int, n),
	}
	// A first guess of the factors' size; they grow if needed.
	nnz := 4 * sym.pat.NNZ()
	f.li = make([]int, 0, nnz)
	f.lx = make([]float64, 0, nnz)
	f.ui = make([]int, 0, nnz)
	f.ux = make([]float64, 0, nnz)
	return f
}

// NNZ returns the number of stored entries of L + U (the diagonal counted
// once) of the current factorisation: the fill measure.
func (f *LU) NNZ() int { return len(f.li) + len(f.ui) + f.sym.n }

func (f *LU) pivTol() float64 {
	if f.PivotTol <= 0 {
		return 0.1
	}
	return math.Min(f.PivotTol, 1)
}

func (f *LU) checkMatrix(a *CSR) {
	if a.Pat != f.sym.pat {
		if a.Pat.Rows != f.sym.pat.Rows || a.Pat.NNZ() != f.sym.pat.NNZ() {
			panic("sparse: matrix pattern is not the analysed pattern")
		}
	}
	if len(a.Val) != f.sym.pat.NNZ() {
		panic("sparse: matrix values do not match its pattern")
	}
}

// Factor computes a fresh factorisation of a, choosing pivots. a's pattern
// must be the analysed one (the same *model.Pattern, or an equal copy). It
// returns a *SingularError if a column has no usable pivot; the LU then
// holds no factorisation until a later Factor succeeds.
func (f *LU) Factor(a *CSR) error {
	f.checkMatrix(a)
	f.ok = false
	f.rowsPat, f.rowsVal = false, false
	f.Stats.Factors++
	s := f.sym
	n := s.n
	tol := f.pivTol()
	for i := range f.pinv {
		f.pinv[i] = -1
	}
	f.li, f.lx, f.ui, f.ux = f.li[:0], f.lx[:0], f.ui[:0], f.ux[:0]
	f.lp[0], f.up[0] = 0, 0
	x := f.x
	offdiag := 0
	for k := 0; k < n; k++ {
		top := f.reach(k)
		reach := f.xi[top:]
		// Scatter A(:,k); the reach holds every row of it.
		amax := 0.0
		for p := s.cp[k]; p < s.cp[k+1]; p++ {
			v := a.Val[s.src[p]]
			x[s.ri[p]] = v
			if av := math.Abs(v); av > amax || av != av {
				amax = av
			}
		}
		if !(amax <= math.MaxFloat64) && amax == amax {
			amax = math.Inf(1)
		}
		// x = L \ A(:,k) over the reach, in topological order.
		for _, i := range reach {
			j := f.pinv[i]
			if j < 0 {
				continue
			}
			xj := x[i]
			if xj == 0 {
				continue
			}
			li := f.li[f.lp[j]:f.lp[j+1]]
			lx := f.lx[f.lp[j]:f.lp[j+1]]
			for t, r := range li {
				x[r] -= lx[t] * xj
			}
		}
		// U(:,k) and the pivot search among the rows not yet pivotal.
		piv, pmax := -1, -1.0
		nonFinite := amax != amax || math.IsInf(amax, 0)
		for _, i := range reach {
			v := x[i]
			if v-v != 0 {
				nonFinite = true
			}
			if f.pinv[i] >= 0 {
				f.ui = append(f.ui, f.pinv[i])
				f.ux = append(f.ux, v)
				continue
			}
			if av := math.Abs(v); av > pmax {
				pmax, piv = av, i
			}
		}
		if nonFinite {
			f.clearX(reach)
			return &SingularError{Col: s.q[k], Reason: "not finite"}
		}
		if piv < 0 {
			f.clearX(reach)
			return &SingularError{Col: s.q[k], Reason: "structurally singular"}
		}
		// Below rounding level of the column's own entries: cancellation
		// has left nothing that is not noise.
		if pmax == 0 || pmax <= 0x1p-52*amax {
			f.clearX(reach)
			return &SingularError{Col: s.q[k], Reason: "zero pivot"}
		}
		if f.pinv[k] < 0 && f.markedIn(k) && math.Abs(x[k]) >= tol*pmax {
			piv = k // the diagonal of A(q,q): keeps the ordering's fill
		} else {
			offdiag++
		}
		d := x[piv]
		f.pinv[piv] = k
		f.rowOf[k] = s.q[piv]
		f.ud[k] = d
		rd := 1 / d
		for _, i := range reach {
			if f.pinv[i] < 0 {
				f.li = append(f.li, i)
				f.lx = append(f.lx, x[i]*rd)
			}
		}
		f.clearX(reach)
		f.lp[k+1], f.up[k+1] = len(f.li), len(f.ui)
	}
	// Row indices of L from rows of A(q,q) to pivot positions.
	for t, r := range f.li {
		f.li[t] = f.pinv[r]
	}
	f.Stats.OffDiag = offdiag
	f.ok = true
	return nil
}

// markedIn reports whether row i is in the reach of the current column
// (it was stamped by the last reach).
func (f *LU) markedIn(i int) bool { return f.mark[i] == f.stamp }

func (f *LU) clearX(reach []int) {
	for _, i := range reach {
		f.x[i] = 0
	}
}

// reach computes the rows reachable from the pattern of column k of
// A(q,q) in the graph of L's columns (row r -> the rows of L(:, pinv[r])
// when r is already pivotal), by an iterative depth-first search, and
// leaves them in f.xi[top:] in topological order. It returns top.
func (f *LU) reach(k int) int {
	s := f.sym
	n := s.n
	f.stamp++
	if f.stamp == math.MaxInt {
		clear(f.mark)
		f.stamp = 1
	}
	st := f.stamp
	top := n
	for p := s.cp[k]; p < s.cp[k+1]; p++ {
		r0 := s.ri[p]
		if f.mark[r0] == st {
			continue
		}
		// DFS from r0.
		h := 0
		f.stack[0] = r0
		for h >= 0 {
			r := f.stack[h]
			j := f.pinv[r]
			if f.mark[r] != st {
				f.mark[r] = st
				if j >= 0 {
					f.pstack[h] = f.lp[j]
				}
			}
			done := true
			if j >= 0 {
				end := f.lp[j+1]
				for q := f.pstack[h]; q < end; q++ {
					c := f.li[q]
					if f.mark[c] == st {
						continue
					}
					f.pstack[h] = q + 1
					h++
					f.stack[h] = c
					done = false
					break
				}
			}
			if done {
				h--
				top--
				f.xi[top] = r
			}
		}
	}
	return top
}

// Refactor factorises a with the pivot order and the patterns of L and U
// of the last successful Factor, which skips the depth-first searches and
// the pivot search. If a pivot fails the threshold test of PivotTol (or is
// zero or not finite), it falls back to a fresh Factor, so the result is
// always as stable as a fresh factorisation. Without an earlier
// factorisation it is Factor.
func (f *LU) Refactor(a *CSR) error {
	f.checkMatrix(a)
	if !f.ok {
		return f.Factor(a)
	}
	if !f.refactor(a) {
		f.Stats.Fallbacks++
		return f.Factor(a)
	}
	f.Stats.Refactors++
	return nil
}

// refactor is the numerical phase on positions: x is indexed by pivot
// position, L's rows are positions, U's entries are in topological order.
func (f *LU) refactor(a *CSR) bool {
	f.rowsVal = false
	s := f.sym
	n := s.n
	tol := f.pivTol()
	x := f.x
	ok := true
	for k := 0; k < n && ok; k++ {
		for p := s.cp[k]; p < s.cp[k+1]; p++ {
			x[f.pinv[s.ri[p]]] = a.Val[s.src[p]]
		}
		u0, u1 := f.up[k], f.up[k+1]
		for t := u0; t < u1; t++ {
			j := f.ui[t]
			xj := x[j]
			f.ux[t] = xj
			x[j] = 0
			if xj == 0 {
				continue
			}
			l0, l1 := f.lp[j], f.lp[j+1]
			li := f.li[l0:l1]
			lx := f.lx[l0:l1]
			for q, r := range li {
				x[r] -= lx[q] * xj
			}
		}
		d := x[k]
		x[k] = 0
		l0, l1 := f.lp[k], f.lp[k+1]
		lmax := 0.0
		for _, r := range f.li[l0:l1] {
			if av := math.Abs(x[r]); av > lmax || av != av {
				lmax = av
			}
		}
		ad := math.Abs(d)
		if d == 0 || d-d != 0 || lmax != lmax || math.IsInf(lmax, 0) || ad < tol*lmax {
			ok = false
		}
		f.ud[k] = d
		rd := 1 / d
		for q, r := range f.li[l0:l1] {
			f.lx[l0+q] = x[r] * rd
			x[r] = 0
		}
		for t := u0; t < u1; t++ {
			if v := f.ux[t]; v-v != 0 {
				ok = false
			}
		}
	}
	if !ok {
		clear(x)
	}
	return ok
}

// Reserve sizes the solve workspace for blocks of up to k right-hand
// sides, so that a later SolveTo with k columns allocates nothing (an
// integrator calls it once, before its allocation-free loop).
func (f *LU) Reserve(k int) {
	if n := f.sym.n * k; cap(f.work) < n {
		f.work = make([]float64, n)
	}
}

// Solve overwrites the n-vector b with A^{-1} b.
func (f *LU) Solve(b []float64) { f.SolveTo(b, b, 1) }

// SolveTo writes A^{-1} B into dst for the row-major n x k block B (row i
// = state i, one column per right-hand side, the layout of S), all columns
// at once so that the inner loops run over contiguous rows. dst may be b.
// It panics without a successful factorisation (misuse).
func (f *LU) SolveTo(dst, b []float64, k int) {
	n := f.sym.n
	if !f.ok {
		panic("sparse: solve without a successful factorisation")
	}
	if k < 0 || len(b) != n*k || len(dst) != n*k {
		panic("sparse: solve block length mismatch")
	}
	if cap(f.work) < n*k {
		f.work = make([]float64, n*k)
	}
	w := f.work[:n*k]
	if k >= rowsMin && dense.HasFMA {
		f.solveRows(dst, b, w, k)
		return
	}
	f.solveCols(dst, b, w, k)
}

// solveCols is SolveTo by column sweeps over the factors, in the
// workspace w (n x k) between the permutations.
func (f *LU) solveCols(dst, b, w []float64, k int) {
	n := f.sym.n
	// w = P Q^T b: position j takes the row pivotal there.
	for j := 0; j < n; j++ {
		r := f.rowOf[j]
		copy(w[j*k:(j+1)*k], b[r*k:(r+1)*k])
	}
	if k < smallBlock {
		f.solveSmall(w, k)
	} else {
		f.solveWide(w, k)
	}
	// x = Q z.
	for j := 0; j < n; j++ {
		c := f.colOf[j]
		copy(dst[c*k:(c+1)*k], w[j*k:(j+1)*k])
	}
}

// smallBlock is the number of right-hand sides from which the triangular
// solves update rows through dense.Axpy; below it a call per entry of L
// and U cost more than the update (the state's Newton solves, k = 1, and
// a PEtab problem's few sensitivity columns: on SalazarCavazos_MBoC2020,
// 75 states, k = 1 and 6, SolveTo took 41 ms of an FS llh+grad through
// dense.Axpy and takes 17 ms inline, CPU profiles).
const smallBlock = 8

// solveSmall is the triangular solves of SolveTo for k < smallBlock, with
// the row updates inline (the same operations as axpy's scalar loop, so
// the same results).
func (f *LU) solveSmall(w []float64, k int) {
	n := f.sym.n
	if k == 1 {
		for j := 0; j < n; j++ {
			wj := w[j]
			for t := f.lp[j]; t < f.lp[j+1]; t++ {
				if a := -f.lx[t]; a != 0 {
					w[f.li[t]] += a * wj
				}
			}
		}
		for j := n - 1; j >= 0; j-- {
			w[j] *= 1 / f.ud[j]
			wj := w[j]
			for t := f.up[j]; t < f.up[j+1]; t++ {
				if a := -f.ux[t]; a != 0 {
					w[f.ui[t]] += a * wj
				}
			}
		}
		return
	}
	for j := 0; j < n; j++ {
		wj := w[j*k : (j+1)*k]
		for t := f.lp[j]; t < f.lp[j+1]; t++ {
			if a := -f.lx[t]; a != 0 {
				r := f.li[t] * k
				y := w[r : r+k]
				for c, v := range wj[:len(y)] {
					y[c] += a * v
				}
			}
		}
	}
	for j := n - 1; j >= 0; j-- {
		wj := w[j*k : (j+1)*k]
		rd := 1 / f.ud[j]
		for c := range wj {
			wj[c] *= rd
		}
		for t := f.up[j]; t < f.up[j+1]; t++ {
			if a := -f.ux[t]; a != 0 {
				r := f.ui[t] * k
				y := w[r : r+k]
				for c, v := range wj[:len(y)] {
					y[c] += a * v
				}
			}
		}
	}
}

// solveWide is the triangular solves of SolveTo for k >= smallBlock.
func (f *LU) solveWide(w []float64, k int) {
	n := f.sym.n
	// L forward, by columns.
	for j := 0; j < n; j++ {
		wj := w[j*k : (j+1)*k]
		for t := f.lp[j]; t < f.lp[j+1]; t++ {
			axpy(w[f.li[t]*k:(f.li[t]+1)*k], wj, -f.lx[t])
		}
	}
	// U backward, by columns.
	for j := n - 1; j >= 0; j-- {
		wj := w[j*k : (j+1)*k]
		rd := 1 / f.ud[j]
		for c := range wj {
			wj[c] *= rd
		}
		for t := f.up[j]; t < f.up[j+1]; t++ {
			axpy(w[f.ui[t]*k:(f.ui[t]+1)*k], wj, -f.ux[t])
		}
	}
}

// rowsMin is the number of right-hand sides from which SolveTo solves by
// rows (solveRows) where the CPU has AVX2/FMA.
const rowsMin = 8

// solveRows is SolveTo by rows: each row of the result is a sum over a
// row of L or U kept in registers by dense.GatherRow, and b is read and
// dst written in place of the permutations' copies:
//
//	w_i = b_rowOf(i) - sum_{t<i} L_it w_t             (i = 0..n-1)
//	x_colOf(i) = (w_i - sum_{j>i} U_ij x_colOf(j)) / U_ii  (i = n-1..0)
//
// The entries of a row are applied in the order in which the column
// sweeps of SolveTo apply them to that row (L's by increasing t, U's by
// decreasing j), each with one fused multiply-add, so the result is the
// column sweeps' to the bit (apart from zero multipliers, which those
// skip). On Lang_PLOSComputBiol2024 (124 states, 317 columns) FS took
// 0.84 s of CPU time against 0.98 s with the column sweeps (alternated
// runs), 1.5e9 fewer instructions of 11.9e9 (callgrind).
func (f *LU) solveRows(dst, b, w []float64, k int) {
	f.rowFactors()
	n := f.sym.n
	for i := 0; i < n; i++ {
		r := f.rowOf[i]
		lo, hi := f.lrp[i], f.lrp[i+1]
		dense.GatherRow(w[i*k:(i+1)*k], b[r*k:(r+1)*k], 1, f.lrv[lo:hi], f.lrc[lo:hi], w, k)
	}
	for i := n - 1; i >= 0; i-- {
		c := f.colOf[i]
		lo, hi := f.urp[i], f.urp[i+1]
		dense.GatherRow(dst[c*k:(c+1)*k], w[i*k:(i+1)*k], 1/f.ud[i], f.urv[lo:hi], f.urc[lo:hi], dst, k)
	}
}

// rowStarts sets rp (length n+1, n = len(next)) to the row pointers of
// the entries whose rows are rows, and next[i] to the first free place of
// row i: the counting half of a transpose, whose caller then places each
// entry at next[r] (and advances it) in the order it wants.
func rowStarts(rp, next, rows []int) {
	clear(next)
	for _, r := range rows {
		next[r]++
	}
	rp[0] = 0
	for i := range next {
		rp[i+1] = rp[i] + next[i]
		next[i] = rp[i]
	}
}

// rowFactors brings the row copies of L and U up to date: their patterns
// after a fresh factorisation (a transpose, reusing the storage), their
// values after every factorisation. Allocates only when the factors
// outgrow every earlier one.
func (f *LU) rowFactors() {
	n := f.sym.n
	if !f.rowsPat {
		next := f.stack[:n]
		f.lrp = growInts(f.lrp, n+1)
		f.lrc, f.lrm = growInts(f.lrc, len(f.li)), growInts(f.lrm, len(f.li))
		rowStarts(f.lrp, next, f.li)
		for j := 0; j < n; j++ {
			for t := f.lp[j]; t < f.lp[j+1]; t++ {
				r := f.li[t]
				e := next[r]
				next[r]++
				f.lrc[e], f.lrm[e] = j, t
			}
		}
		f.urp = growInts(f.urp, n+1)
		f.urc, f.urm = growInts(f.urc, len(f.ui)), growInts(f.urm, len(f.ui))
		rowStarts(f.urp, next, f.ui)
		for j := n - 1; j >= 0; j-- {
			c := f.colOf[j]
			for t := f.up[j]; t < f.up[j+1]; t++ {
				r := f.ui[t]
				e := next[r]
				next[r]++
				f.urc[e], f.urm[e] = c, t
			}
		}
		f.rowsPat, f.rowsVal = true, false
	}
	if !f.rowsVal {
		f.lrv = growFloats(f.lrv, len(f.lrm))
		for e, t := range f.lrm {
			f.lrv[e] = -f.lx[t]
		}
		f.urv = growFloats(f.urv, len(f.urm))
		for e, t := range f.urm {
			f.urv[e] = -f.ux[t]
		}
		f.rowsVal = true
	}
}

// growInts returns s resized to n, reallocated only beyond its capacity.
func growInts(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// growFloats is growInts for float64.
func growFloats(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// axpy sets y += a x (len(x) = len(y)), skipping a = 0. The rows of a
// block of many right-hand sides take dense.Axpy's AVX2/FMA kernel (4.4
// times the scalar loop's speed on 317 columns).
func axpy(y, x []float64, a float64) {
	if a == 0 {
		return
	}
	dense.Axpy(y, x, a)
}
