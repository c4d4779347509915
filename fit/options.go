package fit

import (
	"fmt"
	"time"
)

// Hessian selects the matrix the trust-region model uses.
type Hessian int

const (
	// FIM uses the Hessian the objective returns at every accepted point:
	// for a PEtab problem the Fisher information plus the prior's
	// curvature, a Gauss-Newton approximation that is exact at a perfect
	// fit and positive semi-definite everywhere.
	FIM Hessian = iota
	// BFGS starts from the identity and applies the BFGS update after
	// every accepted step, skipping updates that violate the curvature
	// condition y's > 0 (Fides's BFGS with enforce_curv_cond). The
	// objective is asked for gradients only.
	BFGS
	// SR1 starts from the identity and applies the symmetric rank-one
	// update, skipped when |(y-Bs)'s| < 1e-8 |s| |y-Bs| (Nocedal and
	// Wright 2006, eq. 6.26). It may become indefinite, which the exact
	// trust-region subproblem handles.
	SR1
	// Hybrid uses the objective's Hessian (the FIM) until it stalls and
	// BFGS afterwards, the BFGS matrix being updated from the first step
	// on (Fides's HybridFixed and HybridFraction). The switch rule is
	// Options.SwitchIter (HybridFixed, the default) or
	// Options.SwitchFraction (HybridFraction). The switch is for good.
	Hybrid
)

// String returns the name the CLI flag uses.
func (h Hessian) String() string {
	switch h {
	case FIM:
		return "fim"
	case BFGS:
		return "bfgs"
	case SR1:
		return "sr1"
	case Hybrid:
		return "hybrid"
	}
	return fmt.Sprintf("Hessian(%d)", int(h))
}

// ParseHessian maps a CLI name (fim, bfgs, sr1, hybrid) to a Hessian.
func ParseHessian(name string) (Hessian, bool) {
	for _, h := range []Hessian{FIM, BFGS, SR1, Hybrid} {
		if h.String() == name {
			return h, true
		}
	}
	return 0, false
}

// Subspace selects where the trust-region subproblem is solved.
type Subspace int

const (
	// TwoD solves the subproblem exactly in the two-dimensional subspace
	// spanned by the scaled gradient and the Newton step (the direction of
	// most negative curvature where the model is not convex), Fides's
	// default (Byrd, Schnabel and Shultz 1988).
	TwoD Subspace = iota
	// Full solves it exactly in all dimensions, by an eigendecomposition
	// of the scaled model Hessian and the secular equation (Moré and
	// Sorensen 1983, including the hard case).
	Full
)

// String returns "2d" or "full".
func (s Subspace) String() string {
	if s == Full {
		return "full"
	}
	return "2d"
}

