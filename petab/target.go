package petab

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// This file adapts a Problem's objective to a Bayesian posterior in theta
// that a sampler can use: Target has the method set of mcmc.Target (Dim,
// Bounds, Eval), so it plugs into mcmc.Run without petab importing mcmc,
// which the import rules keep free of the rest of pbgen (and vice versa).

// TargetOptions configure a Target. A nil *TargetOptions means the
// defaults.
type TargetOptions struct {
	// Method computes the sensitivities (default sens.PBSR, the objective's).
	Method sens.Method
	// RTol and ATol are the solver's tolerances (0: the objective's
	// defaults).
	RTol, ATol float64
	// NoErrCon is objective.Options.NoErrCon: S out of FS's error test
	// (the default puts it in, as AMICI).
	NoErrCon bool
	// Grad and FIM say which derivatives Eval must provide at every call:
	// SMMALA needs both, MALA the gradient, RWM neither. Without FIM a
	// metric is still available (MALA and RWM ask for one at each chain's
	// initial point): it is computed by a second objective with the
	// Fisher information, built on first use, so the sampling itself does
	// not pay for what the kernel does not use.
	Grad, FIM bool
	// Workers are the objective's goroutines per Eval (experiments in
	// parallel; objective.Options.Workers).
	Workers int
}

// Target is the posterior of a PEtab problem with theta the estimated
// parameters on their parameter scales (lin, log, log10), in EstimatedIDs
// order. It implements mcmc.Target. A Target owns its objective (and ODE
// solvers), so it is for one goroutine; build one per sampler worker.
//
// # Density
//
// Eval returns log pi(theta) = LLH + log prior(theta), where the prior is
// a density of theta. PEtab states the parameterScale priors as densities
// of theta, but every other prior (normal, logNormal, uniform, ...) as a
// density of the linear value x = x(theta); objective.Result.LogPrior
// takes those at face value, which is right for a MAP estimate but not
// for sampling theta. Target adds the change-of-variables term
// log |dx/dtheta| (theta for log, theta ln 10 + log ln 10 for log10) for
// such priors, so that the draws of x follow the stated prior when the
// data say nothing. A parameter without a prior has a flat density in
// theta within its bounds (PEtab's default, parameterScaleUniform).
//
// # Metric
//
// The metric is the Fisher information of the likelihood in theta plus
// the negative Hessian of the log prior in theta (of the density above),
// which is diagonal. Where a prior is not log-concave at theta (Cauchy
// tails, log-uniform or gamma with shape below 1 on a linear scale) its
// negative curvature is taken as 0 rather than subtracted: a metric must
// be positive semi-definite, and any point-dependent metric keeps
// SMMALA exact.
//
// # Bounds
//
// Bounds are the parameter table's bounds on the parameter scale; the
// sampler rejects proposals outside them, so the objective is never asked
// to solve there.
type Target struct {
	m    model.Model
	prob *objective.Problem
	opt  objective.Options

	o    *objective.Objective // the sampling objective (opt.Grad, opt.FIM)
	full *objective.Objective // with Grad and FIM, built when a metric is asked of an o without FIM
	res  objective.Result

	params []objective.Param // estimated, in theta's order
	lo, hi []float64
}

// Target returns the posterior of p for a sampler; see Target.
func (p *Problem) Target(opt *TargetOptions) (*Target, error) {
	return newTarget(p.Model, p.Objective, opt)
}

