package sens

import (
	"fmt"
	"math"

	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// Stats counts the work of one Solve.
type Stats struct {
	ODE ode.Stats // the state (or FS) integration

	Intervals    int // sensitivity grid intervals (integrator steps, plus output cuts)
	Refinements  int // extra sub-intervals from refinement (PBSR)
	PBSSteps     int // Peano-Baker (I + I1 + I2) steps
	ExpSteps     int // exponential steps
	Exponentials int // matrix exponentials computed (sparse path: exponential actions, one per step)
	ExpReuses    int // exponential steps that reused the previous exponential
	Squarings    int // total squarings over all exponentials
	JacEvals     int // evaluations of (Jx, Jp) by the sensitivity method
	// JxIntegral is the integral of ||Jx||_inf over the solve (PBS, PBSR,
	// Exp): rounding limits the relative accuracy of S to about
	// roundFloor eps times it (see accRound).
	JxIntegral float64
	// Check is the accuracy check's estimate (Options.Check; zero
	// without).
	Check Check
	// Converged counts the steps not computed because S had converged to
	// the fixed point of a repeated step near equilibrium (GridDyadic).
	Converged int
	// Corrections counts the third-order corrections of PBSR steps
	// (Tuning.Order 3).
	Corrections int
	// ExpTimes are the start times of the grid intervals where an
	// exponential step was taken (Exp, PBS and PBSR with RefineNInt), or of
	// every interval (RefineLocalError, whose steps are all exponential).
	ExpTimes []float64
}

// Result holds the output of Solve; its slices are reused by later solves.
type Result struct {
	T []float64 // the output times ts
	// X is x at the output times, row k = x(T[k]), len(T)*nx.
	X []float64
	// S is dx/dp at the output times, len(T)*nx*ns (ns = number of
	// sensitivity parameters), block k row-major nx x ns: S[k*nx*ns+i*ns+j]
	// = dx_i(T[k])/dp_{Params[j]}.
	S     []float64
	NX    int
	NS    int
	Stats Stats
}

// SAt returns the nx x ns block of output k (a view).
func (r *Result) SAt(k int) []float64 { b := r.NX * r.NS; return r.S[k*b : (k+1)*b] }

// XAt returns x at output k (a view).
func (r *Result) XAt(k int) []float64 { return r.X[k*r.NX : (k+1)*r.NX] }

// Solver computes x(t) and S(t) for one model; it owns every buffer, so
// repeated solves of the same model allocate nothing. A Solver is not safe
// for concurrent use: use one per goroutine (the Model may be shared).
type Solver struct {
	m      model.Model
	cfg    config
	nx, np int
	params []int
	ode    *ode.Solver
	tr     ode.Trajectory
	en     *engine // nil for FS
	err    error   // why the solver cannot be used (NewSolver)
	limit  int64   // memory limit once resolved (checkMemory), -1 none, 0 not yet
	x0     []float64
	s0full []float64
	s0     []float64
	s      []float64
	chk    *checker // Options.Check (check.go), nil without
	// FS: the integrator's sensitivity settings, and pbar the scales of
	// S's columns (Options.SensScale) at the current p.
	ss   ode.SensSettings
	pbar []float64
}

// NewSolver returns a Solver for m with options opt (nil = defaults).
// Options that cannot be used (Options.Validate, parameter indices out of
// range or repeated) and workspaces beyond the memory limit (see
// MemoryEstimate) do not panic: NewSolver then allocates nothing and every
// Solve returns the error (also available from Err).
func NewSolver(m model.Model, opt *Options) *Solver {
	if m == nil {
		panic("sens: nil model")
	}
	nx, np := model.NumStates(m), model.NumParams(m)
	s := &Solver{m: m, nx: nx, np: np}
	if ev, ok := m.(model.Events); ok && ev.NumEvents() > 0 {
		// A Solver integrates f alone and would step over every event:
		// numbers for a different model. runtime/events locates the
		// events and restarts this Solver between them.
		s.err = fmt.Errorf("sens: model %q has %d events, which a Solver would step over: solve it with runtime/events (Solve, SolveSens)", m.Name(), ev.NumEvents())
		return s
	}
	if a, ok := m.(model.Algebraic); ok && a.NumAlgebraic() > 0 {
		// Its algebraic rows are residuals, not rates.
		s.err = fmt.Errorf("sens: model %q has %d algebraic variables (a DAE): solve the model runtime/dae.New makes of it", m.Name(), a.NumAlgebraic())
		return s
	}
	cfg, err := resolve(opt)
	if err != nil {
		s.err = err
		return s
	}
	if cfg.method == Auto {
		// Auto needs p and the span, which a Solver learns only at
		// Solve: solving many p with one Solver must not change method
		// from one p to the next.
		s.err = invalid("a Solver needs a concrete method, and Auto is chosen per model, parameters and span: take the Method of Resolve (sens.Solve resolves Auto itself)")
		return s
	}
	s.cfg = cfg
	params := cfg.params
	if params == nil {
		params = make([]int, np)
		for i := range params {
			params[i] = i
		}
	}
	seen := make([]bool, np)
	for _, j := range params {
		if j < 0 || j >= np {
			s.err = invalid("sensitivity parameter index %d is out of range (the model has %d parameters)", j, np)
			return s
		}
		if seen[j] {
			s.err = invalid("sensitivity parameter index %d is repeated in Params", j)
			return s
		}
		seen[j] = true
	}
	s.params = params
	ns := len(params)
	s.cfg.nnzx, s.cfg.nnzp = m.JxPattern().NNZ(), m.JpPattern().NNZ()
	if err := s.checkMemory(memoryEstimate(nx, np, ns, &s.cfg), 0); err != nil {
		s.err = err
		return s
	}
	// The integrator's own check is part of the one above.
	s.cfg.ode.MemoryLimit = -1
	s.ode = ode.NewSolver(m, &s.cfg.ode)
	if err := s.ode.Err(); err != nil {
		s.err = fmt.Errorf("sens: %v: %w", s.cfg.method, err)
		return s
	}
	if cfg.method != FS {
		s.en = newEngine(m, &s.cfg, params)
	}
	s.x0 = make([]float64, nx)
	s.s0full = make([]float64, nx*np)
	s.s0 = make([]float64, nx*ns)
	s.s = make([]float64, nx*ns)
	if cfg.method == FS && cfg.sensScale == ScaleParams {
		s.pbar = make([]float64, ns)
	}
	if opt != nil && opt.Check {
		s.chk, s.err = newChecker(m, opt, &s.cfg)
	}
	return s
}

// Err returns the error recorded by NewSolver (nil if the solver is
// usable); every Solve returns it.
func (s *Solver) Err() error { return s.err }

// Trajectory returns the state trajectory of the last solve (a view, valid
// until the next solve).
func (s *Solver) Trajectory() *ode.Trajectory { return &s.tr }

// Integrator returns the solver's integrator: of x and S for FS, of x
// alone for the other methods (nil if NewSolver failed). runtime/events
// sets its stop function (ode.Solver.SetStop) to end a solve at the
// step where an event happens and, for FS, interpolates S there
// (ode.Solver.SensAt).
func (s *Solver) Integrator() *ode.Solver { return s.ode }

// Start is the initial condition of a solve: the state and its
// sensitivities at T0. PEtab problems need both given (a simulation
// condition applied after pre-equilibration keeps the pre-equilibrated
// state and its sensitivities where it does not re-initialise).
type Start struct {
	T0 float64
	// X0 is x(T0); nil means m.InitialState(p).
	X0 []float64
	// S0 is dx(T0)/dp for the solver's parameters (nx x ns row-major, the
	// layout of Result.S). nil means m.InitialSens(p) when X0 is nil and
	// zero when X0 is given.
	S0 []float64
}

// Solve computes x and S at the output times ts (ascending, all >= t0) from
// x(t0) = x0 and writes them into res (resized as needed; row k of res
// corresponds to ts[k]). With x0 nil, x(t0) = m.InitialState(p) and
// S(t0) = m.InitialSens(p); with x0 given, x0 is taken as independent of p
// and S(t0) = 0 (SolveFrom takes S(t0) too). After the first solve with the
// same sizes it allocates nothing (res is reused).
//
// Data-dependent failures (step size underflow, non-finite values) are
// returned as errors from runtime/ode; res then holds unspecified values.
func (s *Solver) Solve(res *Result, p, x0 []float64, t0 float64, ts []float64) error {
	return s.SolveFrom(res, p, &Start{T0: t0, X0: x0}, ts)
}

// SolveFrom is Solve from the initial condition st (see Start).
func (s *Solver) SolveFrom(res *Result, p []float64, st0 *Start, ts []float64) error {
	if s.chk != nil && s.err == nil {
		return s.solveChecked(res, p, st0, ts)
	}
	return s.solveFrom(res, p, st0, ts)
}

// solveFrom is SolveFrom without the accuracy check.
func (s *Solver) solveFrom(res *Result, p []float64, st0 *Start, ts []float64) error {
	if s.err != nil {
		return s.err
	}
	if st0 == nil {
		st0 = &Start{}
	}
	nx, ns := s.nx, len(s.params)
	x0, t0 := st0.X0, st0.T0
	if len(p) != s.np {
		return invalid("%d parameter values given for a model of %d parameters", len(p), s.np)
	}
	if x0 != nil && len(x0) != nx {
		return invalid("an initial state of %d values given for a model of %d states", len(x0), nx)
	}
	if st0.S0 != nil && len(st0.S0) != nx*ns {
		return invalid("initial sensitivities of %d values given, want nx x len(Params) = %d", len(st0.S0), nx*ns)
	}
	// The result: len(ts) blocks of x and S.
	if err := s.checkMemory(0, int64(len(ts))*int64(nx)*int64(ns+1)*8); err != nil {
		return err
	}
	if x0 == nil {
		s.m.InitialState(s.x0, p)
	} else {
		copy(s.x0, x0)
	}
	switch {
	case st0.S0 != nil:
		copy(s.s0, st0.S0)
	case x0 == nil:
		s.m.InitialSens(s.s0full, p)
		for i := 0; i < nx; i++ {
			for c, j := range s.params {
				s.s0[i*ns+c] = s.s0full[i*s.np+j]
			}
		}
	default:
		clear(s.s0)
	}
	res.NX, res.NS = nx, ns
	res.T = append(res.T[:0], ts...)
	res.X = resize(res.X, len(ts)*nx)
	res.S = resize(res.S, len(ts)*nx*ns)
	st := &res.Stats
	times := st.ExpTimes[:0]
	*st = Stats{ExpTimes: times}

	// FS without columns is the state's integration: IntegrateSens would
	// evaluate Jx and Jp and run the sensitivity corrector on no column
	// at every step (the events section's states through a SensSolver:
	// half its time).
	if s.cfg.method == FS && ns > 0 {
		s.ss = ode.SensSettings{ErrCon: s.cfg.errCon, PBar: s.scales(p)}
		if s.cfg.params != nil {
			s.ss.Params = s.params
		}
		err := s.ode.IntegrateSensFrom(&s.tr, res.S, &s.ss, p, &ode.Start{T0: t0, X0: s.x0, S0: s.s0}, ts)
		st.ODE = s.ode.Stats()
		if err != nil {
			return err
		}
		s.fillX(res, ts)
		return nil
	}
	err := s.ode.IntegrateFrom(&s.tr, p, &ode.Start{T0: t0, X0: s.x0}, ts)
	st.ODE = s.ode.Stats()
	if err != nil {
		return err
	}
	s.fillX(res, ts)
	if ns == 0 {
		// No columns (a likelihood without its gradient): the state is
		// all there is, and the engine would compute exponentials of Jx
		// for nothing (Exp on Laske's problem: 531 ms instead of 24).
		return nil
	}
	s.en.stats = st
	s.en.run(&s.tr, res.S, p, s.s0, ts, s.s)
	if s.en.err != nil {
		return s.en.err
	}
	return checkFinite(res, ts)
}

// scales returns the scales of S's columns at p for FS's error weights
// (Options.SensScale): |p_j|, or 1 where p_j = 0 (or is so small that
// 1/|p_j| overflows); nil (1 for all) with ScaleNone. A non-finite p_j
// leaves its column at 1: the solve reports the non-finite values it
// makes.
func (s *Solver) scales(p []float64) []float64 {
	if s.pbar == nil {
		return nil
	}
	columnScales(s.pbar, p, s.params)
	return s.pbar
}

// SolveOn computes S at ts from S(tr.T[0]) = s0 (nx x ns) on tr, an
// integration of the state with parameters p by a Solver of the same
// options (Params aside), and x at ts by tr's dense output, into res.
// The times ts must be ascending and within [tr.T[0], tr.T[len-1]]. It
// serves PBSR and Exp on the dyadic grid only, which take x from the
// dense output wherever they need it: runtime/events gives them the
// state pass that located an event (ended at the step of the event), so
// that the state is not integrated twice. It reports false and does
// nothing for the other methods and grids and with Check, which need
// the integration of their own.
func (s *Solver) SolveOn(res *Result, p []float64, tr *ode.Trajectory, s0, ts []float64) (bool, error) {
	if s.err != nil {
		return false, s.err
	}
	if s.en == nil || s.cfg.grid != GridDyadic || s.chk != nil {
		return false, nil
	}
	nx, ns := s.nx, len(s.params)
	if len(p) != s.np || len(s0) != nx*ns || tr.NX != nx || tr.Len() == 0 || len(ts) == 0 {
		return true, invalid("SolveOn: p, s0, the trajectory or ts has the wrong size")
	}
	if ts[0] < tr.T[0] || ts[len(ts)-1] > tr.T[tr.Len()-1] {
		return true, invalid("SolveOn: output times [%g, %g] outside the trajectory's [%g, %g]", ts[0], ts[len(ts)-1], tr.T[0], tr.T[tr.Len()-1])
	}
	res.NX, res.NS = nx, ns
	res.T = append(res.T[:0], ts...)
	res.X = resize(res.X, len(ts)*nx)
	res.S = resize(res.S, len(ts)*nx*ns)
	st := &res.Stats
	times := st.ExpTimes[:0]
	*st = Stats{ExpTimes: times}
	for k, t := range ts {
		tr.InterpTo(res.X[k*nx:(k+1)*nx], t)
	}
	if ns == 0 {
		return true, nil
	}
	copy(s.s0, s0)
	s.en.stats = st
	s.en.run(tr, res.S, p, s.s0, ts, s.s)
	if s.en.err != nil {
		return true, s.en.err
	}
	return true, checkFinite(res, ts)
}

// MethodError reports that a sensitivity method gave up at time T: it
// could not meet its tolerance there or its result would have diverged.
// Its message names the method, the time and a method that would work
// (Alternative).
type MethodError struct {
	Method Method
	Paper  bool // the method ran with Options.Paper
	T      float64
	// Index is the state concerned, -1 if none.
	Index       int
	Alternative Method
	Reason      string
}

func (e *MethodError) Error() string {
	m, alt := e.Method.String(), e.Alternative.String()
	if e.Paper {
		m += " (paper mode)"
		if e.Alternative == e.Method {
			alt += " without paper mode"
		}
	}
	if e.Alternative == FS {
		return fmt.Sprintf("sens: %s gave up at t = %.6g: %s. Use FS (forward sensitivities) instead.", m, e.T, e.Reason)
	}
	return fmt.Sprintf("sens: %s gave up at t = %.6g: %s. Use %s instead (or FS, the forward sensitivities).", m, e.T, e.Reason, alt)
}

// checkFinite reports the first output time whose S has a non-finite
// entry, as an ode.ErrNonFinite error: the Peano-Baker engine has no error
// path of its own, and neither a Jx or Jp that is NaN where the state
// integrator never looked (DOPRI5 never evaluates Jx) nor an S that
// overflowed (the paper's PBS is unstable on stiff networks: on PKA it
// passes 1e308 by t = 112) may reach the user as numbers.
func checkFinite(res *Result, ts []float64) error {
	blk := res.NX * res.NS
	for k := range ts {
		b := res.S[k*blk : (k+1)*blk]
		if dense.Finite(b) {
			continue
		}
		i := 0
		for i < len(b) && !math.IsNaN(b[i]) && !math.IsInf(b[i], 0) {
			i++
		}
		return &ode.StepError{Kind: ode.ErrNonFinite, T: ts[k], Index: i / res.NS,
			X: append([]float64(nil), res.XAt(k)...), Reason: "sensitivity S not finite (the method diverged, or Jx or Jp is not finite)"}
	}
	return nil
}

// fillX writes x at the output times into res: from the grid when the
// integrator landed on them, else by its dense output. The outputs after
// the trajectory's end, which an integration ended by its stop function
// (ode.Solver.SetStop) did not reach, are left as they are.
func (s *Solver) fillX(res *Result, ts []float64) {
	nx := s.nx
	tEnd := s.tr.T[s.tr.Len()-1]
	if !s.cfg.interpolate && (len(s.tr.Out) == len(ts) || tEnd < ts[len(ts)-1]) {
		for k, g := range s.tr.Out {
			copy(res.X[k*nx:(k+1)*nx], s.tr.XAt(g))
		}
		return
	}
	for k, t := range ts {
		if t > tEnd {
			break
		}
		s.tr.InterpTo(res.X[k*nx:(k+1)*nx], t)
	}
}

func resize(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// Solve is the one-call convenience: a new Solver for m and opt, x(t0) and
// S(t0) from the model, and t0 = ts[0] (so the first output row is the
// initial condition; prepend the start time to ts to start elsewhere).
// Auto is resolved (Resolve) at p over [ts[0], ts[len-1]].
// For repeated solves keep a Solver instead.
func Solve(m model.Model, p []float64, ts []float64, opt *Options) (*Result, error) {
	if len(ts) == 0 {
		return &Result{}, invalid("no output times")
	}
	res := &Result{}
	if opt != nil && opt.Method == Auto {
		ch, err := Resolve(m, p, &Start{T0: ts[0]}, ts[len(ts)-1], opt)
		if err != nil {
			return res, err
		}
		o := *opt
		o.Method = ch.Method
		opt = &o
	}
	err := NewSolver(m, opt).Solve(res, p, nil, ts[0], ts)
	return res, err
}
