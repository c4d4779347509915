package events

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// SensSolver is SolveSens for repeated solves of one model: it keeps its
// integrators and workspaces, so that once its buffers have grown (the
// first solves) a solve allocates nothing, and a solve can continue
// another one (SensStart.Triggers, Continue and Open): a simulation cut
// into pieces, as a PEtab experiment is by its periods and steady states.
// A SensSolver is for one goroutine at a time.
type SensSolver struct {
	s      solver
	sol    *sens.Solver // x and S
	xsol   *sens.Solver // x alone: the solves without columns, and locating events for PBSR, Exp and PBS
	params []int
	np, ns int
	seed   uint64
	pcg    *rand.PCG
	res    SensResult
	// tEnd is where the last solve ended (for Continue), NaN if it failed
	// or there was none.
	tEnd float64
}

// SensStart is where a SensSolver's solve starts.
type SensStart struct {
	T0 float64
	// X0 is x(T0) (nx values) and S0 dx(T0)/dp (nx x ns row-major, the
	// layout of sens.Result.S); both required (S0 may be nil when ns is
	// 0).
	X0, S0 []float64
	// Triggers are the trigger values just before T0 (NumEvents values),
	// in place of EventInfo.InitialValue: a solve that continues one of
	// another SensSolver passes that one's Triggers(). Nil means the
	// initial values. Queued (delayed) executions are not carried over:
	// see Pending.
	Triggers []bool
	// Continue continues this SensSolver's last solve: T0 must be its end
	// time, the triggers and the queued executions are where it left
	// them (Triggers is ignored).
	Continue bool
	// Open leaves the events at the last output time to the next solve:
	// the state reported there is the one integration reaches, before
	// any event there, and Triggers() the values before that instant.
	// A solve that continues from it (another condition applied at that
	// time first, as a PEtab period change) handles them at its start.
	Open bool
}

// NewSensSolver returns a SensSolver for m with settings set (nil: the
// defaults), as SolveSens uses them. A model with events and sensitivity
// columns must implement model.EventDerivs (ErrNoEventDerivs); options
// sens.NewSolver refuses are an error.
func NewSensSolver(m model.Model, set *SensSettings) (*SensSolver, error) {
	if m == nil {
		panic("events: nil model")
	}
	if model.HasDelays(m) {
		return nil, fmt.Errorf("events: model %q: %w (runtime/dde solves the states of a model with csymbol delay, with its events, and forward sensitivities without events)", m.Name(), ode.ErrDelays)
	}
	nx, np := model.NumStates(m), model.NumParams(m)
	var opt sens.Options
	var eset Settings
	if set != nil {
		if set.Sens != nil {
			opt = *set.Sens
		}
		if set.Events != nil {
			eset = *set.Events
		}
	}
	params := opt.Params
	if params == nil {
		params = make([]int, np)
		for j := range params {
			params[j] = j
		}
	}
	v := &SensSolver{params: params, np: np, ns: len(params), seed: eset.Seed, tEnd: math.NaN()}
	s := &v.s
	*s = solver{m: m, nx: nx, ttol: 1e-12, maxEv: 10000}
	if eset.TTol > 0 {
		s.ttol = eset.TTol
	}
	if eset.MaxEvents > 0 {
		s.maxEv = eset.MaxEvents
	}
	v.pcg = rand.NewPCG(eset.Seed, eset.Seed)
	s.rng = rand.New(v.pcg)
	s.setup(m) // events and switches (model.Switches)
	s.xw = make([]float64, nx)
	s.res = &v.res.Result
	v.res.NX, v.res.NS = nx, v.ns
	v.sol = sens.NewSolver(withoutEvents{m}, &opt)
	if err := v.sol.Err(); err != nil {
		return nil, err
	}
	if s.ev == nil {
		return v, nil
	}
	if v.ns > 0 {
		ed, ok := m.(model.EventDerivs)
		if !ok {
			return nil, fmt.Errorf("%w: model %q", ErrNoEventDerivs, m.Name())
		}
		s.p = make([]float64, np) // replaced by each solve's p
		s.sv = newSensState(s, ed, params)
	}
	// FS by BDF or Adams interpolates S at an event (ode.Solver.SensAt,
	// their Nordsieck polynomial), so its one pass both locates the
	// events and gives x and S; a checked
	// solve is compared with a reference at the outputs it is asked
	// for, which a stopped pass does not reach. At a switch of f the
	// segment is solved again to the switch's old side, x and S, which
	// after a pass of x and S would cost S twice: a model with switches
	// keeps the state pass.
	s.oneFS = opt.Method == sens.FS && (opt.ODE.Method == ode.BDF || opt.ODE.Method == ode.Adams) && !opt.Check && s.nsw == 0
	// The state-only solver that locates events: the same options with no
	// columns, so its integrator settings are those of sol. It is not
	// checked: it only locates events, whose times sol's check covers
	// through x and S.
	xopt := opt
	xopt.Params = []int{}
	xopt.Check = false
	v.xsol = sens.NewSolver(withoutEvents{m}, &xopt)
	if err := v.xsol.Err(); err != nil {
		return nil, err
	}
	return v, nil
}

