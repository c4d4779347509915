package expm

import (
	"math"

	"github.com/pbgen/pbgen/runtime/sparse"
)

// This file computes the action of the exponential of a sparse matrix on
// a block of vectors, e^{tA} B, and the combination with the phi functions
// that exponential integrators need, without forming e^{tA}: the cost is
// a number of sparse block products, each proportional to nnz(A) times the
// number of columns, instead of the O(n^3) of the dense Padé method.
//
// The method is that of A. H. Al-Mohy and N. J. Higham, "Computing the
// action of the matrix exponential, with an application to exponential
// integrators", SIAM J. Sci. Comput. 33(2), 2011 (their Algorithm 3.2 with
// the parameter selection of their Section 3): e^{tA} B is
// (T_m(tA/s))^s B with the truncated Taylor series T_m, where the degree m
// and the number of steps s minimise the number of products m*s subject
// to the backward error bound theta_m of Taylor's series, judged from
// alpha_p = max(||A^p||^(1/p), ||A^(p+1)||^(1/(p+1))) rather than ||A||
// (much smaller for the non-normal Jacobians of reaction networks). The
// powers' norms come from the block 1-norm estimator of N. J. Higham and
// F. Tisseur (SIAM J. Matrix Anal. Appl. 21(4), 2000) with two columns,
// only when ||tA||_1 is large enough for the estimate to pay. The matrix
// is shifted by mu = trace(A)/n when that lowers its 1-norm, and the
// factor e^{t mu} is applied a piece at a time (e^{t mu/s} per step) so
// that neither it nor the shifted exponential overflows. Each step stops
// adding Taylor terms once two consecutive terms are negligible.
//
// The phi functions come from the same algorithm applied to an augmented
// matrix (Al-Mohy and Higham's Theorem 2.1, in the form of J. Niesen and
// W. M. Wright, ACM TOMS 38(3), 2012): for a block of k columns,
//
//	Ã = [[A, G1, G0], [0, 0, I_k], [0, 0, 0]]   ((n+2k) x (n+2k)),
//
// e^{tÃ} applied to [B; 0; I_k] has top block
// e^{tA} B + t phi1(tA) G0 + t^2 phi2(tA) G1, the solution at t of
// X' = A X + G0 + s G1, X(0) = B. The two lower blocks stay multiples of
// I_k under every product, so they are carried as two scalars and a
// product with Ã costs one sparse product plus two n x k updates. G0 and
// G1 are scaled by a power of two so that their norm does not exceed
// A's, which keeps them from inflating the number of steps (the scaling
// is undone exactly through the scalars). The norms of the powers of Ã
// are A's (estimated) and, for the 2k augmented columns, exact ones from
// one sparse product with 2k columns per power (normPows): estimating
// with vectors that carry the dense G blocks cost ten times more.

// thetaTaylor[m] is the largest ||X||_1 (in the sense of alpha_p) for
// which the degree-m Taylor polynomial T_m(X) = e^{X + dX} with
// ||dX|| <= 2^-53 ||X||: the root of h~_{m+1}(theta)/theta = 2^-53, with
// h~ the series of log(e^{-x} T_m(x)) with its coefficients made
// non-negative (Al-Mohy and Higham, Section 3, Table 3.1).
// TestThetaTaylor recomputes them in 512-bit arithmetic.
var thetaTaylor = [...]struct {
	m     int
	theta float64
}{
	{1, 2.220446049250311e-16}, {2, 2.580956802971766e-08}, {3, 1.386347866119121e-05},
	{4, 3.397168839976962e-04}, {5, 2.400876357887274e-03}, {6, 9.065656407595100e-03},
	{7, 2.384455532500273e-02}, {8, 4.991228871115324e-02}, {9, 8.957760203223344e-02},
	{10, 1.441829761614378e-01}, {11, 2.142358068451710e-01}, {12, 2.996158913811581e-01},
	{13, 3.997775336316794e-01}, {14, 5.139146936124293e-01}, {15, 6.410835233041198e-01},
	{16, 7.802874256626573e-01}, {17, 9.305328460786567e-01}, {18, 1.090863719290036e+00},
	{19, 1.260381060642639e+00}, {20, 1.438252596804337e+00}, {21, 1.623715950235821e+00},
	{22, 1.816077816215085e+00}, {23, 2.014710780944616e+00}, {24, 2.219048869365090e+00},
	{25, 2.428582524442826e+00}, {26, 2.642853457459435e+00}, {27, 2.861449633934264e+00},
	{28, 3.084000544989161e+00}, {29, 3.310172839890270e+00}, {30, 3.539666348743689e+00},
	{35, 4.728347345793538e+00}, {40, 5.968802630041847e+00}, {45, 7.245068429597950e+00},
	{50, 8.546902045684931e+00}, {55, 9.867496675753399e+00},
}

