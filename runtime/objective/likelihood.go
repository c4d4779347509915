package objective

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

var logSqrt2Pi = 0.5 * math.Log(2*math.Pi)

// transform returns z(h) and dz/dh for an observable transformation.
func transform(tr Transform, h float64) (z, dz float64) {
	switch tr {
	case TransformLog:
		return math.Log(h), 1 / h
	case TransformLog10:
		return math.Log10(h), 1 / (h * math.Ln10)
	}
	return h, 1
}

// measJacobian is the log of the transformation's Jacobian at the
// measurement m: the densities of log(m) and log10(m) become densities of
// m by the factor 1/m and 1/(m ln 10) (PEtab's log-normal and log-Laplace
// definitions), so llh gets -log(m) and -log(m ln 10).
func measJacobian(tr Transform, m float64) float64 {
	switch tr {
	case TransformLog:
		return -math.Log(m)
	case TransformLog10:
		return -math.Log(m * math.Ln10)
	}
	return 0
}

// onScale reports whether a prior kind is a density of theta (the
// parameterScale kinds) rather than of the linear value.
func onScale(k PriorKind) bool {
	return k == ParameterScaleUniform || k == ParameterScaleNormal || k == ParameterScaleLaplace
}

// checkPrior reports parameters that make a prior no density.
func checkPrior(pr Prior) error {
	a, b := pr.Par[0], pr.Par[1]
	ok := true
	switch pr.Kind {
	case NoPrior:
	case Uniform, ParameterScaleUniform:
		ok = a < b
	case LogUniform:
		ok = 0 < a && a < b
	case NormalPrior, LaplacePrior, LogNormal, LogLaplace, ParameterScaleNormal, ParameterScaleLaplace, Cauchy:
		ok = b > 0
	case ChiSquare, Exponential, Rayleigh:
		ok = a > 0
	case Gamma:
		ok = a > 0 && b > 0
	default:
		return fmt.Errorf("unknown prior kind %d", int(pr.Kind))
	}
	if !ok || math.IsNaN(a) || math.IsNaN(b) {
		return fmt.Errorf("prior kind %d: invalid parameters %g, %g", int(pr.Kind), a, b)
	}
	return nil
}

// logDensity returns the log density of prior kind k with parameters
// (a, b) at y and its first and second derivatives in y; -Inf and 0, 0
// outside the support (Laplace kinks and uniform edges: the one-sided
// derivatives away from the kink).
func logDensity(k PriorKind, a, b, y float64) (v, d, d2 float64) {
	out := math.Inf(-1)
	switch k {
	case Uniform, ParameterScaleUniform:
		if y < a || y > b {
			return out, 0, 0
		}
		return -math.Log(b - a), 0, 0
	case NormalPrior, ParameterScaleNormal:
		r := (y - a) / b
		return -logSqrt2Pi - math.Log(b) - 0.5*r*r, -r / b, -1 / (b * b)
	case LaplacePrior, ParameterScaleLaplace:
		return -math.Log(2*b) - math.Abs(y-a)/b, -sign(y-a) / b, 0
	case Cauchy:
		r := (y - a) / b
		q := 1 + r*r
		return -math.Log(math.Pi*b) - math.Log1p(r*r), -2 * r / (b * q), -2 * (1 - r*r) / (b * b * q * q)
	}
	// The rest live on (0, inf).
	if !(y > 0) {
		return out, 0, 0
	}
	l := math.Log(y)
	switch k {
	case LogNormal:
		r := (l - a) / b
		return -l - logSqrt2Pi - math.Log(b) - 0.5*r*r, (-1 - r/b) / y, (1 + r/b - 1/(b*b)) / (y * y)
	case LogLaplace:
		s := sign(l - a)
		return -math.Log(2*b*y) - math.Abs(l-a)/b, (-1 - s/b) / y, (1 + s/b) / (y * y)
	case ChiSquare:
		h := a / 2
		lg, _ := math.Lgamma(h)
		return (h-1)*l - y/2 - h*math.Ln2 - lg, (h-1)/y - 0.5, -(h - 1) / (y * y)
	case Exponential:
		return -math.Log(a) - y/a, -1 / a, 0
	case Gamma:
		lg, _ := math.Lgamma(a)
		return (a-1)*l - y/b - lg - a*math.Log(b), (a-1)/y - 1/b, -(a - 1) / (y * y)
	case LogUniform:
		if y < a || y > b {
			return out, 0, 0
		}
		return -l - math.Log(math.Log(b)-math.Log(a)), -1 / y, 1 / (y * y)
	case Rayleigh:
		return l - 2*math.Log(a) - y*y/(2*a*a), 1/y - y/(a*a), -1/(y*y) - 1/(a*a)
	}
	return 0, 0, 0
}

