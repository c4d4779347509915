package sens

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/pbgen/pbgen/runtime/expm"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
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

// engine runs the Peano-Baker methods on a trajectory. All buffers are
// allocated once for a model and parameter subset.
type engine struct {
	// err is the first reason the method gave up (see MethodError); the
	// drivers stop at it.
	err   error
	stepT float64 // start of the step being taken (for errors)
	// roundAcc is the integral of ||Jx||_inf over the steps taken (see
	// accRound).
	roundAcc float64
	m        model.Model
	cfg      *config
	nx, ns   int
	jx       *model.Pattern
	// Reduced Jp: the columns in cfg.params, renumbered.
	jpRow, jpCol []int
	jpMap        []int     // full Jp entry -> reduced entry or -1
	jpFull       []float64 // full Jp values
	// jpIdentity: the reduced Jp is the full one in the same order (all
	// parameters, in model order), so Jp is written into a point directly:
	// the remapping was half of an evaluation near equilibrium, where one
	// runs at every step.
	jpIdentity bool

	p  []float64
	tr *ode.Trajectory

	a, b         point // interval end points (swapped as the grid advances)
	sub          point // inner point of RefineNInt
	sub2         point
	frz          point     // the frozen point of GridDyadic near equilibrium
	dconv        []float64 // nx*ns: increment of the frozen map
	fmap         frozenMap
	jsum, jtmp   []float64 // nnz(Jx)
	psum         []float64 // reduced nnz(Jp)
	t1, t2, t3   []float64 // nx*ns
	ad, e, w     []float64 // nx*nx
	psi, wt, mm  []float64 // nx*nx
	end          endState
	probe        [3]probeNode // history of GridDyadic's error control
	pv           []float64    // ns*nProbe: probe vectors
	pd, pg, pt   []float64    // nx*nProbe scratch of localError
	lastSlot     *refSlot     // slot of the last end-point step
	denseJx      bool         // spmm through a dense product
	jd           []float64    // nx*nx scratch of spmm
	ex           *expm.Workspace
	levels       []level
	cacheA       []float64 // nnz(Jx): matrix of the cached exponential
	cacheH       float64
	cacheValid   bool
	cacheConv    bool
	normV, normW []float64 // nx, for Norm2

	stats *Stats
}

func newPoint(nx, nnzx, nnzp int) point {
	return point{x: make([]float64, nx), jx: make([]float64, nnzx), jp: make([]float64, nnzp)}
}

func newEngine(m model.Model, cfg *config, params []int) *engine {
	nx := model.NumStates(m)
	jx, jp := m.JxPattern(), m.JpPattern()
	ns := len(params)
	en := &engine{m: m, cfg: cfg, nx: nx, ns: ns, jx: jx}
	// Reduced Jp pattern: row-wise, columns in the order of params.
	en.jpMap = make([]int, jp.NNZ())
	for k := range en.jpMap {
		en.jpMap[k] = -1
	}
	en.jpRow = make([]int, nx+1)
	for i := 0; i < nx; i++ {
		for c, j := range params {
			for k := jp.RowPtr[i]; k < jp.RowPtr[i+1]; k++ {
				if jp.ColIdx[k] == j {
					en.jpMap[k] = len(en.jpCol)
					en.jpCol = append(en.jpCol, c)
				}
			}
		}
		en.jpRow[i+1] = len(en.jpCol)
	}
	en.jpFull = make([]float64, jp.NNZ())
	en.jpIdentity = len(en.jpCol) == len(en.jpMap)
	for k, r := range en.jpMap {
		en.jpIdentity = en.jpIdentity && r == k
	}
	nnzx, nnzp := jx.NNZ(), len(en.jpCol)
	en.a, en.b = newPoint(nx, nnzx, nnzp), newPoint(nx, nnzx, nnzp)
	en.sub, en.sub2 = newPoint(nx, nnzx, nnzp), newPoint(nx, nnzx, nnzp)
	en.frz = newPoint(nx, nnzx, nnzp)
	en.dconv = make([]float64, nx*ns)
	en.fmap = frozenMap{m: make([]float64, nx*nx), c: make([]float64, nx*ns)}
	en.jsum, en.jtmp = make([]float64, nnzx), make([]float64, nnzx)
	en.psum = make([]float64, nnzp)
	blk := nx * ns
	mk := func(n int) []float64 { return make([]float64, n) }
	en.t1, en.t2, en.t3 = mk(blk), mk(blk), mk(blk)
	en.ad, en.e, en.w = mk(nx*nx), mk(nx*nx), mk(nx*nx)
	en.psi, en.wt, en.mm = mk(nx*nx), mk(nx*nx), mk(nx*nx)
	en.end = newEndState(nx, ns, nnzx, nnzp, 4)
	en.initForcing()
	for i := range en.probe {
		en.probe[i] = probeNode{sv: mk(nx * nProbe), qv: mk(nx * nProbe)}
	}
	en.pd, en.pg, en.pt = mk(nx*nProbe), mk(nx*nProbe), mk(nx*nProbe)
	// Fixed Gaussian probes: the estimate is deterministic per model.
	rng := rand.New(rand.NewPCG(1, 1))
	en.pv = mk(ns * nProbe)
	for i := range en.pv {
		en.pv[i] = rng.NormFloat64()
	}
	en.jd = mk(nx * nx)
	en.denseJx = nx >= 8 && 4*nnzx >= nx*nx
	en.ex = expm.NewWorkspace(nx)
	en.cacheA = mk(nnzx)
	en.normV, en.normW = mk(nx), mk(nx)
	en.levels = make([]level, cfg.maxDepth)
	for i := range en.levels {
		en.levels[i] = level{mid: newPoint(nx, nnzx, nnzp), left: mk(blk), right: mk(blk), coarse: mk(blk)}
	}
	return en
}

