package objective

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/pbgen/pbgen/runtime/dde"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// Delays.
//
// A model with delayed values (model.Delays: SBML's csymbol delay) is a
// delay differential equation, whose states runtime/dde solves by the
// method of steps; runtime/ode and runtime/sens refuse it. Each
// experiment is one solve from the simulation condition's initial state
// (the history before T0 being the model's, SBML's initial values)
// through the data times: dde.Solve for the log-likelihood alone, and
// dde.SolveSens, forward sensitivity through the delays, when Grad or
// FIM asks for S. Options.Method does not apply: every method's
// sensitivities of a delay problem are dde.SolveSens's (a BDF with S in
// the error test, at RTol and ATol), because PBS, PBSR and Exp have no
// delay form.
//
// S has the experiment's theta columns, as on the ODE path: the model
// is presented to runtime/dde as a thetaDelays, the thetaModel (Jp, dx0/dp
// chained through dp/dtheta of the condition's mapping) with the delay
// derivatives of model.DelaySens chained the same way (de_k/dp, dtau_k/dp
// and the history's dH_k/dp, so that an estimated initial value moves
// the history before T0 with x0). The columns are the thetas that
// conditions map to model parameters, as on the ODE path; a problem
// whose estimated parameters are none (placeholder values of the
// measurement table only) needs no S and is solved by dde.Solve even
// with Grad or FIM, whatever the model lacks.
//
// A model with events too, or switches of its rates (model.Switches), is
// solved by runtime/dde with them, S carried across them
// (dde.SolveSens): the model is presented as a
// thetaDelays with the events of a thetaEvents, their derivatives in the
// theta columns, and, where the events read delayed values
// (model.DelayEvents), their variants with d and the derivatives in d
// (model.DelayEventDerivs), chained the same way.
//
// What runtime/dde cannot differentiate is refused by New with
// ErrDelaySens, naming the delays and why: a model without
// model.DelaySens (one with algebraic rules or fast reactions, whose
// reduction by runtime/dae does not carry the delay derivatives), a delay
// whose length depends on the state or time, and a model with events
// without model.EventDerivs, or whose events may read delayed values
// without model.DelayEventDerivs (a delay of length zero with events is
// refused by runtime/dde when it solves).
// Refused whatever is asked: pre-equilibration and data at steady state
// (a steady state of a DDE would need the history's own treatment),
// periods (the history across a condition change), and
// Options.NewSolver.
//
// # Allocation
//
// A dde solve allocates: its Result, its integrators (one ode.Solver and
// Trajectory per segment between breaking points, kept as the history)
// and, with sensitivities, the scratch of its right-hand side. An Eval of
// a delay problem therefore allocates per experiment, in proportion to
// the segments and steps of each solve; the objective's own part
// (observables, gradient, FIM) allocates nothing. On petab/testdata/delay
// (two experiments over [0, 2.5], tau = 1, default tolerances; petab's
// BenchmarkDelayEval) an Eval of the llh allocates 356 times (25.8 kB)
// and takes 0.67e6 instructions, one of the llh, gradient and FIM (three
// columns) 485 times (198 kB) and 6.7e6 instructions (callgrind, the
// difference of 201 and 101 iterations), most of them in the interpreted
// model's delay derivatives and runtime/dde, 3% in thetaDelays.

// ErrDelaySens is wrapped by New's error for a model with delays when
// Options.Grad or Options.FIM needs sensitivities that runtime/dde cannot
// compute; the error says why.
var ErrDelaySens = errors.New("sensitivities through csymbol delay are not supported here: the gradient and the Fisher information cannot be computed (the log-likelihood can)")

// delayNames lists the model's delayed values, for messages.
func delayNames(dm model.Delays) string {
	var s []string
	for k := 0; k < dm.NumDelays(); k++ {
		s = append(s, dm.DelayInfo(k).Name)
	}
	return strings.Join(s, ", ")
}

// delayWhat names the model and its delays, for messages.
func (c *core) delayWhat() string {
	return fmt.Sprintf("model %q reads delayed values (csymbol delay: %s)", c.m.Name(), delayNames(c.dl))
}