// cdf is the cumulative distribution function of prior kind k at y (for
// the normalisation of truncated priors).
func cdf(k PriorKind, a, b, y float64) float64 {
	switch k {
	case Uniform, ParameterScaleUniform:
		return math.Min(1, math.Max(0, (y-a)/(b-a)))
	case NormalPrior, ParameterScaleNormal:
		return 0.5 * math.Erfc(-(y-a)/(b*math.Sqrt2))
	case LaplacePrior, ParameterScaleLaplace:
		if y < a {
			return 0.5 * math.Exp((y-a)/b)
		}
		return 1 - 0.5*math.Exp(-(y-a)/b)
	case Cauchy:
		return 0.5 + math.Atan((y-a)/b)/math.Pi
	}
	if !(y > 0) {
		return 0
	}
	switch k {
	case LogNormal, LogLaplace:
		base := NormalPrior
		if k == LogLaplace {
			base = LaplacePrior
		}
		return cdf(base, a, b, math.Log(y))
	case ChiSquare:
		return mathext.GammaIncReg(a/2, y/2)
	case Exponential:
		return -math.Expm1(-y / a)
	case Gamma:
		return mathext.GammaIncReg(a, y/b)
	case LogUniform:
		return math.Min(1, math.Max(0, (math.Log(y)-math.Log(a))/(math.Log(b)-math.Log(a))))
	case Rayleigh:
		return -math.Expm1(-y * y / (2 * a * a))
	}
	return 1
}

// prior is an estimated parameter's objective prior, ready to evaluate.
type prior struct {
	Prior
	lo, hi float64 // truncation bounds on the prior's variable
	logZ   float64 // log of the probability mass within them (0 untruncated)
}

// newPrior resolves the truncation of p's objective prior.
func newPrior(p *Param) (prior, error) {
	pr := prior{Prior: p.Prior, lo: math.Inf(-1), hi: math.Inf(1)}
	if err := checkPrior(pr.Prior); err != nil || pr.Kind == NoPrior || !pr.Truncate {
		return pr, err
	}
	pr.lo, pr.hi = p.Lower, p.Upper
	if onScale(pr.Kind) {
		pr.lo, pr.hi = ToScale(p.Scale, p.Lower), ToScale(p.Scale, p.Upper)
	}
	a, b := pr.Par[0], pr.Par[1]
	mass := cdf(pr.Kind, a, b, pr.hi) - cdf(pr.Kind, a, b, pr.lo)
	if !(mass > 0) {
		return pr, fmt.Errorf("truncated prior has no mass in [%g, %g]", p.Lower, p.Upper)
	}
	pr.logZ = math.Log(mass)
	return pr, nil
}

// eval returns the prior's log density at theta (on scale sc, x = its
// linear value, dxdt = dx/dtheta) and its first and second derivatives
// with respect to theta. Priors on linear values are densities of x (no
// change-of-variables Jacobian, as PEtab states them); the parameterScale
// priors are densities of theta. Outside the support (or the truncation)
// the value is -Inf and the derivatives 0.
func (pr *prior) eval(sc Scale, theta, x, dxdt float64) (v, d, d2 float64) {
	if pr.Kind == NoPrior {
		return 0, 0, 0
	}
	// y(theta) and its derivatives: d2x/dtheta2 = dxdt (log), dxdt ln 10
	// (log10), 0 (lin).
	y, dy, dyy := x, dxdt, 0.0
	switch sc {
	case Log:
		dyy = dxdt
	case Log10:
		dyy = dxdt * math.Ln10
	}
	if onScale(pr.Kind) {
		y, dy, dyy = theta, 1, 0
	}
	if y < pr.lo || y > pr.hi {
		return math.Inf(-1), 0, 0
	}
	v, d, d2 = logDensity(pr.Kind, pr.Par[0], pr.Par[1], y)
	if math.IsInf(v, -1) {
		return v, 0, 0
	}
	return v - pr.logZ, d * dy, d2*dy*dy + d*dyy
}

func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
