package sens

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/pbgen/pbgen/runtime/expm"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// point is a node of the sensitivity grid with its Jacobian values.
type point struct {
	t  float64
	x  []float64 // nx
	jx []float64 // nnz(Jx)
	jp []float64 // nnz of the reduced Jp
}

// level holds the scratch of one bisection depth of RefineLocalError.
type level struct {
	mid         point
	left, right []float64 // nx*ns
	coarse      []float64 // nx*ns
}

// engine runs the Peano-Baker methods on a trajectory: a driver (the
// integrator's grid, stategrid.go, or the dyadic grid, dyadic.go) takes
// steps of one kind (the series step, series.go; the paper's exponential
// steps, paperexp.go; the end-point exponential W-step, endpoint.go). Each
// part keeps its state in its own field; all buffers are allocated once
// for a model and parameter subset.
type engine struct {
	// The solve: model, options, sizes, parameters, the state's
	// trajectory and the counters of the Result.
	m      model.Model
	cfg    *config
	nx, ns int
	p      []float64
	tr     *ode.Trajectory
	stats  *Stats
	// err is the first reason the method gave up (see MethodError); the
	// drivers stop at it. stepT is the start of the step being taken.
	err   error
	stepT float64
	// roundAcc is the integral of ||Jx||_inf over the steps taken (see
	// accRound).
	roundAcc float64

	jac  jacobians // the Jx and reduced Jp patterns, and their evaluation
	a, b point     // the ends of the step being taken (swapped as a grid advances)

	// The step kinds.
	series seriesStep // the truncated Peano-Baker series step (PBS)
	paper  paperExp   // the frozen and Magnus exponential steps, and their cache
	end    endState   // the end-point exponential W-step and its cached slots

	// The drivers and what they decide with.
	stateGrid stateGrid   // the integrator's grid: refinement points and bisection levels
	control   stepControl // the step-size control of the dyadic grid (PBSR)
	freeze    freezer     // frozen steps near equilibrium (dyadic grid)

	// Scratch shared by the steps; nothing in it outlives a step.
	t1, t2, t3 []float64 // nx*ns
	// ad is the dense nx*nx of a Jx-pattern scatter (scatterAd): only
	// pattern positions are ever written, the others stay zero.
	ad      []float64
	denseJx bool      // spmm through a dense product
	jd      []float64 // nx*nx scratch of spmm
	ex      *expm.Workspace
	norms   normScratch
}

// jacobians are the sparsity patterns of Jx and of the reduced Jp (the
// columns of the sensitivity parameters) and what maps the model's Jp
// onto the reduced one.
type jacobians struct {
	jx *model.Pattern
	// sel is the reduced Jp pattern: the columns in cfg.params, in that
	// order; from maps its entries to those of the full Jp, whose values
	// full holds.
	sel  *model.Pattern
	from []int
	full []float64
	// identity: the reduced Jp is the full one in the same order (all
	// parameters, in model order), so Jp is written into a point directly:
	// the remapping was half of an evaluation near equilibrium, where one
	// runs at every step.
	identity bool
}

func newJacobians(m model.Model, params []int) jacobians {
	jp := m.JpPattern()
	jc := jacobians{jx: m.JxPattern(), sel: &model.Pattern{}, full: make([]float64, jp.NNZ())}
	jc.from = sparse.SelectCols(jc.sel, nil, jp, params)
	jc.identity = len(jc.from) == jp.NNZ()
	for k, f := range jc.from {
		jc.identity = jc.identity && f == k
	}
	return jc
}

// normScratch holds the work vectors of the norms of Jx (norm, relChange).
type normScratch struct {
	diff []float64 // nnz(Jx): the difference of relChange
	u, w []float64 // nx: power iteration (Norm2)
}

func newPoint(nx, nnzx, nnzp int) point {
	return point{x: make([]float64, nx), jx: make([]float64, nnzx), jp: make([]float64, nnzp)}
}

