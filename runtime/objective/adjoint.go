package objective

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// Adjoint gradients.
//
// With Options.Gradient = GradAdjoint the gradient of the log-likelihood
// is computed without S. Per experiment the state is integrated forward
// alone (runtime/ode's BDF, stepping over the data times), keeping every
// accepted step's Nordsieck history in an ode.Trajectory: the dense
// output of the forward solve is the "checkpoint" of the backward one, so
// x(t) is available anywhere at the forward integrator's own accuracy and
// nothing is recomputed. (CVODES instead stores the Nordsieck array every
// K steps and re-integrates each interval; that trades a second forward
// solve for memory, which on these problems is small: steps x (q + 3) x
// nx words, 8 nx words per step at order 5.) The data give llh and, per
// output time t_i, the jump a_i = dllh_i/dx. The adjoint lambda then
// solves, backwards from the last datum T with lambda(T+) = 0,
//
//	lambda' = -Jx(t, x(t))^T lambda,  lambda(t_i-) = lambda(t_i+) + a_i,
//
// and the quadrature q = int_t0^T lambda^T Jp dt (Jp in the experiment's
// theta columns, thetaModel) rides along, so that
//
//	dllh/dtheta = lambda(t0)^T dx0/dtheta + q + the direct terms
//
// (the data's dh/dp dp/dtheta, placeholders and noise: datum adds them as
// in the forward path). The backward solve is the same BDF on the linear
// system in s = T - t (adjModel): y = [lambda; q], dy/ds = [Jx^T; Jp^T]
// lambda, whose Jacobian is that matrix, in the transposed sparse
// patterns of Jx and Jp (nothing dense is formed; the sparse LU factors
// it for large models). Between data times the solve runs through
// ode.Solver.IntegrateState, restarted after each jump as CVODES's
// backward problem is reinitialised at each datum in AMICI. The
// quadrature is in the error test (its components' atol Options.AdjATol).
//
// Not covered yet, and refused by New with ErrAdjoint naming the case:
// pre-equilibration and data at steady state (the steady-state adjoint),
// periods, events and switches, delays, algebraic variables, FIM (which
// needs S: use the forward gradient), Options.NewSolver.

// GradMethod selects how the gradient is computed.
type GradMethod int

const (
	// GradForward chains S from the forward sensitivities of Method
	// (the default).
	GradForward GradMethod = iota
	// GradAdjoint solves the adjoint backwards in time: its cost does not
	// grow with the number of parameters (adjoint.go).
	GradAdjoint
)

func (g GradMethod) String() string {
	switch g {
	case GradForward:
		return "forward"
	case GradAdjoint:
		return "adjoint"
	}
	return fmt.Sprintf("GradMethod(%d)", int(g))
}

// ParseGradMethod parses "forward" or "adjoint" (any case).
func ParseGradMethod(s string) (GradMethod, error) {
	for _, g := range []GradMethod{GradForward, GradAdjoint} {
		if strings.EqualFold(s, g.String()) {
			return g, nil
		}
	}
	return 0, fmt.Errorf("objective: unknown gradient method %q (want forward or adjoint)", s)
}

// ErrAdjoint is wrapped by New's errors for problems the adjoint gradient
// does not cover yet.
var ErrAdjoint = errors.New("objective: adjoint gradient")

// checkAdjoint refuses, by name, what the adjoint gradient does not cover.
func (c *core) checkAdjoint() error {
	o := &c.opt
	refuse := func(what string) error {
		return fmt.Errorf("%w: %s; use the forward gradient (-sens forward)", ErrAdjoint, what)
	}
	switch {
	case !o.Grad:
		return refuse("Options.Grad is not set")
	case o.FIM:
		return refuse("the Fisher information needs S")
	case o.NewSolver != nil:
		return refuse("Options.NewSolver is set")
	case c.dl != nil:
		return refuse(fmt.Sprintf("model %q has delays", c.m.Name()))
	case c.ev != nil:
		return refuse(fmt.Sprintf("model %q has events or switches", c.m.Name()))
	case c.alg != nil:
		return refuse(fmt.Sprintf("model %q has algebraic variables", c.m.Name()))
	}
	for e, ex := range c.prob.Experiments {
		switch {
		case ex.Preeq >= 0:
			return refuse(c.expName(e) + " has pre-equilibration")
		case len(ex.Periods) > 0:
			return refuse(c.expName(e) + " has several periods")
		}
		for _, d := range ex.Data {
			if math.IsInf(d.T, 1) {
				return refuse(c.expName(e) + " has data at steady state")
			}
		}
	}
	return nil
}

