package objective

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sens"
)

// Options configure an Objective. A nil *Options means the defaults; a
// zero field means that field's default.
type Options struct {
	// Method computes the sensitivities (default sens.PBSR). sens.Auto is
	// resolved once, by New (resolveAuto): every evaluation then uses the
	// same method, whatever theta. A model with delays ignores it:
	// runtime/dde's forward sensitivity (delay.go).
	Method sens.Method
	// RTol and ATol are the solver's tolerances (sens.Options.RTol, ATol);
	// defaults 1e-6 and 1e-8.
	RTol, ATol float64
	// Grad and FIM request the gradient and the Fisher information; without
	// either no sensitivities are computed.
	Grad, FIM bool
	// Workers > 1 solves experiments on that many goroutines (the caller's
	// and Workers-1 persistent ones, started by the first Eval and stopped
	// by Close), experiments assigned round robin. The result does not
	// depend on Workers: experiments are summed in their order.
	Workers int
	// NoErrCon leaves S out of FS's local error test (sens.Options.ErrCon
	// false, CVODES errconS off): the steps are then the state's alone and
	// S is not controlled. The default puts S in the error test, as AMICI
	// runs CVODES: at rtol 1e-6, atol 1e-8 without it the gradient at the
	// nominal parameters missed the FS gradient at rtol 1e-10 by more
	// than 1e-3 + 1e-2 |g| on Alkan_SciSignal2018, Armistead, Bertozzi
	// (3.9, 1.5 and 5.7 times that tolerance) of the PEtab benchmark
	// collection, with it on none of them, for 0.8 to 3.0 times the CPU
	// per llh + gradient (two runs on a shared machine; Lang about 5.9,
	// one run)
	// (Raimundez_PCB2020 misses either way: its worst entry is an
	// observable's scale, whose derivative needs h, not S, more accurate;
	// rtol 1e-8 meets it; docs/bench/petab-errcon-2026-12-08.txt). With it
	// the llh also depends (within the integration error) on whether the
	// gradient is computed. The other methods ignore it (PBSR controls
	// S's local error itself).
	NoErrCon bool
	// Sens are advanced solver options (nil: defaults). Its Method, RTol,
	// ATol, ErrCon and Params are replaced: by the fields above, and by the
	// objective's own sensitivity columns (see the package documentation);
	// its ODE.Interpolate by !OutputsOnGrid.
	Sens *sens.Options
	// OutputsOnGrid makes the state integrator (and so FS) land on every
	// output time, as runtime/ode does by default. The objective's default
	// is to step over them and interpolate x and S from the integrator's
	// Nordsieck history (ode.Settings.Interpolate, CVODES's CV_NORMAL):
	// PEtab data times are set by the experiment, not by the dynamics,
	// and landing on each costs steps the error control does not ask for
	// (FS on Zhao_QuantBiol2020: 566 steps instead of 444, CVODES takes
	// 443), at the accuracy of the integrator's own polynomial. PBSR and
	// Exp (on their default grid) always interpolate the state.
	OutputsOnGrid bool
	// SteadyRTol and SteadyATol define steady state: integration stops once
	// max_i |f_i| / (SteadyATol + SteadyRTol |x_i|) < 1 (and, when S is
	// integrated too, the same holds for dS/dt = Jx S + Jp against S); a
	// solved S must satisfy that test too. Defaults RTol and ATol.
	SteadyRTol, SteadyATol float64
	// SteadyTMax is the time after which a steady state that has not been
	// reached is an error; default 1e10.
	SteadyTMax float64
	// NewSolver makes the solver of x and S for one sensitivity-column
	// layout (m is the objective's wrapped model, opt the resolved solver
	// options); nil means sens.NewSolver. It exists so that a benchmark can
	// run the same objective on another integrator (internal/cvodes runs
	// CVODES through it). The steady-state search integrates the state
	// with it too when the Solver implements StateSolver, else with
	// runtime/ode's BDF; its Newton polish and steady-state S are the
	// objective's own either way. For a model with events m has them
	// (model.Events, model.EventDerivs) and the Solver must implement
	// EventSolver, which then solves every phase (ErrEventsNewSolver
	// otherwise).
	NewSolver func(m model.Model, opt *sens.Options) (Solver, error)
	// Gradient selects how Grad is computed: GradForward (the default)
	// from S, or GradAdjoint by the adjoint backwards in time, whose cost
	// does not grow with the number of parameters (adjoint.go; New
	// refuses with ErrAdjoint what it does not cover yet). FIM needs S
	// and is always forward.
	Gradient GradMethod
	// AdjRTol and AdjATol are the tolerances of the adjoint's backward
	// solve and its quadrature (GradAdjoint); defaults RTol and ATol.
	AdjRTol, AdjATol float64
	// AdjMemoryLimit bounds the memory of an adjoint's checkpoints (the
	// forward dense output one experiment keeps for its backward solve,
	// Stats.AdjointBytes) in bytes: a forward solve that would keep more
	// stops, and Eval returns an error wrapping ErrAdjoint. 0 means a
	// quarter of ode.DefaultMemoryLimit() (none if that is unknown),
	// negative no limit.
	AdjMemoryLimit int64
}