const (
	taylorMMax = 55
	taylorPMax = 8
	normIters  = 3 // rounds of the norm estimator
)

// Action computes e^{tA} B and phi-function combinations for sparse n x n
// matrices A and n x k blocks B (row-major, row i = state i, the layout of
// S). It owns all its scratch space: after the first call no call
// allocates. An Action is not safe for concurrent use.
type Action struct {
	n, k int

	x, f, y []float64 // n x k: the current term, the sum, a product

	// The augmented part for the phi functions: G0, G1 (scaled by rho)
	// and the scalars of the current term and the sum.
	g0, g1 []float64
	rho    float64
	aug    bool

	// Norm estimation on vectors of the operator's dimension n (+2k).
	est     [4][]float64 // two columns and their images
	tmp     []float64
	hbuf    []float64
	visited []bool
	tr      [2][]float64 // n x 2k: the top-right blocks of the powers

	// ReuseEstimates is the number of calls that one estimate of the
	// powers' norms serves (0 and 1: every call that needs one makes its
	// own, as in Al-Mohy and Higham's algorithm). Later calls take the
	// estimate's alpha_p scaled by the ratio of their exact
	// ||t(Ã - mu I)||_1 to the estimated call's, while that ratio stays
	// within [1/2, 2]. For a sequence of calls whose matrices and steps
	// change little from one to the next, as the steps of an integrator
	// along a trajectory: the estimate costs about 40 products with k
	// columns where a step takes about 30.
	ReuseEstimates int
	est0           estimateCache

	// Last describes the most recent call.
	Last ActionInfo
}

// estimateCache is the last estimate of the powers' norms: alpha[p] for
// p = 2..pmax (Al-Mohy and Higham's alpha_p) of the operator whose exact
// 1-norm was nrm, the augmented one (aug) or not, and the calls it has
// served.
type estimateCache struct {
	alpha [taylorPMax + 1]float64
	nrm   float64
	aug   bool
	uses  int
}

// ActionInfo describes one evaluation.
type ActionInfo struct {
	M, S      int     // Taylor degree and number of steps
	Shift     float64 // mu (0 when the shift did not lower the norm)
	Norm      float64 // ||t(A - mu I)||_1 of the (augmented) operator
	Estimated bool    // whether the powers' norms were estimated
	Reused    bool    // whether an earlier call's estimate was reused (ReuseEstimates)
	Products  int     // block products with A in the Taylor steps
}

// NewAction returns an Action for n x n matrices and blocks of k columns.
func NewAction(n, k int) *Action {
	if n < 0 || k < 0 {
		panic("expm: negative dimension")
	}
	N := n + 2*k
	w := &Action{
		n: n, k: k,
		x: make([]float64, n*k), f: make([]float64, n*k), y: make([]float64, n*k),
		g0: make([]float64, n*k), g1: make([]float64, n*k),
		tmp: make([]float64, N), hbuf: make([]float64, N), visited: make([]bool, N),
	}
	for i := range w.est {
		w.est[i] = make([]float64, n)
	}
	w.tr[0], w.tr[1] = make([]float64, 2*n*k), make([]float64, 2*n*k)
	return w
}

// ExpTo writes e^{tA} B into dst, for the sparse n x n A and the row-major
// n x k block b. dst may be b; a and b are not modified. Non-finite input
// gives non-finite output.
func (w *Action) ExpTo(dst []float64, a *sparse.CSR, t float64, b []float64) {
	w.check(a, dst, b)
	w.aug = false
	w.run(dst, a, t, b)
}