// adjModel is the backward system of one column group as a model.Model
// for runtime/ode: states y = [lambda (nx); q (nc)] in s = T - t, with
// dy/ds = A(t) lambda, A = [Jx^T; Jp^T] evaluated at the forward
// trajectory's x(t). It has no parameters. Like thetaModel it has mutable
// state (the trajectory, T, a cache of A at the last t) and belongs to
// one worker.
type adjModel struct {
	tm     *thetaModel
	tr     *ode.Trajectory // the forward solve
	tEnd   float64         // T
	nx, nc int
	names  []string
	pat    *model.Pattern // (nx+nc) x (nx+nc), columns < nx only
	a      sparse.CSR     // A's values at tc, in pat order
	fromX  []int          // per entry of pat's first nnzX: the Jx value it is
	fromP  []int          // per later entry: the Jp value it is
	jxv    []float64
	jpv    []float64
	x      []float64
	tc     float64 // the t of a's values (NaN: none)
	noPat  *model.Pattern
}

func newAdjModel(tm *thetaModel) *adjModel {
	nx, nc := tm.nx, tm.nc
	am := &adjModel{tm: tm, nx: nx, nc: nc, tc: math.NaN()}
	xt, fx := sparse.Transpose(tm.jxPat)
	pt, fp := sparse.Transpose(tm.jpPat)
	n := nx + nc
	pat := &model.Pattern{Rows: n, Cols: n, RowPtr: make([]int, n+1)}
	pat.ColIdx = append(append(make([]int, 0, xt.NNZ()+pt.NNZ()), xt.ColIdx...), pt.ColIdx...)
	copy(pat.RowPtr, xt.RowPtr)
	for r := 0; r < nc; r++ {
		pat.RowPtr[nx+r+1] = xt.NNZ() + pt.RowPtr[r+1]
	}
	am.pat, am.fromX, am.fromP = pat, fx, fp
	am.a = sparse.CSR{Pat: pat, Val: make([]float64, pat.NNZ())}
	am.jxv = make([]float64, tm.jxPat.NNZ())
	am.jpv = make([]float64, tm.jpPat.NNZ())
	am.x = make([]float64, nx)
	am.names = make([]string, n)
	sn := tm.StateNames()
	for i := range am.names {
		if i < nx {
			am.names[i] = "lambda_" + sn[i]
		} else {
			am.names[i] = fmt.Sprintf("q_theta%d", i-nx)
		}
	}
	am.noPat = &model.Pattern{Rows: n, Cols: 0, RowPtr: make([]int, n+1)}
	return am
}

// at fills A's values at s (t = T - s) unless they are cached.
func (am *adjModel) at(s float64) {
	t := am.tEnd - s
	if t == am.tc {
		return
	}
	am.tr.InterpTo(am.x, t)
	am.tm.Jx(am.jxv, t, am.x, nil)
	if am.nc > 0 {
		am.tm.Jp(am.jpv, t, am.x, nil)
	}
	v := am.a.Val
	nX := len(am.fromX)
	for k, f := range am.fromX {
		v[k] = am.jxv[f]
	}
	for k, f := range am.fromP {
		v[nX+k] = am.jpv[f]
	}
	am.tc = t
}

// reset starts a backward solve over forward trajectory tr ending at T.
func (am *adjModel) reset(tr *ode.Trajectory, tEnd float64) {
	am.tr, am.tEnd, am.tc = tr, tEnd, math.NaN()
}

func (am *adjModel) Name() string                  { return am.tm.Name() + "_adjoint" }
func (am *adjModel) StateNames() []string          { return am.names }
func (am *adjModel) ParamNames() []string          { return nil }
func (am *adjModel) DefaultParams([]float64)       {}
func (am *adjModel) InitialState(dst, _ []float64) { clear(dst) }
func (am *adjModel) InitialSens([]float64, []float64) {
}
func (am *adjModel) JxPattern() *model.Pattern { return am.pat }
func (am *adjModel) JpPattern() *model.Pattern { return am.noPat }
func (am *adjModel) Jp([]float64, float64, []float64, []float64) {
}