// Solver is what the objective needs of a sensitivity solver:
// *sens.Solver's SolveFrom (see there for the contract). res.Stats.ODE's
// Steps and Rejected are read into Stats. A Solver that also implements
// io.Closer is closed by Objective.Close.
type Solver interface {
	SolveFrom(res *sens.Result, p []float64, st *sens.Start, ts []float64) error
}

// StateSolver is optional for a Solver of Options.NewSolver: the
// integration of the state alone, which the steady-state search
// (pre-equilibration, steady-state data) runs before it solves for S.
// SolveState integrates x (x(t0) on entry, x(t1) on return) with
// parameters p and returns the steps and rejected steps it took. A Solver
// without it leaves those integrations to runtime/ode's BDF, so that a
// peer solver (CVODES in the benchmarks) would be timed with our
// integrator on steady-state problems.
type StateSolver interface {
	SolveState(x, p []float64, t0, t1 float64) (steps, rejected int, err error)
}

// Result receives an evaluation; its slices are reused by later calls.
type Result struct {
	// LLH is the log-likelihood (larger is better), Chi2 the sum of the
	// squared residuals Res.
	LLH, Chi2 float64
	// LogPrior is the sum of the objective priors' log densities (0 when
	// there are none), LogPost = LLH + LogPrior.
	LogPrior, LogPost float64
	// Grad is dLLH/dtheta (theta on the parameter scales) and GradPrior
	// dLogPrior/dtheta; the gradient of LogPost is their sum. Both have
	// length nTheta and are filled when Options.Grad is set.
	Grad, GradPrior []float64
	// FIM is the expected Fisher information of the likelihood with
	// respect to theta, nTheta x nTheta row-major (Options.FIM).
	FIM []float64
	// HessPrior is the diagonal of the Hessian of LogPrior in theta (the
	// priors are independent), filled with FIM: a Fisher-type metric of
	// the posterior (SMMALA) is FIM - diag(HessPrior), where that is
	// positive definite (Cauchy tails and log-uniform priors have
	// positive curvature; Laplace kinks count as 0).
	HessPrior []float64
	// Sim, Sigma and Res are, per datum (experiments in order, data in
	// their order), the simulated observable h (untransformed), its noise
	// scale sigma and the residual (z(h) - z(m)) / sigma, z the
	// observable's transformation.
	Sim, Sigma, Res []float64
	// Stats counts the work of the evaluation.
	Stats Stats
}

// Stats counts the work of an Eval, summed over experiments.
type Stats struct {
	Solves       int // integrations (a steady-state chunk is one)
	SteadyChunks int // of which steady-state chunks
	// SensFallbacks counts steady states whose sensitivities were
	// integrated with the state rather than solved for: Jx + L^T L was
	// singular or ill-conditioned, or the steady state degenerate, at this
	// or an earlier evaluation (an experiment's steady state that once
	// needed integration integrates directly afterwards).
	SensFallbacks int
	Steps         int // accepted integrator steps
	Rejected      int // rejected integrator steps (forward and adjoint)
	AdjointSteps  int // accepted steps of the adjoint's backward solves (not in Steps)
	// AdjointBytes is the largest memory an adjoint's forward solve held
	// for the backward one (its dense output, ode.Trajectory.Bytes),
	// over the experiments: about (q + 3) nx words per forward step.
	AdjointBytes int64
}

// Objective evaluates a Problem for parameter vectors theta. It owns all
// workspaces, so Eval allocates nothing after the first call. An Objective
// is for one goroutine at a time (Workers parallelises inside Eval).
type Objective struct {
	c *core
}

// core is the Objective's state; worker goroutines hold it, not the
// Objective, so that an Objective dropped without Close is still collected
// and its finalizer stops them.
type core struct {
	m    model.Model
	obs  model.Observables
	asg  model.Assigner // nil unless the model implements it
	ev   model.Events   // nil unless the model has events (events.go)
	dl   model.Delays   // nil unless the model has delays (delay.go)
	alg  *algModel      // the reduced model, when m has algebraic variables (algebraic.go)
	prob *Problem
	opt  Options
	need bool // sensitivities needed (Grad or FIM)

	nx, np, nt int
	ids        []string
	scales     []Scale
	lin, dlin  []float64 // theta's linear values and d(lin)/d(theta)
	priors     []prior   // per theta
	// lawsOnce finds the conservation laws consL (k x nx, see steady.go)
	// and their projector consP = consL^T consL (nx x nx) when a steady
	// state first needs them (core.laws).
	lawsOnce     sync.Once
	consL, consP []float64
	asgTargets   [][]int // per assignment set: the states it assigns

	exps   []expPlan
	groups []group
	ndata  int

	workers []*worker
	part    []partial // per experiment

	wg      sync.WaitGroup
	started bool
	// closeMu is held by Eval and Close: a Close from the finalizer (or
	// another goroutine) waits for a running Eval instead of closing the
	// workers' channels under it.
	closeMu  sync.Mutex
	isClosed bool
	// choice is what Options.Method sens.Auto resolved to (resolveAuto);
	// zero for a concrete method.
	choice sens.Choice
}

