package objective

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sens"
)

// Events.
//
// A phase of a model with events or switches of its right-hand side
// (events.Needed: model.Events with NumEvents() > 0, or model.Switches,
// the relations in the rates, whose roots runtime/events stops at) is
// first solved without them (tryPlain) and kept if no event would have
// fired; otherwise it is solved with runtime/events (an events.SensSolver
// per column group: the state and S across the events, for every
// Method). Steady states are integrated with S through the events (no
// Newton polish or solved S: an event can move the conserved totals),
// until the queue of delayed executions is empty too. The event state
// carries across the pieces of an experiment as PEtab v2 defines it: the
// trigger values at the end of pre-equilibration are those before the
// simulation's start (an event whose trigger stayed true does not fire
// again), and a period ends Open, so that an event due at the next
// period's start executes after that period's condition is applied. A
// delayed event still queued when a period ends is not supported (an
// error says so).

// ErrEventsNewSolver is returned by New for a model with events when the
// Solver of Options.NewSolver does not implement EventSolver: only a
// solver that handles the events can solve such a model.
var ErrEventsNewSolver = errors.New("objective: the Solver of Options.NewSolver does not implement objective.EventSolver, which a model with events needs")

// EventSolver is what the objective needs of a Solver from
// Options.NewSolver for a model with events: runtime/events.SensSolver's
// contract. NewSolver is then given the objective's model with its events
// (model.Events, and model.EventDerivs when the model has them, their
// derivatives in the same sensitivity columns as Jp), and its Solver must
// implement EventSolver, else New returns ErrEventsNewSolver. Every phase
// (each period, the pre-equilibration and the steady states in chunks
// with Continue) is then solved with SolveEvents: the objective's own
// shortcut for a phase in which no event fires (a solve without the root
// functions, kept when no trigger changed) is ours, not the peer's, so a
// peer is timed as it runs, with its root finding on throughout (as AMICI
// runs CVODES).
type EventSolver interface {
	// SolveEvents is events.SensSolver.SolveFrom: x and S at ts (outputs
	// at an event's time after it, unless st.Open and it is the last),
	// from st (its Triggers, Continue and Open as documented there).
	// res.Stats.ODE's Steps and Rejected count the work of this solve.
	SolveEvents(res *sens.Result, p []float64, st *events.SensStart, ts []float64) error
	// Triggers are the trigger values where the last solve ended (before
	// the instant there when it was Open); Pending the executions still
	// queued (delayed events).
	Triggers() []bool
	Pending() int
}

// nativeEvents is runtime/events' SensSolver as an EventSolver.
type nativeEvents struct{ *events.SensSolver }

func (n nativeEvents) SolveEvents(res *sens.Result, p []float64, st *events.SensStart, ts []float64) error {
	return n.SolveFrom(res, p, st, ts)
}

// thetaEvents is a thetaModel with the model's events, their derivatives
// in the theta columns: dg/dtheta = dg/dp dp/dtheta, as for Jp.
type thetaEvents struct {
	*thetaModel
	ev  model.Events
	ed  model.EventDerivs // nil when the model lacks them
	gp  []float64         // np
	pd  []float64         // (max targets + 1) x np
	der model.EventDeriv
}

func newThetaEvents(tm *thetaModel, ev model.Events) *thetaEvents {
	te := &thetaEvents{thetaModel: tm, ev: ev, gp: make([]float64, tm.np)}
	te.ed, _ = ev.(model.EventDerivs)
	nt := 0
	for k := 0; k < ev.NumEvents(); k++ {
		nt = max(nt, len(ev.EventTargets(k)))
	}
	te.pd = make([]float64, (nt+1)*tm.np)
	return te
}

func (te *thetaEvents) NumEvents() int                  { return te.ev.NumEvents() }
func (te *thetaEvents) EventInfo(k int) model.EventInfo { return te.ev.EventInfo(k) }
func (te *thetaEvents) NumRoots() int                   { return te.ev.NumRoots() }