func newTarget(m model.Model, prob *objective.Problem, opt *TargetOptions) (*Target, error) {
	var to TargetOptions
	if opt != nil {
		to = *opt
	}
	t := &Target{m: m, prob: prob, opt: objective.Options{Method: to.Method, RTol: to.RTol, ATol: to.ATol, NoErrCon: to.NoErrCon, Grad: to.Grad, FIM: to.FIM, Workers: to.Workers}}
	var err error
	if t.o, err = objective.New(m, prob, &t.opt); err != nil {
		return nil, err
	}
	n := len(prob.Estimated)
	t.params = make([]objective.Param, n)
	t.lo, t.hi = make([]float64, n), make([]float64, n)
	for a, i := range prob.Estimated {
		q := prob.Params[i]
		t.params[a] = q
		t.lo[a], t.hi[a] = objective.ToScale(q.Scale, q.Lower), objective.ToScale(q.Scale, q.Upper)
		if math.IsNaN(t.lo[a]) {
			t.lo[a] = math.Inf(-1) // a negative lower bound of a log-scaled parameter bounds nothing
		}
		if !(t.lo[a] < t.hi[a]) {
			return nil, fmt.Errorf("petab: parameter %q: bounds [%g, %g] are empty on its %v scale", q.ID, q.Lower, q.Upper, q.Scale)
		}
	}
	return t, nil
}

// Dim is the number of estimated parameters.
func (t *Target) Dim() int { return len(t.params) }

// Bounds returns the parameter table's bounds on the parameter scales
// (shared: do not modify).
func (t *Target) Bounds() (lo, hi []float64) { return t.lo, t.hi }

// Names returns the estimated parameters' ids, in theta's order.
func (t *Target) Names() []string { return t.o.Params() }

// Nominal returns the nominal values on the parameter scales.
func (t *Target) Nominal() []float64 { return t.o.Nominal() }

// Close stops the objectives' worker goroutines (Workers > 1).
func (t *Target) Close() {
	t.o.Close()
	if t.full != nil {
		t.full.Close()
	}
}

// Eval returns the log posterior at theta (parameter scales), and writes
// its gradient into grad and the metric (row-major Dim x Dim) into metric
// when they are non-nil. A failed solve is an error (a sampler counts it
// as a rejection); outside a prior's support the value is -Inf.
func (t *Target) Eval(theta, grad, metric []float64) (float64, error) {
	n := len(t.params)
	if len(theta) != n || grad != nil && len(grad) != n || metric != nil && len(metric) != n*n {
		return 0, fmt.Errorf("petab: target of dimension %d called with theta %d, grad %d, metric %d entries", n, len(theta), len(grad), len(metric))
	}
	if grad != nil && !t.opt.Grad {
		return 0, errors.New("petab: gradient requested of a target built without TargetOptions.Grad")
	}
	o := t.o
	if metric != nil && !t.opt.FIM {
		if t.full == nil {
			fo := t.opt
			fo.Grad, fo.FIM = true, true
			f, err := objective.New(t.m, t.prob, &fo)
			if err != nil {
				return 0, err
			}
			t.full = f
		}
		o = t.full
	}
	if err := o.Eval(theta, &t.res); err != nil {
		return 0, err
	}
	if metric != nil {
		copy(metric, t.res.FIM)
	}
	if o != t.o {
		// The density is the sampling objective's: with S in FS's error
		// test (TargetOptions.NoErrCon false) the steps, and so the llh
		// within the integration error, depend on whether S is
		// integrated, so the metric's objective gives a slightly different
		// value. One more evaluation, at each chain's initial point.
		if err := t.o.Eval(theta, &t.res); err != nil {
			return 0, err
		}
	}
	lp := t.res.LogPost
	for a := range grad {
		grad[a] = t.res.Grad[a] + t.res.GradPrior[a]
	}
	for a := range t.params {
		q := &t.params[a]
		j, dj, h := priorTheta(q, theta[a])
		lp += j
		if grad != nil {
			grad[a] += dj
		}
		if metric != nil {
			metric[a*n+a] += max(h, 0)
		}
	}
	return lp, nil
}

// linearPrior reports whether k is a density of the linear value (every
// kind but the parameterScale ones and NoPrior).
func linearPrior(k objective.PriorKind) bool {
	switch k {
	case objective.NoPrior, objective.ParameterScaleUniform, objective.ParameterScaleNormal, objective.ParameterScaleLaplace:
		return false
	}
	return true
}