// checkDelays refuses what the delay path does not do (see above).
func (c *core) checkDelays() error {
	what := c.delayWhat()
	if c.opt.NewSolver != nil {
		return fmt.Errorf("objective: %s: Options.NewSolver cannot solve it (only runtime/dde does)", what)
	}
	for e := range c.prob.Experiments {
		ex := &c.prob.Experiments[e]
		switch {
		case ex.Preeq >= 0:
			return fmt.Errorf("objective: %s: %s: pre-equilibration is not supported with delays", what, c.expName(e))
		case len(ex.Periods) > 0:
			return fmt.Errorf("objective: %s: %s: periods (condition changes during a simulation) are not supported with delays", what, c.expName(e))
		}
		for i := range ex.Data {
			if math.IsInf(ex.Data[i].T, 1) {
				return fmt.Errorf("objective: %s: %s datum %d: data at steady state (time inf) are not supported with delays", what, c.expName(e), i)
			}
		}
	}
	return nil
}

// checkDelaySens refuses, after plan, a gradient or FIM that needs
// sensitivity columns dde.SolveSens would refuse, saying why (the
// reasons are dde.ErrSens's, found here before any solve; a jump of a
// delayed value that moves only through its delay's length is left to
// dde.SolveSens, which knows whether the length depends on the estimated
// parameters, and its refusal wraps ErrDelaySens too).
func (c *core) checkDelaySens() error {
	cols := false
	for _, g := range c.groups {
		cols = cols || g.nc > 0
	}
	if !c.need || !cols {
		return nil
	}
	why := ""
	if _, ok := c.m.(model.DelaySens); !ok {
		why = "the model does not give the derivatives through its delays (model.DelaySens)"
		if c.alg != nil {
			why = "its algebraic rules or fast reactions are eliminated by runtime/dae, which does not carry the derivatives through the delays (model.DelaySens)"
		}
	} else if _, ok := c.ev.(model.EventDerivs); c.ev != nil && !ok {
		why = "it has events and does not give their derivatives (model.EventDerivs)"
	} else if _, ok := c.ev.(model.DelayEventDerivs); c.ev != nil && !ok && isDelayEvents(c.ev) {
		why = "its events may read delayed values, and it does not give their derivatives in them (model.DelayEventDerivs)"
	} else {
		for k := 0; k < c.dl.NumDelays(); k++ {
			if in := c.dl.DelayInfo(k); !in.Constant {
				why = fmt.Sprintf("the length of %s depends on the state or time (runtime/dde differentiates delays whose length depends on parameters only)", in.Name)
				break
			} else if in.HistoryJumps && in.HistoryJumpsMove {
				why = fmt.Sprintf("the history of %s before the start is discontinuous in time at times that depend on the parameters (runtime/dde does not locate those jumps)", in.Name)
				break
			} else if in.ArgJumps && in.ArgJumpsMove {
				why = fmt.Sprintf("the delayed expression of %s holds a relation, not a switch of f, whose times depend on the parameters or the state (runtime/dde does not locate those jumps)", in.Name)
				break
			}
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("objective: %s: %w: %s", c.delayWhat(), ErrDelaySens, why)
}

// thetaDelays is a thetaModel with the model's delays (model.DelaySens),
// their derivatives in the theta columns: d/dtheta = d/dp dp/dtheta, as
// for Jp. Like thetaModel it reads the parameters from tm.p and ignores
// those passed in (runtime/dde passes the theta-length vector it was
// given), and belongs to one worker.
type thetaDelays struct {
	*thetaModel
	ds    model.DelaySens
	jpAll []float64 // the model's JpDelayed (all its entries)
	gp    []float64 // a gradient in the model's parameters
}

var _ model.DelaySens = (*thetaDelays)(nil)

func newThetaDelays(tm *thetaModel, ds model.DelaySens) *thetaDelays {
	return &thetaDelays{thetaModel: tm, ds: ds, jpAll: make([]float64, len(tm.jpDst)), gp: make([]float64, tm.np)}
}

func (td *thetaDelays) NumDelays() int                  { return td.ds.NumDelays() }
func (td *thetaDelays) DelayInfo(k int) model.DelayInfo { return td.ds.DelayInfo(k) }
func (td *thetaDelays) FdPattern() *model.Pattern       { return td.ds.FdPattern() }
func (td *thetaDelays) DelayArg(k int, t float64, x, _, d []float64) float64 {
	return td.ds.DelayArg(k, t, x, td.p, d)
}
func (td *thetaDelays) DelayTime(k int, t float64, x, _, d []float64) float64 {
	return td.ds.DelayTime(k, t, x, td.p, d)
}
func (td *thetaDelays) DelayHistory(k int, t float64, _ []float64) float64 {
	return td.ds.DelayHistory(k, t, td.p)
}
func (td *thetaDelays) FDelayed(dst []float64, t float64, x, _, d []float64) {
	td.ds.FDelayed(dst, t, x, td.p, d)
}
func (td *thetaDelays) JxDelayed(dst []float64, t float64, x, _, d []float64) {
	td.ds.JxDelayed(dst, t, x, td.p, d)
}
func (td *thetaDelays) OutputsDelayedTo(dst []float64, t float64, x, _, d []float64) {
	td.ds.OutputsDelayedTo(dst, t, x, td.p, d)
}
func (td *thetaDelays) FdDelayed(dst []float64, t float64, x, _, d []float64) {
	td.ds.FdDelayed(dst, t, x, td.p, d)
}

// JpDelayed writes df/dtheta with the delayed values d held fixed, in
// jpPat order.
func (td *thetaDelays) JpDelayed(dst []float64, t float64, x, _, d []float64) {
	td.ds.JpDelayed(td.jpAll, t, x, td.p, d)
	sparse.MapAdd(dst, td.jpAll, td.jpDst, td.jpCol, td.dp)
}

// toTheta writes gp (in the model's parameters) into dst (in the theta
// columns).
func (td *thetaDelays) toTheta(dst, gp []float64) {
	clear(dst)
	for j, v := range gp {
		if c := td.col[j]; c >= 0 && v != 0 {
			dst[c] += v * td.dp[j]
		}
	}
}

func (td *thetaDelays) DelayArgGrad(k int, t float64, x, _, d, dx, dp, dd []float64) float64 {
	et := td.ds.DelayArgGrad(k, t, x, td.p, d, dx, td.gp, dd)
	td.toTheta(dp, td.gp)
	return et
}

func (td *thetaDelays) DelayTimeGrad(k int, t float64, x, _, d, dp []float64) {
	td.ds.DelayTimeGrad(k, t, x, td.p, d, td.gp)
	td.toTheta(dp, td.gp)
}

func (td *thetaDelays) DelayHistoryGrad(k int, t float64, _, dp []float64) float64 {
	ht := td.ds.DelayHistoryGrad(k, t, td.p, td.gp)
	td.toTheta(dp, td.gp)
	return ht
}

// solveDelays evaluates experiment e of a model with delays: one
// dde.Solve, or dde.SolveSens in the experiment's theta columns, through
// its data times.
func (w *worker) solveDelays(e int, out *Result) error {
	c := w.c
	pl := &c.exps[e]
	if len(pl.ex.Data) == 0 {
		return nil
	}
	c.params(w.pSim, w.dSim, pl.sim)
	ph := &pl.phases[0]
	tm := w.use(ph.group, w.pSim, w.dSim)
	nc := tm.nc
	// dde starts at its first output time.
	w.dts = append(append(w.dts[:0], ph.t0), ph.times...)
	var res *dde.Result
	var err error
	if nc == 0 {
		c.m.InitialState(w.x, w.pSim)
		res, err = dde.Solve(c.m, w.pSim, w.x, w.dts, &w.ddeSet)
	} else {
		s := w.s[:c.nx*nc]
		tm.InitialState(w.x, nil)
		tm.InitialSens(s, nil)
		res, err = dde.SolveSens(w.tds[ph.group], w.q[:nc], w.x, s, w.dts, &w.ddeSet)
	}
	w.c.part[e].stats.Solves++
	if err != nil {
		if errors.Is(err, dde.ErrSens) {
			// New checks what dde refuses; should the two part ways, the
			// refusal still names the delays.
			return fmt.Errorf("objective: %s: %s: %w: %w", c.delayWhat(), c.expName(e), ErrDelaySens, err)
		}
		return fmt.Errorf("objective: %s: %w", c.expName(e), err)
	}
	for _, i := range ph.data {
		if o := pl.out[i]; o >= 0 {
			if err := w.datum(e, i, pl.ex.Data[i].T, res.XAt(o+1), res.SAt(o+1), w.pSim, w.dSim, ph.mapped, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// newDelaySettings are the dde settings of the worker's solves: the
// objective's tolerances and the solver options' integrator settings.
func newDelaySettings(oset ode.Settings) dde.Settings {
	return dde.Settings{ODE: &oset}
}

func isDelayEvents(ev model.Events) bool {
	_, ok := ev.(model.DelayEvents)
	return ok
}

// thetaDelayEvents is a thetaDelays with the events of te (a thetaEvents
// of the same thetaModel), for dde.SolveSens on a model with delays and
// events: model.Events and model.EventDerivs in the theta columns. Its
// events read no delayed value; thetaDelayEventsD adds the variants
// that do.
type thetaDelayEvents struct {
	*thetaDelays
	te *thetaEvents
}

func (m *thetaDelayEvents) NumEvents() int                  { return m.te.NumEvents() }
func (m *thetaDelayEvents) EventInfo(k int) model.EventInfo { return m.te.EventInfo(k) }
func (m *thetaDelayEvents) NumRoots() int                   { return m.te.NumRoots() }
func (m *thetaDelayEvents) EventTargets(k int) []int        { return m.te.EventTargets(k) }

// NumSwitches is the model's (model.Switches): runtime/dde stops at the
// switches of f and moves S across them, as at an event.
func (m *thetaDelayEvents) NumSwitches() int { return m.te.NumSwitches() }

func (m *thetaDelayEvents) TriggersTo(dst []bool, t float64, x, p []float64) {
	m.te.TriggersTo(dst, t, x, p)
}
func (m *thetaDelayEvents) RootsTo(dst []float64, t float64, x, p []float64) {
	m.te.RootsTo(dst, t, x, p)
}
func (m *thetaDelayEvents) Delay(k int, t float64, x, p []float64) float64 {
	return m.te.Delay(k, t, x, p)
}
func (m *thetaDelayEvents) Priority(k int, t float64, x, p []float64) float64 {
	return m.te.Priority(k, t, x, p)
}
func (m *thetaDelayEvents) EventAssign(k int, t float64, x, p, dst []float64) {
	m.te.EventAssign(k, t, x, p, dst)
}
func (m *thetaDelayEvents) RootGrad(j int, t float64, x, p, dx, dp []float64) float64 {
	return m.te.RootGrad(j, t, x, p, dx, dp)
}
func (m *thetaDelayEvents) EventDeriv(k int, t float64, x, p []float64, d *model.EventDeriv) {
	m.te.EventDeriv(k, t, x, p, d)
}

// thetaDelayEventsD is thetaDelayEvents for a model whose events read
// delayed values: model.DelayEvents and model.DelayEventDerivs, the
// derivatives in p in the theta columns (those in t, x and d as they
// are).
type thetaDelayEventsD struct {
	*thetaDelayEvents
	de model.DelayEventDerivs
}

func (m *thetaDelayEventsD) TriggersDelayedTo(dst []bool, t float64, x, _, d []float64) {
	m.de.TriggersDelayedTo(dst, t, x, m.te.p, d)
}
func (m *thetaDelayEventsD) RootsDelayedTo(dst []float64, t float64, x, _, d []float64) {
	m.de.RootsDelayedTo(dst, t, x, m.te.p, d)
}
func (m *thetaDelayEventsD) EventDelayDelayed(k int, t float64, x, _, d []float64) float64 {
	return m.de.EventDelayDelayed(k, t, x, m.te.p, d)
}
func (m *thetaDelayEventsD) PriorityDelayed(k int, t float64, x, _, d []float64) float64 {
	return m.de.PriorityDelayed(k, t, x, m.te.p, d)
}
func (m *thetaDelayEventsD) EventAssignDelayed(k int, t float64, x, _, d, dst []float64) {
	m.de.EventAssignDelayed(k, t, x, m.te.p, d, dst)
}

// RootGradDelayed is the model's, dp in the theta columns.
func (m *thetaDelayEventsD) RootGradDelayed(j int, t float64, x, _, d, dx, dp, dd []float64) float64 {
	te := m.te
	gt := m.de.RootGradDelayed(j, t, x, te.p, d, dx, te.gp, dd)
	clear(dp)
	te.toTheta(dp, te.gp)
	return gt
}

// EventDerivDelayed is the model's, der.P in the theta columns.
func (m *thetaDelayEventsD) EventDerivDelayed(k int, t float64, x, _, d []float64, der *model.EventDeriv, dd []float64) {
	te := m.te
	n := len(te.ev.EventTargets(k)) + 1
	np, nc := te.np, te.nc
	te.der.X, te.der.T, te.der.P = der.X, der.T, te.pd[:n*np]
	m.de.EventDerivDelayed(k, t, x, te.p, d, &te.der, dd)
	clear(der.P)
	for r := 0; r < n; r++ {
		te.toTheta(der.P[r*nc:(r+1)*nc], te.der.P[r*np:(r+1)*np])
	}
}

// delayEventModel is the model dde.SolveSens solves for a model with
// delays and events: with the delayed variants only when the model has
// them (checkDelaySens refused one whose events may read delayed values
// without their derivatives).
func delayEventModel(td *thetaDelays, te *thetaEvents) model.Model {
	m := &thetaDelayEvents{thetaDelays: td, te: te}
	if de, ok := te.ev.(model.DelayEventDerivs); ok {
		return &thetaDelayEventsD{thetaDelayEvents: m, de: de}
	}
	return m
}
