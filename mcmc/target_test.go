package mcmc

import (
	"errors"
	"math"
	"math/rand/v2"
)

// gauss is N(mu, cov) with analytic gradient and metric = precision, the
// reference target for all three samplers.
type gauss struct {
	mu, prec []float64 // prec is cov⁻¹, row-major
	lo, hi   []float64
}

func newGauss(mu, cov []float64) *gauss {
	n := len(mu)
	l := make([]float64, n*n)
	if !cholTo(l, cov, n) {
		panic("test covariance not SPD")
	}
	prec := make([]float64, n*n)
	invertSPDTo(prec, l, make([]float64, n), n)
	return &gauss{mu: mu, prec: prec}
}

func (g *gauss) Dim() int                   { return len(g.mu) }
func (g *gauss) Bounds() (lo, hi []float64) { return g.lo, g.hi }
func (g *gauss) Eval(x, grad, metric []float64) (float64, error) {
	n := len(g.mu)
	lp := 0.0
	for i := 0; i < n; i++ {
		s := 0.0
		for j := 0; j < n; j++ {
			s += g.prec[i*n+j] * (x[j] - g.mu[j])
		}
		lp -= 0.5 * (x[i] - g.mu[i]) * s
		if grad != nil {
			grad[i] = -s
		}
	}
	if metric != nil {
		copy(metric, g.prec)
	}
	return lp, nil
}

// corr2 is a 2-D Gaussian with correlation 0.9 and scales 1 and 3.
func corr2() (mu, cov []float64) {
	return []float64{1, -2}, []float64{1, 0.9 * 3, 0.9 * 3, 9}
}

// rand5 is a 5-D Gaussian with a seeded random covariance A Aᵀ + 0.1 I,
// whose scales differ by about a factor of ten.
func rand5() (mu, cov []float64) {
	const n = 5
	rng := rand.New(rand.NewPCG(5, 5))
	a := make([]float64, n*n)
	for i := range a {
		a[i] = rng.NormFloat64() * float64(1+i/n)
	}
	cov = make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < n; k++ {
				cov[i*n+j] += a[i*n+k] * a[j*n+k]
			}
		}
		cov[i*n+i] += 0.1
	}
	mu = []float64{0, 1, -1, 2, 10}
	return mu, cov
}

// poisson is the posterior of a Poisson rate θ > 0 from counts summing to
// y over m observations with a flat prior: Gamma(y+1, rate m). Its Fisher
// information m/θ varies over the support by orders of magnitude, so
// SMMALA's proposal is strongly position dependent, and the lower bound
// 0 is active. It tests the Metropolis-Hastings ratio: dropping either
// proposal's own metric or log-determinant biases the sampled marginal.
type poisson struct{ y, m float64 }

func (p *poisson) Dim() int                   { return 1 }
func (p *poisson) Bounds() (lo, hi []float64) { return []float64{0}, nil }
func (p *poisson) Eval(x, grad, metric []float64) (float64, error) {
	th := x[0]
	if th <= 0 {
		return math.Inf(-1), nil
	}
	if grad != nil {
		grad[0] = p.y/th - p.m
	}
	if metric != nil {
		metric[0] = p.m / th
	}
	return p.y*math.Log(th) - p.m*th, nil
}

// flaky wraps a target and fails in a region of the parameter space, as an
// ODE solver does at stiff parameters.
type flaky struct {
	Target
	calls, fails int
}

var errSolver = errors.New("solver failed")

func (f *flaky) Eval(x, grad, metric []float64) (float64, error) {
	f.calls++
	if x[0] > 1.5 {
		f.fails++
		return 0, errSolver
	}
	return f.Target.Eval(x, grad, metric)
}

// banana is θ₁ ~ N(0, 1), θ₂ | θ₁ ~ N(bθ₁², 1): the residuals r = (θ₁,
// θ₂ - bθ₁²) are standard normal, and the metric is their Gauss-Newton
// Fisher information JᵀJ = [[1+4b²θ₁², -2bθ₁], [-2bθ₁, 1]], which is how a
// PEtab objective's metric arises. E θ₂ = b, Var θ₂ = 1 + 2b².
type banana struct{ b float64 }

func (g *banana) Dim() int                   { return 2 }
func (g *banana) Bounds() (lo, hi []float64) { return nil, nil }
func (g *banana) Eval(x, grad, metric []float64) (float64, error) {
	b := g.b
	r := x[1] - b*x[0]*x[0]
	if grad != nil {
		grad[0] = -x[0] + 2*b*x[0]*r
		grad[1] = -r
	}
	if metric != nil {
		metric[0] = 1 + 4*b*b*x[0]*x[0]
		metric[1] = -2 * b * x[0]
		metric[2] = metric[1]
		metric[3] = 1
	}
	return -0.5 * (x[0]*x[0] + r*r), nil
}

// ridge is log p = -(θ₁+θ₂)²/2 on the box [-3, 3]²: only the sum is
// identified, so the Fisher information [[1, 1], [1, 1]] is singular, as
// for a PEtab problem with a non-identifiable pair of parameters and
// uniform priors.
type ridge struct{}

func (ridge) Dim() int                   { return 2 }
func (ridge) Bounds() (lo, hi []float64) { return []float64{-3, -3}, []float64{3, 3} }
func (ridge) Eval(x, grad, metric []float64) (float64, error) {
	s := x[0] + x[1]
	if grad != nil {
		grad[0], grad[1] = -s, -s
	}
	if metric != nil {
		metric[0], metric[1], metric[2], metric[3] = 1, 1, 1, 1
	}
	return -0.5 * s * s, nil
}

// ridgeMoments integrates the ridge density on a fine grid: the means
// and covariance the samplers must reproduce.
func ridgeMoments() (mu, cov []float64) {
	const n = 1200
	h := 6.0 / n
	var z, m1, m2, s11, s12, s22 float64
	for i := 0; i < n; i++ {
		a := -3 + (float64(i)+0.5)*h
		for j := 0; j < n; j++ {
			b := -3 + (float64(j)+0.5)*h
			w := math.Exp(-0.5 * (a + b) * (a + b))
			z += w
			m1 += w * a
			m2 += w * b
			s11 += w * a * a
			s12 += w * a * b
			s22 += w * b * b
		}
	}
	m1, m2 = m1/z, m2/z
	return []float64{m1, m2}, []float64{s11/z - m1*m1, s12/z - m1*m2, s12/z - m1*m2, s22/z - m2*m2}
}