// SolveFrom integrates m with parameters p from st and writes x and S at
// the output times ts (ascending, finite, >= st.T0) into res (resized as
// needed; the layout of sens.Result), outputs at an event's time after
// it (unless Open and it is the last). res.Stats.ODE sums the work of
// every integration. p, st.X0 and st.S0 are not modified.
func (v *SensSolver) SolveFrom(res *sens.Result, p []float64, st *SensStart, ts []float64) error {
	s := &v.s
	nx, ns := s.nx, v.ns
	t0 := st.T0
	cont := st.Continue
	if cont && t0 != v.tEnd {
		return fmt.Errorf("events: Continue from t = %g, but the last solve ended at %g (or failed)", t0, v.tEnd)
	}
	v.tEnd, s.p = math.NaN(), p
	if len(p) != v.np || len(st.X0) != nx || len(st.S0) != nx*ns ||
		st.Triggers != nil && len(st.Triggers) != s.ne {
		return fmt.Errorf("events: p, X0, S0 or Triggers has the wrong length (want %d, %d, %d and %d values)", v.np, nx, nx*ns, s.ne)
	}
	if len(ts) == 0 {
		return errors.New("events: no output times")
	}
	for i := range ts {
		if math.IsNaN(ts[i]) || math.IsInf(ts[i], 0) || ts[i] < t0 || i > 0 && ts[i] < ts[i-1] {
			return fmt.Errorf("events: output times must be finite, ascending and not before the start %g (time %d is %g)", t0, i, ts[i])
		}
	}
	res.NX, res.NS = nx, ns
	res.T = append(res.T[:0], ts...)
	res.Stats = sens.Stats{ExpTimes: res.Stats.ExpTimes[:0]}
	if s.ev == nil {
		// No events: one solve.
		v.s.st = sens.Start{T0: t0, X0: st.X0, S0: st.S0}
		if err := v.sol.SolveFrom(res, p, &v.s.st, ts); err != nil {
			return err
		}
		v.tEnd = ts[len(ts)-1]
		return nil
	}
	if !cont {
		for i := range s.queue {
			s.release(&s.queue[i])
		}
		clear(s.queue)
		s.queue = s.queue[:0]
		for k := range s.trig {
			if st.Triggers != nil {
				s.trig[k] = st.Triggers[k]
			} else {
				s.trig[k] = s.info[k].InitialValue
			}
		}
		v.pcg.Seed(v.seed, v.seed)
	}
	if s.sv != nil {
		s.sv.begun = false
	}
	s.sensErr = nil
	s.stats = sens.Stats{}
	s.haveLast = false
	v.res.Fired = v.res.Fired[:0]
	v.res.X = v.res.X[:0]
	v.res.S = v.res.S[:0]
	err := s.runSens(v.sol, v.xsol, t0, st.X0, st.S0, ts, &v.res, st.Open)
	res.Stats.ODE = s.stats.ODE
	if err != nil {
		return err
	}
	res.X = append(res.X[:0], v.res.X...)
	res.S = append(res.S[:0], v.res.S...)
	v.tEnd = ts[len(ts)-1]
	return nil
}

// Triggers returns the trigger values at the end of the last solve (before
// the events at its last output time if it was Open): the Triggers of a
// solve that continues it. A view, valid until the next solve.
func (v *SensSolver) Triggers() []bool { return v.s.trig }

// Pending returns the number of queued (delayed) executions left at the
// end of the last solve, which only Continue carries into the next solve.
func (v *SensSolver) Pending() int {
	n := 0
	for _, q := range v.s.queue {
		if !q.cancel {
			n++
		}
	}
	return n
}

// Fired returns the executions of the last solve (a view, valid until the
// next solve).
func (v *SensSolver) Fired() []Fired { return v.res.Fired }