// priorTheta returns what turns q's prior, as the objective evaluates it,
// into a density of theta, with its derivative: the log-Jacobian
// log |dx/dtheta| of a prior on the linear value (0 on a linear scale or
// for the parameterScale kinds). h is the negative second derivative in
// theta of the whole log prior density of theta (prior plus Jacobian; the
// Jacobian's is 0, as it is linear in theta), unclipped; 0 outside the
// prior's support.
func priorTheta(q *objective.Param, theta float64) (j, dj, h float64) {
	k := q.Prior.Kind
	if k == objective.NoPrior {
		return 0, 0, 0
	}
	a, b := q.Prior.Par[0], q.Prior.Par[1]
	if !linearPrior(k) {
		_, d2 := logDensityD2(k, a, b, theta)
		return 0, 0, -d2
	}
	switch q.Scale {
	case objective.Log:
		j, dj = theta, 1
	case objective.Log10:
		j, dj = theta*math.Ln10+math.Log(math.Ln10), math.Ln10
	}
	x, dx := objective.FromScale(q.Scale, theta)
	ddx := 0.0 // d2x/dtheta2
	switch q.Scale {
	case objective.Log:
		ddx = x
	case objective.Log10:
		ddx = x * math.Ln10 * math.Ln10
	}
	d1, d2 := logDensityD2(k, a, b, x)
	return j, dj, -(d2*dx*dx + d1*ddx)
}

// logDensityD2 returns the first and second derivatives in y of the log
// density of prior kind k with parameters (a, b) at y (the objective's
// densities; truncation only adds a constant). Outside the support, and
// at the kinks of the Laplace kinds, both are 0.
func logDensityD2(k objective.PriorKind, a, b, y float64) (d1, d2 float64) {
	switch k {
	case objective.Uniform, objective.ParameterScaleUniform:
		return 0, 0
	case objective.NormalPrior, objective.ParameterScaleNormal:
		return -(y - a) / (b * b), -1 / (b * b)
	case objective.LaplacePrior, objective.ParameterScaleLaplace:
		return -sgn(y-a) / b, 0
	case objective.Cauchy:
		r := (y - a) / b
		return -2 * r / (b * (1 + r*r)), -2 * (1 - r*r) / (b * b * (1 + r*r) * (1 + r*r))
	}
	if !(y > 0) {
		return 0, 0
	}
	switch k {
	case objective.LogNormal:
		r := (math.Log(y) - a) / b
		return (-1 - r/b) / y, (1 + r/b - 1/(b*b)) / (y * y)
	case objective.LogLaplace:
		s := sgn(math.Log(y)-a) / b
		return (-1 - s) / y, (1 + s) / (y * y)
	case objective.ChiSquare:
		h := a / 2
		return (h-1)/y - 0.5, -(h - 1) / (y * y)
	case objective.Exponential:
		return -1 / a, 0
	case objective.Gamma:
		return (a-1)/y - 1/b, -(a - 1) / (y * y)
	case objective.LogUniform:
		return -1 / y, 1 / (y * y)
	case objective.Rayleigh:
		return 1/y - y/(a*a), -1/(y*y) - 1/(a*a)
	}
	return 0, 0
}

