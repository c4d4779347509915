package mcmc

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// decay is a PEtab-like problem in miniature: y(t) = A e^{-kt} observed
// with Gaussian noise σ at a few times, parameters on the log10 scale with
// uniform priors on [-2, 2]. Its metric is the Fisher information
// JᵀJ/σ² of the residuals, position dependent through A and k, and the
// posterior is curved (A and k trade off).
type decay struct {
	t, y  []float64
	sigma float64
}

func newDecay() *decay {
	d := &decay{t: []float64{0.5, 1, 2, 4}, sigma: 0.4}
	rng := rand.New(rand.NewPCG(3, 3))
	for _, t := range d.t {
		d.y = append(d.y, 2*math.Exp(-0.3*t)+d.sigma*rng.NormFloat64())
	}
	return d
}

func (d *decay) Dim() int                   { return 2 }
func (d *decay) Bounds() (lo, hi []float64) { return []float64{-2, -2}, []float64{2, 2} }
func (d *decay) Eval(x, grad, metric []float64) (float64, error) {
	a, k := math.Pow(10, x[0]), math.Pow(10, x[1])
	s2 := d.sigma * d.sigma
	lp := 0.0
	if grad != nil {
		grad[0], grad[1] = 0, 0
	}
	if metric != nil {
		clear(metric[:4])
	}
	for i, t := range d.t {
		e := math.Exp(-k * t)
		r := d.y[i] - a*e
		lp -= r * r / (2 * s2)
		// d model / d log10 A, d model / d log10 k
		j0, j1 := a*e*math.Ln10, -a*t*e*k*math.Ln10
		if grad != nil {
			grad[0] += r * j0 / s2
			grad[1] += r * j1 / s2
		}
		if metric != nil {
			metric[0] += j0 * j0 / s2
			metric[1] += j0 * j1 / s2
			metric[3] += j1 * j1 / s2
		}
	}
	if metric != nil {
		metric[2] = metric[1]
	}
	return lp, nil
}

// gridMoments integrates exp(lp) of a 2-D target over its box by the
// midpoint rule on an n×n grid.
func gridMoments(tg Target, n int) (mu, cov []float64) {
	lo, hi := tg.Bounds()
	ha, hb := (hi[0]-lo[0])/float64(n), (hi[1]-lo[1])/float64(n)
	lps := make([]float64, n*n)
	maxLP := math.Inf(-1)
	x := make([]float64, 2)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x[0], x[1] = lo[0]+(float64(i)+0.5)*ha, lo[1]+(float64(j)+0.5)*hb
			lp, _ := tg.Eval(x, nil, nil)
			lps[i*n+j] = lp
			maxLP = math.Max(maxLP, lp)
		}
	}
	var z, m1, m2, s11, s12, s22 float64
	for i := 0; i < n; i++ {
		a := lo[0] + (float64(i)+0.5)*ha
		for j := 0; j < n; j++ {
			b := lo[1] + (float64(j)+0.5)*hb
			w := math.Exp(lps[i*n+j] - maxLP)
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

// TestDecayPosterior: every sampler reproduces the moments of the decay
// posterior, computed by quadrature, within 4 MCSE.
func TestDecayPosterior(t *testing.T) {
	d := newDecay()
	mu, cov := gridMoments(d, 1000)
	t.Logf("quadrature: mean %.4f %.4f, sd %.4f %.4f, corr %.3f", mu[0], mu[1], math.Sqrt(cov[0]), math.Sqrt(cov[3]), cov[1]/math.Sqrt(cov[0]*cov[3]))
	for _, s := range []Sampler{SMMALA, MALA, RWM} {
		res, err := Run(context.Background(), func() (Target, error) { return newDecay(), nil },
			&Options{Sampler: s, Chains: 4, Warmup: 1000, Samples: 3000, Seed: testSeed})
		if err != nil {
			t.Fatal(err)
		}
		checkMoments(t, res, mu, cov, 4)
		acc, oob := 0, 0
		for _, c := range res.Chains {
			acc += c.Accepted
			oob += c.OutOfBounds
		}
		t.Logf("%v: acceptance %.3f, out of bounds %d, bulk ESS %.0f %.0f, R-hat %.3f %.3f", s, float64(acc)/12000, oob,
			ESSBulk(res.Param(0)), ESSBulk(res.Param(1)), SplitRhat(res.Param(0)), SplitRhat(res.Param(1)))
	}
}
