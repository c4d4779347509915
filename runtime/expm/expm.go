// Package expm computes matrix exponentials by scaling and squaring with
// Padé approximants (N. J. Higham, "The scaling and squaring method for the
// matrix exponential revisited", SIAM J. Matrix Anal. Appl. 26(4), 2005):
// the Padé degree m in {3, 5, 7, 9, 13} and the number of squarings s are
// chosen from the 1-norm of the argument and the table of theta_m, so that
// the backward error is below the unit roundoff.
//
// Besides e^A it computes the pair needed by exponential integrators and by
// the exponential step of the Peano-Baker sensitivity methods,
//
//	E = e^{hA},   W = integral from 0 to h of e^{sA} ds  (= h phi1(hA)),
//
// without inverting A (so A may be singular, as Jacobians of reaction
// networks with conservation laws are). Mathematically this is the
// exponential of the augmented matrix h [[A, I], [0, 0]], whose top-right
// block is W; the block-triangular structure is exploited so that the cost
// is that of one n x n exponential plus one extra triangular solve and two
// n x n products per squaring, instead of a 2n x 2n exponential.
//
// # Kernels
//
// The dense products, LU factorizations and substitutions are those of
// runtime/internal/dense (MulAdd, FactorFull, SolveFull, shared with
// runtime/sens): on amd64 CPUs with AVX2 and FMA its assembly kernels,
// detected with CPUID at start-up; elsewhere, or built with the purego
// tag, gonum and plain loops. At the tens of rows of reaction-network Jacobians
// gonum's SSE2 loops are bound by loads and stores: the kernels keep
// blocks of a row of the result in registers over the inner dimension,
// two rows at a time (a 21 x 21 exponential at norm 1: 25 -> 8 us).
//
// # Layout and allocation
//
// Matrices are dense, row-major []float64 of length n*n. Outputs are the dst
// arguments and may not alias inputs. A Workspace owns all scratch space:
// after NewWorkspace no call allocates. A Workspace is not safe for
// concurrent use; use one per goroutine.
//
// Misuse (wrong lengths, aliasing outputs) panics with messages prefixed
// "expm: ". Non-finite input gives non-finite output; there is no error.
package expm

import (
	"math"

	"github.com/pbgen/pbgen/runtime/internal/dense"
)

// theta[m] is the largest 1-norm for which the degree-m Padé approximant of
// the exponential has backward error below 2^-53 (Higham 2005, Table 2.3).
var thetas = [...]struct {
	m     int
	theta float64
}{
	{3, 1.495585217958292e-2},
	{5, 2.539398330063230e-1},
	{7, 9.504178996162932e-1},
	{9, 2.097847961257068e0},
	{13, 5.371920351148152e0},
}

// Padé coefficients b_0..b_m of the diagonal [m/m] approximant.
var (
	b3  = [...]float64{120, 60, 12, 1}
	b5  = [...]float64{30240, 15120, 3360, 420, 30, 1}
	b7  = [...]float64{17297280, 8648640, 1995840, 277200, 25200, 1512, 56, 1}
	b9  = [...]float64{17643225600, 8821612800, 2075673600, 302702400, 30270240, 2162160, 110880, 3960, 90, 1}
	b13 = [...]float64{64764752532480000, 32382376266240000, 7771770303897600,
		1187353796428800, 129060195264000, 10559470521600, 670442572800,
		33522128640, 1323241920, 40840800, 960960, 16380, 182, 1}
)

// Workspace holds the scratch space for exponentials of n x n matrices.
type Workspace struct {
	n                      int
	y, y2, y4, y6          []float64
	u0, u, v, q, t1, e2buf []float64
	t2                     []float64
	piv                    []int

	// Last records how the most recent call was computed (for statistics
	// and tests).
	Last Info
}

// Info describes one exponential evaluation.
type Info struct {
	Degree    int     // Padé degree m
	Squarings int     // number of squarings s
	Norm      float64 // 1-norm that selected m and s
	// Converged is the number of squarings after which e^{tA} was found
	// to be a projector (steady state) and squaring stopped, or -1.
	Converged int
}

