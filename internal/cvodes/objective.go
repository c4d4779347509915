//go:build cvodes

package cvodes

import (
	"math"

	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// SensSolver runs CVODES forward sensitivities behind the interface of
// runtime/objective's solvers (objective.Solver, the contract of
// sens.Solver.SolveFrom), so that a PEtab objective can be evaluated with
// CVODES FS on exactly the model, conditions and starts that our methods
// see: the comparison AMICI users would make. Make one with
// NewObjectiveSolver as objective.Options.NewSolver.
type SensSolver struct {
	s      *Solver
	m      model.Model
	nx, np int
	x0, s0 []float64
	// st integrates the state alone (SolveState: the steady-state
	// search), a CVODES solver without sensitivities made on first use;
	// opt are its options, xs and ts its output buffers.
	st  *Solver
	opt Options
	xs  []float64
	ts  [1]float64
	// pbar are the columns' scales at the current p (sens.ScaleParams,
	// the objective's default: |p_c|, as runtime/sens takes them at each
	// solve); nil with sens.ScaleNone (CVODES's pbar = 1).
	pbar []float64
}

var _ objective.StateSolver = (*SensSolver)(nil)

// NewObjectiveSolver returns a SensSolver for m with the objective's
// resolved solver options: the tolerances (opt.ODE's when set, else
// opt.RTol and opt.ATol), ErrCon, SensScale (ScaleParams: pbar = |p| at
// each solve, the objective's theta columns' scales) and opt.ODE.MaxSteps (default 100000, as
// runtime/ode's; CVODES counts it per output time). Sensitivities are
// computed for all of m's parameters (the objective's model has one per
// sensitivity column; opt.Params is ignored, the objective never sets it);
// a model without parameters gets the state alone. For a model with
// events or switches of its right-hand side (events.Needed) it returns
// an EventSensSolver instead: CVODES with its root finding through the
// events and switches (objective.EventSolver), as the objective solves
// such a model with runtime/events.
func NewObjectiveSolver(m model.Model, opt *sens.Options) (objective.Solver, error) {
	co := objectiveOptions(opt)
	nx, np := model.NumStates(m), model.NumParams(m)
	co.Sens = np > 0
	if events.Needed(m) {
		e, err := NewEvents(m, co)
		if err != nil {
			return nil, err
		}
		return &EventSensSolver{e: e, nx: nx, np: np, pbar: scaleBuf(opt, np)}, nil
	}
	s, err := New(m, co)
	if err != nil {
		return nil, err
	}
	co.Sens, co.ErrCon = false, false
	return &SensSolver{s: s, m: m, nx: nx, np: np, x0: make([]float64, nx), s0: make([]float64, nx*np),
		opt: co, xs: make([]float64, nx), pbar: scaleBuf(opt, np)}, nil
}

// scaleBuf is the buffer of the columns' scales for opt's SensScale:
// np values with sens.ScaleParams (the default), nil with ScaleNone or
// without columns.
func scaleBuf(opt *sens.Options, np int) []float64 {
	if np == 0 || opt != nil && opt.SensScale != sens.ScaleParams {
		return nil
	}
	return make([]float64, np)
}

// setScales sets s's column scales to |p_c| (1 where p_c = 0, is not
// finite or 1/|p_c| overflows), runtime/sens's ScaleParams at p, so that
// CVODES weighs S in its error test (ErrCon) and its corrector as our FS
// does: the objective passes in p the scales of its theta columns. A
// no-op when buf is nil (ScaleNone).
func setScales(s *Solver, buf, p []float64) error {
	if buf == nil {
		return nil
	}
	for c := range buf {
		v := math.Abs(p[c])
		if !(v > 0) || math.IsInf(v, 0) || math.IsInf(1/v, 0) {
			v = 1
		}
		buf[c] = v
	}
	return s.SetPBar(buf)
}

// objectiveOptions are the Options of the objective's resolved solver
// options (see NewObjectiveSolver), Sens unset.
func objectiveOptions(opt *sens.Options) Options {
	var o sens.Options
	if opt != nil {
		o = *opt
	}
	rtol, atol := o.RTol, o.ATol
	if o.ODE.RTol != 0 {
		rtol = o.ODE.RTol
	}
	if o.ODE.ATol != 0 {
		atol = o.ODE.ATol
	}
	if rtol == 0 {
		rtol = 1e-6 // sens's defaults, not this package's
	}
	if atol == 0 {
		atol = 1e-8
	}
	maxSteps := o.ODE.MaxSteps
	if maxSteps == 0 {
		maxSteps = ode.DefaultMaxSteps
	}
	return Options{RTol: rtol, ATol: atol, MaxSteps: maxSteps, ErrCon: o.ErrCon}
}

// SolveState integrates the state alone from x = x(t0) to t1 with CVODES
// (objective.StateSolver), overwriting x, as AMICI's simulation to a
// steady state does: the objective's steady-state search (pre-equilibration,
// steady-state data) then runs on CVODES too, and only its Newton polish
// and the solve Jx S = -Jp are the objective's own, as for our methods.
func (c *SensSolver) SolveState(x, p []float64, t0, t1 float64) (steps, rejected int, err error) {
	if c.st == nil {
		if c.st, err = New(c.m, c.opt); err != nil {
			return 0, 0, err
		}
	}
	c.ts[0] = t1
	err = c.st.Solve(p, x, t0, c.ts[:], c.xs, nil)
	last := c.st.LastStats()
	if err == nil {
		copy(x, c.xs)
	}
	return last.Steps, last.ErrTestFails + last.NonlinConvFails, err
}

// SolveFrom solves from st as sens.Solver.SolveFrom does: X0 nil means
// InitialState(p) (and S0 nil then InitialSens(p)); S0 nil with X0 given
// means S(T0) = 0. res.Stats.ODE gets CVODES's steps and error-test
// failures (Rejected) of this solve.
func (c *SensSolver) SolveFrom(res *sens.Result, p []float64, st *sens.Start, ts []float64) error {
	nx, np := c.nx, c.np
	x0 := st.X0
	if x0 == nil {
		c.m.InitialState(c.x0, p)
		x0 = c.x0
	}
	s0 := st.S0
	if s0 == nil {
		if st.X0 == nil {
			c.m.InitialSens(c.s0, p)
		} else {
			clear(c.s0)
		}
		s0 = c.s0
	}
	res.NX, res.NS = nx, np
	res.T = append(res.T[:0], ts...)
	res.X = grow(res.X, len(ts)*nx)
	res.S = grow(res.S, len(ts)*nx*np)
	times := res.Stats.ExpTimes[:0]
	res.Stats = sens.Stats{ExpTimes: times}
	if err := setScales(c.s, c.pbar, p); err != nil {
		return err
	}
	err := c.s.SolveFrom(p, x0, s0, st.T0, ts, res.X, res.S)
	last := c.s.LastStats()
	res.Stats.ODE = ode.Stats{Steps: last.Steps, Rejected: last.ErrTestFails + last.NonlinConvFails,
		ErrFails: last.ErrTestFails, FEvals: last.FEvals, JacEvals: last.JacEvals, LUs: last.LUs,
		NewtonIters: last.NonlinIters, NewtonFails: last.NonlinConvFails, SensNewtonIters: last.SensNonlinIters,
		SensNewtonFails: last.SensConvFails}
	return err
}

// Stats returns CVODES's counters summed over all solves.
func (c *SensSolver) Stats() Stats { return c.s.Stats() }

// Close frees the C memory (objective.Objective.Close calls it).
func (c *SensSolver) Close() error {
	c.s.Close()
	if c.st != nil {
		c.st.Close()
	}
	return nil
}

// EventSensSolver is the objective's solver for a model with events on
// CVODES, as AMICI runs one: an EventSolver (CVodeRootInit on the
// model's root functions, active in every solve, S carried across each
// execution, a restart after it) behind objective.EventSolver, so that
// every phase of a PEtab experiment with events (pre-equilibration,
// periods, steady states in chunks) runs on CVODES. NewObjectiveSolver
// returns it for a model with events; the model must have their
// derivatives (model.EventDerivs) and neither delays nor priorities
// (NewEvents).
type EventSensSolver struct {
	e      *EventSolver
	nx, np int
	st     EventStart
	pbar   []float64 // as SensSolver's
}

var _ objective.EventSolver = (*EventSensSolver)(nil)

// SolveEvents solves from st as runtime/events.SensSolver.SolveFrom does
// (objective.EventSolver): S0 nil with X0 given means S(T0) = 0, and with
// Continue CVODES steps on from where the last solve ended. res.Stats.ODE
// gets CVODES's counters of this solve, summed over its restarts.
func (c *EventSensSolver) SolveEvents(res *sens.Result, p []float64, st *events.SensStart, ts []float64) error {
	c.st = EventStart{T0: st.T0, X0: st.X0, S0: st.S0, Triggers: st.Triggers, Continue: st.Continue, Open: st.Open}
	if c.st.S0 == nil && c.np > 0 && !st.Continue {
		c.st.S0 = c.zeroS()
	}
	return c.solve(res, p, ts)
}

// SolveFrom solves from st through the events, their triggers starting
// at their initial values (objective.Solver; the objective itself calls
// SolveEvents): X0 nil means InitialState(p) (and S0 nil then
// InitialSens(p)); S0 nil with X0 given means S(T0) = 0.
func (c *EventSensSolver) SolveFrom(res *sens.Result, p []float64, st *sens.Start, ts []float64) error {
	c.st = EventStart{T0: st.T0, X0: st.X0, S0: st.S0}
	if st.X0 == nil {
		c.st.X0 = c.x0()
		c.e.s.m.InitialState(c.st.X0, p)
	} else if st.S0 == nil && c.np > 0 {
		c.st.S0 = c.zeroS()
	}
	return c.solve(res, p, ts)
}

func (c *EventSensSolver) x0() []float64 {
	if c.e.x0 == nil {
		c.e.x0 = make([]float64, c.nx)
	}
	return c.e.x0
}

func (c *EventSensSolver) zeroS() []float64 {
	if c.e.s0 == nil {
		c.e.s0 = make([]float64, c.nx*c.np)
	}
	clear(c.e.s0)
	return c.e.s0
}

func (c *EventSensSolver) solve(res *sens.Result, p, ts []float64) error {
	nx, np := c.nx, c.np
	res.NX, res.NS = nx, np
	res.T = append(res.T[:0], ts...)
	res.X = grow(res.X, len(ts)*nx)
	res.S = grow(res.S, len(ts)*nx*np)
	times := res.Stats.ExpTimes[:0]
	res.Stats = sens.Stats{ExpTimes: times}
	if err := setScales(c.e.s, c.pbar, p); err != nil {
		return err
	}
	err := c.e.SolveFrom(p, &c.st, ts, res.X, res.S)
	last := c.e.LastStats()
	res.Stats.ODE = ode.Stats{Steps: last.Steps, Rejected: last.ErrTestFails + last.NonlinConvFails,
		ErrFails: last.ErrTestFails, FEvals: last.FEvals, JacEvals: last.JacEvals, LUs: last.LUs,
		NewtonIters: last.NonlinIters, NewtonFails: last.NonlinConvFails, SensNewtonIters: last.SensNonlinIters,
		SensNewtonFails: last.SensConvFails}
	return err
}

// Triggers are the trigger values where the last solve ended.
func (c *EventSensSolver) Triggers() []bool { return c.e.Triggers() }

// Pending is 0: NewEvents refuses delayed events, so none is ever queued.
func (c *EventSensSolver) Pending() int { return 0 }

// Fired is the number of event executions of the last solve.
func (c *EventSensSolver) Fired() int { return c.e.Fired() }

// Stats returns CVODES's counters summed over all solves.
func (c *EventSensSolver) Stats() Stats { return c.e.Stats() }

// Close frees the C memory (objective.Objective.Close calls it).
func (c *EventSensSolver) Close() error {
	c.e.Close()
	return nil
}

func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}