func newEngine(m model.Model, cfg *config, params []int) *engine {
	nx := model.NumStates(m)
	ns := len(params)
	en := &engine{m: m, cfg: cfg, nx: nx, ns: ns, jac: newJacobians(m, params)}
	nnzx, nnzp := en.jac.jx.NNZ(), len(en.jac.from)
	mk := func(n int) []float64 { return make([]float64, n) }
	en.a, en.b = newPoint(nx, nnzx, nnzp), newPoint(nx, nnzx, nnzp)
	en.series = seriesStep{jsum: mk(nnzx)}
	en.paper = newPaperExp(nx, nnzx, nnzp)
	en.end = newEndState(nx, ns, nnzx, nnzp, 4)
	en.initForcing()
	en.stateGrid = newStateGrid(nx, ns, nnzx, nnzp, cfg.maxDepth)
	en.control = newStepControl(nx, ns)
	en.freeze = newFreezer(nx, ns, nnzx, nnzp)
	blk := nx * ns
	en.t1, en.t2, en.t3 = mk(blk), mk(blk), mk(blk)
	en.ad = mk(nx * nx)
	en.jd = mk(nx * nx)
	en.denseJx = nx >= 8 && 4*nnzx >= nx*nx
	en.ex = expm.NewWorkspace(nx)
	en.norms = normScratch{diff: mk(nnzx), u: mk(nx), w: mk(nx)}
	return en
}

// seriesStep is the scratch of the PBS step.
type seriesStep struct {
	jsum []float64 // nnz(Jx): Ja + Jb
}

// paperExp is the state of the paper's exponential steps (ExpFrozen,
// ExpMagnus): the exponential of the last step and what it was computed
// from, reused while the matrix and the step stay the same.
type paperExp struct {
	e, w       []float64 // nx*nx: e^{hA} and int_0^h e^{uA} du
	cacheA     []float64 // nnz(Jx): the A of e and w
	cacheH     float64   // the h of e and w
	cacheValid bool
	// cacheConv: e had converged to the steady-state projector, so a
	// longer step has the same e (see expOf).
	cacheConv  bool
	avgJ, avgP []float64 // the Magnus averages of Jx (nnz(Jx)) and Jp
}

func newPaperExp(nx, nnzx, nnzp int) paperExp {
	return paperExp{e: make([]float64, nx*nx), w: make([]float64, nx*nx),
		cacheA: make([]float64, nnzx), avgJ: make([]float64, nnzx), avgP: make([]float64, nnzp)}
}

// stateGrid is the scratch of the drivers on the integrator's grid: the
// inner points of RefineNInt and the bisection levels of RefineLocalError.
type stateGrid struct {
	sub, sub2 point
	levels    []level
}

func newStateGrid(nx, ns, nnzx, nnzp, depth int) stateGrid {
	g := stateGrid{sub: newPoint(nx, nnzx, nnzp), sub2: newPoint(nx, nnzx, nnzp), levels: make([]level, depth)}
	blk := nx * ns
	for i := range g.levels {
		g.levels[i] = level{mid: newPoint(nx, nnzx, nnzp), left: make([]float64, blk),
			right: make([]float64, blk), coarse: make([]float64, blk)}
	}
	return g
}

// eval fills pt.jx and pt.jp at (pt.t, pt.x).
func (en *engine) eval(pt *point) {
	en.m.Jx(pt.jx, pt.t, pt.x, en.p)
	if en.jac.identity {
		en.m.Jp(pt.jp, pt.t, pt.x, en.p)
		en.stats.JacEvals++
		return
	}
	en.m.Jp(en.jac.full, pt.t, pt.x, en.p)
	sparse.Gather(pt.jp, en.jac.full, en.jac.from)
	en.stats.JacEvals++
}

// interpX writes x(t) for ta <= t <= tb inside grid interval k.
func (en *engine) interpX(dst []float64, t float64, k int) {
	tr := en.tr
	ta, tb := tr.T[k], tr.T[k+1]
	if en.cfg.interp == InterpLinear {
		s := (t - ta) / (tb - ta)
		xa, xb := tr.XAt(k), tr.XAt(k+1)
		for i := range dst {
			dst[i] = xa[i] + s*(xb[i]-xa[i])
		}
		return
	}
	tr.InterpStep(dst, t, k)
}