func sgn(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// InitMode chooses how InitialPoint draws a chain's start.
type InitMode int

const (
	// InitPrior draws each parameter from its initialization prior
	// (PEtab initializationPriorType) or, without one, uniformly on the
	// parameter scale within its bounds (PEtab's default,
	// parameterScaleUniform), redrawing until the value lies within the
	// bounds.
	InitPrior InitMode = iota
	// InitNominal starts at the nominal values.
	InitNominal
)

// maxInitDraws bounds the redraws of one parameter whose initialization
// prior has little mass within the bounds; the bounds' uniform is used
// after that.
const maxInitDraws = 1000

// InitialPoint writes a starting theta (parameter scales, EstimatedIDs
// order) into dst, drawn with rng as mode says. Seeded per chain (as
// mcmc.Options.Init is), chains start reproducibly. An estimated
// parameter without a nominal value (InitNominal) or with infinite bounds
// and no initialization prior (InitPrior) is an error naming it.
func (p *Problem) InitialPoint(mode InitMode, rng *rand.Rand, dst []float64) error {
	prob := p.Objective
	if len(dst) != len(prob.Estimated) {
		return fmt.Errorf("petab: initial point of length %d for %d estimated parameters", len(dst), len(prob.Estimated))
	}
	for a, i := range prob.Estimated {
		q := &prob.Params[i]
		lo, hi := objective.ToScale(q.Scale, q.Lower), objective.ToScale(q.Scale, q.Upper)
		if math.IsNaN(lo) {
			lo = math.Inf(-1)
		}
		if mode == InitNominal {
			v := objective.ToScale(q.Scale, q.Nominal)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("petab: parameter %q: nominal value %g is no starting point on its %v scale", q.ID, q.Nominal, q.Scale)
			}
			dst[a] = v
			continue
		}
		v, ok := math.NaN(), false
		if q.InitPrior.Kind != objective.NoPrior {
			for try := 0; try < maxInitDraws && !ok; try++ {
				v = drawPrior(q.InitPrior, q.Scale, rng)
				ok = v >= lo && v <= hi && !math.IsNaN(v) && !math.IsInf(v, 0)
			}
		}
		if !ok {
			if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
				return fmt.Errorf("petab: parameter %q: no initialization prior and bounds [%g, %g] not finite on its %v scale: no starting point to draw", q.ID, q.Lower, q.Upper, q.Scale)
			}
			v = lo + (hi-lo)*rng.Float64()
		}
		dst[a] = v
	}
	return nil
}

// drawPrior draws from prior pr and returns the value on scale s (the
// parameterScale kinds are drawn on s directly).
func drawPrior(pr objective.Prior, s objective.Scale, rng *rand.Rand) float64 {
	a, b := pr.Par[0], pr.Par[1]
	var x float64
	switch pr.Kind {
	case objective.Uniform, objective.ParameterScaleUniform:
		x = a + (b-a)*rng.Float64()
	case objective.NormalPrior, objective.ParameterScaleNormal:
		x = a + b*rng.NormFloat64()
	case objective.LaplacePrior, objective.ParameterScaleLaplace:
		x = a + b*laplace(rng)
	case objective.LogNormal:
		x = math.Exp(a + b*rng.NormFloat64())
	case objective.LogLaplace:
		x = math.Exp(a + b*laplace(rng))
	case objective.Cauchy:
		x = a + b*math.Tan(math.Pi*(rng.Float64()-0.5))
	case objective.ChiSquare:
		x = 2 * gammaDraw(a/2, rng)
	case objective.Exponential:
		x = a * rng.ExpFloat64()
	case objective.Gamma:
		x = b * gammaDraw(a, rng)
	case objective.LogUniform:
		x = math.Exp(math.Log(a) + (math.Log(b)-math.Log(a))*rng.Float64())
	case objective.Rayleigh:
		x = a * math.Sqrt(2*rng.ExpFloat64())
	default:
		return math.NaN()
	}
	if linearPrior(pr.Kind) {
		return objective.ToScale(s, x)
	}
	return x
}

// laplace draws from the standard Laplace distribution (a difference of
// two unit exponentials).
func laplace(rng *rand.Rand) float64 { return rng.ExpFloat64() - rng.ExpFloat64() }

// gammaDraw draws from Gamma(shape, 1) by Marsaglia and Tsang's method
// (2000), boosting shape < 1 by U^(1/shape).
func gammaDraw(shape float64, rng *rand.Rand) float64 {
	if shape < 1 {
		return gammaDraw(shape+1, rng) * math.Pow(rng.Float64(), 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		z := rng.NormFloat64()
		v := 1 + c*z
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if math.Log(u) < 0.5*z*z+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}