// PhiTo writes e^{tA} B + t phi1(tA) G0 + t^2 phi2(tA) G1 into dst: the
// solution at time t of X' = A X + G0 + s G1, X(0) = B, which is what an
// exponential step with a forcing linear in time needs (phi1(z) =
// (e^z - 1)/z, phi2(z) = (e^z - 1 - z)/z^2; no inverse of A is formed,
// so A may be singular). Any of b, g0, g1 may be nil for zero. dst may
// alias b, g0 or g1; the inputs are not modified.
func (w *Action) PhiTo(dst []float64, a *sparse.CSR, t float64, b, g0, g1 []float64) {
	w.check(a, dst, b, g0, g1)
	var gmax float64
	for _, g := range [][]float64{g0, g1} {
		if g != nil {
			gmax = math.Max(gmax, colNorm1Max(g, w.n, w.k))
		}
	}
	if gmax == 0 {
		w.aug = false
		w.run(dst, a, t, b)
		return
	}
	w.aug = true
	// rho: G scaled down to A's norm (a power of two: exact).
	anorm := colSumMax(a, 0, w.tmp)
	w.rho = 1
	if anorm > 0 && gmax > anorm {
		w.rho = math.Ldexp(1, -int(math.Ceil(math.Log2(gmax/anorm))))
	}
	for i := range w.g0 {
		v0, v1 := 0.0, 0.0
		if g0 != nil {
			v0 = g0[i]
		}
		if g1 != nil {
			v1 = g1[i]
		}
		w.g0[i], w.g1[i] = w.rho*v0, w.rho*v1
	}
	w.run(dst, a, t, b)
}

func (w *Action) check(a *sparse.CSR, bufs ...[]float64) {
	if a.Pat.Rows != w.n || a.Pat.Cols != w.n || len(a.Val) != a.Pat.NNZ() {
		panic("expm: matrix does not match the Action's dimension")
	}
	for i, b := range bufs {
		if (i == 0 || b != nil) && len(b) != w.n*w.k {
			panic("expm: block length does not match the Action's dimensions")
		}
	}
}

// run is Algorithm 3.2 on the (possibly augmented) operator.
func (w *Action) run(dst []float64, a *sparse.CSR, t float64, b []float64) {
	n, k := w.n, w.k
	// The term X and the sum F: the top blocks in x and f, the scalars of
	// the augmented blocks (alpha I_k, beta I_k) in xa, xb, fa, fb.
	if b != nil {
		copy(w.f, b)
	} else {
		clear(w.f)
	}
	var fa, fb float64
	if w.aug {
		fb = 1 / w.rho
	}
	if n == 0 || k == 0 {
		copy(dst, w.f)
		w.Last = ActionInfo{}
		return
	}
	// The shift, kept only if it lowers the 1-norm.
	mu := a.Trace() / float64(n)
	nrm := math.Abs(t) * w.opNorm1(a, 0)
	if mu != 0 {
		if ns := math.Abs(t) * w.opNorm1(a, mu); ns < nrm {
			nrm = ns
		} else {
			mu = 0
		}
	}
	w.Last = ActionInfo{Shift: mu, Norm: nrm}
	m, s := w.selectDegree(a, t, mu, nrm)
	w.Last.M, w.Last.S = m, s
	if nrm != nrm || math.IsInf(nrm, 0) {
		// Non-finite input: propagate rather than loop.
		for i := range dst {
			dst[i] = math.NaN()
		}
		return
	}
	eta := math.Exp(t * mu / float64(s))
	const tol = 0x1p-53
	for st := 0; st < s; st++ {
		copy(w.x, w.f)
		xa, xb := fa, fb
		c1 := blockNormInf(w.x, n, k, xa, xb)
		for j := 1; j <= m; j++ {
			c := t / float64(s*j)
			var c2, nf float64
			xa, xb, c2, nf = w.nextTerm(a, mu, c, xa, xb, fa, fb)
			w.Last.Products++
			fa += xa
			fb += xb
			if c1+c2 <= tol*nf {
				break
			}
			c1 = c2
		}
		if eta != 1 {
			for i := range w.f {
				w.f[i] *= eta
			}
			fa *= eta
			fb *= eta
		}
	}
	copy(dst, w.f)
}