// ---------------------------------------------------------------- sparse kernels

// jxm is the Jx matrix with values v (a point's, or a combination of
// points' in the pattern of Jx).
func (en *engine) jxm(v []float64) sparse.CSR { return sparse.CSR{Pat: en.jac.jx, Val: v} }

// jpm is the reduced Jp matrix (nx x ns) with values v.
func (en *engine) jpm(v []float64) sparse.CSR { return sparse.CSR{Pat: en.jac.sel, Val: v} }

// spmm writes dst = J S for the CSR J (pattern jx, values v) and dense
// row-major S (nx x ns).
func (en *engine) spmm(dst, v, s []float64) {
	ns := en.ns
	if en.denseJx {
		// Reaction-network Jacobians of a few dozen states are dense
		// enough for the blocked dense product to win.
		en.jxm(v).ScatterTo(en.jd)
		en.gemm(dst, en.jd, s, en.nx, ns, 1, 0)
		return
	}
	en.jxm(v).MulBlockTo(dst, s, ns)
}

// addP adds alpha * P (reduced Jp values v) to the dense dst.
func (en *engine) addP(dst []float64, alpha float64, v []float64) {
	en.jpm(v).AddTo(dst, alpha)
}

// ---------------------------------------------------------------- steps

// pbsMaxZ bounds dt ||Jx|| (the larger of the end points' norms) on a PBS
// step. The step multiplies a mode of eigenvalue lambda by 1 + z + z^2/2,
// z = dt lambda (the series truncated after I2), which for a decaying mode
// (z real, negative) has modulus at most 1 only for |z| <= 2: beyond it
// the truncated series grows where the solution decays, and S diverges
// geometrically. Any induced norm bounds |lambda|, so dt ||Jx|| <= 2 keeps
// every real decaying mode stable; PBS gives up beyond it (PBSR and Exp
// take exponential steps there, which are exact for such modes).
const pbsMaxZ = 2

// pbsStep advances s in place over [a.t, b.t] by the PBS step:
// S(tb) = PhiF (S(ta) + dt/2 (Pa + PhiB Pb)), PhiF/B = I +- I1 + I2,
// I1 = dt/2 (Ja+Jb), I2 = dt^2/4 Jb (Ja+Jb). Only sparse products.
func (en *engine) pbsStep(s []float64, a, b *point) {
	dt := b.t - a.t
	if z := dt * math.Max(en.norm(a.jx), en.norm(b.jx)); !(z <= pbsMaxZ) && en.err == nil {
		en.err = &MethodError{Method: en.cfg.method, Paper: en.cfg.paper, T: a.t, Index: -1, Alternative: PBSR,
			Reason: fmt.Sprintf("the truncated Peano-Baker series is unstable on the step [%.6g, %.6g]: dt ||Jx|| = %.3g exceeds %g, so the step amplifies the decaying modes of a stiff network instead of damping them", a.t, b.t, z, float64(pbsMaxZ))}
	}
	nSa := rowSumMax(s, en.ns)
	for k := range en.series.jsum {
		en.series.jsum[k] = a.jx[k] + b.jx[k]
	}
	h2, h4 := dt/2, dt*dt/4
	// t1 = Pb dense; t2 = (Ja+Jb) Pb; t3 = Jb t2.
	clear(en.t1)
	en.addP(en.t1, 1, b.jp)
	en.spmm(en.t2, en.series.jsum, en.t1)
	en.spmm(en.t3, b.jx, en.t2)
	// u = S + dt/2 (Pa + PhiB Pb) into s.
	for i, x := range en.t1 {
		s[i] += h2 * (x - h2*en.t2[i] + h4*en.t3[i])
	}
	en.addP(s, h2, a.jp)
	// S = PhiF u.
	en.spmm(en.t2, en.series.jsum, s)
	en.spmm(en.t3, b.jx, en.t2)
	for i := range s {
		s[i] += h2*en.t2[i] + h4*en.t3[i]
	}
	en.stats.PBSSteps++
	en.checkGrowth(s, a, b, nSa)
}