// F writes A(T - s) lambda.
func (am *adjModel) F(dst []float64, s float64, y, _ []float64) {
	am.at(s)
	clear(dst)
	am.a.MulVecTo(dst, y)
}

// Jx writes A's values: the system is linear in y.
func (am *adjModel) Jx(dst []float64, s float64, _, _ []float64) {
	am.at(s)
	copy(dst, am.a.Val)
}

// adjWork is a worker's adjoint state: per column group the backward
// model and its solver, the forward state solver, and the buffers.
type adjWork struct {
	fwd  []*ode.Solver
	bwd  []*ode.Solver
	am   []*adjModel
	tr   ode.Trajectory
	xo   []float64 // per output time: x, nout x nx
	jump []float64 // per output time: dllh/dx, nout x nx
	y    []float64 // [lambda; q]
	s0   []float64 // dx0/dtheta, nx x nc
	st   ode.Start
}

// newAdjoint makes the adjoint solvers of group g for worker w.
func (w *worker) newAdjoint(g int, tm *thetaModel, fset, bset ode.Settings) {
	c := w.c
	aw := w.adj
	if aw == nil {
		aw = &adjWork{fwd: make([]*ode.Solver, len(c.groups)), bwd: make([]*ode.Solver, len(c.groups)),
			am: make([]*adjModel, len(c.groups))}
		w.adj = aw
	}
	aw.fwd[g] = ode.NewSolver(tm, &fset)
	if lim := c.adjMemoryLimit(); lim > 0 {
		aw.fwd[g].SetStop(func(tr *ode.Trajectory) bool { return tr.Bytes() > lim })
	}
	am := newAdjModel(tm)
	aw.am[g] = am
	aw.bwd[g] = ode.NewSolver(am, &bset)
}

// size allocates the per-output and per-column buffers for the
// experiments of w (nout output times at most, nc columns at most).
func (aw *adjWork) size(nx, nout, nc int) {
	aw.xo = make([]float64, nout*nx)
	aw.jump = make([]float64, nout*nx)
	aw.y = make([]float64, nx+nc)
	aw.s0 = make([]float64, nx*nc)
}

// solveAdjoint evaluates experiment e (one phase from T0, no
// pre-equilibration, no steady-state data: checkAdjoint) with the
// gradient by the adjoint.
func (w *worker) solveAdjoint(e int, out *Result) error {
	c := w.c
	pl := &c.exps[e]
	if len(pl.ex.Data) == 0 {
		return nil
	}
	aw := w.adj
	nx := c.nx
	ph := &pl.phases[0]
	c.params(w.pSim, w.dSim, pl.sim)
	tm := w.use(ph.group, w.pSim, w.dSim)
	nc := tm.nc
	x := w.x
	tm.InitialState(x, nil)
	times := ph.times
	n := len(times)
	xo, jump := aw.xo[:n*nx], aw.jump[:n*nx]
	fwd := aw.fwd[ph.group]
	aw.st = ode.Start{T0: ph.t0, X0: x}
	err := fwd.IntegrateFrom(&aw.tr, w.q[:nc], &aw.st, times)
	st := &c.part[e].stats
	fs := fwd.Stats()
	st.Solves++
	st.Steps += fs.Steps
	st.Rejected += fs.Rejected
	if err != nil {
		return fmt.Errorf("objective: %s: %w", c.expName(e), err)
	}
	st.AdjointBytes = aw.tr.Bytes()
	if last := aw.tr.T[aw.tr.Len()-1]; last < times[n-1] {
		// Stopped by the memory bound (newAdjoint).
		return fmt.Errorf("%w: %s: the checkpoints of the forward solve reached %d bytes at t = %g of %g (Options.AdjMemoryLimit %d); use the forward gradient",
			ErrAdjoint, c.expName(e), st.AdjointBytes, last, times[n-1], c.adjMemoryLimit())
	}
	for o, t := range times {
		aw.tr.InterpTo(xo[o*nx:(o+1)*nx], t)
	}
	// The data: llh, the direct gradient terms, and the jumps dllh/dx.
	clear(jump)
	for _, i := range ph.data {
		o := pl.out[i]
		w.adjX = jump[o*nx : (o+1)*nx]
		err := w.datum(e, i, pl.ex.Data[i].T, xo[o*nx:(o+1)*nx], nil, w.pSim, w.dSim, ph.mapped, out)
		w.adjX = nil
		if err != nil {
			return err
		}
	}
	if nc == 0 {
		return nil
	}
	return w.backward(e, tm, times)
}