// group is a distinct sensitivity-column structure (thetaModel layout)
// shared by experiment phases; each worker has a solver per group.
type group struct {
	col []int
	nc  int
}

// expPlan is an experiment lowered for evaluation.
type expPlan struct {
	ex        *Experiment
	pre, sim  *Condition
	preGroup  int   // -1 without pre-equilibration
	simGroup  int   // phases[0].group
	preToSim  []int // pre column -> sim column
	local     []int // thetas reaching this experiment (ascending)
	colLocal  []int // sim column -> local index
	phases    []phase
	nrun      int       // phases simulated: through the last one with data
	out       []int     // per datum: index into its phase's times, -1 for +Inf
	uLocal    [][]int   // per datum and placeholder: local index or -1
	zm, jac   []float64 // per datum: z(m) and the transformation's log-Jacobian
	hasInf    bool
	off       int // first datum in the Result slices
	reinit    []bool
	reinitAny bool
	// Replicates (data of one phase at one output, or at its steady
	// state, of the same observable with the same placeholder values)
	// share h, sigma and their derivatives: lead[i] marks the first datum
	// of each such group, which observes the group's data (next[i]: the
	// group's next datum, -1 after the last); the others are skipped.
	lead []bool
	next []int
}

// phase is a period of an experiment: phase 0 is the simulation condition
// from T0, phase k the experiment's Periods[k-1]. All phases share the
// experiment's sensitivity columns (one theta each), so S passes from one
// to the next unchanged except for the assigned states' rows.
type phase struct {
	t0     float64
	cond   *Condition
	group  int
	assign int // assignment set applied at t0, -1 for none
	mapped []mapped
	// times are the distinct finite output times of the phase's data,
	// then the next phase's start when that phase is simulated too.
	times []float64
	data  []int // the phase's data (+Inf ones in the last phase)
}

// mapped is a model parameter of the simulation condition set to a theta.
type mapped struct{ j, theta, local int }

// partial is one experiment's contribution, on its local thetas.
type partial struct {
	llh, chi2 float64
	stats     Stats
	// integrateS: the pre-equilibration (0) or simulation steady state (1)
	// integrates S (see worker.steady); kept across evaluations.
	integrateS [2]bool
	// evSlow[k]: phase k of an experiment of a model with events needs
	// runtime/events (a trigger changed there at an earlier evaluation),
	// so its first try without events (events.go) is skipped.
	evSlow    []bool
	grad, fim []float64
	err       error
}