// NumSwitches is the model's (model.Switches; 0 without it): the
// relations in its rates are root functions that runtime/events stops
// at, so that no step straddles a jump of f.
func (te *thetaEvents) NumSwitches() int {
	if sw, ok := te.ev.(model.Switches); ok {
		return sw.NumSwitches()
	}
	return 0
}
func (te *thetaEvents) EventTargets(k int) []int { return te.ev.EventTargets(k) }
func (te *thetaEvents) TriggersTo(dst []bool, t float64, x, _ []float64) {
	te.ev.TriggersTo(dst, t, x, te.p)
}
func (te *thetaEvents) RootsTo(dst []float64, t float64, x, _ []float64) {
	te.ev.RootsTo(dst, t, x, te.p)
}
func (te *thetaEvents) Delay(k int, t float64, x, _ []float64) float64 {
	return te.ev.Delay(k, t, x, te.p)
}
func (te *thetaEvents) Priority(k int, t float64, x, _ []float64) float64 {
	return te.ev.Priority(k, t, x, te.p)
}
func (te *thetaEvents) EventAssign(k int, t float64, x, _, dst []float64) {
	te.ev.EventAssign(k, t, x, te.p, dst)
}

// toTheta adds row gp (np, in the model's parameters) into dst (nc, in
// the theta columns).
func (te *thetaEvents) toTheta(dst, gp []float64) {
	for j, v := range gp {
		if c := te.col[j]; c >= 0 && v != 0 {
			dst[c] += v * te.dp[j]
		}
	}
}

// RootGrad is model.EventDerivs's, dp in the theta columns.
func (te *thetaEvents) RootGrad(j int, t float64, x, _, dx, dp []float64) float64 {
	gt := te.ed.RootGrad(j, t, x, te.p, dx, te.gp)
	clear(dp)
	te.toTheta(dp, te.gp)
	return gt
}

// EventDeriv is model.EventDerivs's, d.P in the theta columns.
func (te *thetaEvents) EventDeriv(k int, t float64, x, _ []float64, d *model.EventDeriv) {
	n := len(te.ev.EventTargets(k)) + 1
	np, nc := te.np, te.nc
	te.der.X, te.der.T, te.der.P = d.X, d.T, te.pd[:n*np]
	te.ed.EventDeriv(k, t, x, te.p, &te.der)
	clear(d.P)
	for r := 0; r < n; r++ {
		te.toTheta(d.P[r*nc:(r+1)*nc], te.der.P[r*np:(r+1)*np])
	}
}

// eventModel is the model a group's events.SensSolver solves: with
// EventDerivs only when the model has them (events.NewSensSolver then
// refuses sensitivities by name).
func eventModel(te *thetaEvents) model.Model {
	if te.ed == nil {
		return struct {
			*thetaModel
			model.Switches
		}{te.thetaModel, eventsOnly{te}}
	}
	return te
}

// eventsOnly hides thetaEvents's derivative methods.
type eventsOnly struct{ te *thetaEvents }

func (e eventsOnly) NumEvents() int                  { return e.te.NumEvents() }
func (e eventsOnly) EventInfo(k int) model.EventInfo { return e.te.EventInfo(k) }
func (e eventsOnly) NumRoots() int                   { return e.te.NumRoots() }
func (e eventsOnly) NumSwitches() int                { return e.te.NumSwitches() }
func (e eventsOnly) EventTargets(k int) []int        { return e.te.EventTargets(k) }
func (e eventsOnly) TriggersTo(dst []bool, t float64, x, p []float64) {
	e.te.TriggersTo(dst, t, x, p)
}
func (e eventsOnly) RootsTo(dst []float64, t float64, x, p []float64) {
	e.te.RootsTo(dst, t, x, p)
}
func (e eventsOnly) Delay(k int, t float64, x, p []float64) float64 {
	return e.te.Delay(k, t, x, p)
}
func (e eventsOnly) Priority(k int, t float64, x, p []float64) float64 {
	return e.te.Priority(k, t, x, p)
}
func (e eventsOnly) EventAssign(k int, t float64, x, p, dst []float64) {
	e.te.EventAssign(k, t, x, p, dst)
}

// newEventSolvers makes group g's solvers for a model with events: the
// events.SensSolver, and a sens.Solver of the model without its events
// for the first try of a phase (tryPlain); or, with Options.NewSolver,
// its EventSolver alone (no tryPlain).
func (w *worker) newEventSolvers(g int, tm *thetaModel, so *sens.Options) error {
	c := w.c
	if w.evs == nil {
		ne := c.ev.NumEvents()
		w.evs = make([]EventSolver, len(c.groups))
		w.plain = make([]*sens.Solver, len(c.groups))
		w.tevs = make([]*thetaEvents, len(c.groups))
		w.trig, w.trigNow, w.trigCur, w.trigInit = make([]bool, ne), make([]bool, ne), make([]bool, ne), make([]bool, ne)
		for k := range w.trigInit {
			w.trigInit[k] = c.ev.EventInfo(k).InitialValue
		}
		w.gl, w.gr = make([]float64, c.ev.NumRoots()), make([]float64, c.ev.NumRoots())
	}
	te := newThetaEvents(tm, c.ev)
	w.tevs[g] = te
	o := *so
	if c.opt.NewSolver != nil {
		sv, err := c.opt.NewSolver(eventModel(te), &o)
		if err != nil {
			return fmt.Errorf("objective: %w", err)
		}
		w.solvers[g] = sv // closed by Close
		es, ok := sv.(EventSolver)
		if !ok {
			return fmt.Errorf("%w (%T)", ErrEventsNewSolver, sv)
		}
		w.evs[g] = es
		return nil
	}
	sv, err := events.NewSensSolver(eventModel(te), &events.SensSettings{Sens: &o})
	if err != nil {
		return fmt.Errorf("objective: %w", err)
	}
	w.evs[g] = nativeEvents{sv}
	w.plain[g] = sens.NewSolver(tm, so) // tm hides the events
	w.solvers[g] = w.plain[g]
	return nil
}

