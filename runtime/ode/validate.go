package ode

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalid is wrapped by every error about settings or arguments that
// cannot be used (a tolerance out of range, unordered output times, a
// vector of the wrong length): errors.Is(err, ErrInvalid) tells them from
// integration failures (*StepError).
var ErrInvalid = errors.New("invalid input")

// ErrDelays is wrapped by the error of every integration of a model that
// implements model.Delays (SBML csymbol delay): its right-hand side needs
// the solution's history, which runtime/dde keeps and this package does
// not; runtime/dde solves the states and their forward sensitivities.
var ErrDelays = errors.New("delay differential equations are not supported here")

// invalid returns an error wrapping ErrInvalid with the sentence msg.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// maxRTol is the largest relative tolerance accepted. A relative
// tolerance of 1 or more lets the error test accept any step (the error
// is measured against the solution's own size): the result is whatever
// one step gives, a wrong answer that looks like a valid one.
const maxRTol = 1

// MinRTol is the smallest relative tolerance accepted: about 4.5 times
// the unit roundoff, below which the rounding of each step alone exceeds
// the local error test (CVODE warns there; a sensitivity method's rounding
// limit check would refuse every model).
const MinRTol = 1e-15

// Validate reports the first setting that cannot be used, as an error
// wrapping ErrInvalid (nil s and zero fields, the defaults, are valid):
// RTol must be 0 (default) or in [MinRTol, 1), ATol and every ATolVec entry
// finite and >= 0 (ATolVec entries > 0: a zero weight would divide by
// zero), MaxSteps, H0 and HMax >= 0 and finite, Method BDF or DOPRI5, LinearSolver one of
// the three.
// NewSolver records the error and every integration returns it: a setting
// a user passes must not crash the program.
func (s *Settings) Validate() error {
	if s == nil {
		return nil
	}
	switch {
	case math.IsNaN(s.RTol) || s.RTol < 0 || s.RTol >= maxRTol:
		return invalid("the relative tolerance %g is not in (0, 1); use a value such as 1e-6", s.RTol)
	case s.RTol != 0 && s.RTol < MinRTol:
		return invalid("the relative tolerance %g is below %g, what double precision can resolve", s.RTol, MinRTol)
	case !(s.ATol >= 0) || math.IsInf(s.ATol, 0):
		return invalid("the absolute tolerance %g is not a finite number >= 0", s.ATol)
	case s.MaxSteps < 0:
		return invalid("the maximum number of steps %d is negative", s.MaxSteps)
	case !(s.H0 >= 0) || math.IsInf(s.H0, 0):
		return invalid("the initial step %g is not a finite number >= 0", s.H0)
	case !(s.HMax >= 0) || math.IsInf(s.HMax, 0):
		return invalid("the maximum step %g is not a finite number >= 0", s.HMax)
	case s.Method < BDF || s.Method > CashKarp:
		return invalid("unknown integration method %v (want BDF, DOPRI5, Adams or CashKarp)", s.Method)
	case s.LinearSolver < LinearAuto || s.LinearSolver > LinearSparse:
		return invalid("unknown linear solver %v (want auto, dense or sparse)", s.LinearSolver)
	}
	for i, v := range s.ATolVec {
		if !(v > 0) || math.IsInf(v, 0) {
			return invalid("absolute tolerance %g of state %d is not a finite number > 0", v, i)
		}
	}
	return nil
}

// Err returns the error recorded by NewSolver for unusable settings (nil
// if the settings are valid); Integrate and IntegrateSens return it.
func (s *Solver) Err() error { return s.err }