// NewWorkspace returns a workspace for n x n matrices.
func NewWorkspace(n int) *Workspace {
	if n < 0 {
		panic("expm: negative dimension")
	}
	mk := func() []float64 { return make([]float64, n*n) }
	return &Workspace{
		n: n, y: mk(), y2: mk(), y4: mk(), y6: mk(),
		u0: mk(), u: mk(), v: mk(), q: mk(), t1: mk(), e2buf: mk(), t2: mk(),
		piv: make([]int, n),
	}
}

// N is the dimension the workspace was made for.
func (w *Workspace) N() int { return w.n }

func (w *Workspace) check(bufs ...[]float64) {
	for _, b := range bufs {
		if len(b) != w.n*w.n {
			panic("expm: matrix length does not match workspace dimension")
		}
	}
}

// ExpTo writes e^a into dst. a is not modified; dst must not alias a.
func (w *Workspace) ExpTo(dst, a []float64) {
	w.check(dst, a)
	if w.n > 0 && &dst[0] == &a[0] {
		panic("expm: dst aliases a")
	}
	w.pade(dst, nil, nil, a, 1)
}

// ExpIntTo writes E = e^{hA} into e and W = integral_0^h e^{sA} ds into
// wint. It needs no inverse of A, so A may be singular. a is not modified.
// For h = 0, E = I and W = 0.
func (w *Workspace) ExpIntTo(e, wint, a []float64, h float64) {
	w.check(e, wint, a)
	if w.n > 0 && (&e[0] == &a[0] || &wint[0] == &a[0] || &e[0] == &wint[0]) {
		panic("expm: outputs alias each other or the input")
	}
	w.pade(e, wint, nil, a, h)
}

// ExpInt2To writes E = e^{hA} into e, W = integral_0^h e^{sA} ds
// (= h phi1(hA)) into wint and Psi = integral_0^h e^{(h-s)A} s ds
// (= h^2 phi2(hA)) into psi: the top row of the exponential of the 3n x 3n
// block matrix h[[A, I, 0], [0, 0, I], [0, 0, 0]]. Exponential integrators
// with a forcing that is linear in time need Psi: the solution of
// S' = A S + g0 + (s/h) g1 over [0, h] is E S(0) + W g0 + (Psi/h) g1. As
// ExpIntTo it needs no inverse of A. a is not modified; the outputs must
// not alias each other or a.
func (w *Workspace) ExpInt2To(e, wint, psi, a []float64, h float64) {
	w.check(e, wint, psi, a)
	if w.n > 0 && (&e[0] == &a[0] || &wint[0] == &a[0] || &psi[0] == &a[0] ||
		&e[0] == &wint[0] || &e[0] == &psi[0] || &wint[0] == &psi[0]) {
		panic("expm: outputs alias each other or the input")
	}
	w.pade(e, wint, psi, a, h)
}

// Norm1 returns the 1-norm (maximum absolute column sum) of the n x n
// row-major matrix a.
func Norm1(a []float64, n int) float64 {
	var mx float64
	for j := 0; j < n; j++ {
		var s float64
		for i := 0; i < n; i++ {
			s += math.Abs(a[i*n+j])
		}
		if s > mx || math.IsNaN(s) {
			mx = s
		}
	}
	return mx
}

// mul computes dst = alpha*a*b + beta*dst.
func (w *Workspace) mul(dst, a, b []float64, alpha, beta float64) {
	if w.n == 0 {
		return
	}
	dense.MulAdd(dst, a, b, w.n, w.n, w.n, alpha, beta)
}