// tryPlain solves phase k of experiment e (group g) from (t0, x, S) to ts
// without events, into w.res, and reports whether that is the solution
// with events too: no trigger turns true at t0 (before holds the values
// before t0, nil for the initial values; one turning false there fires
// nothing, the queue being empty at a phase's start), no trigger changes
// at the integrator's grid points after that, and no root function
// changes sign or reaches zero between them (runtime/events' own search
// has the same limit: two crossings of one root within one step are
// missed by both). On success w.trigCur holds the trigger values
// throughout. Most experiments of models with events see none in most
// evaluations (Liu_IFACPapersOnLine2025 at its nominal point), and one
// integration without root functions costs less than runtime/events'
// (which scans every step for trigger changes and, with S by PBSR or Exp,
// integrates x first). A phase that once needed events goes to
// runtime/events directly on later evaluations (partial.evSlow). A failed
// solve is left to runtime/events to report.
func (w *worker) tryPlain(e, k, g int, t0 float64, x, S, ts []float64, before []bool) bool {
	pt := &w.c.part[e]
	if pt.evSlow[k] || w.plain[g] == nil {
		return false // known to need events, or a NewSolver's EventSolver
	}
	te, sv := w.tevs[g], w.plain[g]
	if before == nil {
		before = w.trigInit
	}
	cur := w.trigCur
	te.TriggersTo(cur, t0, x, nil)
	for j, now := range cur {
		if now && !before[j] {
			pt.evSlow[k] = true
			return false
		}
	}
	w.st = sens.Start{T0: t0, X0: x, S0: S}
	err := sv.SolveFrom(&w.res, w.q[:te.nc], &w.st, ts)
	w.count(e, &w.res, false)
	if err != nil {
		pt.evSlow[k] = true
		return false
	}
	tr := sv.Trajectory()
	gl, gr := w.gl, w.gr
	for i := 0; i < tr.Len(); i++ {
		xi := tr.XAt(i)
		te.TriggersTo(w.trigNow, tr.T[i], xi, nil)
		te.RootsTo(gr, tr.T[i], xi, nil)
		if !slices.Equal(w.trigNow, cur) || i > 0 && anyCrossed(gl, gr) {
			pt.evSlow[k] = true
			return false
		}
		gl, gr = gr, gl
	}
	return true
}

// anyCrossed reports a root changing sign from a to b, or reaching zero.
func anyCrossed(a, b []float64) bool {
	for j := range a {
		if a[j] < 0 && b[j] >= 0 || a[j] > 0 && b[j] <= 0 {
			return true
		}
	}
	return false
}