// pbsGrowth is the slack of checkGrowth over the bound of the linearised
// dynamics: Jx varies within a step, the bound uses its end points.
const pbsGrowth = 2

// checkGrowth is the divergence test of a PBS step: S' = Jx S + Jp gives
// ||S(tb)|| <= e^{dt mu} ||S(ta)|| + dt e^{dt max(mu, 0)} ||Jp|| in the
// infinity norm, with mu the logarithmic norm of Jx (largest over the end
// points). A result more than pbsGrowth times that is the truncated series
// amplifying a mode that the dynamics damp (complex eigenvalues with dt
// |lambda| <= 2 still allow a growth of up to 2.2 per step).
func (en *engine) checkGrowth(s []float64, a, b *point, nSa float64) {
	if en.err != nil {
		return
	}
	dt := b.t - a.t
	mu := math.Max(en.logNormInf(a.jx), en.logNormInf(b.jx))
	nP := math.Max(en.pRowSumMax(a.jp), en.pRowSumMax(b.jp))
	bound := math.Exp(dt*mu)*nSa + dt*math.Exp(dt*math.Max(mu, 0))*nP
	nSb := rowSumMax(s, en.ns)
	if nSb <= pbsGrowth*bound+en.cfg.satol || math.IsInf(bound, 1) {
		return
	}
	en.err = &MethodError{Method: en.cfg.method, Paper: en.cfg.paper, T: a.t, Index: -1, Alternative: PBSR,
		Reason: fmt.Sprintf("the truncated Peano-Baker series diverged on the step [%.6g, %.6g]: ||S|| grew from %.3g to %.3g, above the bound %.3g of the linearised dynamics", a.t, b.t, nSa, nSb, bound)}
}

// rowSumMax is the infinity norm of the row-major matrix s of ns columns.
func rowSumMax(s []float64, ns int) float64 {
	var mx float64
	for i := 0; i+ns <= len(s); i += ns {
		var r float64
		for _, x := range s[i : i+ns] {
			r += math.Abs(x)
		}
		if !(r <= mx) {
			mx = r
		}
	}
	return mx
}

// logNormInf is the logarithmic infinity norm of the sparse Jx values v:
// max over rows of the diagonal entry plus the absolute off-diagonal ones.
func (en *engine) logNormInf(v []float64) float64 { return en.jxm(v).LogNormInf() }

// pRowSumMax is the infinity norm of the reduced Jp values v.
func (en *engine) pRowSumMax(v []float64) float64 { return en.jpm(v).NormInf() }

// expStep advances s in place over [a.t, b.t] with the exponential step
// S(tb) = e^{hA} S(ta) + (int_0^h e^{uA} du) B, where (A, B) are frozen at
// a (ExpFrozen), averaged over the end points (ExpMagnus) or linearised at
// the end point (ExpEndpoint).
func (en *engine) expStep(s []float64, a, b *point) {
	en.expStepH(s, a, b, b.t-a.t)
}

// expStepH is expStep with the nominal step length h (b.t - a.t up to
// rounding; equal nominal lengths let the exponentials be reused).
func (en *engine) expStepH(s []float64, a, b *point, h float64) {
	en.stepT = a.t
	if en.cfg.expStep == ExpEndpoint {
		nS := frob(s)
		en.endStep(en.t2, s, a, b, h, nS, en.cfg.srtol*nS+en.cfg.satol)
		copy(s, en.t2)
		return
	}
	av, bv := a.jx, a.jp
	if en.cfg.expStep == ExpMagnus {
		for k := range en.paper.avgJ {
			en.paper.avgJ[k] = 0.5 * (a.jx[k] + b.jx[k])
		}
		for k := range en.paper.avgP {
			en.paper.avgP[k] = 0.5 * (a.jp[k] + b.jp[k])
		}
		av, bv = en.paper.avgJ, en.paper.avgP
	}
	en.expOf(av, h)
	// t1 = E S + W B.
	nx, ns := en.nx, en.ns
	if ns > 0 && nx > 0 {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
			blas64.General{Rows: nx, Cols: nx, Stride: nx, Data: en.paper.e},
			blas64.General{Rows: nx, Cols: ns, Stride: ns, Data: s},
			0, blas64.General{Rows: nx, Cols: ns, Stride: ns, Data: en.t1})
	}
	en.jpm(bv).LeftMulAddTo(en.t1, en.paper.w, nx)
	copy(s, en.t1)
	en.stats.ExpSteps++
}