// nextTerm replaces the term (x, xa, xb) by c (Ã - mu I) applied to it,
// adds it to the sum f (whose scalars are fa, fb before and fa + na,
// fb + nb after), and returns the new term's scalars na, nb with the
// infinity norms (blockNormInf) of the new term and of the new sum: the
// truncation test needs both after every product. It is one pass over
// the rows: each row of the product is finished four columns at a time
// in registers (as sparse.CSR.MulShiftedBlockTo), then scaled, stored,
// added to f and measured while in registers. Against three passes over
// the n x k blocks (the product, the scaling with the augmented blocks,
// the sum) it cut the CPU time of runtime/sens's sparse PBSR solves on
// scalenet chains (k = 20) by 14% at n = 198 and 9 to 17% at 999. The new
// term is written to y, which then becomes x.
func (w *Action) nextTerm(a *sparse.CSR, mu, c, xa, xb, fa, fb float64) (na, nb, nt, nf float64) {
	k, n, aug := w.k, w.n, w.aug
	x, y, f := w.x[:n*k], w.y[:n*k], w.f[:n*k]
	rp, ci, v := a.Pat.RowPtr, a.Pat.ColIdx, a.Val
	na, nb = c*(xb-mu*xa), c*(-mu*xb)
	nt = math.Max(math.Abs(na), math.Abs(nb))
	nf = math.Max(math.Abs(fa+na), math.Abs(fb+nb))
	for i := 0; i < n; i++ {
		cols, vals := ci[rp[i]:rp[i+1]], v[rp[i]:rp[i+1]]
		vals = vals[:len(cols)]
		o := i * k
		xi, yi, fi := x[o:o+k:o+k], y[o:o+k:o+k], f[o:o+k:o+k]
		var g1i, g0i []float64
		if aug {
			g1i, g0i = w.g1[o:o+k:o+k], w.g0[o:o+k:o+k]
		}
		var rt, rf float64
		q := 0
		for ; q+4 <= k; q += 4 {
			u := xi[q : q+4 : q+4]
			d0, d1, d2, d3 := -mu*u[0], -mu*u[1], -mu*u[2], -mu*u[3]
			for p, j := range cols {
				s := vals[p]
				r := x[j*k+q : j*k+q+4 : j*k+q+4]
				d0 += s * r[0]
				d1 += s * r[1]
				d2 += s * r[2]
				d3 += s * r[3]
			}
			if aug {
				h1, h0 := g1i[q:q+4:q+4], g0i[q:q+4:q+4]
				d0 += xa*h1[0] + xb*h0[0]
				d1 += xa*h1[1] + xb*h0[1]
				d2 += xa*h1[2] + xb*h0[2]
				d3 += xa*h1[3] + xb*h0[3]
			}
			d0, d1, d2, d3 = c*d0, c*d1, c*d2, c*d3
			yy := yi[q : q+4 : q+4]
			yy[0], yy[1], yy[2], yy[3] = d0, d1, d2, d3
			rt += math.Abs(d0) + math.Abs(d1) + math.Abs(d2) + math.Abs(d3)
			ff := fi[q : q+4 : q+4]
			e0, e1, e2, e3 := ff[0]+d0, ff[1]+d1, ff[2]+d2, ff[3]+d3
			ff[0], ff[1], ff[2], ff[3] = e0, e1, e2, e3
			rf += math.Abs(e0) + math.Abs(e1) + math.Abs(e2) + math.Abs(e3)
		}
		for ; q < k; q++ {
			d := -mu * xi[q]
			for p, j := range cols {
				d += vals[p] * x[j*k+q]
			}
			if aug {
				d += xa*g1i[q] + xb*g0i[q]
			}
			d *= c
			yi[q] = d
			rt += math.Abs(d)
			e := fi[q] + d
			fi[q] = e
			rf += math.Abs(e)
		}
		if rt > nt || rt != rt {
			nt = rt
		}
		if rf > nf || rf != rf {
			nf = rf
		}
	}
	w.x, w.y = y, x
	return na, nb, nt, nf
}