// New checks prob against m (which must implement model.Observables) and
// allocates the workspaces. Errors describe the first inconsistency.
func New(m model.Model, prob *Problem, opt *Options) (*Objective, error) {
	if m == nil || prob == nil {
		return nil, errors.New("objective: nil model or problem")
	}
	obs, ok := m.(model.Observables)
	if !ok {
		return nil, fmt.Errorf("objective: model %q does not implement model.Observables", m.Name())
	}
	if a, ok := m.(model.Algebraic); ok && a.NumAlgebraic() > 0 {
		// Algebraic rules or fast reactions: every path solves the
		// reduced model (algebraic.go).
		am, err := newAlgModel(a, obs)
		if err != nil {
			return nil, err
		}
		m, obs = am, am
	}
	c := &core{m: m, obs: obs, prob: prob}
	c.alg, _ = m.(*algModel)
	if a, ok := m.(model.Assigner); ok {
		c.asg = a
		for k := 0; k < a.NumAssignments(); k++ {
			c.asgTargets = append(c.asgTargets, a.AssignTargets(k))
		}
	}
	if opt != nil {
		c.opt = *opt
	}
	if ev, ok := m.(model.Events); ok && events.Needed(m) {
		c.ev = ev
	}
	if model.HasDelays(m) {
		c.dl = m.(model.Delays)
	}
	o := &c.opt
	if o.RTol == 0 {
		o.RTol = 1e-6
	}
	if o.ATol == 0 {
		o.ATol = 1e-8
	}
	if o.SteadyRTol == 0 {
		o.SteadyRTol = o.RTol
	}
	if o.SteadyATol == 0 {
		o.SteadyATol = o.ATol
	}
	if o.SteadyTMax == 0 {
		o.SteadyTMax = 1e10
	}
	if o.Workers < 1 {
		o.Workers = 1
	}
	if !(o.RTol > 0 && o.ATol > 0 && o.SteadyRTol > 0 && o.SteadyATol > 0 && o.SteadyTMax > 0) {
		return nil, errors.New("objective: tolerances and SteadyTMax must be positive")
	}
	if o.Method < sens.PBSR || o.Method > sens.Auto {
		return nil, fmt.Errorf("objective: unknown method %v", o.Method)
	}
	c.need = o.Grad || o.FIM
	c.nx, c.np, c.nt = model.NumStates(m), model.NumParams(m), len(prob.Estimated)
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.dl != nil {
		if err := c.checkDelays(); err != nil {
			return nil, err
		}
	}
	if o.Gradient == GradAdjoint {
		if err := c.checkAdjoint(); err != nil {
			return nil, err
		}
	} else if o.Gradient != GradForward {
		return nil, fmt.Errorf("objective: unknown gradient method %v", o.Gradient)
	}
	c.lin, c.dlin = make([]float64, c.nt), make([]float64, c.nt)
	if err := c.plan(); err != nil {
		return nil, err
	}
	if c.dl != nil {
		if err := c.checkDelaySens(); err != nil {
			return nil, err
		}
	}
	if err := c.resolveAuto(); err != nil {
		return nil, err
	}
	nw := min(o.Workers, max(1, len(c.exps)))
	c.workers = make([]*worker, 0, nw)
	for w := 0; w < nw; w++ {
		var exps []int
		for e := w; e < len(c.exps); e += nw {
			exps = append(exps, e)
		}
		wk, err := c.newWorker(exps)
		if err != nil {
			c.closeSolvers()
			return nil, err
		}
		c.workers = append(c.workers, wk)
	}
	c.part = make([]partial, len(c.exps))
	for e := range c.part {
		n := len(c.exps[e].local)
		c.part[e].grad = make([]float64, n)
		if c.ev != nil {
			c.part[e].evSlow = make([]bool, len(c.exps[e].phases))
		}
		c.part[e].fim = make([]float64, n*n)
	}
	ob := &Objective{c: c}
	runtime.SetFinalizer(ob, func(ob *Objective) { ob.Close() })
	return ob, nil
}

// check validates the problem's indices and sizes against the model.
func (c *core) check() error {
	p := c.prob
	c.ids = make([]string, c.nt)
	c.scales = make([]Scale, c.nt)
	for a, i := range p.Estimated {
		if i < 0 || i >= len(p.Params) {
			return fmt.Errorf("objective: estimated parameter %d: index %d not in the parameter table", a, i)
		}
		c.ids[a], c.scales[a] = p.Params[i].ID, p.Params[i].Scale
		if s := c.scales[a]; s != Lin && s != Log && s != Log10 {
			return fmt.Errorf("objective: parameter %q: unknown scale %d", c.ids[a], int(s))
		}
		pr, err := newPrior(&p.Params[i])
		if err != nil {
			return fmt.Errorf("objective: parameter %q: %v", c.ids[a], err)
		}
		c.priors = append(c.priors, pr)
	}
	ids := c.obs.ObservableIDs()
	if len(ids) != len(p.Observables) {
		return fmt.Errorf("objective: model has %d observables, problem %d", len(ids), len(p.Observables))
	}
	for k, ob := range p.Observables {
		if ob.ID != ids[k] {
			return fmt.Errorf("objective: observable %d is %q in the problem, %q in the model", k, ob.ID, ids[k])
		}
		if ob.Transform < TransformLin || ob.Transform > TransformLog10 || (ob.Noise != Normal && ob.Noise != Laplace) {
			return fmt.Errorf("objective: observable %q: unknown transformation or noise distribution", ob.ID)
		}
	}
	val := func(v Value, what string) error {
		if v.Theta >= c.nt || v.Theta < -1 {
			return fmt.Errorf("objective: %s: theta index %d out of range", what, v.Theta)
		}
		return nil
	}
	for _, cd := range p.Conditions {
		if len(cd.P) != c.np {
			return fmt.Errorf("objective: condition %q has %d parameter values, the model %d", cd.ID, len(cd.P), c.np)
		}
		for j, v := range cd.P {
			// The message only on failure: building it for every entry
			// copied the np names np times per condition (a model's
			// ParamNames returns a copy), 0.05 s of CPU on a 2000-state
			// network.
			if v.Theta >= c.nt || v.Theta < -1 {
				return val(v, "condition "+strconv.Quote(cd.ID)+" parameter "+c.m.ParamNames()[j])
			}
		}
	}
	for e := range p.Experiments {
		ex := &p.Experiments[e]
		if ex.Sim < 0 || ex.Sim >= len(p.Conditions) || ex.Preeq >= len(p.Conditions) || ex.Preeq < -1 {
			return fmt.Errorf("objective: experiment %d: condition index out of range", e)
		}
		name := c.expName(e)
		if math.IsNaN(ex.T0) || math.IsInf(ex.T0, 0) {
			return fmt.Errorf("objective: %s: start time %g", name, ex.T0)
		}
		for _, i := range ex.Reinit {
			if i < 0 || i >= c.nx {
				return fmt.Errorf("objective: %s: re-initialised state %d out of range", name, i)
			}
		}
		if err := c.checkPeriods(ex, name); err != nil {
			return err
		}
		for i := range ex.Data {
			d := &ex.Data[i]
			if d.Obs < 0 || d.Obs >= len(p.Observables) {
				return fmt.Errorf("objective: %s datum %d: observable %d out of range", name, i, d.Obs)
			}
			no, nn := c.obs.Placeholders(d.Obs)
			if len(d.U) != no+nn {
				return fmt.Errorf("objective: %s datum %d: %d placeholder values, observable %q has %d", name, i, len(d.U), p.Observables[d.Obs].ID, no+nn)
			}
			for _, v := range d.U {
				if err := val(v, name+" datum "+strconv.Itoa(i)); err != nil {
					return err
				}
			}
			if math.IsNaN(d.T) || d.T < ex.T0 {
				return fmt.Errorf("objective: %s datum %d: time %g before the start %g", name, i, d.T, ex.T0)
			}
			if math.IsNaN(d.Y) || math.IsInf(d.Y, 0) {
				return fmt.Errorf("objective: %s datum %d: measurement %g", name, i, d.Y)
			}
			if p.Observables[d.Obs].Transform != TransformLin && !(d.Y > 0) {
				return fmt.Errorf("objective: %s datum %d: measurement %g of log-transformed observable %q is not positive", name, i, d.Y, p.Observables[d.Obs].ID)
			}
		}
	}
	return nil
}