// expOf makes en.paper.e = e^{hA}, en.paper.w = int_0^h e^{uA} du for the sparse A
// values av, reusing the previous exponential when A is unchanged (within
// ReuseTol) and h is equal, or when the previous E had converged to the
// steady-state projector P and h is longer: then E(h) = P and
// W(h) = W(h_prev) + (h - h_prev) P.
func (en *engine) expOf(av []float64, h float64) {
	if en.paper.cacheValid && en.cfg.reuseTol >= 0 && (h == en.paper.cacheH || (en.paper.cacheConv && h > en.paper.cacheH)) {
		var d, mx float64
		for k, v := range av {
			d = math.Max(d, math.Abs(v-en.paper.cacheA[k]))
			mx = math.Max(mx, math.Abs(en.paper.cacheA[k]))
		}
		if d <= en.cfg.reuseTol*mx {
			if h != en.paper.cacheH {
				c := h - en.paper.cacheH
				for i, x := range en.paper.e {
					en.paper.w[i] += c * x
				}
				en.paper.cacheH = h
			}
			en.stats.ExpReuses++
			return
		}
	}
	en.scatterAd(av)
	en.ex.ExpIntTo(en.paper.e, en.paper.w, en.ad, h)
	en.stats.Exponentials++
	en.stats.Squarings += en.ex.Last.Squarings
	copy(en.paper.cacheA, av)
	en.paper.cacheH, en.paper.cacheValid, en.paper.cacheConv = h, true, en.ex.Last.Converged >= 0
}

// ---------------------------------------------------------------- norms

func (en *engine) norm(v []float64) float64 {
	a := en.jxm(v)
	switch en.cfg.norm {
	case Norm1:
		return a.Norm1(en.norms.u)
	case NormFro:
		return a.NormFro()
	case Norm2:
		return a.Norm2(en.norms.u, en.norms.w)
	default:
		return a.NormInf()
	}
}

// relChange is ||vb - va|| / ||va|| in the configured norm, with 0/0 = 0.
func (en *engine) relChange(va, vb []float64) float64 {
	for k := range en.norms.diff {
		en.norms.diff[k] = vb[k] - va[k]
	}
	d := en.norm(en.norms.diff)
	n := en.norm(va)
	if d == 0 {
		return 0
	}
	if n == 0 {
		return math.Inf(1)
	}
	return d / n
}

// relChangeP is the max-abs relative change of the Jp values; NaN when
// either has a NaN (math.Max keeps it), so that no test of it passes.
func relChangeP(va, vb []float64) float64 {
	var d, n float64
	for k, x := range va {
		d = math.Max(d, math.Abs(vb[k]-x))
		n = math.Max(n, math.Abs(x))
	}
	if d == 0 {
		return 0
	}
	return d / n
}

// ---------------------------------------------------------------- interval drivers

// interval advances s over [a.t, b.t], a sub-interval of grid interval k,
// with the configured method.
func (en *engine) interval(s []float64, a, b *point, k int) {
	en.stats.Intervals++
	en.stepT = a.t
	en.accRound(b.t-a.t, math.Max(en.normInf(a.jx), en.normInf(b.jx)))
	switch en.cfg.method {
	case Exp:
		en.recordExp(a.t)
		en.expStep(s, a, b)
	case PBS:
		if en.nearlyConstant(a, b) {
			en.recordExp(a.t)
			en.expStep(s, a, b)
		} else {
			en.pbsStep(s, a, b)
		}
	case PBSR:
		if en.cfg.refine == RefineLocalError {
			en.localErr(s, a, b, k)
		} else {
			en.nint(s, a, b, k)
		}
	}
}