// blockNormInf is the infinity norm of [x; xa I_k; xb I_k].
func blockNormInf(x []float64, n, k int, xa, xb float64) float64 {
	mx := math.Max(math.Abs(xa), math.Abs(xb))
	for i := 0; i < n; i++ {
		var s float64
		for _, v := range x[i*k : (i+1)*k] {
			s += math.Abs(v)
		}
		if s > mx || s != s {
			mx = s
		}
	}
	return mx
}

// colSumMax returns the 1-norm of A - mu I (its largest absolute column
// sum), with cs (length >= n) as scratch.
func colSumMax(a *sparse.CSR, mu float64, cs []float64) float64 {
	return a.Norm1Shifted(mu, cs)
}

// colNorm1Max is the 1-norm of the row-major n x k block g.
func colNorm1Max(g []float64, n, k int) float64 {
	var mx float64
	for c := 0; c < k; c++ {
		var s float64
		for i := 0; i < n; i++ {
			s += math.Abs(g[i*k+c])
		}
		if s > mx || s != s {
			mx = s
		}
	}
	return mx
}

// opNorm1 is the exact 1-norm of Ã - mu I (without t): A's columns, and
// for the augmented operator the columns of G1 (|mu| on the diagonal) and
// G0 (plus the identity block and |mu|).
func (w *Action) opNorm1(a *sparse.CSR, mu float64) float64 {
	nrm := colSumMax(a, mu, w.tmp)
	if w.aug {
		g1 := colNorm1Max(w.g1, w.n, w.k) + math.Abs(mu)
		g0 := colNorm1Max(w.g0, w.n, w.k) + 1 + math.Abs(mu)
		nrm = math.Max(nrm, math.Max(g0, g1))
	}
	return nrm
}

// selectDegree chooses m and s (Al-Mohy and Higham, Section 3): from
// ||tA||_1 alone when it is small enough that estimating the norms of
// powers would cost more than it could save (their inequality (3.13)),
// else from alpha_p of the estimated ||(tA)^p||_1^(1/p), p = 2..pmax+1.
func (w *Action) selectDegree(a *sparse.CSR, t, mu, nrm float64) (m, s int) {
	if nrm == 0 {
		return 0, 1
	}
	if nrm != nrm || math.IsInf(nrm, 0) {
		return 0, 1
	}
	best := math.Inf(1)
	pick := func(alpha float64, mmin int) {
		for _, th := range thetaTaylor {
			if th.m < mmin {
				continue
			}
			steps := math.Max(math.Ceil(alpha/th.theta), 1)
			if c := float64(th.m) * steps; c < best {
				best, m, s = c, th.m, int(steps)
			}
		}
	}
	// Al-Mohy and Higham's (3.13) weighs the estimate's products (with
	// two columns) against m s products with k columns. Here the estimate
	// costs more than that: about sum_p 2 p normIters products with two
	// columns for A's powers, and 2 (pmax + 1) products with k columns for
	// the augmented operator's (normPows), about 40 products with k = 20.
	// Without it, ||tA||_1 <= 3 theta_mmax takes s <= 3 steps, each ended
	// by the truncation test of run once its terms are negligible, which
	// costs about as much as the s = 1 the estimate could find at best.
	// Measured on the end-point steps of runtime/sens (scalenet chains,
	// k = 20, ||tA||_1 of 3 to 30), where the estimate took a third of
	// the action's time in the profile: skipping it up to 3 theta_mmax
	// instead of theta_mmax (where s = 1 whatever it says) cut the CPU
	// time of the solves by 17% (n = 198) and 19% (n = 498); up to
	// 10 theta_mmax made no further difference.
	// With ReuseEstimates the estimate is amortised over several calls:
	// it is then worth making above theta_mmax, where it can lower s.
	thMax := thetaTaylor[len(thetaTaylor)-1].theta
	reuse := w.ReuseEstimates > 1
	if nrm <= thMax || (!reuse && (nrm <= 3*thMax || nrm <= 4*thMax*taylorPMax*(taylorPMax+3)/float64(taylorMMax*w.k))) {
		pick(nrm, 0)
		return m, s
	}
	c := &w.est0
	if reuse && c.uses > 0 && c.uses < w.ReuseEstimates && c.aug == w.aug && nrm <= 2*c.nrm && 2*nrm >= c.nrm {
		c.uses++
		w.Last.Reused = true
		r := nrm / c.nrm
		for p := 2; p <= taylorPMax; p++ {
			pick(r*c.alpha[p], p*(p-1)-1)
		}
		if math.IsInf(best, 1) {
			pick(nrm, 0)
		}
		return m, s
	}
	w.Last.Estimated = true
	var d [taylorPMax + 2]float64
	w.normPows(d[:], a, t, mu)
	for p := 2; p <= taylorPMax+1; p++ {
		d[p] = math.Pow(d[p], 1/float64(p))
	}
	c.nrm, c.aug, c.uses = nrm, w.aug, 1
	for p := 2; p <= taylorPMax; p++ {
		alpha := math.Max(d[p], d[p+1])
		c.alpha[p] = alpha
		pick(alpha, p*(p-1)-1)
	}
	if !(best < math.Inf(1)) {
		c.uses = 0 // not finite: not reused
	}
	if math.IsInf(best, 1) { // estimates not finite
		pick(nrm, 0)
	}
	return m, s
}