// checkPeriods validates an experiment's periods: conditions and
// assignment sets in range, start times finite and increasing.
func (c *core) checkPeriods(ex *Experiment, name string) error {
	t := ex.T0
	for k, pd := range ex.Periods {
		if pd.Cond < 0 || pd.Cond >= len(c.prob.Conditions) {
			return fmt.Errorf("objective: %s period %d: condition index %d out of range", name, k+1, pd.Cond)
		}
		if math.IsNaN(pd.T0) || math.IsInf(pd.T0, 0) || !(pd.T0 > t || k == 0 && pd.T0 == t) {
			return fmt.Errorf("objective: %s period %d: start time %g not finite or not after the previous start %g", name, k+1, pd.T0, t)
		}
		t = pd.T0
		if pd.Assign < -1 || pd.Assign >= len(c.asgTargets) {
			if c.asg == nil && pd.Assign >= 0 {
				return fmt.Errorf("objective: %s period %d: assignment set %d, but model %q does not implement model.Assigner", name, k+1, pd.Assign, c.m.Name())
			}
			return fmt.Errorf("objective: %s period %d: assignment set %d out of range", name, k+1, pd.Assign)
		}
		if pd.Assign >= 0 {
			for _, i := range c.asgTargets[pd.Assign] {
				if i < 0 || i >= c.nx {
					return fmt.Errorf("objective: %s period %d: assignment set %d targets state %d out of range", name, k+1, pd.Assign, i)
				}
			}
		}
	}
	return nil
}

// expName names experiment e by its conditions, for error messages.
func (c *core) expName(e int) string {
	ex := &c.prob.Experiments[e]
	s := fmt.Sprintf("experiment %d (simulation condition %q", e, c.prob.Conditions[ex.Sim].ID)
	if ex.Preeq >= 0 {
		s += fmt.Sprintf(", pre-equilibration %q", c.prob.Conditions[ex.Preeq].ID)
	}
	return s + ")"
}