// pade is the common core (wint, psi nil when not wanted). For wint, the
// argument is X = h[[A, I],[0, 0]]:
// its powers are X^k = h^k [[A^k, A^{k-1}/h... ]], so with Y = hA/2^s and
// c = h/2^s the scaled Padé approximant r(X/2^s) = Q^{-1}P has top-left
// block (V-U)^{-1}(V+U) and top-right block (V-U)^{-1} 2c U0, where
// P(Y) = V + U, U = Y U0 is the odd part and V the even part. Squaring
// [[E, W], [0, I]] gives [[E^2, (E+I)W], [0, I]].
//
// For psi the argument is X = h[[A, I, 0],[0, 0, I],[0, 0, 0]], whose powers
// have top row h^k [A^k, A^{k-1}, A^{k-2}] and zero middle row for k >= 2.
// Inverting the block-triangular Q = V - U gives the top-right block
// Q11^{-1} (P13 - Q13 - 2 (b1 c / b0) Q12); with b1/b0 = 1/2 for every
// diagonal Padé approximant this is c^2 Q11^{-1} (Y T + U0) with the even
// polynomial T = sum_{j>=1} (2 b_{2j+1} - b_{2j}) Y^{2j-2}. Squaring uses
// Psi(2t) = E(t) Psi(t) + Psi(t) + t W(t).
func (w *Workspace) pade(e, wint, psi, a []float64, h float64) {
	phi := wint != nil
	n := w.n
	if n == 0 {
		return
	}
	nrm := math.Abs(h) * Norm1(a, n)
	if phi && math.Abs(h) > nrm {
		nrm = math.Abs(h) // the identity block of the augmented matrix
	}
	m, s := 13, 0
	found := false
	for _, t := range thetas[:4] {
		if nrm <= t.theta {
			m, found = t.m, true
			break
		}
	}
	if !found {
		if nrm > thetas[4].theta {
			s = int(math.Ceil(math.Log2(nrm / thetas[4].theta)))
			if s < 0 || math.IsNaN(nrm) || math.IsInf(nrm, 0) {
				s = 0
			}
		}
	}
	w.Last = Info{Degree: m, Squarings: s, Norm: nrm}
	sc := math.Ldexp(h, -s)
	y := w.y
	for i, v := range a {
		y[i] = sc * v
	}
	u0, u, v := w.u0, w.u, w.v
	tp := w.t2 // T of the psi block
	clear(u0)
	clear(v)
	if psi != nil {
		clear(tp)
	}
	w.mul(w.y2, y, y, 1, 0)
	switch m {
	case 3, 5, 7, 9:
		var b []float64
		switch m {
		case 3:
			b = b3[:]
		case 5:
			b = b5[:]
		case 7:
			b = b7[:]
		default:
			b = b9[:]
		}
		// Even powers Y^0, Y^2, ..., Y^{m-1}; U0 = sum b_{2k+1} Y^{2k},
		// V = sum b_{2k} Y^{2k}.
		pw := w.y4 // current power
		prev := w.y6
		for i := 0; i < n; i++ {
			u0[i*n+i] = b[1]
			v[i*n+i] = b[0]
		}
		if psi != nil {
			for i := 0; i < n; i++ {
				tp[i*n+i] = 2*b[3] - b[2]
			}
		}
		copy(pw, w.y2)
		for k := 1; 2*k <= m-1; k++ {
			if k > 1 {
				prev, pw = pw, prev
				w.mul(pw, prev, w.y2, 1, 0)
			}
			ba, bb := b[2*k+1], b[2*k]
			for i, x := range pw {
				u0[i] += ba * x
				v[i] += bb * x
			}
			if psi != nil && 2*k+3 <= m {
				c := 2*b[2*k+3] - b[2*k+2]
				for i, x := range pw {
					tp[i] += c * x
				}
			}
		}
	case 13:
		b := b13[:]
		y2, y4, y6 := w.y2, w.y4, w.y6
		w.mul(y4, y2, y2, 1, 0)
		w.mul(y6, y4, y2, 1, 0)
		t1 := w.t1
		for i := range t1 {
			t1[i] = b[13]*y6[i] + b[11]*y4[i] + b[9]*y2[i]
			u0[i] = b[7]*y6[i] + b[5]*y4[i] + b[3]*y2[i]
		}
		for i := 0; i < n; i++ {
			u0[i*n+i] += b[1]
		}
		w.mul(u0, y6, t1, 1, 1)
		for i := range t1 {
			t1[i] = b[12]*y6[i] + b[10]*y4[i] + b[8]*y2[i]
			v[i] = b[6]*y6[i] + b[4]*y4[i] + b[2]*y2[i]
		}
		for i := 0; i < n; i++ {
			v[i*n+i] += b[0]
		}
		w.mul(v, y6, t1, 1, 1)
		if psi != nil {
			// T = Y4 (c4 Y2 + c5 Y4 + c6 Y6) + c3 Y4 + c2 Y2 + c1 I,
			// c_j = 2 b_{2j+1} - b_{2j}.
			c := func(j int) float64 { return 2*b[2*j+1] - b[2*j] }
			for i := range t1 {
				t1[i] = c(4)*y2[i] + c(5)*y4[i] + c(6)*y6[i]
				tp[i] = c(3)*y4[i] + c(2)*y2[i]
			}
			for i := 0; i < n; i++ {
				tp[i*n+i] += c(1)
			}
			w.mul(tp, y4, t1, 1, 1)
		}
	}
	w.mul(u, y, u0, 1, 0)
	q := w.q
	for i := range q {
		q[i] = v[i] - u[i]
		e[i] = v[i] + u[i]
	}
	dense.FactorFull(q, w.piv, n)
	dense.SolveFull(q, w.piv, n, e, n)
	if phi {
		for i, x := range u0 {
			wint[i] = 2 * sc * x
		}
		dense.SolveFull(q, w.piv, n, wint, n)
	}
	if psi != nil {
		// Psi = c^2 Q^{-1} (Y T + U0).
		copy(psi, u0)
		w.mul(psi, y, tp, 1, 1)
		for i := range psi {
			psi[i] *= sc * sc
		}
		dense.SolveFull(q, w.piv, n, psi, n)
	}
	w.Last.Converged = -1
	for r := s; r > 0; r-- {
		e2 := w.e2buf
		w.mul(e2, e, e, 1, 0)
		if idempotent(e2, e, s-r) {
			// E = e^{tau A} has converged to the spectral projector P onto
			// the null space of A (all other modes decayed below rounding):
			// further squarings leave E unchanged and, since P e^{sA} = P,
			// each doubles W as W(2t) = W(t) + t P. Summing the remaining
			// r doublings: W(h) = W(tau) + (h - tau) P. Stopping here saves
			// the work and the 2^r growth of rounding error in the
			// conserved modes.
			w.Last.Converged = s - r
			// Likewise Psi(h) = Psi(tau) + (h - tau) W(tau) + (h - tau)^2/2 P.
			tau := math.Ldexp(h, -r)
			c := h - tau
			if psi != nil {
				for i, x := range e {
					psi[i] += c*wint[i] + 0.5*c*c*x
				}
			}
			if phi {
				for i, x := range e {
					wint[i] += c * x
				}
			}
			return
		}
		if psi != nil {
			// Psi <- Psi + E Psi + t W, t = the current step before doubling.
			tau := math.Ldexp(h, -r)
			copy(w.t1, psi)
			for i, x := range wint {
				psi[i] += tau * x
			}
			w.mul(psi, e, w.t1, 1, 1)
		}
		if phi {
			// W <- W + E W
			w.mul(wint, e, wint2(w, wint), 1, 1)
		}
		copy(e, e2)
	}
}

// idempotent reports whether e2 = e*e equals e to the rounding error that
// k squarings have accumulated (each doubles it), that is e is a projector.
// Stopping at that level is as accurate as squaring on: a slow mode whose
// decay is below that level would be swamped by the same rounding error.
func idempotent(e2, e []float64, k int) bool {
	// Comparisons instead of math.Max (this runs after every squaring); a
	// NaN difference sticks in d.
	var mx, d float64
	e2 = e2[:len(e)]
	for i, x := range e {
		if ax := math.Abs(x); ax > mx {
			mx = ax
		}
		if dd := math.Abs(e2[i] - x); dd > d || dd != dd {
			d = dd
		}
	}
	return d <= math.Ldexp(16*0x1p-52, k)*math.Max(mx, 1e-300) && !math.IsNaN(d)
}

// wint2 copies wint into scratch so that W + E W can be formed by one Gemm
// with beta = 1 without aliasing its operands.
func wint2(w *Workspace, wint []float64) []float64 {
	copy(w.t1, wint)
	return w.t1
}
