package objective

import (
	"fmt"
	"io"
	"math"

	"github.com/pbgen/pbgen/runtime/dde"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// worker holds everything one goroutine needs to evaluate experiments: a
// solver per column group, state and sensitivity buffers, observable
// derivative scratch.
type worker struct {
	c       *core
	exps    []int        // the experiments this worker solves
	start   chan *Result // Workers > 1: one receive per Eval
	models  []*thetaModel
	solvers []Solver
	// A model with events (events.go): per group the events solver, the
	// solver without events (nil with Options.NewSolver) and the model's
	// events in theta columns;
	// trigger values carried between solves, scratch.
	evs                    []EventSolver
	plain                  []*sens.Solver
	tevs                   []*thetaEvents
	trig, trigNow, trigCur []bool
	trigInit               []bool
	gl, gr                 []float64
	est                    events.SensStart
	odes                   []*ode.Solver // state only, for steady states (nil: none there)
	states                 []StateSolver // instead of odes, when the Solver has it
	res                    sens.Result
	ssRes                  sens.Result // the steady-state chunks
	q                      []float64   // the thetaModel's parameter vector: the scales of its columns (use)
	ts                     [1]float64
	// A model with delays (delay.go): the dde settings and output times,
	// per group the model in theta columns (nil without columns).
	ddeSet dde.Settings
	dts    []float64
	tds    []model.Model // per group, what dde.SolveSens solves: a thetaDelays, with events a delayEventModel
	// st is the start of a solve, kept here because a pointer passed
	// through the Solver interface escapes (a local would allocate).
	st sens.Start

	pPre, pSim []float64 // model parameters
	dPre, dSim []float64 // dp_j/dtheta of the mapped parameters
	pAlt, dAlt []float64 // the other phase's, when periods alternate
	x, xr      []float64 // nx
	sPre, s    []float64 // nx x nc (pre, sim)
	sr         []float64 // nx x nc scratch (re-initialisation)
	xInf, sInf []float64 // steady state of the simulation condition

	f, jx, jp []float64 // steady-state test
	ds        []float64 // dS/dt, nx x nc
	x0c, s0c  []float64 // a steady-state phase's start, for the fallback
	a         []float64 // nx x nx: Jx + s L^T L, factored
	lscale    float64   // its s
	piv       []int
	dx, xn    []float64 // Newton step, new iterate
	rhs       []float64 // the steady-state S solve
	u, du     []float64 // placeholder values, d(lin)/d(theta)
	d         model.ObsDeriv
	gz, gs    []float64 // dz/dtheta, dsigma/dtheta on the local thetas

	// Assignments at period starts: new values, their derivatives, the
	// new S rows (computed before any is written: the assignment is
	// simultaneous).
	ga     []float64
	gd     model.AssignDeriv
	gx, gp []float64 // backing of gd
	sa     []float64

	// The adjoint gradient (adjoint.go): nil unless Options.Gradient is
	// GradAdjoint. While adjX is set, datum adds dllh/dx there instead of
	// chaining S.
	adj  *adjWork
	adjX []float64
}

// newWorker returns a worker for experiments exps, with solvers for the
// column groups they use only (the others stay nil).
func (c *core) newWorker(exps []int) (*worker, error) {
	nx, np := c.nx, c.np
	w := &worker{c: c, exps: exps}
	used := make([]bool, len(c.groups))
	steady := make([]bool, len(c.groups)) // groups that go to steady state
	maxT := 0                             // most states an assignment set of these experiments sets
	for _, e := range exps {
		pl := &c.exps[e]
		for k := range pl.phases[:max(1, pl.nrun)] {
			ph := &pl.phases[k]
			used[ph.group] = true
			if ph.assign >= 0 {
				maxT = max(maxT, len(c.asgTargets[ph.assign]))
			}
		}
		if pl.nrun > 0 {
			g := pl.phases[pl.nrun-1].group
			steady[g] = steady[g] || pl.hasInf
		}
		if g := pl.preGroup; g >= 0 {
			used[g], steady[g] = true, true
		}
	}
	maxC, maxJp := 0, 0
	so := sens.Options{}
	if c.opt.Sens != nil {
		so = *c.opt.Sens
	}
	so.Method, so.Params = c.opt.Method, nil
	so.RTol, so.ATol = c.opt.RTol, c.opt.ATol
	so.ErrCon = !c.opt.NoErrCon
	so.ODE.Interpolate = !c.opt.OutputsOnGrid
	// The objective reads x, S and the dense output, never f at the grid
	// points (runtime/sens does not either): one f evaluation per step
	// saved, 7% of FS on Rahman_MBS2016.
	so.ODE.SkipGridF = true
	oset := so.ODE
	if oset.RTol == 0 {
		oset.RTol = c.opt.RTol
	}
	if oset.ATol == 0 {
		oset.ATol = c.opt.ATol
	}
	oset.Interpolate = false
	fset, bset := adjSettings(&c.opt, oset)
	w.models = make([]*thetaModel, len(c.groups))
	w.solvers = make([]Solver, len(c.groups))
	w.odes = make([]*ode.Solver, len(c.groups))
	w.states = make([]StateSolver, len(c.groups))
	for i, g := range c.groups {
		if !used[i] {
			continue
		}
		tm := newThetaModel(c.m, g.col, g.nc)
		w.models[i] = tm
		if c.dl != nil {
			// runtime/dde solves it (delay.go); no sensitivity solvers.
			if g.nc > 0 {
				if w.tds == nil {
					w.tds = make([]model.Model, len(c.groups))
				}
				// New checked that the model has the derivatives.
				td := newThetaDelays(tm, c.m.(model.DelaySens))
				w.tds[i] = td
				if c.ev != nil {
					w.tds[i] = delayEventModel(td, newThetaEvents(tm, c.ev))
				}
			}
			maxC = max(maxC, g.nc)
			continue
		}
		if c.opt.Gradient == GradAdjoint {
			w.newAdjoint(i, tm, fset, bset)
			maxC = max(maxC, g.nc)
			continue
		}
		if c.ev != nil {
			if err := w.newEventSolvers(i, tm, &so); err != nil {
				w.closeSolvers()
				return nil, err
			}
		} else if c.opt.NewSolver == nil {
			w.solvers[i] = sens.NewSolver(tm, &so)
		} else {
			sv, err := c.opt.NewSolver(tm, &so)
			if err != nil {
				w.closeSolvers()
				return nil, fmt.Errorf("objective: %w", err)
			}
			w.solvers[i] = sv
		}
		if ss, ok := w.solvers[i].(StateSolver); ok && steady[i] && c.ev == nil {
			w.states[i] = ss
		} else if steady[i] && c.ev == nil {
			w.odes[i] = ode.NewSolver(tm, &oset)
		}
		maxC = max(maxC, g.nc)
		maxJp = max(maxJp, tm.jpPat.NNZ())
	}
	if c.dl != nil {
		w.ddeSet = newDelaySettings(oset)
	}
	mk := func(n int) []float64 { return make([]float64, n) }
	w.q = mk(maxC)
	w.pPre, w.pSim, w.dPre, w.dSim = mk(np), mk(np), mk(np), mk(np)
	w.pAlt, w.dAlt = mk(np), mk(np)
	w.ga, w.gx, w.gp, w.sa = mk(maxT), mk(maxT*nx), mk(maxT*np), mk(maxT*maxC)
	w.x, w.xr, w.xInf, w.f = mk(nx), mk(nx), mk(nx), mk(nx)
	w.sPre, w.s, w.sr, w.sInf = mk(nx*maxC), mk(nx*maxC), mk(nx*maxC), mk(nx*maxC)
	w.jx, w.jp = mk(c.m.JxPattern().NNZ()), mk(maxJp)
	w.ds = mk(nx * maxC)
	w.x0c, w.s0c, w.rhs = mk(nx), mk(nx*maxC), mk(nx*maxC)
	w.a, w.piv = mk(nx*nx), make([]int, nx)
	w.dx, w.xn = mk(nx), mk(nx)
	maxU, maxL := 0, 0
	for k := range c.prob.Observables {
		no, nn := c.obs.Placeholders(k)
		maxU = max(maxU, no+nn)
	}
	for _, e := range exps {
		maxL = max(maxL, len(c.exps[e].local))
	}
	w.u, w.du = mk(maxU), mk(maxU)
	w.d = model.ObsDeriv{HX: mk(nx), SX: mk(nx), HP: mk(np), SP: mk(np), HU: mk(maxU), SU: mk(maxU)}
	w.gz, w.gs = mk(maxL), mk(maxL)
	if w.adj != nil {
		maxOut := 0
		for _, e := range exps {
			maxOut = max(maxOut, len(c.exps[e].phases[0].times))
		}
		w.adj.size(nx, maxOut, maxC)
	}
	return w, nil
}

// closeSolvers closes the worker's solvers that implement io.Closer (a
// failed newWorker's: New's caller gets no Objective to Close).
func (w *worker) closeSolvers() {
	for _, s := range w.solvers {
		if cl, ok := s.(io.Closer); ok {
			cl.Close()
		}
	}
}

// params fills p and dp (for the mapped parameters) from condition cd.
func (c *core) params(p, dp []float64, cd *Condition) {
	for j, v := range cd.P {
		if v.Theta >= 0 {
			p[j], dp[j] = c.lin[v.Theta], c.dlin[v.Theta]
		} else {
			p[j], dp[j] = v.Const, 0
		}
	}
}

// use sets the parameters of group g's thetaModel and returns it. The
// thetaModel reads them from tm.p and ignores the parameter vector the
// solvers pass it, w.q, which therefore carries the scales of its columns
// for FS's error weights (sens.ScaleParams takes |q_c|): p_j / (dp_j /
// dtheta_c) for the parameter p_j of column c, so that the error test
// holds S_c q_c = p_j dx/dp_j, as for a model's own columns (on a log10
// scale q_c = 1/ln 10, the column being ln 10 p_j dx/dp_j already; on a
// linear one the parameter's value); 0, taken as 1, for a column without
// a mapped parameter.
func (w *worker) use(g int, p, dp []float64) *thetaModel {
	tm := w.models[g]
	tm.p, tm.dp = p, dp
	q := w.q[:tm.nc]
	clear(q)
	for j, c := range tm.col {
		if c >= 0 && dp[j] != 0 {
			q[c] = p[j] / dp[j]
		}
	}
	return tm
}

// runAll evaluates the worker's experiments.
func (w *worker) runAll(out *Result) {
	for _, e := range w.exps {
		w.run(e, out)
	}
}

// run evaluates experiment e into c.part[e] and the Result's per-datum
// slices (a range of its own).
func (w *worker) run(e int, out *Result) {
	pt := &w.c.part[e]
	pt.llh, pt.chi2 = 0, 0
	pt.stats = Stats{}
	clear(pt.grad)
	clear(pt.fim)
	pt.err = w.solve(e, out)
	if pt.err != nil && w.c.alg != nil {
		pt.err = w.c.explainDAE(e, pt.err)
	}
}

func (w *worker) solve(e int, out *Result) error {
	c := w.c
	if c.dl != nil {
		// Before events: runtime/dde solves a model with both.
		return w.solveDelays(e, out)
	}
	if c.ev != nil {
		return w.solveEvents(e, out)
	}
	if w.adj != nil {
		return w.solveAdjoint(e, out)
	}
	pl := &c.exps[e]
	if len(pl.ex.Data) == 0 {
		return nil // nothing observed: not even pre-equilibration can matter
	}
	nx := c.nx
	c.params(w.pSim, w.dSim, pl.sim)
	// Pre-equilibration and simulation may share a column group (and so a
	// thetaModel): use sets its parameters before each phase.
	sim := w.use(pl.simGroup, w.pSim, w.dSim)
	ncs := sim.nc
	x, s := w.x, w.s[:nx*ncs]
	if pl.pre != nil {
		c.params(w.pPre, w.dPre, pl.pre)
		pre := w.use(pl.preGroup, w.pPre, w.dPre)
		ncp := pre.nc
		sp := w.sPre[:nx*ncp]
		pre.InitialState(x, nil)
		pre.InitialSens(sp, nil)
		if _, err := w.steady(e, 0, pl.preGroup, x, sp, 0); err != nil {
			return fmt.Errorf("objective: %s: pre-equilibration: %w", c.expName(e), err)
		}
		w.enterSim(pl, x, s, sp, ncp)
	} else {
		sim.InitialState(x, nil)
		sim.InitialSens(s, nil)
	}
	ex := pl.ex
	// The phases: parameters switch to each one's condition at its start,
	// after its assignment (evaluated with the previous parameters).
	p, dp := w.pSim, w.dSim
	for k := 0; k < pl.nrun; k++ {
		ph := &pl.phases[k]
		if k > 0 {
			var err error
			if p, dp, err = w.enterPhase(e, k, x, s, ncs, p, dp); err != nil {
				return err
			}
		}
		w.use(ph.group, p, dp)
		n := len(ph.times)
		if n == 1 && ph.times[0] == ph.t0 && k+1 < pl.nrun {
			continue // a period of length 0: the next starts at once
		}
		if n > 0 {
			w.st = sens.Start{T0: ph.t0, X0: x, S0: s}
			err := w.solvers[ph.group].SolveFrom(&w.res, w.q[:ncs], &w.st, ph.times)
			w.count(e, &w.res, false)
			if err != nil {
				if k > 0 {
					return fmt.Errorf("objective: %s: period %d (condition %q): %w", c.expName(e), k, ph.cond.ID, err)
				}
				return fmt.Errorf("objective: %s: %w", c.expName(e), err)
			}
		}
		if err := w.observePhase(e, ph, p, dp, out); err != nil {
			return err
		}
		if k+1 < pl.nrun {
			// The state at the next phase's start, its last output time.
			copy(x, w.res.XAt(n-1))
			copy(s, w.res.SAt(n-1))
			continue
		}
		if !pl.hasInf {
			break
		}
		t0 := ph.t0
		xi, si := w.xInf, w.sInf[:nx*ncs]
		if n > 0 {
			t0 = ph.times[n-1]
			copy(xi, w.res.XAt(n-1))
			copy(si, w.res.SAt(n-1))
		} else {
			copy(xi, x)
			copy(si, s)
		}
		if _, err := w.steady(e, 1, ph.group, xi, si, t0); err != nil {
			if k > 0 {
				return fmt.Errorf("objective: %s: steady state of period %d (condition %q): %w", c.expName(e), k, ph.cond.ID, err)
			}
			return fmt.Errorf("objective: %s: steady state of the simulation condition: %w", c.expName(e), err)
		}
		for _, i := range ph.data {
			if pl.out[i] < 0 {
				if err := w.datum(e, i, ex.Data[i].T, xi, si, p, dp, ph.mapped, out); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// assign applies phase ph's assignment set to (x, S) (S with nc columns)
// at its start: x_i := g_i(t, x, p) for the targets, and by the chain rule
// S_i := dg_i/dx S + dg_i/dp dp/dtheta, p being the previous phase's
// parameters (dp their derivatives, col their columns). Non-finite values
// are an error.
func (w *worker) assign(ph *phase, x, S []float64, nc int, p, dp []float64, col []int) error {
	c := w.c
	nx, np := c.nx, c.np
	tg := c.asgTargets[ph.assign]
	n := len(tg)
	g := w.ga[:n]
	var d *model.AssignDeriv
	if nc > 0 {
		w.gd.X, w.gd.P = w.gx[:n*nx], w.gp[:n*np]
		d = &w.gd
	}
	c.asg.Assign(ph.assign, ph.t0, x, p, g, d)
	for r, v := range g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("state %q assigned %g", c.m.StateNames()[tg[r]], v)
		}
	}
	if nc > 0 {
		sa := w.sa[:n*nc]
		clear(sa)
		for r := range tg {
			row := sa[r*nc : (r+1)*nc]
			for j, v := range d.X[r*nx : (r+1)*nx] {
				if v == 0 {
					continue
				}
				for cc, sv := range S[j*nc : (j+1)*nc] {
					row[cc] += v * sv
				}
			}
			for j, v := range d.P[r*np : (r+1)*np] {
				if cc := col[j]; v != 0 && cc >= 0 {
					row[cc] += v * dp[j]
				}
			}
		}
		for r, i := range tg {
			copy(S[i*nc:(i+1)*nc], sa[r*nc:(r+1)*nc])
		}
	}
	for r, i := range tg {
		x[i] = g[r]
	}
	return nil
}

// datum adds datum i of experiment e at (t, x, S) to the partial result,
// together with its replicates (expPlan.lead, next), which share h, sigma
// and their derivatives: the observable is evaluated and its gradient
// formed once per group, and each datum adds only its residual's terms. A
// datum that is not its group's first was added with it and is skipped.
// p are the model parameters of the datum's phase, dp their derivatives
// and mp those mapped to thetas.
func (w *worker) datum(e, i int, t float64, x, S, p, dp []float64, mp []mapped, out *Result) error {
	c := w.c
	pl := &c.exps[e]
	if !pl.lead[i] {
		return nil
	}
	pt := &c.part[e]
	d := &pl.ex.Data[i]
	ob := &c.prob.Observables[d.Obs]
	nu := len(d.U)
	u, du := w.u[:nu], w.du[:nu]
	for l, v := range d.U {
		if v.Theta >= 0 {
			u[l], du[l] = c.lin[v.Theta], c.dlin[v.Theta]
		} else {
			u[l], du[l] = v.Const, 0
		}
	}
	var der *model.ObsDeriv
	if c.need {
		w.d.HU, w.d.SU = w.d.HU[:nu], w.d.SU[:nu]
		der = &w.d
	}
	h, sg := c.obs.Observe(d.Obs, t, x, p, u, der)
	z, dz := transform(ob.Transform, h)
	if !(sg > 0) || math.IsInf(sg, 0) || math.IsNaN(z) || math.IsInf(z, 0) {
		return fmt.Errorf("objective: %s datum %d (observable %q, t = %g): simulated value %g, sigma %g (need sigma > 0 and a finite transformed value)",
			c.expName(e), i, ob.ID, t, h, sg)
	}
	// The group's data: llh terms, and the coefficients of dz and dsigma
	// in dllh summed over the group.
	lsg := math.Log(sg)
	var gzc, gsc float64
	n := 0
	for j := i; j >= 0; j = pl.next[j] {
		a := z - pl.zm[j]
		r := a / sg
		k := pl.off + j
		out.Sim[k], out.Sigma[k], out.Res[k] = h, sg, r
		pt.chi2 += r * r
		if ob.Noise == Laplace {
			pt.llh += -math.Ln2 - lsg - math.Abs(a)/sg + pl.jac[j]
			gzc += -sign(a) / sg
			gsc += (math.Abs(a)/sg - 1) / sg
		} else {
			pt.llh += -logSqrt2Pi - lsg - 0.5*r*r + pl.jac[j]
			gzc += -r / sg
			gsc += (r*r - 1) / sg
		}
		n++
	}
	if !c.need {
		return nil
	}
	nl := len(pl.local)
	gz, gs := w.gz[:nl], w.gs[:nl]
	clear(gz)
	clear(gs)
	// Through the state: dh/dx S (columns are thetas), or for the
	// adjoint dllh/dx, the jump of lambda.
	if w.adjX != nil {
		for ix, hx := range w.d.HX {
			w.adjX[ix] += dz*gzc*hx + gsc*w.d.SX[ix]
		}
	}
	nc := len(pl.colLocal)
	for ix, hx := range w.d.HX {
		if S == nil {
			break
		}
		sx := w.d.SX[ix]
		if hx == 0 && sx == 0 {
			continue
		}
		row := S[ix*nc : (ix+1)*nc]
		for col, v := range row {
			gz[pl.colLocal[col]] += hx * v
			gs[pl.colLocal[col]] += sx * v
		}
	}
	// Through the parameters of the datum's phase.
	for _, m := range mp {
		gz[m.local] += w.d.HP[m.j] * dp[m.j]
		gs[m.local] += w.d.SP[m.j] * dp[m.j]
	}
	// Through the placeholders.
	for l, li := range pl.uLocal[i] {
		if li >= 0 {
			gz[li] += w.d.HU[l] * du[l]
			gs[li] += w.d.SU[l] * du[l]
		}
	}
	for l := range gz {
		gz[l] *= dz
	}
	for l := range gz {
		if g := gz[l]*gzc + gs[l]*gsc; !math.IsNaN(g) {
			pt.grad[l] += g
		} else {
			return fmt.Errorf("objective: %s datum %d (observable %q, t = %g): gradient not finite", c.expName(e), i, ob.ID, t)
		}
	}
	if c.opt.FIM {
		// Expected information of the location z and the scale sigma:
		// normal 1/sigma^2 and 2/sigma^2, Laplace 1/sigma^2 for both,
		// n times for the group's n data.
		wz, ws := float64(n)/(sg*sg), 2*float64(n)/(sg*sg)
		if ob.Noise == Laplace {
			ws = wz
		}
		// The upper triangle only; Eval mirrors it.
		for l := range gz {
			zl, sl := wz*gz[l], ws*gs[l]
			if zl == 0 && sl == 0 {
				continue
			}
			row := pt.fim[l*nl : (l+1)*nl]
			for m := l; m < nl; m++ {
				row[m] += zl*gz[m] + sl*gs[m]
			}
		}
	}
	return nil
}

// count adds a solve's work to experiment e's statistics.
func (w *worker) count(e int, r *sens.Result, steady bool) {
	st := &w.c.part[e].stats
	st.Solves++
	if steady {
		st.SteadyChunks++
	}
	st.Steps += r.Stats.ODE.Steps
	st.Rejected += r.Stats.ODE.Rejected
}

// enterSim switches from pre-equilibration to the simulation condition:
// the S columns are re-indexed from the pre-equilibration's (sp, ncp
// columns) to the simulation's (s), and re-initialised states take
// x0(p_sim) and its sensitivities.
func (w *worker) enterSim(pl *expPlan, x, s, sp []float64, ncp int) {
	nx := w.c.nx
	sim := w.use(pl.simGroup, w.pSim, w.dSim)
	ncs := sim.nc
	clear(s)
	for i := 0; i < nx; i++ {
		for k, cs := range pl.preToSim {
			s[i*ncs+cs] = sp[i*ncp+k]
		}
	}
	if pl.reinitAny {
		sim.InitialState(w.xr, nil)
		sr := w.sr[:nx*ncs]
		sim.InitialSens(sr, nil)
		for i, r := range pl.reinit {
			if r {
				x[i] = w.xr[i]
				copy(s[i*ncs:(i+1)*ncs], sr[i*ncs:(i+1)*ncs])
			}
		}
	}
}

// enterPhase starts period k > 0 of experiment e: the parameters of its
// condition, and its assignment (if any) to x and S evaluated with the
// previous period's parameters p, dp. It returns the new parameters,
// which alternate between two buffers so that p stays valid for the
// assignment.
func (w *worker) enterPhase(e, k int, x, s []float64, ncs int, p, dp []float64) (pn, dpn []float64, err error) {
	c := w.c
	pl := &c.exps[e]
	ph, prev := &pl.phases[k], &pl.phases[k-1]
	pn, dpn = w.pAlt, w.dAlt
	if k%2 == 0 {
		pn, dpn = w.pSim, w.dSim
	}
	c.params(pn, dpn, ph.cond)
	if ph.assign >= 0 {
		if err := w.assign(ph, x, s, ncs, p, dp, c.groups[prev.group].col); err != nil {
			return nil, nil, fmt.Errorf("objective: %s: period %d (condition %q, t = %g): %w", c.expName(e), k, ph.cond.ID, ph.t0, err)
		}
	}
	return pn, dpn, nil
}

// observePhase adds the data of phase ph of experiment e, observed at its
// output times in w.res, to out.
func (w *worker) observePhase(e int, ph *phase, p, dp []float64, out *Result) error {
	pl := &w.c.exps[e]
	for _, i := range ph.data {
		if o := pl.out[i]; o >= 0 {
			if err := w.datum(e, i, pl.ex.Data[i].T, w.res.XAt(o), w.res.SAt(o), p, dp, ph.mapped, out); err != nil {
				return err
			}
		}
	}
	return nil
}
