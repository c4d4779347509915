package sens

import (
	"fmt"
	"math"
	"strings"

	"github.com/pbgen/pbgen/runtime/ode"
)

// Method selects how S = dx/dp is computed.
type Method int

const (
	// PBSR, the default, is the Peano-Baker series with refinement of the
	// paper (Algorithm 2) in Paper mode. By default it takes no series
	// step: end-point exponential W-steps on a dyadic grid chosen by a
	// local error test of S (see the package documentation).
	PBSR Method = iota
	// PBS is the truncated Peano-Baker series step on every integrator
	// step (Algorithm 1); it gives up on stiff networks.
	PBS
	// Exp is the exponential step (Algorithm 3): by default the end-point
	// step of PBSR on steps of about the integrator's size, without an
	// error test of S; in Paper mode the frozen-Jacobian step on every
	// integrator step.
	Exp
	// FS is forward sensitivity integrated together with the state by
	// runtime/ode: the accuracy reference.
	FS
	// Auto is FS or PBSR, chosen per model, span and tolerance from a
	// cheap measurement (Resolve; the rules and their measurements are at
	// AutoMinColumns, AutoMaxStates and AutoStiff). Solve resolves it
	// itself; NewSolver takes the concrete method Resolve returns.
	Auto
)

var methodNames = [...]string{PBSR: "PBSR", PBS: "PBS", Exp: "Exp", FS: "FS", Auto: "Auto"}