// plan lowers the experiments: sensitivity columns, groups, output times.
func (c *core) plan() error {
	p := c.prob
	keys := map[string]int{}
	groupOf := func(col []int, nc int) int {
		var b strings.Builder
		fmt.Fprint(&b, nc, ":", col)
		k := b.String()
		if g, ok := keys[k]; ok {
			return g
		}
		keys[k] = len(c.groups)
		c.groups = append(c.groups, group{col: col, nc: nc})
		return len(c.groups) - 1
	}
	thetasOf := func(cd *Condition) []int {
		var ts []int
		for _, v := range cd.P {
			if v.Theta >= 0 && !slices.Contains(ts, v.Theta) {
				ts = append(ts, v.Theta)
			}
		}
		slices.Sort(ts)
		return ts
	}
	colsFor := func(cd *Condition, cols []int) []int {
		col := make([]int, c.np)
		for j, v := range cd.P {
			col[j] = -1
			if i, ok := slices.BinarySearch(cols, v.Theta); v.Theta >= 0 && ok {
				col[j] = i
			}
		}
		return col
	}
	c.exps = make([]expPlan, len(p.Experiments))
	for e := range p.Experiments {
		ex := &p.Experiments[e]
		pl := &c.exps[e]
		pl.ex, pl.sim, pl.off, pl.preGroup = ex, &p.Conditions[ex.Sim], c.ndata, -1
		c.ndata += len(ex.Data)
		pl.phases = make([]phase, 1+len(ex.Periods))
		pl.phases[0] = phase{t0: ex.T0, cond: pl.sim, assign: -1}
		for k, pd := range ex.Periods {
			pl.phases[k+1] = phase{t0: pd.T0, cond: &p.Conditions[pd.Cond], assign: pd.Assign}
		}
		// Sensitivity columns: the thetas of every phase's condition (and
		// of pre-equilibration), shared by all phases.
		var preCols, simCols []int
		if c.need {
			for _, ph := range pl.phases {
				for _, a := range thetasOf(ph.cond) {
					if !slices.Contains(simCols, a) {
						simCols = append(simCols, a)
					}
				}
			}
			slices.Sort(simCols)
		}
		if ex.Preeq >= 0 {
			pl.pre = &p.Conditions[ex.Preeq]
			pl.reinit = make([]bool, c.nx)
			for _, i := range ex.Reinit {
				pl.reinit[i], pl.reinitAny = true, true
			}
			if c.need {
				preCols = thetasOf(pl.pre)
				for _, a := range preCols {
					if !slices.Contains(simCols, a) {
						simCols = append(simCols, a)
					}
				}
				slices.Sort(simCols)
			}
			pl.preGroup = groupOf(colsFor(pl.pre, preCols), len(preCols))
			pl.preToSim = make([]int, len(preCols))
			for i, a := range preCols {
				pl.preToSim[i], _ = slices.BinarySearch(simCols, a)
			}
		}
		for k := range pl.phases {
			ph := &pl.phases[k]
			if c.need {
				ph.group = groupOf(colsFor(ph.cond, simCols), len(simCols))
			} else {
				ph.group = groupOf(colsFor(ph.cond, nil), 0)
			}
		}
		pl.simGroup = pl.phases[0].group
		// Local thetas: the columns and the placeholders.
		local := slices.Clone(simCols)
		for _, d := range ex.Data {
			for _, v := range d.U {
				if v.Theta >= 0 && !slices.Contains(local, v.Theta) {
					local = append(local, v.Theta)
				}
			}
		}
		slices.Sort(local)
		if !c.need {
			local = local[:0]
		}
		pl.local = local
		loc := func(a int) int { i, _ := slices.BinarySearch(local, a); return i }
		pl.colLocal = make([]int, len(simCols))
		for i, a := range simCols {
			pl.colLocal[i] = loc(a)
		}
		if c.need {
			for k := range pl.phases {
				ph := &pl.phases[k]
				for j, v := range ph.cond.P {
					if v.Theta >= 0 {
						ph.mapped = append(ph.mapped, mapped{j: j, theta: v.Theta, local: loc(v.Theta)})
					}
				}
			}
		}
		// Each datum's phase: the last one started at or before its time
		// (+Inf: the last phase). Phases after the last datum's are not
		// simulated.
		phaseOf := make([]int, len(ex.Data))
		for i, d := range ex.Data {
			k := len(pl.phases) - 1
			if math.IsInf(d.T, 1) {
				pl.hasInf = true
			} else {
				for k > 0 && pl.phases[k].t0 > d.T {
					k--
				}
			}
			phaseOf[i] = k
			pl.phases[k].data = append(pl.phases[k].data, i)
			pl.nrun = max(pl.nrun, k+1)
		}
		// Output times per phase: distinct, ascending, finite, then the
		// next simulated phase's start.
		for k := 0; k < pl.nrun; k++ {
			ph := &pl.phases[k]
			for _, i := range ph.data {
				if t := ex.Data[i].T; !math.IsInf(t, 1) {
					ph.times = append(ph.times, t)
				}
			}
			slices.Sort(ph.times)
			ph.times = slices.Compact(ph.times)
			if k+1 < pl.nrun {
				ph.times = append(ph.times, pl.phases[k+1].t0)
			}
		}
		pl.out = make([]int, len(ex.Data))
		pl.uLocal = make([][]int, len(ex.Data))
		pl.zm = make([]float64, len(ex.Data))
		pl.jac = make([]float64, len(ex.Data))
		for i, d := range ex.Data {
			pl.out[i] = -1
			if !math.IsInf(d.T, 1) {
				pl.out[i], _ = slices.BinarySearch(pl.phases[phaseOf[i]].times, d.T)
			}
			pl.uLocal[i] = make([]int, len(d.U))
			for l, v := range d.U {
				pl.uLocal[i][l] = -1
				if v.Theta >= 0 && c.need {
					pl.uLocal[i][l] = loc(v.Theta)
				}
			}
			tr := p.Observables[d.Obs].Transform
			pl.zm[i], _ = transform(tr, d.Y)
			pl.jac[i] = measJacobian(tr, d.Y)
		}
		pl.lead, pl.next = replicates(ex.Data, phaseOf, pl.out)
	}
	return nil
}