// eval fills pt.jx and pt.jp at (pt.t, pt.x).
func (en *engine) eval(pt *point) {
	en.m.Jx(pt.jx, pt.t, pt.x, en.p)
	if en.jpIdentity {
		en.m.Jp(pt.jp, pt.t, pt.x, en.p)
		en.stats.JacEvals++
		return
	}
	en.m.Jp(en.jpFull, pt.t, pt.x, en.p)
	for k, r := range en.jpMap {
		if r >= 0 {
			pt.jp[r] = en.jpFull[k]
		}
	}
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

// spmm writes dst = J S for the CSR J (pattern jx, values v) and dense
// row-major S (nx x ns).
func (en *engine) spmm(dst, v, s []float64) {
	ns := en.ns
	if en.denseJx {
		// Reaction-network Jacobians of a few dozen states are dense
		// enough for the blocked dense product to win.
		en.jx.ScatterTo(en.jd, v)
		en.gemm(dst, en.jd, s, en.nx, ns, 1, 0)
		return
	}
	rp, ci := en.jx.RowPtr, en.jx.ColIdx
	for i := 0; i < en.nx; i++ {
		d := dst[i*ns : (i+1)*ns]
		clear(d)
		for k := rp[i]; k < rp[i+1]; k++ {
			a := v[k]
			if a == 0 {
				continue
			}
			sr := s[ci[k]*ns : (ci[k]+1)*ns]
			for j, x := range sr {
				d[j] += a * x
			}
		}
	}
}

// addP adds alpha * P (reduced Jp values v) to the dense dst.
func (en *engine) addP(dst []float64, alpha float64, v []float64) {
	ns := en.ns
	for i := 0; i < en.nx; i++ {
		for k := en.jpRow[i]; k < en.jpRow[i+1]; k++ {
			dst[i*ns+en.jpCol[k]] += alpha * v[k]
		}
	}
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
	for k := range en.jsum {
		en.jsum[k] = a.jx[k] + b.jx[k]
	}
	h2, h4 := dt/2, dt*dt/4
	// t1 = Pb dense; t2 = (Ja+Jb) Pb; t3 = Jb t2.
	clear(en.t1)
	en.addP(en.t1, 1, b.jp)
	en.spmm(en.t2, en.jsum, en.t1)
	en.spmm(en.t3, b.jx, en.t2)
	// u = S + dt/2 (Pa + PhiB Pb) into s.
	for i, x := range en.t1 {
		s[i] += h2 * (x - h2*en.t2[i] + h4*en.t3[i])
	}
	en.addP(s, h2, a.jp)
	// S = PhiF u.
	en.spmm(en.t2, en.jsum, s)
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
func (en *engine) logNormInf(v []float64) float64 {
	rp, ci := en.jx.RowPtr, en.jx.ColIdx
	mx := math.Inf(-1)
	for i := 0; i+1 < len(rp); i++ {
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

// pRowSumMax is the infinity norm of the reduced Jp values v.
func (en *engine) pRowSumMax(v []float64) float64 {
	var mx float64
	for i := 0; i < en.nx; i++ {
		var r float64
		for k := en.jpRow[i]; k < en.jpRow[i+1]; k++ {
			r += math.Abs(v[k])
		}
		if !(r <= mx) {
			mx = r
		}
	}
	return mx
}

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
		for k := range en.jsum {
			en.jsum[k] = 0.5 * (a.jx[k] + b.jx[k])
		}
		for k := range en.psum {
			en.psum[k] = 0.5 * (a.jp[k] + b.jp[k])
		}
		av, bv = en.jsum, en.psum
	}
	en.expOf(av, h)
	// t1 = E S + W B.
	nx, ns := en.nx, en.ns
	if ns > 0 && nx > 0 {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
			blas64.General{Rows: nx, Cols: nx, Stride: nx, Data: en.e},
			blas64.General{Rows: nx, Cols: ns, Stride: ns, Data: s},
			0, blas64.General{Rows: nx, Cols: ns, Stride: ns, Data: en.t1})
	}
	for r := 0; r < nx; r++ {
		d := en.t1[r*ns : (r+1)*ns]
		wr := en.w[r*nx : (r+1)*nx]
		for i, wv := range wr {
			if wv == 0 {
				continue
			}
			for k := en.jpRow[i]; k < en.jpRow[i+1]; k++ {
				d[en.jpCol[k]] += wv * bv[k]
			}
		}
	}
	copy(s, en.t1)
	en.stats.ExpSteps++
}

// expOf makes en.e = e^{hA}, en.w = int_0^h e^{uA} du for the sparse A
// values av, reusing the previous exponential when A is unchanged (within
// ReuseTol) and h is equal, or when the previous E had converged to the
// steady-state projector P and h is longer: then E(h) = P and
// W(h) = W(h_prev) + (h - h_prev) P.
func (en *engine) expOf(av []float64, h float64) {
	if en.cacheValid && en.cfg.reuseTol >= 0 && (h == en.cacheH || (en.cacheConv && h > en.cacheH)) {
		var d, mx float64
		for k, v := range av {
			d = math.Max(d, math.Abs(v-en.cacheA[k]))
			mx = math.Max(mx, math.Abs(en.cacheA[k]))
		}
		if d <= en.cfg.reuseTol*mx {
			if h != en.cacheH {
				c := h - en.cacheH
				for i, x := range en.e {
					en.w[i] += c * x
				}
				en.cacheH = h
			}
			en.stats.ExpReuses++
			return
		}
	}
	en.scatterAd(av)
	en.ex.ExpIntTo(en.e, en.w, en.ad, h)
	en.stats.Exponentials++
	en.stats.Squarings += en.ex.Last.Squarings
	copy(en.cacheA, av)
	en.cacheH, en.cacheValid, en.cacheConv = h, true, en.ex.Last.Converged >= 0
}

// ---------------------------------------------------------------- norms

func (en *engine) norm(v []float64) float64 {
	rp, ci := en.jx.RowPtr, en.jx.ColIdx
	nx := en.nx
	switch en.cfg.norm {
	case Norm1:
		cs := en.normV
		clear(cs)
		for k, x := range v {
			cs[ci[k]] += math.Abs(x)
		}
		var mx float64
		for _, x := range cs {
			mx = math.Max(mx, x)
		}
		return mx
	case NormFro:
		var s float64
		for _, x := range v {
			s += x * x
		}
		return math.Sqrt(s)
	case Norm2:
		// Power iteration on J^T J from a fixed start.
		u, w := en.normV, en.normW
		for i := range u {
			u[i] = 1 / math.Sqrt(float64(nx)+float64(i))
		}
		var sig float64
		for it := 0; it < 30; it++ {
			clear(w)
			for i := 0; i < nx; i++ { // w = J u
				for k := rp[i]; k < rp[i+1]; k++ {
					w[i] += v[k] * u[ci[k]]
				}
			}
			clear(u)
			for i := 0; i < nx; i++ { // u = J^T w
				for k := rp[i]; k < rp[i+1]; k++ {
					u[ci[k]] += v[k] * w[i]
				}
			}
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
	default:
		var mx float64
		for i := 0; i < nx; i++ {
			var s float64
			for k := rp[i]; k < rp[i+1]; k++ {
				s += math.Abs(v[k])
			}
			mx = math.Max(mx, s)
		}
		return mx
	}
}

// relChange is ||vb - va|| / ||va|| in the configured norm, with 0/0 = 0.
func (en *engine) relChange(va, vb []float64) float64 {
	for k := range en.jtmp {
		en.jtmp[k] = vb[k] - va[k]
	}
	d := en.norm(en.jtmp)
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
	prev, cur := a, &en.sub
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
			if cur == &en.sub {
				prev, cur = &en.sub, &en.sub2
			} else {
				prev, cur = &en.sub2, &en.sub
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
	lv := &en.levels[0]
	copy(lv.coarse, s)
	en.expStep(lv.coarse, a, b)
	en.recordExp(a.t)
	en.bisect(s, a, b, k, 0)
}

// bisect advances s over [a.t, b.t] given coarse = the one-step result.
func (en *engine) bisect(s []float64, a, b *point, k, depth int) {
	lv := &en.levels[depth]
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
	if errEst <= en.cfg.srtol*math.Sqrt(s2)+en.cfg.satol || depth+1 >= len(en.levels) {
		copy(s, lv.right)
		return
	}
	en.stats.Refinements++
	nx := &en.levels[depth+1]
	// Left half: its coarse result is lv.left.
	copy(nx.coarse, lv.left)
	en.bisect(s, a, m, k, depth+1)
	// Right half from the refined S(mid).
	copy(nx.coarse, s)
	en.expStep(nx.coarse, m, b)
	en.bisect(s, m, b, k, depth+1)
}