// String returns the method's name as ParseMethod accepts it.
func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod parses a method name (case-insensitive: fs, pbs, pbsr, exp,
// auto).
func ParseMethod(s string) (Method, error) {
	for i, n := range methodNames {
		if strings.EqualFold(s, n) {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("sens: unknown method %q (want FS, PBS, PBSR, Exp or Auto)", s)
}

// Norm selects the matrix norm used by the Jacobian-change test and the
// paper's refinement count n_int.
type Norm int

const (
	// NormInf is the maximum absolute row sum (the default: cheap on CSR).
	NormInf Norm = iota
	// Norm1 is the maximum absolute column sum.
	Norm1
	// NormFro is the Frobenius norm.
	NormFro
	// Norm2 is the spectral norm (estimated by power iteration on J^T J;
	// the published Julia code uses it).
	Norm2
)

// Interp selects how x is evaluated inside a grid interval.
type Interp int

const (
	// InterpDefault: Dense, or Linear in paper mode.
	InterpDefault Interp = iota
	// InterpLinear interpolates x linearly between the grid points
	// (the paper's Algorithm 2).
	InterpLinear
	// InterpDense uses the integrator's dense output (ode.Trajectory's
	// InterpStep: the BDF's Nordsieck polynomial), as the published code
	// uses the solver's dense output.
	InterpDense
)

// ExpStep selects the matrices frozen in an exponential step on [ta, tb].
type ExpStep int

const (
	// ExpDefault: Endpoint on GridDyadic, Frozen in paper mode, Magnus
	// otherwise.
	ExpDefault ExpStep = iota
	// ExpFrozen uses A = Jx(ta), B = Jp(ta) (Corollary 1 of the paper):
	// first order where Jx varies.
	ExpFrozen
	// ExpMagnus uses A = (Jx(ta)+Jx(tb))/2 and B = (Jp(ta)+Jp(tb))/2: the
	// second-order Magnus exponential with trapezoidal forcing, at the
	// same cost.
	ExpMagnus
	// ExpEndpoint linearises at the end point tb, where Jx is known from
	// the trajectory: S' = Jb S + g(t) with g = (Jx(t) - Jb) S + Jp(t),
	// g(tb) = Pb exactly and g(ta) = (Ja - Jb) S(ta) + Pa, and integrates
	// g linearly (the exponential trapezoidal rule): S(tb) = E S(ta) +
	// W g(ta) + (Psi/h) (Pb - g(ta)) with E = e^{hJb}, W = h phi1(hJb),
	// Psi = h^2 phi2(hJb). Second order, and stiffly accurate: in the stiff
	// limit S(tb) -> -Jb^{-1} Pb, the quasi-steady state at tb, whereas
	// averaged or start-point matrices return the quasi-steady state of an
	// earlier time (a lag of order h).
	ExpEndpoint
)

// Refine selects how PBSR decides to subdivide an interval of the state
// grid (GridState; GridDyadic has its own error control).
type Refine int

const (
	// RefineDefault: LocalError, or NInt in paper mode.
	RefineDefault Refine = iota
	// RefineNInt is the paper's rule: exponential step if the relative
	// change of Jx is <= JacTol or n_int = ceil(NIntFactor dt ||Jx||) >
	// NMax, otherwise n_int PBS steps.
	RefineNInt
	// RefineLocalError takes the exponential step (ExpStep) on the
	// interval and on its two halves, estimates the local error of the
	// two-half result as a third of their difference, and bisects further
	// only where that exceeds RTol ||S|| + ATol.
	RefineLocalError
)

// Grid selects the time grid on which PBSR and Exp step S.
type Grid int

const (
	// GridDefault: Dyadic for PBSR and Exp, State in paper mode and for
	// PBS.
	GridDefault Grid = iota
	// GridState steps S on the state integrator's grid (the paper's
	// choice), with ODE.Interpolate and CutAtOutputs deciding how outputs
	// between grid points are served.
	GridState
	// GridDyadic steps S on a grid of its own: each output interval of
	// length Delta is covered by aligned steps Delta/2^j, the largest that
	// PBSR's local error control allows, or that span at most two of the
	// integrator's steps (Exp). The state integrator then steps over
	// output times (x at grid and output points from its dense output),
	// the few distinct step lengths let exponentials be reused, and near
	// equilibrium Jx and Jp are frozen (see the package documentation).
	GridDyadic
)

// SensScale selects the scales of S's columns in FS's error weights,
// CVODES's pbar: the weight of S_ij is 1/(rtol |S_ij| + atol_i/|pbar_j|),
// so that pbar_j S_ij is held to the state's tolerances.
type SensScale int

const (
	// ScaleParams, the default, takes pbar_j = |p_j| (1 where p_j = 0,
	// which CVODES refuses as a scale): the error test holds p_j S_ij =
	// dx_i/dlog p_j, the change of x_i per relative change of p_j (what
	// estimation on log parameters uses), to rtol and the state's atol,
	// as CVODES with pbar = p (CVodeSensEEtolerances) and AMICI, whose S
	// is with respect to log10 p with the state's tolerances, do. Without
	// it (ScaleNone) S_ij itself is held to atol_i: a column of a small
	// parameter, large in dx/dp units, to many more digits than its
	// effect on x has. On Lang_PLOSComputBiol2024 (parameters 1e-21 to
	// 1e11) FS with ErrCon then took 1e5 steps without reaching t = 10
	// (too many steps at t = 9.3 at rtol 1e-7); with ScaleParams it
	// finishes (docs/bench/errweights-2026-12-07.txt).
	ScaleParams SensScale = iota
	// ScaleNone takes pbar = 1 (CVODES's default): S_ij is held to
	// rtol |S_ij| + atol_i in the units of dx_i/dp_j.
	ScaleNone
)

// String returns the scale's name as ParseSensScale accepts it.
func (c SensScale) String() string {
	switch c {
	case ScaleParams:
		return "params"
	case ScaleNone:
		return "none"
	}
	return fmt.Sprintf("SensScale(%d)", int(c))
}

// ParseSensScale parses a scale name: params or none (case-insensitive).
func ParseSensScale(s string) (SensScale, error) {
	for _, c := range []SensScale{ScaleParams, ScaleNone} {
		if strings.EqualFold(s, c.String()) {
			return c, nil
		}
	}
	return 0, fmt.Errorf("sens: unknown sensitivity scale %q (want params or none)", s)
}

// Options configure a Solver. A nil *Options means all defaults; a zero
// field means that field's default (which depends on Paper where noted).
//
// The fields are what a user chooses; Tuning holds the knobs of the
// method studies (docs/algorithms.md), which a user leaves at zero.
type Options struct {
	// Method is PBSR (the default), Exp, PBS, FS or Auto (FS or PBSR by
	// Resolve); see the package documentation for what each computes and
	// when to choose which.
	Method Method
	// RTol and ATol are the tolerances: of the local error control of S
	// (PBSR; relative to ||S||_F, absolute in S units), and, scaled by
	// Tuning.StateTolFactor, of the state integrator when ODE.RTol,
	// ODE.ATol are zero. Defaults 1e-6 and 1e-8.
	RTol, ATol float64
	// Params are the parameter indices (columns of S, in this order);
	// nil means all, an empty non-nil slice none (x only: the
	// sensitivity engine does not run).
	Params []int
	// ErrCon includes S in the error control of FS (CVODES errconS); the
	// other methods ignore it. Without it (the default, as in CVODES) the
	// steps are the state's alone and S is not controlled: against FS at
	// rtol 1e-10, S was 9.6e-2 off on CaMKII at the paper's settings
	// (2.4e-4 with ErrCon, at about the same cost). Check detects it.
	ErrCon bool
	// SensScale selects the scales of S's columns in FS's error weights
	// (the error test with ErrCon, the corrector's convergence test, the
	// initial step): ScaleParams (the default) holds p_j S_ij to the
	// state's tolerances, ScaleNone S_ij itself (see SensScale). The
	// other methods ignore it; the check's reference solve (Check) uses
	// it.
	SensScale SensScale
	// Paper selects the published algorithms as written (frozen-Jacobian
	// exponential step, the n_int refinement rule, linear interpolation of
	// x inside a step, S stepped on the integrator's grid) instead of the
	// improved defaults; FS ignores it. Tuning fields override either
	// choice.
	Paper bool
	// ODE are the integrator options; the default method is BDF.
	ODE ode.Settings
	// MemoryLimit is the most memory in bytes a Solver may use for its
	// workspaces and a Solve for its result (see MemoryEstimate): 0 means
	// ode.DefaultMemoryLimit() (the Go soft memory limit if set, else 3/4
	// of the available memory), negative no limit. Beyond it NewSolver
	// allocates nothing and Solve returns a *ode.MemoryError that says
	// what would fit, instead of the program running out of memory.
	MemoryLimit int64
	// Check estimates the global error of x and S of every Solve a
	// posteriori (check.go, the package documentation): a second solve
	// with FS with ErrCon, the accuracy reference, at RTol, ATol (and the
	// ODE and Tuning tolerances that are set) divided by CheckFactor = 10,
	// whose difference from the first is the estimate (Stats.Check; within
	// 0.96 to 1.24 of the true error on the paper's networks). If it
	// exceeds CheckBound tolerances, the method solves again at the
	// tolerances / 10 and / 100 and the first solve within the bound is
	// returned (its numbers and Stats); otherwise Solve returns a
	// *AccuracyError, or a *CheckError if the reference solve failed. It
	// costs the extra solves (1.7 to 3 times an unchecked Solve on
	// CaMKII) and their Solvers' memory; the library default is off, as
	// CVODES checks nothing either, and pbgen sim turns it on.
	Check bool
	// CheckBound is the largest estimated error of S, in units of the
	// tolerance (see Stats.Check), that Check accepts; 0 means
	// DefaultCheckBound.
	CheckBound float64

	// Tuning are the research knobs: the ablations of docs/algorithms.md
	// and the paper's variants. The zero value is the default of the
	// method (and of Paper).
	Tuning Tuning
}

// Tuning are the knobs of the method studies (docs/algorithms.md,
// docs/ablation): each selects a variant of a step, a grid or a test that
// the defaults were measured against. A user leaves them at zero. FS
// ignores all of them but StateTolFactor; each field says which methods
// read it, and the others ignore it.
type Tuning struct {
	// SensRTol, SensATol override RTol, ATol for the local error test of
	// S (PBSR with RefineLocalError or GridDyadic) and the relative change
	// of Jx, Jp tolerated by frozen steps near equilibrium (GridDyadic).
	SensRTol, SensATol float64
	// Grid selects the grid on which PBSR and Exp step S (see Grid); PBS
	// always steps on the integrator's grid.
	Grid Grid
	// ExpStep selects the exponential step of PBSR, Exp and (where its
	// Jacobian barely changes) PBS; see ExpStep.
	ExpStep ExpStep
	// Refine selects how PBSR subdivides an interval of the state grid
	// (GridState only: GridDyadic has its own error control).
	Refine Refine
	// Interp selects how x is evaluated inside a grid interval (PBS, PBSR
	// and Exp on GridState).
	Interp Interp
	// StateTolFactor scales RTol and ATol into the state integrator's
	// tolerances when ODE.RTol, ODE.ATol are zero (every method). S
	// inherits the state's error, amplified where the dynamics are
	// sensitive, while the state costs little next to S, so the default
	// for GridDyadic is 0.01; 1 otherwise.
	StateTolFactor float64
	// ReuseTol is the relative change of the exponential's matrix (in
	// max-abs entries) below which the previous exponential is reused when
	// the step is the same (or, after the exponential converged to the
	// steady-state projector, longer): the frozen and Magnus steps of PBS,
	// PBSR and Exp. Default 1e-3*RTol (0 in paper mode: reuse only when
	// bit-identical); negative disables reuse.
	ReuseTol float64
	// RefTheta bounds h ||Jb - An||_inf, the distance between the end-point
	// Jacobian and the reference matrix An of a cached exponential of the
	// same step h, for the cached exponential to be reused by ExpEndpoint
	// (the difference is treated implicitly in the forcing, which keeps
	// the stiff limit exact). Default 1; negative disables reuse. A slot
	// is also reused, whatever h ||Jb - An||, when ||Jb - An||_inf <= 1%
	// of ||Jx||_inf (10% for Exp on models of SparseExpMinStates states or
	// more with dense exponentials; see refRel and refRelExpLarge in
	// endpoint.go).
	RefTheta float64
	// Order selects the order of PBSR's steps on the dyadic grid: 2 (the
	// end-point W-step) or 3 (the same step with the quadratic term of
	// its forcing through the previous point added, the step length from
	// a third-order error estimate, and the local error held to
	// order3Safety = 1/10 of SensRTol ||S|| + SensATol; see correct.go).
	// The default is 3 where SensRTol <= 1e-8 (order3Below), 2 above:
	// order 3 takes far fewer steps for a smaller error at tight
	// tolerances, while at 1e-6 it cost more on PKA and CaMKII
	// (order3Below; docs/algorithms.md); and 3 whatever SensRTol on
	// models of SparseExpMinStates states or more that take the dense
	// exponentials, where the products with the full S, not the
	// corrector's, set a step's cost (order3States in correct.go). The
	// sparse exponential path (ExpActionSparse) takes order 2 steps
	// whatever this says.
	Order int
	// ColumnWeightMax is the largest weight of a column of S in PBSR's
	// local error test on the dyadic grid (see stepControl.setWeights):
	// columns smaller than the RMS column at a run's start count up to
	// this many times more, so that each column's error is held to about
	// its own size. Default 16; 1 or less (negative) gives the unweighted
	// test on the whole S.
	ColumnWeightMax float64
	// MaxDepth bounds the bisection depth of RefineLocalError (PBSR on
	// GridState: at most 2^MaxDepth pieces per grid interval); default 8.
	MaxDepth int

	// The paper's refinement rule (PBS, and PBSR with RefineNInt).
	//
	// JacTol is the relative change ||Jx(tb) - Jx(ta)|| / ||Jx(ta)|| at or
	// below which the exponential step is taken; default 1e-4; negative
	// disables the test.
	JacTol float64
	// JpCheck also requires the relative change of Jp to be <= JacTol for
	// the exponential branch (the published code's variant).
	JpCheck bool
	// NIntFactor is c in n_int = ceil(c dt ||Jx(ta)||); default 10.
	NIntFactor float64
	// NMax is the largest n_int refined with PBS steps; beyond it the
	// exponential step is taken. Default 10 (the paper's text; the
	// published code uses 100).
	NMax int
	// Norm is the matrix norm of the JacTol test and of n_int.
	Norm Norm

	// ExpAction selects dense exponentials or their sparse actions on S
	// for the exponential steps of PBSR, Exp and PBS (see ExpAction);
	// default automatic by size and density.
	ExpAction ExpAction
}

// maxMaxDepth bounds Tuning.MaxDepth: 2^30 pieces per grid interval is
// already beyond any use, and each level holds three nx x ns blocks.
const maxMaxDepth = 30

// Validate reports the first option that cannot be used, as an error
// wrapping ode.ErrInvalid (nil and zero fields, the defaults, are valid):
// tolerances finite, relative ones 0 (default) or in [ode.MinRTol, 1), absolute ones
// >= 0; thresholds finite; counts >= 0 and MaxDepth <= 30; enumerations
// in range; GridDyadic only with PBSR or Exp; and the integrator settings
// that result (ode.Settings.Validate). The parameter indices are checked
// by NewSolver, which knows the model. NewSolver records the error and
// every Solve returns it.
func (o *Options) Validate() error {
	_, err := resolve(o)
	return err
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("sens: %w: "+format, append([]any{ode.ErrInvalid}, args...)...)
}

func checkRel(name string, v float64) error {
	if math.IsNaN(v) || v < 0 || v >= 1 {
		return invalid("the %s %g is not in (0, 1); use a value such as 1e-6", name, v)
	}
	if v != 0 && v < ode.MinRTol {
		return invalid("the %s %g is below %g, what double precision can resolve", name, v, ode.MinRTol)
	}
	return nil
}

func checkAbs(name string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return invalid("the %s %g is not a finite number >= 0", name, v)
	}
	return nil
}

func checkNum(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return invalid("the %s %g is not finite", name, v)
	}
	return nil
}

func validate(o *Options) error {
	t := &o.Tuning
	if o.Method < PBSR || o.Method > Auto {
		return invalid("unknown method %v (want FS, PBS, PBSR, Exp or Auto)", o.Method)
	}
	if o.Method == Auto && o.Paper {
		return invalid("Auto chooses among the default methods, and Paper reproduces the published ones: name the method (PBS, PBSR or Exp) with Paper")
	}
	for _, c := range []error{
		checkRel("relative tolerance", o.RTol), checkAbs("absolute tolerance", o.ATol),
		checkRel("sensitivity relative tolerance", t.SensRTol), checkAbs("sensitivity absolute tolerance", t.SensATol),
		checkNum("Jacobian change threshold JacTol", t.JacTol),
		checkAbs("refinement factor NIntFactor", t.NIntFactor),
		checkNum("exponential reuse tolerance ReuseTol", t.ReuseTol),
		checkNum("reuse bound RefTheta", t.RefTheta),
		checkNum("column weight bound ColumnWeightMax", t.ColumnWeightMax),
		checkAbs("state tolerance factor StateTolFactor", t.StateTolFactor),
		checkAbs("accuracy check bound CheckBound", o.CheckBound),
	} {
		if c != nil {
			return c
		}
	}
	switch {
	case t.NMax < 0:
		return invalid("the refinement bound NMax %d is negative", t.NMax)
	case t.Order != 0 && t.Order != 2 && t.Order != 3:
		return invalid("the order %d of PBSR's steps is not 2 or 3", t.Order)
	case t.MaxDepth < 0 || t.MaxDepth > maxMaxDepth:
		return invalid("the bisection depth MaxDepth %d is not in [0, %d]", t.MaxDepth, maxMaxDepth)
	case t.Norm < NormInf || t.Norm > Norm2:
		return invalid("unknown norm %d", t.Norm)
	case t.Interp < InterpDefault || t.Interp > InterpDense:
		return invalid("unknown interpolation %d", t.Interp)
	case t.ExpStep < ExpDefault || t.ExpStep > ExpEndpoint:
		return invalid("unknown exponential step %d", t.ExpStep)
	case t.Refine < RefineDefault || t.Refine > RefineLocalError:
		return invalid("unknown refinement rule %d", t.Refine)
	case t.ExpAction < ExpActionAuto || t.ExpAction > ExpActionSparse:
		return invalid("unknown exponential action %d", t.ExpAction)
	case t.Grid < GridDefault || t.Grid > GridDyadic:
		return invalid("unknown grid %d", t.Grid)
	case o.SensScale < ScaleParams || o.SensScale > ScaleNone:
		return invalid("unknown sensitivity scale %d", o.SensScale)
	case t.Grid == GridDyadic && o.Method == Auto:
		return invalid("the dyadic grid (GridDyadic) needs PBSR or Exp, and Auto may choose FS: name the method")
	case t.Grid == GridDyadic && o.Method != PBSR && o.Method != Exp:
		return invalid("the dyadic grid (GridDyadic) needs PBSR or Exp, not %v", o.Method)
	}
	return nil
}

// resolved options with defaults filled in.
type config struct {
	method             Method
	rtol, atol         float64
	srtol, satol       float64
	colWeightMax       float64 // Tuning.ColumnWeightMax resolved
	jacTol             float64
	jpCheck            bool
	nintFactor         float64
	nmax, maxDepth     int
	order              int  // PBSR on the dyadic grid: 2 or 3 (see orderFor)
	orderAuto          bool // Tuning.Order is 0: orderFor may raise order to 3
	norm               Norm
	interp             Interp
	expStep            ExpStep
	refine             Refine
	reuseTol           float64
	refTheta           float64
	grid               Grid
	expAction          ExpAction
	nnzx               int // nnz(Jx) of the model (NewSolver), 0 unknown
	nnzp               int // nnz(Jp) of the model (NewSolver), 0 unknown
	ode                ode.Settings
	errCon             bool
	sensScale          SensScale
	params             []int
	paper, interpolate bool
	noFreeze           bool // tests: no frozen steps near equilibrium
	memLimit           int64
}

// resolve fills in the defaults of o, or reports why o cannot be used.
func resolve(o *Options) (config, error) {
	var d Options
	if o == nil {
		o = &d
	}
	if err := validate(o); err != nil {
		return config{}, err
	}
	t := &o.Tuning
	c := config{method: o.Method, paper: o.Paper, jpCheck: t.JpCheck, norm: t.Norm,
		errCon: o.ErrCon, sensScale: o.SensScale, ode: o.ODE, memLimit: o.MemoryLimit}
	if o.Params != nil {
		c.params = append(make([]int, 0, len(o.Params)), o.Params...) // empty but not nil: no columns
	}
	c.rtol, c.atol = orDefault(o.RTol, 1e-6), orDefault(o.ATol, 1e-8)
	c.grid, c.expAction = t.Grid, t.ExpAction
	if c.grid == GridDefault {
		c.grid = GridState
		if !o.Paper && (o.Method == PBSR || o.Method == Exp) {
			c.grid = GridDyadic
		}
	}
	c.resolveState(t.StateTolFactor)
	c.srtol, c.satol = orDefault(t.SensRTol, c.rtol), orDefault(t.SensATol, c.atol)
	c.jacTol = orDefault(t.JacTol, 1e-4)
	c.colWeightMax = orDefault(t.ColumnWeightMax, colWeightMax)
	c.nintFactor = orDefault(t.NIntFactor, 10)
	c.nmax, c.maxDepth = orDefaultInt(t.NMax, 10), orDefaultInt(t.MaxDepth, 8)
	c.order, c.orderAuto = t.Order, t.Order == 0
	if c.order == 0 {
		c.order = 2
		if c.method == PBSR && c.grid == GridDyadic && c.srtol <= order3Below {
			c.order = 3
		}
	}
	c.resolveSteps(t)
	c.refTheta = orDefault(t.RefTheta, 1)
	c.reuseTol = t.ReuseTol
	if c.reuseTol == 0 && !o.Paper {
		c.reuseTol = 1e-3 * c.rtol
	}
	if err := c.ode.Validate(); err != nil {
		return config{}, fmt.Errorf("sens: the state integrator's settings (RTol, ATol scaled by StateTolFactor, or ODE): %w", err)
	}
	return c, nil
}

// orDefault is v, or def when v is zero (the options' "default").
func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// orDefaultInt is orDefault for counts.
func orDefaultInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// resolveState sets the state integrator's tolerances from the user's,
// scaled by the StateTolFactor stf (0: 0.01 on the dyadic grid, else 1),
// where the ODE settings leave them zero; the dyadic grid needs the
// integrator's dense output between its steps.
func (c *config) resolveState(stf float64) {
	if stf == 0 {
		stf = 1
		if c.grid == GridDyadic {
			stf = 0.01
		}
	}
	if c.ode.RTol == 0 {
		// The state's tolerance, tighter than the user's, stays within
		// what the integrator accepts.
		c.ode.RTol = math.Max(stf*c.rtol, ode.MinRTol)
	}
	if c.ode.ATol == 0 {
		c.ode.ATol = stf * c.atol
	}
	if c.grid == GridDyadic {
		c.ode.Interpolate = true
	}
	c.interpolate = c.ode.Interpolate
}

// resolveSteps chooses the step kinds the Tuning leaves at their
// defaults: the paper's (linear x, frozen exponential, the n_int rule) in
// Paper mode, else dense x, the end-point step on the dyadic grid (Magnus
// on the integrator's) and the local error rule.
func (c *config) resolveSteps(t *Tuning) {
	c.interp, c.expStep, c.refine = t.Interp, t.ExpStep, t.Refine
	if c.interp == InterpDefault {
		c.interp = InterpDense
		if c.paper {
			c.interp = InterpLinear
		}
	}
	if c.expStep == ExpDefault {
		c.expStep = ExpMagnus
		if c.paper {
			c.expStep = ExpFrozen
		} else if c.grid == GridDyadic {
			c.expStep = ExpEndpoint
		}
	}
	if c.refine == RefineDefault {
		c.refine = RefineLocalError
		if c.paper {
			c.refine = RefineNInt
		}
	}
}
