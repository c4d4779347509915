package ode

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// Method selects the integration formula.
type Method int

const (
	// BDF is the variable-order (1-5), variable-step backward differentiation
	// formula in Nordsieck form with Newton iteration, as in CVODE. It is the
	// default because reaction networks are usually stiff.
	BDF Method = iota
	// DOPRI5 is the explicit Dormand-Prince 5(4) pair with PI step control,
	// for non-stiff models.
	DOPRI5
	// Adams is the variable-order (1-12), variable-step Adams-Moulton
	// method in Nordsieck form with functional (fixed-point) iteration, as
	// CVODE's CV_ADAMS with SUNNonlinSol_FixedPoint: for non-stiff models
	// with smooth solutions at high accuracy, where its high orders take
	// few, cheap steps (no Jacobian, no linear solves). See adams.go.
	Adams
	// CashKarp is the explicit Cash-Karp 4(5) Runge-Kutta pair (Stan's
	// ckrk) with DOPRI5's step control, for rapidly varying, non-stiff or
	// mildly stiff solutions. See cashkarp.go.
	CashKarp
)

// String returns the method's name.
func (m Method) String() string {
	switch m {
	case BDF:
		return "BDF"
	case DOPRI5:
		return "DOPRI5"
	case Adams:
		return "Adams"
	case CashKarp:
		return "CashKarp"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Settings are the integrator options. A nil *Settings means all defaults;
// a zero field means that field's default.
type Settings struct {
	Method   Method
	RTol     float64   // relative tolerance, default 1e-6
	ATol     float64   // absolute tolerance, default 1e-8
	ATolVec  []float64 // per-state absolute tolerances (all > 0); overrides ATol when non-nil
	MaxSteps int       // accepted steps per Integrate call, default 100000
	H0       float64   // initial step; 0 = automatic (CVODE's estimate for BDF and Adams, Hairer's for DOPRI5 and CashKarp)
	HMax     float64   // maximum step; 0 = unbounded
	// Interpolate, if true, lets the integrator step over output times: the
	// grid holds only the integrator's own steps (plus the final time, where
	// it stops exactly), tr.Out is nil and x at an output time is obtained
	// with tr.InterpTo. Sensitivities written by IntegrateSens are then
	// interpolated with the method's own polynomial. The default (false)
	// lands on every output time, so each is a grid point.
	Interpolate bool
	// SkipGridF leaves f uncomputed at the BDF's grid points (Trajectory.F
	// holds NaN there, except at the start): the step itself never needs
	// f at the accepted state (the next step evaluates f at its
	// prediction) and neither does the Nordsieck dense output, so a
	// caller that reads only x, S and the dense output saves one f
	// evaluation per step (runtime/objective: 7% of FS on Rahman_MBS2016).
	// A non-finite f at an accepted state is then met, as in CVODE, at the
	// next step's prediction. Adams does as the BDF; DOPRI5 and CashKarp
	// ignore it (their dense output and next step use f there).
	SkipGridF bool
	// MemoryLimit is the most memory in bytes NewSolver may allocate (see
	// MemoryEstimate): 0 means DefaultMemoryLimit(), negative no limit.
	// Beyond it NewSolver allocates nothing and every integration returns
	// a *MemoryError instead of the program running out of memory.
	MemoryLimit int64
	// LinearSolver selects how the BDF's Newton systems I - gamma Jx (and
	// the sensitivity block solved with the same matrix) are factorised:
	// LinearAuto (the default) picks the sparse LU for large sparse
	// models, where the dense LU's n^3 factorisation and n^2 solves
	// dominate the whole integration, and the dense one otherwise (see
	// UsesSparse). DOPRI5 solves no linear systems.
	LinearSolver LinearSolver
}

// LinearSolver selects the factorisation of the BDF iteration matrix.
type LinearSolver int

const (
	// LinearAuto is the dense LU up to the measured crossover, the sparse
	// LU beyond it (AutoSparse).
	LinearAuto LinearSolver = iota
	// LinearDense is the dense LU with partial pivoting
	// (runtime/internal/dense).
	LinearDense
	// LinearSparse is the sparse LU of runtime/sparse with a fill-reducing
	// ordering computed once per solver.
	LinearSparse
)

// String returns the solver's name.
func (l LinearSolver) String() string {
	switch l {
	case LinearAuto:
		return "auto"
	case LinearDense:
		return "dense"
	case LinearSparse:
		return "sparse"
	}
	return fmt.Sprintf("LinearSolver(%d)", int(l))
}

// Default tolerances and limits.
const (
	DefaultRTol     = 1e-6
	DefaultATol     = 1e-8
	DefaultMaxSteps = 100000
)

// Stats counts the work of the last Integrate or IntegrateSens call.
type Stats struct {
	Steps       int // accepted steps
	Rejected    int // rejected step attempts (error test and convergence failures)
	ErrFails    int // error test failures (included in Rejected)
	FEvals      int // evaluations of f (including the one per grid point for Trajectory.F)
	JacEvals    int // evaluations of Jx for the iteration matrix
	LUs         int // factorisations of the iteration matrix
	NewtonIters int // state Newton iterations (linear solves; Adams: fixed-point iterations)
	NewtonFails int // state Newton convergence failures
	// Sensitivity counters (IntegrateSens only).
	SensJacEvals    int // evaluations of the pair (Jx, Jp) for the sensitivity right-hand side
	SensNewtonIters int // sensitivity corrector iterations (one multi-column solve each; Adams: fixed-point)
	SensNewtonFails int // sensitivity corrector convergence failures
}

// SensSettings are the options of IntegrateSens. A nil *SensSettings means
// ErrCon false and all parameters.
type SensSettings struct {
	// ErrCon includes the sensitivities in the local error test and in the
	// step-size and order selection (CVODES errconS). Without it the step
	// sequence is the one of the state alone.
	ErrCon bool
	// Params is the subset of parameter indices whose sensitivities are
	// computed, in output column order; nil means all parameters.
	Params []int
	// PBar are the scales of the sensitivity columns, CVODES's pbar (one
	// per column, in Params order; the sign is ignored): the error
	// weights of S_ij are 1/(rtol |S_ij| + atol_i / |PBar_j|), the state's
	// weights of p_j S_ij when PBar_j = p_j (CVodeSensEEtolerances). nil
	// means 1 for every column, CVODES's default: S in the units of
	// dx/dp, which holds a column of a small parameter (S large) to many
	// more digits than its effect on x has, and one of a large parameter
	// to fewer (see runtime/sens's Options.SensScale). The weights are
	// those of the error test (ErrCon), the corrector's convergence test
	// and the initial step.
	PBar []float64
}

// ErrKind classifies a StepError.
type ErrKind int

const (
	// ErrStepUnderflow: the step size fell below the resolution of t.
	ErrStepUnderflow ErrKind = iota + 1
	// ErrTooManySteps: MaxSteps accepted steps did not reach the final time.
	ErrTooManySteps
	// ErrNonFinite: f, Jx, Jp or the state produced Inf or NaN. With BDF a
	// non-finite value at a trial step first only cuts the step (as a
	// Newton failure does in CVODE); it is reported when the step then
	// underflows or the corrector fails repeatedly, with T and X the last
	// accepted point and T + H the failed trial (see the package doc).
	ErrNonFinite
	// ErrSingular: the iteration matrix stayed singular after step
	// reductions (the corrector failed maxncf times at one step, the last
	// time because the matrix could not be factorised).
	ErrSingular
	// ErrConvergence: repeated Newton or error test failures at one step.
	ErrConvergence
)

func (k ErrKind) String() string {
	switch k {
	case ErrStepUnderflow:
		return "step size underflow"
	case ErrTooManySteps:
		return "too many steps"
	case ErrNonFinite:
		return "non-finite values"
	case ErrSingular:
		return "singular iteration matrix"
	case ErrConvergence:
		return "repeated failures"
	}
	return "unknown"
}

// StepError is the failure of an integration at time T with step H. X is a
// copy of the last accepted state; Index is the offending component for
// ErrNonFinite (of f, the row of a non-finite Jx or Jp entry, or of the
// state; -1 if unknown) and, for ErrSingular with the sparse LU, the state
// whose column of the iteration matrix had no usable pivot (-1 with the
// dense LU, which does not say). The trajectory holds the steps accepted
// before the failure.
type StepError struct {
	Kind   ErrKind
	T, H   float64
	X      []float64
	Index  int
	Reason string
}

func (e *StepError) Error() string {
	s := fmt.Sprintf("ode: %s at t=%g (h=%g)", e.Kind, e.T, e.H)
	if e.Kind == ErrNonFinite && e.Index >= 0 {
		s += fmt.Sprintf(", component %d", e.Index)
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// BDF constants, named and valued as in CVODE (cvode.c).
const (
	qmax     = 5
	lmax     = qmaxAdams + 1
	etamx1   = 10000.0 // bound on the step growth after the first step
	etamx2   = 10.0
	etamx3   = 10.0
	smallNst = 10
	etamxf   = 0.2
	etamin   = 0.1
	etacf    = 0.25
	thresh   = 1.5
	addon    = 1e-6
	bias1    = 6.0
	bias2    = 6.0
	bias3    = 10.0
	onepsm   = 1.000001
	mxnef1   = 3
	smallNef = 2
	longWait = 10
	maxnef   = 7
	maxncf   = 10
	maxcor   = 3
	crdown   = 0.3
	rdiv     = 2.0
	dgmax    = 0.3 // refactor the iteration matrix when gamma changes by more than this
	msbp     = 20  // ... or after this many steps
	msbj     = 51  // re-evaluate Jx after this many steps
	dgmaxJ   = 0.2
	nlscoef  = 0.1
	uround   = 0x1p-52
)

// Solver integrates one model. It owns all workspaces; a Solver is not safe
// for concurrent use (use one per goroutine; the Model may be shared).
type Solver struct {
	m      model.Model
	set    Settings
	nx, np int
	jxPat  *model.Pattern
	jpPat  *model.Pattern
	atol   []float64 // per-state absolute tolerance
	rtol   float64
	stats  Stats
	// err is the reason the settings cannot be used (see Validate); the
	// workspaces are then not allocated and every integration returns it.
	err error
	// IntegrateState's output time, and its Trajectory for DOPRI5.
	endT  [1]float64
	endTr *Trajectory

	// The Jacobians and the sensitivity configuration of the current call.
	jacobians
	sensConfig

	// Vectors of length nx*(1+np) (state first, then row-major S), shared
	// by both methods: the solution history (BDF: the Nordsieck array;
	// DOPRI5: x and its derivative), weights and work vectors.
	zn                       [lmax][]float64
	znv                      [lmax][]float64 // views of zn for dense.Predict
	ewt, acor, y, tmp, ftemp []float64
	fsave                    []float64
	colAcc                   []float64 // per-column norm accumulators (len np)
	// atolS are the absolute tolerance factors of S's columns,
	// 1/|PBar_j| (len np, the first nsp used): the weight of S_ij is
	// 1/(rtol |S_ij| + atol_i atolS_j).
	atolS            []float64
	colD, colY, colP []float64 // more of them for sensNewtonExact
	// The columns of the right-hand side whose solve sensNewtonExact
	// checks (checkColsStable): chkB holds them (nx each), chkCol their
	// indices, chkNext the first column of the next check.
	chkB    []float64
	chkCol  [sensCheckCols]int
	chkNext int
	// refineAlways sends every exact corrector to its refinement, as if
	// the backward-error check had failed (tests).
	refineAlways bool
	// freshS: the BDF's sensitivity corrector rebuilds M from Jx at the
	// converged state and runs sensNewtonExact, from freshCols columns
	// (sensFreshCols; tests change it).
	freshS    bool
	freshCols int
	allParams []int

	// stop, if set (SetStop), is asked after every accepted step whether
	// the integration ends there.
	stop func(*Trajectory) bool

	// h is the current step of either method; the rest of each method's
	// state is its own (bdf.go, dopri.go).
	h float64
	bdfState
	dopriState
}

// jacobians are the sparse Jacobian values of the integration and the
// Newton matrix formed from them.
type jacobians struct {
	// jv is the Jx used for the iteration matrix, jvS and jpv are Jx and
	// Jp at the current point for sensitivities.
	jv, jvS, jpv []float64
	jvC          []float64 // jvS scaled for the exact corrector's first right-hand side
	mat          []float64 // dense path: LU factors of I - gamma*Jx
	piv          []int
	matIdx       []int // dense path with nx <= matIdxMax: the index in mat of each Jx entry
	// matT is mat's factors transposed, for dense.SolveT, when nx <=
	// dense.TransposeMax: the state's Newton solves, several per
	// factorisation, walk contiguous columns.
	matT []float64
	// The sparse path (useSparse): shift is the pattern of M = I - gamma
	// Jx with its whole diagonal, mcsr holds M's values in it, and slu
	// its factorisation, whose symbolic analysis (the fill-reducing
	// ordering) NewSolver does once, since the pattern never changes.
	useSparse bool
	shift     *sparse.Shifted
	mcsr      sparse.CSR
	slu       *sparse.LU
	// jpSel is the pattern of Jp's columns in params (column c is
	// parameter params[c]); jpFrom maps its entries to Jp's and jpSelV
	// holds their values.
	jpSel  model.Pattern
	jpFrom []int
	jpSelV []float64
	// jpFn evaluates Jp into jpv: the model's Jp (jpAll, bound once) when
	// every column forces a sensitivity, else, for a model implementing
	// model.JpColumns, the columns jpCols alone (setJpColumns).
	jpFn, jpAll, jpSub model.JpFunc
	jpCols             []int // the columns of jpSub
}

// sensConfig is the sensitivity configuration of the current call.
type sensConfig struct {
	sens   bool
	errcon bool
	nsp    int
	params []int
	nz     int // active vector length: nx, or nx*(1+nsp) with sensitivities
}

// bdfState is the state of the BDF method between steps (names as in
// CVODE): order and step-size control, the method's coefficients, the
// Newton iteration's convergence and the cause of the last failure.
type bdfState struct {
	q, qprime, qwait, L             int
	hprime, eta, hscale, tn, etamax float64
	etaq, etaqm1, etaqp1            float64
	tau                             [lmax + 1]float64
	tq                              [6]float64
	l                               [lmax]float64
	rl1, gamma, gammap, gamrat      float64
	crate, crateS, acnrm, acnrmS    float64
	savedTq5, hmaxInv, tstop        float64
	nst, nstlp, nstlj, nscon        int
	jcur                            bool
	// adams: the Nordsieck method is Adams-Moulton (adams.go), not the
	// BDF; qmx is the method's highest order (qmax or qmaxAdams).
	adams bool
	qmx   int
	// The cause of the most recent failed trial step: its kind, and for
	// ErrNonFinite the component (lastIndex, -1 if none) and what was
	// non-finite (lastWhat, for the error's Reason).
	lastFail  ErrKind
	lastIndex int
	lastWhat  string
}

// dopriState holds the stages of the Dormand-Prince method.
type dopriState struct {
	k [7][]float64
	// ckPrevT is the time of the point before the last accepted
	// Cash-Karp step (NaN before the second step), for its dense output.
	ckPrevT float64
}

// NewSolver returns a solver for m with settings s (nil = defaults). It
// validates the model's patterns and allocates every workspace, so that
// Integrate and IntegrateSens allocate nothing (apart from growing the
// Trajectory on first use).
func NewSolver(m model.Model, s *Settings) *Solver {
	if m == nil {
		panic("ode: nil model")
	}
	sv := &Solver{m: m}
	if s != nil {
		sv.set = *s
	}
	st := &sv.set
	if st.RTol == 0 {
		st.RTol = DefaultRTol
	}
	if st.ATol == 0 {
		st.ATol = DefaultATol
	}
	if st.MaxSteps == 0 {
		st.MaxSteps = DefaultMaxSteps
	}
	nx, np := model.NumStates(m), model.NumParams(m)
	sv.nx, sv.np = nx, np
	if model.HasDelays(m) {
		// Its F needs the history (model.Delays): integrating it as an
		// ODE would simulate another model.
		sv.err = fmt.Errorf("%w: model %q uses csymbol delay: runtime/ode integrates ordinary differential equations only; runtime/dde solves its states (dde.Solve) and forward sensitivities (dde.SolveSens)", ErrDelays, m.Name())
		return sv
	}
	if a, ok := m.(model.Algebraic); ok && a.NumAlgebraic() > 0 {
		// Its algebraic rows are residuals, not rates: integrating them
		// would simulate another model. runtime/dae reduces it to an ODE.
		sv.err = fmt.Errorf("ode: model %q has %d algebraic variables (a DAE): solve the model runtime/dae.New makes of it", m.Name(), a.NumAlgebraic())
		return sv
	}
	if err := st.Validate(); err != nil {
		sv.err = err
		return sv
	}
	if st.ATolVec != nil && len(st.ATolVec) != nx {
		sv.err = invalid("%d absolute tolerances given for %d states", len(st.ATolVec), nx)
		return sv
	}
	need, sparseLU := memoryEstimateFor(m, st)
	if err := checkMemory(need, st.MemoryLimit, nx, np, sparseLU); err != nil {
		sv.err = err
		return sv
	}
	sv.jxPat, sv.jpPat = m.JxPattern(), m.JpPattern()
	if err := sv.jxPat.Validate(); err != nil {
		panic("ode: invalid Jx pattern: " + err.Error())
	}
	if err := sv.jpPat.Validate(); err != nil {
		panic("ode: invalid Jp pattern: " + err.Error())
	}
	if sv.jxPat.Rows != nx || sv.jxPat.Cols != nx || sv.jpPat.Rows != nx || sv.jpPat.Cols != np {
		panic("ode: Jacobian pattern dimensions do not match the model")
	}
	sv.rtol = st.RTol
	sv.atol = make([]float64, nx)
	if st.ATolVec != nil {
		copy(sv.atol, st.ATolVec)
	} else {
		for i := range sv.atol {
			sv.atol[i] = st.ATol
		}
	}
	if st.HMax > 0 {
		sv.hmaxInv = 1 / st.HMax
	}
	nmax := nx * (1 + np)
	sv.jv = make([]float64, sv.jxPat.NNZ())
	sv.jvS = make([]float64, sv.jxPat.NNZ())
	sv.jvC = make([]float64, sv.jxPat.NNZ())
	sv.jpv = make([]float64, sv.jpPat.NNZ())
	sv.jpSel.ColIdx = make([]int, 0, sv.jpPat.NNZ())
	sv.jpFrom = make([]int, 0, sv.jpPat.NNZ())
	sv.jpSelV = make([]float64, sv.jpPat.NNZ())
	sv.jpAll = m.Jp
	sv.jpFn = sv.jpAll
	sv.useSparse = st.LinearSolver == LinearSparse ||
		(st.LinearSolver == LinearAuto && AutoSparse(nx, sv.jxPat.NNZ()))
	if sv.useSparse && st.Method == BDF {
		sv.shift = sparse.NewShifted(sv.jxPat)
		sv.mcsr = sparse.CSR{Pat: sv.shift.Pat, Val: make([]float64, sv.shift.Pat.NNZ())}
		sv.slu = sparse.NewLU(sparse.Analyze(sv.shift.Pat, sparse.OrderAMD))
		// The sensitivity block's solve workspace, so that the first
		// IntegrateSens does not allocate it.
		sv.slu.Reserve(np)
	} else {
		sv.useSparse = false
		sv.mat = make([]float64, nx*nx)
		sv.piv = make([]int, nx)
		if kernelMin <= nx && nx <= dense.TransposeMax {
			sv.matT = make([]float64, nx*nx)
		}
		if nx <= matIdxMax {
			sv.matIdx = make([]int, 0, sv.jxPat.NNZ())
			for i := 0; i < nx; i++ {
				for _, c := range sv.jxPat.ColIdx[sv.jxPat.RowPtr[i]:sv.jxPat.RowPtr[i+1]] {
					sv.matIdx = append(sv.matIdx, i*nx+c)
				}
			}
		}
	}
	sv.adams, sv.qmx = st.Method == Adams, qmax
	if sv.adams {
		sv.qmx = qmaxAdams
	}
	// The BDF's history needs qmax+1 columns (its order increase keeps the
	// last correction in zn[qmax]), the Adams method's qmaxAdams+1.
	for j := range sv.zn[:sv.qmx+1] {
		sv.zn[j] = make([]float64, nmax)
	}
	sv.ewt = make([]float64, nmax)
	sv.acor = make([]float64, nmax)
	sv.y = make([]float64, nmax)
	sv.tmp = make([]float64, nmax)
	sv.ftemp = make([]float64, nmax)
	sv.fsave = make([]float64, nmax)
	sv.colAcc = make([]float64, np)
	sv.atolS = make([]float64, np)
	sv.colD, sv.colY, sv.colP = make([]float64, np), make([]float64, np), make([]float64, np)
	sv.chkB = make([]float64, nx*sensCheckCols)
	sv.freshCols = sensFreshCols
	if !sv.useSparse {
		// Only the sparse path rebuilds M: on the dense CaMKII (21
		// states, 59 columns) the exact corrector made FS 16% slower and
		// its S error 1.8 times larger with ErrCon (5.6e-4 against 3.1e-4,
		// make bench) and 10 times without (0.60 against 0.060): with
		// few states the stale M's rounding is no problem, and CVODES's
		// test there is the better one.
		sv.freshCols = math.MaxInt
	}
	for j := range sv.k {
		sv.k[j] = make([]float64, nmax)
	}
	sv.allParams = make([]int, np)
	for j := range sv.allParams {
		sv.allParams[j] = j
	}
	sv.params = sv.allParams
	return sv
}

// UsesSparse reports whether the solver factorises its Newton systems with
// the sparse LU (the resolved LinearSolver choice; false for DOPRI5).
func (s *Solver) UsesSparse() bool { return s.useSparse }

// Stats returns the statistics of the last Integrate or IntegrateSens call.
func (s *Solver) Stats() Stats { return s.stats }

// Model returns the solver's model.
func (s *Solver) Model() model.Model { return s.m }

// Settings returns the solver's settings with defaults filled in.
func (s *Solver) Settings() Settings { return s.set }

// SetStop sets a function asked after every accepted step (with the
// trajectory so far, the step just taken its last) whether the
// integration ends there; nil removes it. An integration it ends returns
// nil with fewer grid points and outputs than asked: tr.Out holds the
// outputs reached. runtime/events stops at the step in which a trigger
// changes, so that no step is spent past an event it will restart at.
// The function must not keep tr or call back into the solver other than
// through SensAt.
func (s *Solver) SetStop(stop func(tr *Trajectory) bool) { s.stop = stop }

// SensAt writes S(t) for t in the last step of the last IntegrateSens
// into dst (nx x nsp, the layout of its output) with the BDF's or the
// Adams method's Nordsieck polynomial, as CVODES's CVodeGetSens interpolates S at a
// root. It reports false, writing nothing, if that call was not a BDF or
// Adams IntegrateSens with at least one step or t is outside the step.
func (s *Solver) SensAt(dst []float64, t float64) bool {
	if !s.sens || (s.set.Method != BDF && s.set.Method != Adams) || s.stats.Steps == 0 || s.nx == 0 ||
		len(dst) != s.nx*s.nsp || !(t <= s.tn && t >= s.tn-math.Abs(s.h)*(1+1e-12)) {
		return false
	}
	s.dkySens(dst, t)
	return true
}

// Start is the initial point of an integration: x = X0 (and, with
// sensitivities, S = S0, row-major nx x nsp; nil means zeros) at T0.
type Start struct {
	T0     float64
	X0, S0 []float64
}

// IntegrateFrom is Integrate from st (st.S0 is not used).
func (s *Solver) IntegrateFrom(tr *Trajectory, p []float64, st *Start, tout []float64) error {
	return s.Integrate(tr, p, st.X0, st.T0, tout)
}

// IntegrateSensFrom is IntegrateSens from st, with S at the output times
// written to dstS and the sensitivity settings ss (nil: all parameters,
// S outside the error test).
func (s *Solver) IntegrateSensFrom(tr *Trajectory, dstS []float64, ss *SensSettings, p []float64, st *Start, tout []float64) error {
	return s.IntegrateSens(tr, dstS, p, st.X0, st.S0, st.T0, tout, ss)
}

// Integrate integrates dx/dt = f(t, x, p) from (t0, x0) through every time
// in tout (ascending, each >= t0; tout may start at t0) and records every
// accepted step (t, x, f(t, x)) into tr, which is Reset first, so that
// tr.T[0] = t0. Unless Settings.Interpolate is set, each output time is a
// grid point and tr.Out[i] is the index of tout[i] in tr.T. The integration
// never steps past the last output time.
//
// After the first call with the same sizes it allocates nothing. A failure
// returns a *StepError; tr then holds the steps accepted so far.
// IntegrateFrom takes the start as one value.
func (s *Solver) Integrate(tr *Trajectory, p, x0 []float64, t0 float64, tout []float64) error {
	if err := s.checkArgs(tr, p, x0, t0, tout); err != nil {
		return err
	}
	s.sens, s.errcon, s.nsp, s.params = false, false, 0, s.allParams[:0]
	s.nz = s.nx
	return s.run(tr, nil, p, x0, nil, t0, tout)
}

// IntegrateState integrates the state alone from x = x(t0) to t1 as
// Integrate does and overwrites x with x(t1), recording no Trajectory:
// for callers that need the end point only (runtime/objective's
// steady-state search, where Integrate's Trajectory, appended at every
// step, was 3% of the time on Blasi_CellSystems2016). Stats are those of
// the call. A failure leaves x unchanged and returns Integrate's errors;
// with DOPRI5 it integrates into a Trajectory of the Solver's own.
func (s *Solver) IntegrateState(x, p []float64, t0, t1 float64) error {
	s.endT[0] = t1
	if s.set.Method == DOPRI5 || s.set.Method == CashKarp {
		if s.endTr == nil {
			s.endTr = new(Trajectory)
		}
		if err := s.Integrate(s.endTr, p, x, t0, s.endT[:]); err != nil {
			return err
		}
		copy(x, s.endTr.XAt(s.endTr.Len()-1))
		return nil
	}
	if err := s.checkState(p, x, t0, s.endT[:]); err != nil {
		return err
	}
	s.sens, s.errcon, s.nsp, s.params = false, false, 0, s.allParams[:0]
	s.nz = s.nx
	if err := s.run(nil, nil, p, x, nil, t0, s.endT[:]); err != nil {
		return err
	}
	copy(x, s.zn[0][:s.nx])
	return nil
}

// IntegrateSens integrates the state as Integrate does and, alongside, the
// forward sensitivities S = dx/dp[:, Params]:
//
//	S' = Jx(t, x, p) S + Jp(t, x, p)[:, Params],  S(t0) = s0,
//
// with s0 row-major nx x nsp (nsp = len(Params), or np when Params is nil;
// nil s0 means zeros). S at output time i is written to
// dstS[i*nx*nsp : (i+1)*nx*nsp] (row-major nx x nsp).
//
// With BDF the sensitivities use CVODES's staggered corrector: after the
// state corrector has converged at a step, all nsp columns are corrected
// with the same factorisation of I - gamma*Jx (a multi-column solve), with
// the right-hand side evaluated with Jx and Jp at the converged state. The
// (nsp+1)nx system is never formed. With DOPRI5 the sensitivities are
// integrated explicitly as extra components. IntegrateSensFrom takes the
// start as one value.
func (s *Solver) IntegrateSens(tr *Trajectory, dstS []float64, p, x0, s0 []float64, t0 float64, tout []float64, ss *SensSettings) error {
	if err := s.checkArgs(tr, p, x0, t0, tout); err != nil {
		return err
	}
	s.sens = true
	s.errcon = false
	s.params = s.allParams
	if ss != nil {
		s.errcon = ss.ErrCon
		if ss.Params != nil {
			for k, j := range ss.Params {
				if j < 0 || j >= s.np {
					return invalid("sensitivity parameter index %d is out of range (the model has %d parameters)", j, s.np)
				}
				// Each Jp entry feeds one column: a repeated index would
				// leave the earlier column without its forcing. O(nsp^2)
				// without allocating, on a short list.
				for _, i := range ss.Params[:k] {
					if i == j {
						return invalid("sensitivity parameter index %d is repeated in Params", j)
					}
				}
			}
			s.params = ss.Params
		}
	}
	s.nsp = len(s.params)
	if err := s.setPBar(ss); err != nil {
		return err
	}
	s.nz = s.nx * (1 + s.nsp)
	s.freshS = s.nsp >= s.freshCols
	blk := s.nx * s.nsp
	if len(dstS) != len(tout)*blk {
		return invalid("the sensitivity output has length %d, want len(tout)*nx*nsp = %d", len(dstS), len(tout)*blk)
	}
	if s0 != nil && len(s0) != blk {
		return invalid("the initial sensitivities have length %d, want nx*nsp = %d", len(s0), blk)
	}
	// The columns of Jp that force the sensitivities.
	s.jpFrom = sparse.SelectCols(&s.jpSel, s.jpFrom, s.jpPat, s.params)
	s.setJpColumns()
	return s.run(tr, dstS, p, x0, s0, t0, tout)
}

// setPBar sets atolS from ss.PBar (1 without it), which must have one
// finite non-zero entry per sensitivity column.
func (s *Solver) setPBar(ss *SensSettings) error {
	a := s.atolS[:s.nsp]
	if ss == nil || ss.PBar == nil {
		for c := range a {
			a[c] = 1
		}
		return nil
	}
	if len(ss.PBar) != s.nsp {
		return invalid("%d sensitivity scales PBar given for %d sensitivity columns", len(ss.PBar), s.nsp)
	}
	for c, v := range ss.PBar {
		if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) || math.IsInf(1/v, 0) {
			return invalid("the sensitivity scale PBar[%d] = %g is not a finite non-zero number with a finite reciprocal", c, v)
		}
		a[c] = 1 / math.Abs(v)
	}
	return nil
}

// setJpColumns chooses jpFn for s.params: with fewer columns than the
// model has parameters and a model that implements model.JpColumns, Jp of
// those columns alone (a few of a model's many parameters: the others'
// entries would be computed at every sensitivity right-hand side and
// dropped). The function is made once per distinct Params (interp
// compiles one), and jpv is cleared so that the entries it does not write
// are zeros, not a previous solve's values, for the non-finite check.
func (s *Solver) setJpColumns() {
	jc, ok := s.m.(model.JpColumns)
	if !ok || len(s.params) == s.np {
		s.jpFn = s.jpAll
		return
	}
	if s.jpSub == nil || !slices.Equal(s.jpCols, s.params) {
		s.jpCols = append(make([]int, 0, len(s.params)), s.params...)
		s.jpSub = jc.JpColumns(s.jpCols)
	}
	s.jpFn = s.jpSub
	clear(s.jpv)
}

func (s *Solver) checkArgs(tr *Trajectory, p, x0 []float64, t0 float64, tout []float64) error {
	if s.err != nil {
		return s.err
	}
	if tr == nil {
		panic("ode: nil Trajectory")
	}
	return s.checkState(p, x0, t0, tout)
}

// checkState is checkArgs without the Trajectory (IntegrateState).
func (s *Solver) checkState(p, x0 []float64, t0 float64, tout []float64) error {
	if s.err != nil {
		return s.err
	}
	if len(p) != s.np {
		return invalid("%d parameter values given for a model of %d parameters", len(p), s.np)
	}
	if len(x0) != s.nx {
		return invalid("an initial state of %d values given for a model of %d states", len(x0), s.nx)
	}
	if len(tout) == 0 {
		return invalid("no output times")
	}
	if math.IsInf(t0, 0) || math.IsNaN(t0) {
		return invalid("the start time %g is not finite", t0)
	}
	prev := t0
	for i, t := range tout {
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return invalid("output time %d (%g) is not finite", i, t)
		}
		if !(t >= prev) {
			if i == 0 {
				return invalid("the first output time %g is before the start time %g", t, t0)
			}
			return invalid("output time %d (%g) is before the previous one (%g): output times must be ascending", i, t, prev)
		}
		prev = t
	}
	return nil
}

// run is the common driver: initial checks, the first grid point, then the
// method's loop.
func (s *Solver) run(tr *Trajectory, dstS, p, x0, s0 []float64, t0 float64, tout []float64) error {
	s.stats = Stats{}
	nx := s.nx
	if tr != nil {
		tr.Reset(nx)
		if s.set.Interpolate {
			tr.Out = nil
		}
	}
	z := s.zn[0][:s.nz]
	copy(z, x0)
	if s.sens {
		if s0 != nil {
			copy(z[nx:], s0)
		} else {
			clear(z[nx:])
		}
	}
	if i := firstNonFinite(z); i >= 0 {
		return s.fail(ErrNonFinite, t0, 0, i, "initial value")
	}
	f0 := s.zn[1][:s.nz]
	s.m.F(f0[:nx], t0, z[:nx], p)
	s.stats.FEvals++
	if i := firstNonFinite(f0[:nx]); i >= 0 {
		return s.fail(ErrNonFinite, t0, 0, i, "f at the initial value")
	}
	if s.sens {
		if err := s.sensRHS(f0[nx:], t0, z[:nx], z[nx:], p); err != nil {
			return err
		}
	}
	if tr != nil {
		tr.Append(t0, z[:nx], f0[:nx])
	}
	iout := 0
	for iout < len(tout) && tout[iout] == t0 {
		s.output(tr, dstS, iout, z)
		iout++
	}
	if iout == len(tout) {
		return nil
	}
	if nx == 0 {
		// Nothing to integrate (an SBML model whose quantities are all
		// given by rules): the grid is the output times.
		for ; iout < len(tout); iout++ {
			if tr != nil {
				tr.Append(tout[iout], z, f0)
			}
			s.output(tr, dstS, iout, z)
		}
		return nil
	}
	switch s.set.Method {
	case DOPRI5:
		return s.dopri(tr, dstS, p, t0, tout, iout)
	case CashKarp:
		return s.cashKarp(tr, dstS, p, t0, tout, iout)
	}
	return s.bdf(tr, dstS, p, t0, tout, iout)
}

// output records output iout at the current grid point (the last one of
// tr), with the full vector z = [x, S].
func (s *Solver) output(tr *Trajectory, dstS []float64, iout int, z []float64) {
	if !s.set.Interpolate && tr != nil {
		tr.Out = append(tr.Out, tr.Len()-1)
	}
	if s.sens {
		blk := s.nx * s.nsp
		copy(dstS[iout*blk:(iout+1)*blk], z[s.nx:s.nz])
	}
}

// sensRHS writes Jx S + Jp[:, params] at (t, x) into dst (row-major nx x nsp)
// and leaves Jx values in s.jvS.
func (s *Solver) sensRHS(dst []float64, t float64, x, S, p []float64) error {
	s.m.Jx(s.jvS, t, x, p)
	s.jpFn(s.jpv, t, x, p)
	s.stats.SensJacEvals++
	if k := firstNonFinite(s.jvS); k >= 0 {
		return s.fail(ErrNonFinite, t, s.h, patternRow(s.jxPat, k), "Jx")
	}
	if k := firstNonFinite(s.jpv); k >= 0 {
		return s.fail(ErrNonFinite, t, s.h, patternRow(s.jpPat, k), "Jp")
	}
	s.sensApply(dst, S)
	return nil
}

// sensApply writes Jx S + Jp with the stored values jvS, jpv.
func (s *Solver) sensApply(dst, S []float64) {
	sparse.CSR{Pat: s.jxPat, Val: s.jvS}.MulBlockTo(dst, S, s.nsp)
	s.addJp(dst, 1)
}

// addJp adds alpha Jp[:, params] (the stored jpv) to the row-major
// nx x nsp dst.
func (s *Solver) addJp(dst []float64, alpha float64) {
	jp := sparse.CSR{Pat: &s.jpSel, Val: s.jpSelV[:len(s.jpFrom)]}
	sparse.Gather(jp.Val, s.jpv, s.jpFrom)
	jp.AddTo(dst, alpha)
}

func (s *Solver) fail(kind ErrKind, t, h float64, index int, reason string) error {
	x := make([]float64, s.nx)
	copy(x, s.zn[0][:s.nx])
	return &StepError{Kind: kind, T: t, H: h, X: x, Index: index, Reason: reason}
}

// patternRow returns the row of value k of pat: for a Jacobian, the
// component of f whose derivative it is. Error paths only.
func patternRow(pat *model.Pattern, k int) int { return sparse.RowOf(pat, k) }

func firstNonFinite(v []float64) int {
	for i, x := range v {
		if x-x != 0 {
			return i
		}
	}
	return -1
}

// setEwt sets the error weights from z = [x, S]: 1/(rtol|x_i| + atol_i),
// and for S_ij 1/(rtol|S_ij| + atol_i/|pbar_j|) (SensSettings.PBar). The weights of S are
// skipped when nothing of the step reads them: with the exact sensitivity
// corrector (freshS) and S outside the error test, only its rare
// refinement does (sensRefine), which sets them itself. On
// Lang_PLOSComputBiol2024 (317 columns) they were 9% of FS's CPU time.
func (s *Solver) setEwt(z []float64) {
	nx := s.nx
	if nx >= kernelMin {
		dense.ErrorWeights(s.ewt[:nx], z, s.atol, s.rtol)
	} else {
		for i := 0; i < nx; i++ {
			s.ewt[i] = 1 / (s.rtol*math.Abs(z[i]) + s.atol[i])
		}
	}
	if s.sens && (s.errcon || !s.freshS) {
		s.setEwtS(z[nx:s.nz])
	}
}

// setEwtS sets the error weights of S (row-major nx x nsp) from zS.
func (s *Solver) setEwtS(zS []float64) {
	nx, m := s.nx, s.nsp
	as := s.atolS[:m]
	for i := 0; i < nx; i++ {
		a := s.atol[i]
		e := s.ewt[nx+i*m : nx+(i+1)*m]
		e = e[:len(as)]
		zz := zS[i*m : (i+1)*m]
		zz = zz[:len(as)]
		for c, f := range as {
			e[c] = 1 / (s.rtol*math.Abs(zz[c]) + a*f)
		}
	}
}

// wrms is the weighted root-mean-square norm of v with weights w.
func wrms(v, w []float64) float64 {
	w = w[:len(v)]
	var sum float64
	for i, x := range v {
		t := x * w[i]
		sum += t * t
	}
	return math.Sqrt(sum / float64(len(v)))
}

// sensNorm is CVODES's sensitivity norm: the largest WRMS norm over the
// columns of the row-major nx x nsp block v.
func (s *Solver) sensNorm(v, w []float64) float64 {
	m := s.nsp
	acc := s.colAcc[:m]
	clear(acc)
	for i := 0; i < s.nx; i++ {
		vi := v[i*m : (i+1)*m]
		wi := w[i*m : (i+1)*m]
		wi = wi[:len(vi)]
		for c, x := range vi {
			t := x * wi[c]
			acc[c] += t * t
		}
	}
	var mx float64
	for _, a := range acc {
		if a > mx {
			mx = a
		}
	}
	return math.Sqrt(mx / float64(s.nx))
}

// errNorm is the norm used in error tests and step selection: the state
// norm, maximised with the sensitivity norm when ErrCon is set.
func (s *Solver) errNorm(v []float64) float64 {
	n := wrms(v[:s.nx], s.ewt[:s.nx])
	if s.errcon {
		if ns := s.sensNorm(v[s.nx:s.nz], s.ewt[s.nx:s.nz]); ns > n {
			n = ns
		}
	}
	return n
}

// kernelMin is the number of states from which the BDF's state loops
// (error weights, Newton residual and update, Nordsieck correction) and
// its Newton solves go through runtime/internal/dense's AVX kernels, which
// round as the plain loops: below it the calls cost more than they save
// (Bertozzi_PNAS2020, 3 states: FS 5% slower through the kernels).
const kernelMin = 8

// matIdxMax is the most states for which the dense path keeps the
// positions of Jx's entries in the iteration matrix (at most 32 KiB,
// which MemoryEstimate leaves out); larger models scatter row by row.
const matIdxMax = 64

// autoSparseMinStates is the number of states from which LinearAuto uses
// the sparse LU (when Jx is sparse enough); see AutoSparse.
const autoSparseMinStates = 30

// AutoSparse reports whether LinearAuto picks the sparse LU for nx states
// and nnz structural non-zeros of Jx: from 30 states, if Jx fills at most
// 30% of the matrix.
//
// The size is measured on whole BDF solves of scalenet chains (about 3.5
// non-zeros per row; t in [0, 10], default tolerances), by the user CPU
// of the test binary running 1000 state solves or 200 with 20
// sensitivities, dense and sparse alternated, mean of 3 (seconds, dense
// vs sparse):
//
//	n    states         FS, 20 params
//	21   0.377  0.383   0.370  0.377
//	30   0.503  0.483   0.607  0.563
//	45   0.763  0.750   0.903  0.863
//	60   1.107  0.950   1.297  1.130
//
// and by ns/op beyond (BenchmarkLinearCrossover): at n = 150, 300, 501
// the sparse path takes 0.25-0.4 of the dense time for the states and
// 0.4-0.5 with sensitivities (grids alike). Below 30 states the two tie
// within the noise; from 30 to 45 the sparse LU saves 2-7%; from 60 on
// 13% and more, growing with n. The saving grows with the sensitivity
// columns solved with the same factors: FS on PEtab benchmark models
// (runtime/objective, CPU time per evaluation, dense vs sparse) took 40.7
// vs 33.6 ms on Laske_PLOSComputBiol2019 (34 states, Jx 14% full, 13
// columns), 333 vs 323 ms on Alkan_SciSignal2018 (36 states, 14%) and
// 79.7 vs 55.1 ms on SalazarCavazos_MBoC2020 (75 states, Jx 27% full, 6
// columns), so the crossover is 30 states (it was 40, which kept models
// of 30 to 40 states on the dense LU at a cost of a few percent for the
// states alone) and the density bound 30% (it was 25%, not measured).
// Every small model (CaMKII's 21 states, the SBML Test Suite's) stays on
// the dense LU, its numbers unchanged; so does a Jx that fills more of the
// matrix, whose sparse factors fill completely and where the dense LU's
// contiguous loops are faster (CaMKII's Jx fills 59%).
func AutoSparse(nx, nnz int) bool {
	return nx >= autoSparseMinStates && 10*nnz <= 3*nx*nx
}

// ParseMethod parses an integrator name as Stan's ODE solvers name them
// (case-insensitive): bdf, adams, rk45 (DOPRI5, also dopri5) and ckrk
// (CashKarp, also cashkarp). auto is the default method, BDF: reaction
// networks are usually stiff, and the explicit methods and Adams are
// choices for models known not to be.
func ParseMethod(name string) (Method, error) {
	switch strings.ToLower(name) {
	case "bdf", "auto":
		return BDF, nil
	case "adams":
		return Adams, nil
	case "rk45", "dopri5":
		return DOPRI5, nil
	case "ckrk", "cashkarp":
		return CashKarp, nil
	}
	return 0, invalid("unknown solver %q (want bdf, adams, dopri5 (rk45), ckrk or auto)", name)
}