// replicates groups data that the likelihood sees at the same point: the
// same phase, output time (out, -1 for the steady state), observable and
// placeholder values. Such data differ only in their measurements (PEtab
// replicates: Blasi_CellSystems2016 has 252 data of 16 observables at one
// steady state), so h, sigma and their gradients are computed once per
// group. lead marks each group's first datum, next chains the group in
// data order (-1 ends it).
func replicates(data []Datum, phaseOf, out []int) (lead []bool, next []int) {
	lead, next = make([]bool, len(data)), make([]int, len(data))
	last := map[string]int{} // group key -> its latest datum
	var b strings.Builder
	for i, d := range data {
		b.Reset()
		fmt.Fprint(&b, phaseOf[i], " ", out[i], " ", d.Obs)
		for _, u := range d.U {
			// %x prints a float64 exactly (and -0 apart from 0).
			fmt.Fprintf(&b, " %d:%x", u.Theta, u.Const)
		}
		k := b.String()
		next[i] = -1
		if j, ok := last[k]; ok {
			next[j] = i
		} else {
			lead[i] = true
		}
		last[k] = i
	}
	return lead, next
}

// sampleParams is a parameter vector at which to find the conservation
// laws: the first condition's at the nominal theta (the model's defaults
// without conditions).
func (c *core) sampleParams() []float64 {
	p := make([]float64, c.np)
	if len(c.prob.Conditions) == 0 {
		c.m.DefaultParams(p)
		return p
	}
	for j, v := range c.prob.Conditions[0].P {
		p[j] = v.Const
		if v.Theta >= 0 {
			pr := &c.prob.Params[c.prob.Estimated[v.Theta]]
			p[j] = pr.Nominal
		}
	}
	return p
}

// resolveAuto replaces Options.Method sens.Auto by the method
// sens.ResolveColumns chooses for the problem: at the parameters of the
// first simulation condition with the nominal thetas (sampleParams), over
// the longest experiment, for the most sensitivity columns of a phase (0
// without Grad and FIM). Once per objective, so that an MCMC run's
// thousands of evaluations neither pay the probe nor switch methods.
func (c *core) resolveAuto() error {
	o := &c.opt
	if o.Method != sens.Auto {
		return nil
	}
	ns := 0
	if c.need {
		for _, g := range c.groups {
			ns = max(ns, g.nc)
		}
	}
	t0, t1 := 0.0, 0.0
	for e := range c.exps {
		pl := &c.exps[e]
		if len(pl.phases) == 0 {
			continue
		}
		a := pl.phases[0].t0
		b := a
		for _, ph := range pl.phases {
			for _, t := range ph.times {
				b = max(b, t)
			}
		}
		if e == 0 || b-a > t1-t0 {
			t0, t1 = a, b
		}
	}
	so := sens.Options{}
	if o.Sens != nil {
		so = *o.Sens
	}
	so.Method, so.Params, so.RTol, so.ATol = sens.Auto, nil, o.RTol, o.ATol
	so.ErrCon = !o.NoErrCon
	so.ODE.Interpolate = !o.OutputsOnGrid // as the solvers (newWorker)
	ch, err := sens.ResolveColumns(c.m, c.sampleParams(), &sens.Start{T0: t0}, t1, ns, &so)
	if err != nil {
		return fmt.Errorf("objective: Method Auto: %w", err)
	}
	c.choice, o.Method = ch, ch.Method
	return nil
}

// Method returns the method that computes the sensitivities: Options.Method,
// or what sens.Auto resolved to (Choice says why).
func (o *Objective) Method() sens.Method { return o.c.opt.Method }

// Choice returns what Options.Method sens.Auto resolved to and why (the
// zero Choice for a concrete method).
func (o *Objective) Choice() sens.Choice { return o.c.choice }

// Params returns the ids of the estimated parameters, in theta's order.
func (o *Objective) Params() []string {
	return slices.Clone(o.c.ids)
}

// Scales returns the estimated parameters' scales, in theta's order.
func (o *Objective) Scales() []Scale {
	return slices.Clone(o.c.scales)
}

// Nominal returns the nominal values of the estimated parameters on their
// parameter scales: a theta to start from.
func (o *Objective) Nominal() []float64 {
	c := o.c
	th := make([]float64, c.nt)
	for a, i := range c.prob.Estimated {
		pr := &c.prob.Params[i]
		th[a] = ToScale(pr.Scale, pr.Nominal)
	}
	return th
}

// NumData is the number of data, the length of Result.Sim, Sigma and Res.
func (o *Objective) NumData() int {
	return o.c.ndata
}

// Close stops the worker goroutines (Workers > 1). The Objective must not
// be used afterwards. An Objective that is dropped is closed by the
// garbage collector; Close releases the goroutines at once.
func (o *Objective) Close() {
	c := o.c
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	if c.started && !c.isClosed {
		for _, w := range c.workers[1:] {
			close(w.start)
		}
	}
	if !c.isClosed {
		c.closeSolvers()
	}
	c.isClosed = true
}