// solveEvents is solve for a model with events.
func (w *worker) solveEvents(e int, out *Result) error {
	c := w.c
	pl := &c.exps[e]
	if len(pl.ex.Data) == 0 {
		return nil
	}
	nx := c.nx
	c.params(w.pSim, w.dSim, pl.sim)
	sim := w.use(pl.simGroup, w.pSim, w.dSim)
	ncs := sim.nc
	x, s := w.x, w.s[:nx*ncs]
	var trig []bool // trigger values before the next piece; nil: initial values
	plain := false  // the last phase solve was tryPlain's
	if pl.pre != nil {
		c.params(w.pPre, w.dPre, pl.pre)
		pre := w.use(pl.preGroup, w.pPre, w.dPre)
		ncp := pre.nc
		sp := w.sPre[:nx*ncp]
		pre.InitialState(x, nil)
		pre.InitialSens(sp, nil)
		if err := w.steadyEvents(e, pl.preGroup, x, sp, 0, nil, false); err != nil {
			return fmt.Errorf("objective: %s: pre-equilibration: %w", c.expName(e), err)
		}
		trig = w.trig
		copy(trig, w.evs[pl.preGroup].Triggers())
		w.enterSim(pl, x, s, sp, ncp)
	} else {
		sim.InitialState(x, nil)
		sim.InitialSens(s, nil)
	}
	ex := pl.ex
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
		sv := w.evs[ph.group]
		n := len(ph.times)
		if n == 1 && ph.times[0] == ph.t0 && k+1 < pl.nrun {
			continue // a period of length 0: the next starts at once
		}
		plain = false
		if n > 0 && w.tryPlain(e, k, ph.group, ph.t0, x, s, ph.times, trig) {
			// No event: the triggers are those after the start.
			plain = true
			trig = w.trig
			copy(trig, w.trigCur)
		} else if n > 0 {
			// A period followed by another ends Open: the events at the
			// next start come after that period's changes.
			w.est = events.SensStart{T0: ph.t0, X0: x, S0: s, Triggers: trig, Open: k+1 < pl.nrun}
			err := sv.SolveEvents(&w.res, w.q[:ncs], &w.est, ph.times)
			w.count(e, &w.res, false)
			if err == nil && k+1 < pl.nrun && sv.Pending() > 0 {
				err = fmt.Errorf("a delayed event is still queued at the next period's start t = %g (not supported)", ph.times[n-1])
			}
			if err != nil {
				if k > 0 {
					return fmt.Errorf("objective: %s: period %d (condition %q): %w", c.expName(e), k, ph.cond.ID, err)
				}
				return fmt.Errorf("objective: %s: %w", c.expName(e), err)
			}
			trig = w.trig
			copy(trig, sv.Triggers())
		}
		if err := w.observePhase(e, ph, p, dp, out); err != nil {
			return err
		}
		if k+1 < pl.nrun {
			copy(x, w.res.XAt(n-1))
			copy(s, w.res.SAt(n-1))
			continue
		}
		if !pl.hasInf {
			break
		}
		t0 := ph.t0
		xi, si := w.xInf, w.sInf[:nx*ncs]
		var err error
		switch {
		case n > 0 && plain:
			// No event: the triggers are trig, the queue empty.
			copy(xi, w.res.XAt(n-1))
			copy(si, w.res.SAt(n-1))
			err = w.steadyEvents(e, ph.group, xi, si, ph.times[n-1], trig, false)
		case n > 0:
			// Continue the solve just made (its queue included).
			copy(xi, w.res.XAt(n-1))
			copy(si, w.res.SAt(n-1))
			err = w.steadyEvents(e, ph.group, xi, si, ph.times[n-1], nil, true)
		default:
			copy(xi, x)
			copy(si, s)
			err = w.steadyEvents(e, ph.group, xi, si, t0, trig, false)
		}
		if err != nil {
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

// steadyEvents integrates (x, S) of group g from t0 through the events
// until f and dS/dt are negligible and no execution is queued, in chunks
// of growing length (1, 10, 100, ...), each continuing the last. The first
// chunk starts with the trigger values trig (nil: the events' initial
// values), or continues the group solver's last solve (cont).
func (w *worker) steadyEvents(e, g int, x, S []float64, t0 float64, trig []bool, cont bool) error {
	tm, sv := w.models[g], w.evs[g]
	nc := tm.nc
	t, h := t0, 1.0
	tmax := t0 + w.c.opt.SteadyTMax
	goOn := cont
	for chunk := 0; ; chunk++ {
		if chunk > 0 && sv.Pending() == 0 && w.isSteady(tm, t, x, S) {
			return nil
		}
		if t >= tmax {
			fs := w.fScale(tm, t, x)
			if sv.Pending() > 0 {
				return fmt.Errorf("no steady state by t = %g (max |f_i|/(atol+rtol|x_i|) = %.3g, %d delayed events queued)", t, fs, sv.Pending())
			}
			return fmt.Errorf("no steady state by t = %g (max |f_i|/(atol+rtol|x_i|) = %.3g)", t, fs)
		}
		w.ts[0] = math.Min(t+h, tmax)
		w.est = events.SensStart{T0: t, X0: x, S0: S, Triggers: trig, Continue: goOn}
		err := sv.SolveEvents(&w.ssRes, w.q[:nc], &w.est, w.ts[:])
		w.count(e, &w.ssRes, true)
		if err != nil {
			return err
		}
		copy(x, w.ssRes.XAt(0))
		copy(S, w.ssRes.SAt(0))
		t = w.ts[0]
		h *= 10
		goOn = true
	}
}