func (en *engine) nearlyConstant(a, b *point) bool {
	if en.cfg.jacTol < 0 {
		return false
	}
	if en.relChange(a.jx, b.jx) > en.cfg.jacTol {
		return false
	}
	return !en.cfg.jpCheck || relChangeP(a.jp, b.jp) <= en.cfg.jacTol
}

func (en *engine) recordExp(t float64) {
	en.stats.ExpTimes = append(en.stats.ExpTimes, t)
}

// nint is the paper's Algorithm 2 on one interval.
func (en *engine) nint(s []float64, a, b *point, k int) {
	dt := b.t - a.t
	nf := math.Ceil(en.cfg.nintFactor * dt * en.norm(a.jx))
	if en.nearlyConstant(a, b) || !(nf <= float64(en.cfg.nmax)) {
		en.recordExp(a.t)
		en.expStep(s, a, b)
		return
	}
	n := int(nf)
	if n <= 1 {
		en.pbsStep(s, a, b)
		return
	}
	en.stats.Refinements += n - 1
	prev, cur := a, &en.stateGrid.sub
	for i := 1; i <= n; i++ {
		if i == n {
			cur = b
		} else {
			cur.t = a.t + dt*float64(i)/float64(n)
			en.interpX(cur.x, cur.t, k)
			en.eval(cur)
		}
		en.pbsStep(s, prev, cur)
		if i < n {
			// Alternate the two inner buffers so prev stays valid.
			if cur == &en.stateGrid.sub {
				prev, cur = &en.stateGrid.sub, &en.stateGrid.sub2
			} else {
				prev, cur = &en.stateGrid.sub2, &en.stateGrid.sub
			}
		}
	}
}

// localErr is the improved PBSR on one interval: exponential steps with
// bisection driven by a step-doubling local error estimate.
func (en *engine) localErr(s []float64, a, b *point, k int) {
	// Where Jx and Jp are constant to within SensRTol (near equilibrium,
	// linear systems) the exponential step is exact to that level: skip
	// the two-half-step estimate, which would triple the cost.
	if en.relChange(a.jx, b.jx) <= en.cfg.srtol && relChangeP(a.jp, b.jp) <= en.cfg.srtol {
		en.recordExp(a.t)
		en.expStep(s, a, b)
		return
	}
	lv := &en.stateGrid.levels[0]
	copy(lv.coarse, s)
	en.expStep(lv.coarse, a, b)
	en.recordExp(a.t)
	en.bisect(s, a, b, k, 0)
}

// bisect advances s over [a.t, b.t] given coarse = the one-step result.
func (en *engine) bisect(s []float64, a, b *point, k, depth int) {
	lv := &en.stateGrid.levels[depth]
	m := &lv.mid
	m.t = 0.5 * (a.t + b.t)
	en.interpX(m.x, m.t, k)
	en.eval(m)
	copy(lv.left, s)
	en.expStep(lv.left, a, m)
	copy(lv.right, lv.left)
	en.expStep(lv.right, m, b)
	// Local error of the two-half result: (coarse - fine)/3 for a
	// second-order method.
	var d2, s2 float64
	for i, x := range lv.right {
		e := x - lv.coarse[i]
		d2 += e * e
		s2 += x * x
	}
	errEst := math.Sqrt(d2) / 3
	if errEst <= en.cfg.srtol*math.Sqrt(s2)+en.cfg.satol || depth+1 >= len(en.stateGrid.levels) {
		copy(s, lv.right)
		return
	}
	en.stats.Refinements++
	nx := &en.stateGrid.levels[depth+1]
	// Left half: its coarse result is lv.left.
	copy(nx.coarse, lv.left)
	en.bisect(s, a, m, k, depth+1)
	// Right half from the refined S(mid).
	copy(nx.coarse, s)
	en.expStep(nx.coarse, m, b)
	en.bisect(s, m, b, k, depth+1)
}
