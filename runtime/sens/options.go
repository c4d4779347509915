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
	// PBSR is the Peano-Baker series with refinement (Algorithm 2), the
	// default.
	PBSR Method = iota
	// PBS is the Peano-Baker step on every grid interval (Algorithm 1).
	PBS
	// Exp is the exponential step on every grid interval (Algorithm 3).
	Exp
	// FS is forward sensitivity integrated together with the state by
	// runtime/ode: the accuracy reference.
	FS
)

var methodNames = [...]string{PBSR: "PBSR", PBS: "PBS", Exp: "Exp", FS: "FS"}

// String returns the method's name as ParseMethod accepts it.
func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod parses a method name (case-insensitive: fs, pbs, pbsr, exp).
func ParseMethod(s string) (Method, error) {
	for i, n := range methodNames {
		if strings.EqualFold(s, n) {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("sens: unknown method %q (want FS, PBS, PBSR or Exp)", s)
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

// Options configure a Solver. A nil *Options means all defaults; a zero
// field means that field's default (which depends on Paper where noted).
type Options struct {
	Method Method
	// Paper selects the published algorithms exactly (frozen-Jacobian
	// exponential step, the n_int refinement rule, linear interpolation of
	// x inside a step, S only at grid points) instead of the improved
	// defaults. Individual fields below override either choice.
	Paper bool

	// RTol and ATol are the state integrator's tolerances (when ODE.RTol,
	// ODE.ATol are zero) and the local error tolerances of RefineLocalError
	// (relative to ||S||_F, absolute in S units). Defaults 1e-6 and 1e-8.
	RTol, ATol float64
	// SensRTol, SensATol override RTol, ATol for the local error test of
	// RefineLocalError and GridDyadic (and the relative change of Jx, Jp
	// tolerated by frozen steps near equilibrium).
	SensRTol, SensATol float64

	// ODE are the integrator options; the default method is BDF.
	ODE ode.Settings
	// ErrCon includes S in the error control of FS (CVODES errconS).
	// Without it (the default, as in CVODES) the steps are the state's
	// alone and S is not controlled: against FS at rtol 1e-10, S was
	// 9.6e-2 off on CaMKII at the paper's settings (2.4e-4 with ErrCon, at
	// about the same cost) and 0.58 on CaMKII with kf__CaM__Ca = 1e9 at
	// rtol 1e-6 (1.4e-4).
	ErrCon bool
	// Params are the parameter indices (columns of S, in this order);
	// nil means all.
	Params []int

	// Thresholds of the Peano-Baker methods.
	//
	// JacTol is the relative change ||Jx(tb) - Jx(ta)|| / ||Jx(ta)|| at or
	// below which PBS and PBSR (RefineNInt) take the exponential step;
	// default 1e-4; negative disables the test.
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
	// MaxDepth bounds the bisection depth of RefineLocalError (at most
	// 2^MaxDepth pieces per grid interval); default 8.
	MaxDepth int
	Norm     Norm
	Interp   Interp
	ExpStep  ExpStep
	Refine   Refine
	// CutAtOutputs is kept for existing callers and has no effect: when
	// ODE.Interpolate lets the integrator step over output times, the grid
	// interval containing an output time is always split at it (x there
	// from the dense output) so that S is stepped to it. S at an output
	// time used to be the cubic Hermite interpolant of S and dS/dt = Jx S
	// + Jp at the enclosing grid points unless this was set: on CaMKII
	// with kf__CaM__Ca = 1e9 that S was 8e3 (PBSR) and 9e5 (Exp) off in
	// relative norm, Jx amplifying the error of S in dS/dt.
	CutAtOutputs bool
	// ReuseTol is the relative change of the exponential's matrix (in
	// max-abs entries) below which the previous exponential is reused when
	// the step is the same (or, after the exponential converged to the
	// steady-state projector, longer). Default 1e-3*RTol (0 in paper mode:
	// reuse only when bit-identical); negative disables reuse.
	ReuseTol float64
	// RefTheta bounds h ||Jb - An||_inf, the distance between the end-point
	// Jacobian and the reference matrix An of a cached exponential of the
	// same step h, for the cached exponential to be reused by ExpEndpoint
	// (the difference is treated implicitly in the forcing, which keeps
	// the stiff limit exact). Default 1; negative disables reuse. A slot
	// is also reused, whatever h ||Jb - An||, when ||Jb - An||_inf <= 1%
	// of ||Jx||_inf (see refRel in endpoint.go).
	RefTheta float64
	// Grid selects the sensitivity grid (see Grid).
	Grid Grid
	// StateTolFactor scales RTol and ATol into the state integrator's
	// tolerances when ODE.RTol, ODE.ATol are zero. S inherits the state's
	// error, amplified where the dynamics are sensitive (switches,
	// transients), while the state costs little next to S, so the default
	// for GridDyadic is 0.01; 1 otherwise.
	StateTolFactor float64
	// MemoryLimit is the most memory in bytes a Solver may use for its
	// workspaces and a Solve for its result (see MemoryEstimate): 0 means
	// ode.DefaultMemoryLimit() (the Go soft memory limit if set, else 3/4
	// of the available memory), negative no limit. Beyond it NewSolver
	// allocates nothing and Solve returns a *ode.MemoryError that says
	// what would fit, instead of the program running out of memory.
	MemoryLimit int64
}

// maxMaxDepth bounds Options.MaxDepth: 2^30 pieces per grid interval is
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
	if o.Method < PBSR || o.Method > FS {
		return invalid("unknown method %v (want FS, PBS, PBSR or Exp)", o.Method)
	}
	for _, c := range []error{
		checkRel("relative tolerance", o.RTol), checkAbs("absolute tolerance", o.ATol),
		checkRel("sensitivity relative tolerance", o.SensRTol), checkAbs("sensitivity absolute tolerance", o.SensATol),
		checkNum("Jacobian change threshold JacTol", o.JacTol),
		checkAbs("refinement factor NIntFactor", o.NIntFactor),
		checkNum("exponential reuse tolerance ReuseTol", o.ReuseTol),
		checkNum("reuse bound RefTheta", o.RefTheta),
		checkAbs("state tolerance factor StateTolFactor", o.StateTolFactor),
	} {
		if c != nil {
			return c
		}
	}
	switch {
	case o.NMax < 0:
		return invalid("the refinement bound NMax %d is negative", o.NMax)
	case o.MaxDepth < 0 || o.MaxDepth > maxMaxDepth:
		return invalid("the bisection depth MaxDepth %d is not in [0, %d]", o.MaxDepth, maxMaxDepth)
	case o.Norm < NormInf || o.Norm > Norm2:
		return invalid("unknown norm %d", o.Norm)
	case o.Interp < InterpDefault || o.Interp > InterpDense:
		return invalid("unknown interpolation %d", o.Interp)
	case o.ExpStep < ExpDefault || o.ExpStep > ExpEndpoint:
		return invalid("unknown exponential step %d", o.ExpStep)
	case o.Refine < RefineDefault || o.Refine > RefineLocalError:
		return invalid("unknown refinement rule %d", o.Refine)
	case o.Grid < GridDefault || o.Grid > GridDyadic:
		return invalid("unknown grid %d", o.Grid)
	case o.Grid == GridDyadic && o.Method != PBSR && o.Method != Exp:
		return invalid("the dyadic grid (GridDyadic) needs PBSR or Exp, not %v", o.Method)
	}
	return nil
}

// resolved options with defaults filled in.
type config struct {
	method             Method
	rtol, atol         float64
	srtol, satol       float64
	jacTol             float64
	jpCheck            bool
	nintFactor         float64
	nmax, maxDepth     int
	norm               Norm
	interp             Interp
	expStep            ExpStep
	refine             Refine
	reuseTol           float64
	refTheta           float64
	grid               Grid
	ode                ode.Settings
	errCon             bool
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
	c := config{method: o.Method, paper: o.Paper, jpCheck: o.JpCheck, norm: o.Norm,
		errCon: o.ErrCon, ode: o.ODE, memLimit: o.MemoryLimit}
	if o.Params != nil {
		c.params = append([]int(nil), o.Params...)
	}
	c.rtol, c.atol = o.RTol, o.ATol
	if c.rtol == 0 {
		c.rtol = 1e-6
	}
	if c.atol == 0 {
		c.atol = 1e-8
	}
	c.grid = o.Grid
	if c.grid == GridDefault {
		c.grid = GridState
		if !o.Paper && (o.Method == PBSR || o.Method == Exp) {
			c.grid = GridDyadic
		}
	}
	stf := o.StateTolFactor
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
	c.srtol, c.satol = o.SensRTol, o.SensATol
	if c.srtol == 0 {
		c.srtol = c.rtol
	}
	if c.satol == 0 {
		c.satol = c.atol
	}
	c.jacTol = o.JacTol
	if c.jacTol == 0 {
		c.jacTol = 1e-4
	}
	c.nintFactor = o.NIntFactor
	if c.nintFactor == 0 {
		c.nintFactor = 10
	}
	c.nmax = o.NMax
	if c.nmax == 0 {
		c.nmax = 10
	}
	c.maxDepth = o.MaxDepth
	if c.maxDepth == 0 {
		c.maxDepth = 8
	}
	c.interp, c.expStep, c.refine = o.Interp, o.ExpStep, o.Refine
	if c.interp == InterpDefault {
		c.interp = InterpDense
		if o.Paper {
			c.interp = InterpLinear
		}
	}
	if c.expStep == ExpDefault {
		c.expStep = ExpMagnus
		if o.Paper {
			c.expStep = ExpFrozen
		} else if c.grid == GridDyadic {
			c.expStep = ExpEndpoint
		}
	}
	if c.refine == RefineDefault {
		c.refine = RefineLocalError
		if o.Paper {
			c.refine = RefineNInt
		}
	}
	c.interpolate = c.ode.Interpolate
	c.reuseTol = o.ReuseTol
	c.refTheta = o.RefTheta
	if c.refTheta == 0 {
		c.refTheta = 1
	}
	if c.reuseTol == 0 && !o.Paper {
		c.reuseTol = 1e-3 * c.rtol
	}
	if err := c.ode.Validate(); err != nil {
		return config{}, fmt.Errorf("sens: the state integrator's settings (RTol, ATol scaled by StateTolFactor, or ODE): %w", err)
	}
	return c, nil
}
