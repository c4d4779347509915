package objective

import "math"

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

// logPrior returns the log density of prior pr at theta (x = linear value,
// dxdt = dx/dtheta) and its derivative with respect to theta. Priors on
// linear values are densities of x (no change-of-variables Jacobian, as
// PEtab states them); the parameterScale priors are densities of theta.
// Outside the support the value is -Inf and the derivative 0.
func logPrior(pr Prior, theta, x, dxdt float64) (v, d float64) {
	a, b := pr.Par[0], pr.Par[1]
	switch pr.Kind {
	case Uniform, ParameterScaleUniform:
		y := x
		if pr.Kind == ParameterScaleUniform {
			y = theta
		}
		if y < a || y > b {
			return math.Inf(-1), 0
		}
		return -math.Log(b - a), 0
	case NormalPrior, ParameterScaleNormal:
		y, dy := x, dxdt
		if pr.Kind == ParameterScaleNormal {
			y, dy = theta, 1
		}
		r := (y - a) / b
		return -logSqrt2Pi - math.Log(b) - 0.5*r*r, -r / b * dy
	case LaplacePrior, ParameterScaleLaplace:
		y, dy := x, dxdt
		if pr.Kind == ParameterScaleLaplace {
			y, dy = theta, 1
		}
		return -math.Log(2*b) - math.Abs(y-a)/b, -sign(y-a) / b * dy
	case LogNormal:
		if !(x > 0) {
			return math.Inf(-1), 0
		}
		l := math.Log(x)
		r := (l - a) / b
		return -l - logSqrt2Pi - math.Log(b) - 0.5*r*r, (-1/x - r/(b*x)) * dxdt
	case LogLaplace:
		if !(x > 0) {
			return math.Inf(-1), 0
		}
		l := math.Log(x)
		return -math.Log(2*b*x) - math.Abs(l-a)/b, (-1/x - sign(l-a)/(b*x)) * dxdt
	}
	return 0, 0
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
