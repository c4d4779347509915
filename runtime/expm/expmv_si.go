package expm

import (
	"errors"
	"math"

	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// StiffAction computes what Action.PhiTo computes,
//
//	e^{tA} B + t phi1(tA) G0 + t^2 phi2(tA) G1,
//
// by the shift-and-invert (restricted-denominator) Krylov method of
// J. van den Eshof and M. Hochbruck, "Preconditioning Lanczos
// approximations to the matrix exponential", SIAM J. Sci. Comput. 27(4),
// 2006 (in Arnoldi form, for non-symmetric A): the Krylov space of
// Z = (I - gamma A)^{-1}, built with the sparse LU of runtime/sparse, and
// e^{tA} v ~ beta V_m e^{(t/gamma)(I - H_m^{-1})} e_1 with H_m = V_m^T Z V_m.
// Its number of LU solves does not grow with ||tA|| on matrices whose
// eigenvalues lie near the negative real axis, as those of stiff reaction
// networks do, where the Taylor action needs about ||tA||_1/5 products
// (TestShiftInvertDimension: 14 to 50 solves at ||tA||_1 = 10 to 1e4,
// against 32 to 11351 products). It is the method for stiff steps; for
// ||tA||_1 up to about 1e3 the Taylor action is cheaper.
//
// The phi functions use, column by column, the augmented operator
// Ã_c = [[A, g1_c, g0_c], [0, 0, 1], [0, 0, 0]] on R^{n+2}, whose
// exponential applied to [b_c; 0; 1] has top block the wanted column (the
// Theorem 2.1 of Al-Mohy and Higham used by Action, one column at a time).
// (I - gamma Ã_c)^{-1} needs only the LU of I - gamma A: for [x; a; b]
// it is [(I - gamma A)^{-1}(x + gamma (a' g1_c + b g0_c)); a'; b] with
// a' = a + gamma b. The k columns advance in lock step so that each step
// is one LU solve with k right-hand sides.
//
// gamma is t/10 (TestShiftInvertDimension: t/5 to t/20 differ by a few
// steps). Convergence is declared when two consecutive approximations
// differ by less than Tol relative to their norm.
type StiffAction struct {
	// Tol is the relative change between consecutive Krylov
	// approximations at which a column has converged (also accepted: a
	// change that has stopped halving below 10 Tol, the rounding floor).
	// Zero means 1e-11, which gave errors of 1e-13 to 1e-12 against the
	// dense exponential up to ||tA||_1 = 1e3 and up to 3.4e-11 beyond
	// (TestStiffActionAgainstDense). The tolerance is raised to the
	// rounding floor 4 u t ||A||_1 when that is larger.
	Tol float64

	n, k, mmax int
	shifted    *sparse.Shifted
	m          *sparse.CSR
	lu         *sparse.LU

	// Basis vectors j = 0..mmax: the n x k block (column c is vector j
	// of column c's basis) and the two augmented entries per column.
	vx     [][]float64
	va, vb [][]float64
	h      [][]float64 // per column, (mmax+1) x mmax Hessenberg, row-major
	beta   []float64
	done   []bool
	y      [][]float64 // per column, the last approximation's coefficients
	prev   []float64   // per column, the last relative change
	dots   []float64   // per column, scratch
	rhs    []float64   // n x k
	ga, gb []float64   // per column: a' and b of the current step
	g0, g1 []float64   // n x k copies (dst may alias)
	// Small dense work for the projected exponential.
	ws     []*Workspace // one per stiffChecks entry
	hm, hi []float64
	ex     []float64
	piv    []int

	// Last describes the most recent call.
	Last StiffInfo
}

// StiffInfo describes one evaluation.
type StiffInfo struct {
	Steps   int     // Krylov steps (LU solves with k right-hand sides)
	Gamma   float64 // the shift
	Refacts int     // LU refactorisations
}

// ErrNoConvergence is returned when the Krylov approximation has not
// settled within the maximum dimension.
var ErrNoConvergence = errors.New("expm: shift-and-invert Krylov did not converge")

// stiffChecks are the dimensions at which convergence is tested (each
// needs a small dense exponential, so not every step).
var stiffChecks = [...]int{4, 6, 9, 12, 16, 20, 25, 31, 38, 46, 55, 66, 80}

// NewStiffAction returns a StiffAction for matrices with the square
// pattern pat and blocks of k columns. The LU's analysis is done here,
// once.
func NewStiffAction(pat *model.Pattern, k int) *StiffAction {
	n := pat.Rows
	mmax := stiffChecks[len(stiffChecks)-1]
	s := &StiffAction{n: n, k: k, mmax: mmax}
	s.shifted = sparse.NewShifted(pat)
	s.m = sparse.New(s.shifted.Pat)
	s.lu = sparse.NewLU(sparse.Analyze(s.shifted.Pat, sparse.OrderAMD))
	// At large gamma, I - gamma A is dominated by the singular -gamma A
	// and loses diagonal dominance: with the LU's default threshold 0.1,
	// 628 of the 969 pivots of the grid network at ||tA||_1 = 1e4 left the
	// diagonal and the factors grew from 12027 to 82109 entries; at 0.01
	// none did, at the same error (2.4e-12 against 3.2e-12).
	s.lu.PivotTol = 0.01
	for j := 0; j <= mmax; j++ {
		s.vx = append(s.vx, make([]float64, n*k))
		s.va = append(s.va, make([]float64, k))
		s.vb = append(s.vb, make([]float64, k))
	}
	for c := 0; c < k; c++ {
		s.h = append(s.h, make([]float64, (mmax+1)*mmax))
		s.y = append(s.y, make([]float64, mmax))
	}
	s.beta = make([]float64, k)
	s.prev = make([]float64, k)
	s.dots = make([]float64, k)
	s.done = make([]bool, k)
	s.rhs = make([]float64, n*k)
	s.ga, s.gb = make([]float64, k), make([]float64, k)
	s.g0, s.g1 = make([]float64, n*k), make([]float64, n*k)
	for _, m := range stiffChecks {
		s.ws = append(s.ws, NewWorkspace(m))
	}
	s.hm = make([]float64, mmax*mmax)
	s.hi = make([]float64, mmax*mmax)
	s.ex = make([]float64, mmax*mmax)
	s.piv = make([]int, mmax)
	return s
}

// PhiTo writes e^{tA} B + t phi1(tA) G0 + t^2 phi2(tA) G1 into dst (any of
// b, g0, g1 may be nil for zero; dst may alias them). a's pattern must be
// the one the StiffAction was made for. It returns a *sparse.SingularError
// if I - gamma A cannot be factorised, ErrNoConvergence if the Krylov
// space reaches its maximum dimension first; dst is then not written.
func (s *StiffAction) PhiTo(dst []float64, a *sparse.CSR, t float64, b, g0, g1 []float64) error {
	n, k := s.n, s.k
	if a.Pat.Rows != n || len(dst) != n*k {
		panic("expm: StiffAction dimension mismatch")
	}
	for _, v := range [][]float64{b, g0, g1} {
		if v != nil && len(v) != n*k {
			panic("expm: StiffAction block length mismatch")
		}
	}
	s.Last = StiffInfo{}
	if t == 0 || n == 0 || k == 0 {
		if b != nil {
			copy(dst, b)
		} else {
			clear(dst)
		}
		return nil
	}
	tol := s.Tol
	if tol <= 0 {
		tol = 1e-11
	}
	// The projected matrix (t/gamma)(I - H_m^{-1}) has a norm of about
	// ||tA||, so its dense exponential carries errors of about u ||tA||:
	// asking for less than a few times that cannot succeed.
	if floor := 4 * 0x1p-53 * math.Abs(t) * colSumMax(a, 0, s.rhs); floor > tol {
		tol = floor
	}
	gamma := t / 10
	s.Last.Gamma = gamma
	s.shifted.Fill(s.m, 1, -gamma, a.Val)
	if err := s.lu.Refactor(s.m); err != nil {
		return err
	}
	s.Last.Refacts = 1
	// The augmented coordinates are scaled, b = gamma beta: the operator
	// becomes [[A, g1, g0/gamma], [0, 0, 1/gamma], [0, 0, 0]] with the
	// start [b_c; 0; gamma], so that the Jordan block of Z in the two
	// augmented coordinates is [[1, 1], [0, 1]] instead of
	// [[1, gamma], [0, 1]], whose non-normality at large t (gamma in the
	// hundreds) threw the Ritz values off. (I - gamma Ã)^{-1} [x; a; b] is
	// then [(I - gamma A)^{-1}(x + gamma a' g1 + b g0); a'; b], a' = a + b.
	// Copies of the forcing (dst may alias it) and the first basis vector.
	copyOrZero(s.g0, g0)
	copyOrZero(s.g1, g1)
	copyOrZero(s.vx[0], b)
	for c := 0; c < k; c++ {
		s.va[0][c], s.vb[0][c] = 0, gamma
		nb := s.colDot(0, 0, c)
		s.beta[c] = math.Sqrt(nb)
		s.scaleCol(0, c, 1/s.beta[c])
		s.done[c] = false
		clear(s.h[c])
		clear(s.y[c])
		s.prev[c] = math.Inf(1)
	}
	check := 0
	for j := 0; j < s.mmax; j++ {
		s.Last.Steps++
		// rhs = x + gamma a' g1 + b g0, a' = a + b, per column (in the
		// scaled coordinates, see PhiTo's comment).
		x := s.vx[j]
		for c := 0; c < k; c++ {
			s.gb[c] = s.vb[j][c]
			s.ga[c] = s.va[j][c] + s.gb[c]
		}
		for i := 0; i < n; i++ {
			for c := 0; c < k; c++ {
				q := i*k + c
				s.rhs[q] = x[q] + gamma*s.ga[c]*s.g1[q] + s.gb[c]*s.g0[q]
			}
		}
		s.lu.SolveTo(s.vx[j+1], s.rhs, k)
		copy(s.va[j+1], s.ga)
		copy(s.vb[j+1], s.gb)
		// Modified Gram-Schmidt, all columns at once (one pass over the
		// rows of the block per basis vector, instead of k strided
		// passes), twice (Giraud, Langou and Rozloznik: "twice is
		// enough"): with a single pass the basis lost orthogonality once
		// the approximation had converged to a few digits, and the
		// projected exponential then settled on a wrong value.
		for c := 0; c < k; c++ {
			if s.done[c] {
				// Keep a finished column's further vectors at zero, so
				// that they neither grow nor enter the result.
				s.scaleCol(j+1, c, 0)
			}
		}
		d := s.dots
		for pass := 0; pass < 2; pass++ {
			for i := 0; i <= j; i++ {
				s.blockDots(d, j+1, i)
				for c := 0; c < k; c++ {
					if s.done[c] {
						d[c] = 0
						continue
					}
					s.h[c][i*s.mmax+j] += d[c]
					d[c] = -d[c]
				}
				s.blockAxpy(j+1, i, d)
			}
		}
		s.blockDots(d, j+1, j+1)
		for c := 0; c < k; c++ {
			if s.done[c] {
				continue
			}
			nv := math.Sqrt(d[c])
			s.h[c][(j+1)*s.mmax+j] = nv
			if nv > 0 {
				s.scaleCol(j+1, c, 1/nv)
			}
		}
		m := j + 1
		if check < len(stiffChecks) && m == stiffChecks[check] {
			check++
			all := true
			for c := 0; c < k; c++ {
				if s.done[c] {
					continue
				}
				if !s.converged(c, m, s.ws[check-1], t, gamma, tol) {
					all = false
				} else {
					s.done[c] = true
				}
			}
			if all {
				s.result(dst, m)
				return nil
			}
		}
	}
	return ErrNoConvergence
}

// converged computes column c's coefficients y = beta e^{(t/gamma)(I -
// H_m^{-1})} e_1 for dimension m and compares them with the previous
// check's (stored in s.y[c], which it then replaces).
func (s *StiffAction) converged(c, m int, ws *Workspace, t, gamma, tol float64) bool {
	mm := s.mmax
	hm, hi := s.hm[:m*m], s.hi[:m*m]
	for r := 0; r < m; r++ {
		for q := 0; q < m; q++ {
			hm[r*m+q] = s.h[c][r*mm+q]
		}
	}
	clear(hi)
	for i := 0; i < m; i++ {
		hi[i*m+i] = 1
	}
	dense.FactorFull(hm, s.piv[:m], m)
	dense.SolveFull(hm, s.piv[:m], m, hi, m)
	sc := t / gamma
	for i := range hi {
		hi[i] *= -sc
	}
	for i := 0; i < m; i++ {
		hi[i*m+i] += sc
	}
	ex := s.ex[:m*m]
	ws.ExpTo(ex, hi)
	y := s.y[c]
	var diff, norm float64
	for i := 0; i < m; i++ {
		v := s.beta[c] * ex[i*m]
		if v-v != 0 {
			return false
		}
		d := v
		if i < len(y) {
			d -= y[i]
		}
		diff += d * d
		norm += v * v
		y[i] = v
	}
	for i := m; i < len(y); i++ {
		y[i] = 0
	}
	rel := math.Sqrt(diff / norm)
	prev := s.prev[c]
	s.prev[c] = rel
	// Converged, or stagnating at the level of rounding (the change no
	// longer halves, within ten times the tolerance): more steps
	// would not improve the approximation.
	return rel <= tol || (rel <= 10*tol && rel > prev/2)
}

// result writes V_m y for every column (the state part of the basis; the
// coefficients of converged columns were kept from their check).
func (s *StiffAction) result(dst []float64, m int) {
	n, k := s.n, s.k
	clear(dst)
	for j := 0; j < m; j++ {
		vx := s.vx[j]
		for i := 0; i < n; i++ {
			for c := 0; c < k; c++ {
				dst[i*k+c] += s.y[c][j] * vx[i*k+c]
			}
		}
	}
}

// colDot is the inner product of basis vectors i and j of column c
// (state part and the two augmented entries).
func (s *StiffAction) colDot(i, j, c int) float64 {
	k := s.k
	xi, xj := s.vx[i], s.vx[j]
	d := s.va[i][c]*s.va[j][c] + s.vb[i][c]*s.vb[j][c]
	for r := c; r < len(xi); r += k {
		d += xi[r] * xj[r]
	}
	return d
}

// blockDots sets d[c] to the inner product of basis vectors i and j of
// every column c.
func (s *StiffAction) blockDots(d []float64, i, j int) {
	k := s.k
	d = d[:k]
	for c := range d {
		d[c] = s.va[i][c]*s.va[j][c] + s.vb[i][c]*s.vb[j][c]
	}
	xi, xj := s.vx[i], s.vx[j]
	for r := 0; r+k <= len(xi); r += k {
		a, b := xi[r:r+k], xj[r:r+k]
		for c, v := range a {
			d[c] += v * b[c]
		}
	}
}

// blockAxpy sets vector i of every column c += f[c] * vector j.
func (s *StiffAction) blockAxpy(i, j int, f []float64) {
	k := s.k
	f = f[:k]
	xi, xj := s.vx[i], s.vx[j]
	for r := 0; r+k <= len(xi); r += k {
		a, b := xi[r:r+k], xj[r:r+k]
		for c, v := range b {
			a[c] += f[c] * v
		}
	}
	for c, fc := range f {
		s.va[i][c] += fc * s.va[j][c]
		s.vb[i][c] += fc * s.vb[j][c]
	}
}

func (s *StiffAction) scaleCol(i, c int, f float64) {
	k := s.k
	x := s.vx[i]
	for r := c; r < len(x); r += k {
		x[r] *= f
	}
	s.va[i][c] *= f
	s.vb[i][c] *= f
}

func copyOrZero(dst, src []float64) {
	if src == nil {
		clear(dst)
	} else {
		copy(dst, src)
	}
}