// opVec sets y = t(A - mu I) x, or its transpose, for n-vectors. y must
// not alias x.
func opVec(y, x []float64, a *sparse.CSR, t, mu float64, trans bool) {
	n := a.Pat.Rows
	x, y = x[:n], y[:n]
	clear(y)
	if trans {
		a.MulVecTransTo(y, x)
	} else {
		a.MulVecTo(y, x)
	}
	for i, v := range x {
		y[i] = t * (y[i] - mu*v)
	}
}

// opPow sets v = (t(A - mu I))^p v (or the transpose) in place, with
// w.tmp as the other buffer.
func (w *Action) opPow(v []float64, a *sparse.CSR, t, mu float64, p int, trans bool) {
	for i := 0; i < p; i++ {
		opVec(w.tmp, v, a, t, mu, trans)
		copy(v, w.tmp[:len(v)])
	}
}

// normPows sets d[p] = ||(t(Ã - mu I))^p||_1 for p = 2..len(d)-1. The
// columns of the power that belong to A are those of (t(A - mu I))^p,
// whose norm is estimated (normPow). For the augmented operator the
// last 2k columns are [t^p T_p; t^p (J - mu I)^p] with the n x 2k block
// T_1 = W = [G1 G0] and T_{p+1} = (A - mu I) T_p + W (J - mu I)^p, where
// (J - mu I)^p = (-mu)^p I + p (-mu)^(p-1) J: one sparse product with 2k
// columns per power gives their norms exactly, which is far cheaper than
// estimating with vectors that carry the dense G blocks.
func (w *Action) normPows(d []float64, a *sparse.CSR, t, mu float64) {
	for p := 2; p < len(d); p++ {
		d[p] = w.normPow(a, t, mu, p)
	}
	if !w.aug {
		return
	}
	n, k := w.n, w.k
	k2 := 2 * k
	cur, nxt := w.tr[0], w.tr[1]
	for i := 0; i < n; i++ {
		copy(cur[i*k2:i*k2+k], w.g1[i*k:(i+1)*k])
		copy(cur[i*k2+k:(i+1)*k2], w.g0[i*k:(i+1)*k])
	}
	at := math.Abs(t)
	for p := 1; p < len(d); p++ {
		if p >= 2 {
			// Column norms of [t^p T_p; t^p (J - mu I)^p].
			c1 := math.Pow(-mu, float64(p))                // (-mu)^p
			c2 := float64(p) * math.Pow(-mu, float64(p-1)) // p (-mu)^(p-1)
			tp := math.Pow(at, float64(p))
			cs := w.tmp[:k2]
			clear(cs)
			for i := 0; i < n; i++ {
				for c, v := range cur[i*k2 : (i+1)*k2] {
					cs[c] += math.Abs(v)
				}
			}
			var mx float64
			for c, v := range cs {
				v += math.Abs(c1)
				if c >= k {
					v += math.Abs(c2)
				}
				if v > mx || v != v {
					mx = v
				}
			}
			if nrm := tp * mx; nrm > d[p] || nrm != nrm {
				d[p] = nrm
			}
		}
		if p == len(d)-1 {
			break
		}
		// T_{p+1} = (A - mu I) T_p + W (J - mu I)^p.
		c1 := math.Pow(-mu, float64(p))
		c2 := float64(p) * math.Pow(-mu, float64(p-1))
		a.MulShiftedBlockTo(nxt, cur, k2, mu)
		for i := 0; i < n; i++ {
			yi := nxt[i*k2 : (i+1)*k2]
			g1, g0 := w.g1[i*k:(i+1)*k], w.g0[i*k:(i+1)*k]
			for c := 0; c < k; c++ {
				yi[c] += c1 * g1[c]
				yi[k+c] += c2*g1[c] + c1*g0[c]
			}
		}
		cur, nxt = nxt, cur
	}
}