// Options configures Minimize. A nil *Options means all defaults; a zero
// field means that field's default. The defaults are Fides's
// (fides.constants.DEFAULT_OPTIONS, Fröhlich and Sorger 2022), which
// pyPESTO's FidesOptimizer keeps.
type Options struct {
	Hessian  Hessian
	Subspace Subspace
	// MaxIter bounds the iterations, one objective evaluation each
	// (default 1000).
	MaxIter int
	// MaxTime bounds the wall-clock time: Minimize stops before an
	// iteration that would, at the average iteration's duration, end
	// after it (default none).
	MaxTime time.Duration
	// FATol and FRTol: converged (FTol) when a step changes f by less
	// than FATol + FRTol |f| and did not enlarge the trust region
	// (defaults 1e-8 and 1e-8). Negative for none.
	FATol, FRTol float64
	// XTol: converged (XTol) when the scaled step is shorter than XTol,
	// after the first iteration (default 0: never).
	XTol float64
	// GATol and GRTol: converged (GTol) when the norm of the scaled
	// gradient sqrt|v| .* g (the first-order optimality measure of
	// Coleman and Li: zero at a point satisfying the bound-constrained
	// first-order conditions; |g| without bounds) is at most GATol or
	// GRTol |f| (defaults 1e-6 and 0). Negative for none.
	GATol, GRTol float64
	// Delta0 is the initial trust-region radius in scaled coordinates
	// (default 1).
	Delta0 float64
	// ThetaMax: a step that reaches a bound is stepped back to at least
	// this fraction of the way (default 0.95; Coleman and Li's theta is
	// max(ThetaMax, 1 - |v .* g|_inf)).
	ThetaMax float64
	// Mu and Eta are the ratio thresholds of actual to predicted
	// decrease below which the radius shrinks and above which it grows
	// (defaults 0.25 and 0.75, Nocedal and Wright 2006 Alg. 4.1);
	// Gamma1 and Gamma2 the factors (defaults 1/4 and 2).
	Mu, Eta, Gamma1, Gamma2 float64
	// SwitchIter is Hybrid's HybridFixed rule: switch to BFGS after this
	// many successive iterations without a change of the trust-region
	// radius (default 20).
	SwitchIter int
	// SwitchFraction > 0 selects Hybrid's HybridFraction rule instead:
	// switch once, after at least 25 iterations, the fraction of
	// iterations whose step was accepted without changing the radius
	// exceeds it (Fides's default threshold is 0.8).
	SwitchFraction float64
	// Trace, when non-nil, is called after every iteration with what
	// Fides logs per iteration; it must not retain the Iteration.
	Trace func(Iteration)
	// Fixed, when non-nil (length Dim), marks parameters that keep their
	// start value (a profile's parameter, a parameter held fixed).
	Fixed []bool
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	if r.MaxIter <= 0 {
		r.MaxIter = 1000
	}
	def(&r.FATol, 1e-8)
	def(&r.FRTol, 1e-8)
	def(&r.GATol, 1e-6)
	def(&r.Delta0, 1)
	def(&r.ThetaMax, 0.95)
	def(&r.Mu, 0.25)
	def(&r.Eta, 0.75)
	def(&r.Gamma1, 0.25)
	def(&r.Gamma2, 2)
	if r.SwitchIter <= 0 {
		r.SwitchIter = 20
	}
	return r
}

// Status says why a minimisation stopped.
type Status int

const (
	// NotRun: the start was never minimised (its point could not be
	// drawn or evaluated; see Result.Err).
	NotRun Status = iota
	// FTol, XTol and GTol are convergence by the function change, the
	// step length and the gradient norm (Options).
	FTol
	XTol
	GTol
	// MaxIter and MaxTime are the iteration and time limits.
	MaxIter
	MaxTime
	// SmallRadius: the trust region shrank below machine epsilon, so no
	// step can decrease f any more (Fides's DELTA_TOO_SMALL).
	SmallRadius
	// StartFailed: the objective failed, or returned a non-finite value or
	// gradient, at the start point (Result.Err says how).
	StartFailed
	// LineSearchFailed: MinimizeLBFGS's line search found no acceptable
	// step (Result.Err has gonum's status).
	LineSearchFailed
	// Canceled: the context was cancelled.
	Canceled
)

// String returns the short name used in tables: ftol, xtol, gtol,
// maxiter, maxtime, small-radius, start-failed, line-search-failed,
// canceled, not-run.
func (s Status) String() string {
	switch s {
	case NotRun:
		return "not-run"
	case FTol:
		return "ftol"
	case XTol:
		return "xtol"
	case GTol:
		return "gtol"
	case MaxIter:
		return "maxiter"
	case MaxTime:
		return "maxtime"
	case SmallRadius:
		return "small-radius"
	case StartFailed:
		return "start-failed"
	case LineSearchFailed:
		return "line-search-failed"
	case Canceled:
		return "canceled"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Converged reports whether s is one of the convergence criteria (FTol,
// XTol, GTol).
func (s Status) Converged() bool { return s == FTol || s == XTol || s == GTol }

// Iteration describes one trial step for Options.Trace.
type Iteration struct {
	Iter     int
	F        float64 // f at the current point (after the step if accepted)
	FTrial   float64 // f at the trial point (+Inf when it failed)
	Predict  float64 // the model's predicted change psi (negative)
	Ratio    float64 // actual over predicted decrease
	Delta    float64 // the radius the step was computed with
	Step     float64 // length of the scaled step
	GNorm    float64 // scaled gradient norm at the current point
	Reflect  int     // reflections the chosen step took (0: not reflected)
	Accepted bool
}

// ParseStatus maps a name String returns back to the Status (for
// reading results back, as pbgen fit -merge does).
func ParseStatus(name string) (Status, bool) {
	for s := NotRun; s <= Canceled; s++ {
		if s.String() == name {
			return s, true
		}
	}
	return 0, false
}