// backward integrates lambda and q from the last output time to T0 with
// the jumps at the output times, and adds lambda(T0)^T dx0/dtheta + q to
// the experiment's gradient.
func (w *worker) backward(e int, tm *thetaModel, times []float64) error {
	c := w.c
	pl := &c.exps[e]
	aw := w.adj
	nx, nc := c.nx, tm.nc
	ph := &pl.phases[0]
	n := len(times)
	tEnd := times[n-1]
	am, bwd := aw.am[ph.group], aw.bwd[ph.group]
	am.reset(&aw.tr, tEnd)
	y := aw.y[:nx+nc]
	clear(y)
	// The system is linear, so it is solved for y / scale, scale being
	// ||lambda||_inf after each jump: AdjATol is relative to the
	// adjoint's current size, and the error control does not depend on
	// the data's units (dllh/dx is a residual over sigma^2). On Lang,
	// where lambda grows by about 1e13 from the last datum back to T0,
	// this took 85032 backward steps, AdjATol absolute 88786, and
	// relative to the largest jump alone 152756.
	var scale float64
	for _, v := range aw.jump[:n*nx] {
		scale = max(scale, math.Abs(v))
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		if scale == 0 {
			return nil // no datum depends on the state
		}
		return fmt.Errorf("objective: %s: dllh/dx not finite", c.expName(e))
	}
	inv := 1 / scale
	st := &c.part[e].stats
	for o := n - 1; o >= 0; o-- {
		for i, v := range aw.jump[o*nx : (o+1)*nx] {
			y[i] += v * inv
		}
		var lm float64
		for _, v := range y[:nx] {
			lm = max(lm, math.Abs(v))
		}
		if lm > 0 && !math.IsInf(lm, 0) {
			r := 1 / lm
			for i := range y {
				y[i] *= r
			}
			scale *= lm
			inv *= r
		}
		next := ph.t0
		if o > 0 {
			next = times[o-1]
		}
		if next == times[o] {
			continue
		}
		err := bwd.IntegrateState(y, nil, tEnd-times[o], tEnd-next)
		bs := bwd.Stats()
		st.AdjointSteps += bs.Steps
		st.Rejected += bs.Rejected
		if err != nil {
			return fmt.Errorf("objective: %s: adjoint from t = %g back to %g: %w", c.expName(e), times[o], next, err)
		}
	}
	s0 := aw.s0[:nx*nc]
	tm.InitialSens(s0, nil)
	pt := &c.part[e]
	for cc := 0; cc < nc; cc++ {
		g := y[nx+cc]
		for i := 0; i < nx; i++ {
			g += y[i] * s0[i*nc+cc]
		}
		g *= scale
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return fmt.Errorf("objective: %s: adjoint gradient not finite", c.expName(e))
		}
		pt.grad[pl.colLocal[cc]] += g
	}
	return nil
}

// adjSettings returns the settings of the adjoint's forward state solve
// (the objective's state settings, stepping over the data times) and of
// its backward solve (AdjRTol, AdjATol).
func adjSettings(o *Options, oset ode.Settings) (fset, bset ode.Settings) {
	fset = oset
	fset.Interpolate = true
	fset.SkipGridF = true
	bset = oset
	bset.ATolVec = nil
	bset.RTol, bset.ATol = o.AdjRTol, o.AdjATol
	if bset.RTol == 0 {
		bset.RTol = o.RTol
	}
	if bset.ATol == 0 {
		bset.ATol = o.ATol
	}
	bset.Interpolate = true
	bset.SkipGridF = true
	return fset, bset
}

// adjMemoryLimit is the resolved Options.AdjMemoryLimit (<= 0: none).
func (c *core) adjMemoryLimit() int64 {
	switch l := c.opt.AdjMemoryLimit; {
	case l < 0:
		return 0
	case l > 0:
		return l
	}
	return ode.DefaultMemoryLimit() / 4
}