// closeSolvers closes the solvers that hold resources outside Go (a
// Solver from Options.NewSolver that implements io.Closer).
func (c *core) closeSolvers() {
	for _, w := range c.workers {
		w.closeSolvers()
	}
}

// Eval evaluates the problem at theta (length len(Params()), on the
// parameter scales) into out. A failed solve returns an error naming the
// experiment, its conditions and the time; out then holds unspecified
// values.
func (o *Objective) Eval(theta []float64, out *Result) error {
	err := o.c.eval(theta, out)
	// o must stay reachable until the workers are done: its finalizer
	// closes their channels, and o is otherwise dead once o.c is loaded.
	runtime.KeepAlive(o)
	return err
}

func (c *core) eval(theta []float64, out *Result) error {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	if len(theta) != c.nt {
		return fmt.Errorf("objective: theta has %d values, want %d (the estimated parameters, in Params order)", len(theta), c.nt)
	}
	if c.isClosed {
		return errors.New("objective: Eval after Close")
	}
	for a, v := range theta {
		// -Inf on a log scale is the linear value 0 (a nominal value 0 in
		// the parameter table: a reaction switched off), with derivative 0.
		if math.IsNaN(v) || math.IsInf(v, 1) || (math.IsInf(v, -1) && c.scales[a] == Lin) {
			return fmt.Errorf("objective: theta[%d] (%s) = %g on scale %v", a, c.ids[a], v, c.scales[a])
		}
		c.lin[a], c.dlin[a] = FromScale(c.scales[a], v)
	}
	out.Sim = resize(out.Sim, c.ndata)
	out.Sigma = resize(out.Sigma, c.ndata)
	out.Res = resize(out.Res, c.ndata)
	if c.opt.Grad {
		out.Grad = resize(out.Grad, c.nt)
		out.GradPrior = resize(out.GradPrior, c.nt)
	}
	if c.opt.FIM {
		out.FIM = resize(out.FIM, c.nt*c.nt)
		out.HessPrior = resize(out.HessPrior, c.nt)
	}
	if len(c.workers) == 1 {
		for e := range c.exps {
			c.workers[0].run(e, out)
		}
	} else {
		if !c.started {
			for _, w := range c.workers[1:] {
				w.start = make(chan *Result)
				go c.serve(w)
			}
			c.started = true
		}
		c.wg.Add(len(c.workers) - 1)
		for _, w := range c.workers[1:] {
			w.start <- out
		}
		c.workers[0].runAll(out)
		c.wg.Wait()
	}
	// Deterministic summation in experiment order.
	out.LLH, out.Chi2 = 0, 0
	out.Stats = Stats{}
	clear(out.Grad)
	clear(out.FIM)
	for e := range c.exps {
		pt := &c.part[e]
		if pt.err != nil {
			return pt.err
		}
		out.LLH += pt.llh
		out.Chi2 += pt.chi2
		out.Stats.Solves += pt.stats.Solves
		out.Stats.SteadyChunks += pt.stats.SteadyChunks
		out.Stats.Steps += pt.stats.Steps
		out.Stats.Rejected += pt.stats.Rejected
		out.Stats.SensFallbacks += pt.stats.SensFallbacks
		out.Stats.AdjointSteps += pt.stats.AdjointSteps
		out.Stats.AdjointBytes = max(out.Stats.AdjointBytes, pt.stats.AdjointBytes)
		loc := c.exps[e].local
		if c.opt.Grad {
			for i, a := range loc {
				out.Grad[a] += pt.grad[i]
			}
		}
		if c.opt.FIM {
			// pt.fim holds the upper triangle (local thetas ascending, so
			// the global entries are in the upper triangle too).
			n := len(loc)
			for i, a := range loc {
				row := out.FIM[a*c.nt:]
				for k := i; k < n; k++ {
					row[loc[k]] += pt.fim[i*n+k]
				}
			}
		}
	}
	if c.opt.FIM {
		nt := c.nt
		for a := 0; a < nt; a++ {
			for b := a + 1; b < nt; b++ {
				out.FIM[b*nt+a] = out.FIM[a*nt+b]
			}
		}
	}
	out.LogPrior = 0
	for a := range c.priors {
		v, d, d2 := c.priors[a].eval(c.scales[a], theta[a], c.lin[a], c.dlin[a])
		out.LogPrior += v
		if c.opt.Grad {
			out.GradPrior[a] = d
		}
		if c.opt.FIM {
			out.HessPrior[a] = d2
		}
	}
	out.LogPost = out.LLH + out.LogPrior
	return nil
}

// serve runs worker w's experiments for each Eval until Close. The
// assignment of experiments to workers is static (round robin), so each
// worker's solvers see the same experiments every time and their buffers
// stop growing after the first Eval: no allocation afterwards.
func (c *core) serve(w *worker) {
	for out := range w.start {
		w.runAll(out)
		c.wg.Done()
	}
}

func resize(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}