// normPow estimates ||(t(A - mu I))^p||_1 by the block 1-norm estimator of
// Higham and Tisseur with two columns: alternate products with the power
// and its transpose, moving the columns to the unit vectors where
// B^T sign(B X) is largest, until the estimate stops growing (at most
// normIters rounds: it usually settles in two). It returns a lower bound,
// usually within a factor of 3 of the norm and often exact.
func (w *Action) normPow(a *sparse.CSR, t, mu float64, p int) float64 {
	N := w.n
	x0, x1 := w.est[0][:N], w.est[1][:N]
	s0, s1 := w.est[2][:N], w.est[3][:N]
	h := w.hbuf[:N]
	vis := w.visited[:N]
	clear(vis)
	inv := 1 / float64(N)
	rng := uint64(0x9e3779b97f4a7c15)
	for i := range x0 {
		x0[i] = inv
		// A fixed pseudo-random +-1/N column (xorshift), not parallel to
		// the first.
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		if rng&1 == 0 || i == 0 {
			x1[i] = inv
		} else {
			x1[i] = -inv
		}
	}
	est := 0.0
	best := -1
	var ind [2]int
	for it := 0; it < normIters; it++ {
		w.opPow(x0, a, t, mu, p, false)
		w.opPow(x1, a, t, mu, p, false)
		e0, e1 := norm1(x0), norm1(x1)
		estNew := math.Max(e0, e1)
		if it > 0 && estNew <= est {
			break
		}
		if it > 0 {
			if e0 >= e1 {
				best = ind[0]
			} else {
				best = ind[1]
			}
		}
		est = estNew
		if estNew != estNew || math.IsInf(estNew, 0) {
			return estNew
		}
		for i := range x0 {
			s0[i], s1[i] = sign(x0[i]), sign(x1[i])
		}
		w.opPow(s0, a, t, mu, p, true)
		w.opPow(s1, a, t, mu, p, true)
		hmax := 0.0
		for i := range h {
			h[i] = math.Max(math.Abs(s0[i]), math.Abs(s1[i]))
			hmax = math.Max(hmax, h[i])
		}
		if best >= 0 && h[best] >= hmax {
			break
		}
		// The two largest entries of h not yet visited.
		ind = [2]int{-1, -1}
		for i, v := range h {
			if vis[i] {
				continue
			}
			if ind[0] < 0 || v > h[ind[0]] {
				ind[1] = ind[0]
				ind[0] = i
			} else if ind[1] < 0 || v > h[ind[1]] {
				ind[1] = i
			}
		}
		if ind[0] < 0 {
			break
		}
		if ind[1] < 0 {
			ind[1] = ind[0]
		}
		clear(x0)
		clear(x1)
		x0[ind[0]], x1[ind[1]] = 1, 1
		vis[ind[0]], vis[ind[1]] = true, true
	}
	return est
}

func norm1(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += math.Abs(x)
	}
	return s
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}
