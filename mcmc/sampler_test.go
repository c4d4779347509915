package mcmc

import (
	"context"
	"fmt"
	"math"
	"testing"
)

func runGauss(t *testing.T, s Sampler, mu, cov []float64, opt Options) *Result {
	t.Helper()
	opt.Sampler = s
	res, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil }, &opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkMoments compares each mean and each covariance entry with the truth
// within k Monte Carlo standard errors, the MCSE of a covariance entry being
// that of the mean of the product of centred draws.
func checkMoments(t *testing.T, res *Result, mu, cov []float64, k float64) {
	t.Helper()
	n := res.Dim
	cols := make([][][]float64, n)
	for j := range cols {
		cols[j] = res.Param(j)
	}
	for i := 0; i < n; i++ {
		x := cols[i]
		m, _ := meanSD(x)
		se := MCSEMean(x)
		if d := math.Abs(m - mu[i]); !(d <= k*se) {
			t.Errorf("mean[%d] = %.4g, want %.4g ± %d×%.3g", i, m, mu[i], int(k), se)
		}
		for j := 0; j <= i; j++ {
			prod := make([][]float64, len(x))
			for c := range x {
				prod[c] = make([]float64, len(x[c]))
				for d := range x[c] {
					prod[c][d] = (x[c][d] - mu[i]) * (cols[j][c][d] - mu[j])
				}
			}
			v, _ := meanSD(prod)
			se := MCSEMean(prod)
			if d := math.Abs(v - cov[i*n+j]); !(d <= k*se) {
				t.Errorf("cov[%d,%d] = %.4g, want %.4g ± %d×%.3g", i, j, v, cov[i*n+j], int(k), se)
			}
		}
	}
}

func TestGaussianTargets(t *testing.T) {
	mu2, cov2 := corr2()
	mu5, cov5 := rand5()
	for _, s := range []Sampler{SMMALA, MALA, RWM} {
		for _, tc := range []struct {
			name    string
			mu, cov []float64
			samples int
		}{
			{"corr2", mu2, cov2, 2000},
			{"rand5", mu5, cov5, 2000},
		} {
			t.Run(fmt.Sprintf("%v/%s", s, tc.name), func(t *testing.T) {
				opt := Options{Chains: 4, Warmup: 500, Samples: tc.samples, Seed: testSeed}
				if s == RWM {
					// Haario's covariance needs many random-walk draws, and
					// a random walk's draws are correlated: more of them for
					// R-hat < 1.01.
					opt.Warmup, opt.Samples = 4000, 5*tc.samples
				}
				res := runGauss(t, s, tc.mu, tc.cov, opt)
				// The acceptance of issue #14: 4 chains recover mean and
				// covariance within 4 Monte Carlo standard errors, with
				// split R-hat below 1.01.
				checkMoments(t, res, tc.mu, tc.cov, 4)
				acc := 0
				for _, c := range res.Chains {
					acc += c.Accepted
				}
				rate := float64(acc) / float64(4*opt.Samples)
				want := s.targetAccept()
				if math.Abs(rate-want) > 0.1 {
					t.Errorf("acceptance %.3f, want about %.3f", rate, want)
				}
				for j := 0; j < res.Dim; j++ {
					if r := SplitRhat(res.Param(j)); !(r < 1.01) {
						t.Errorf("R-hat[%d] = %.4f", j, r)
					}
				}
				t.Logf("acceptance %.3f, step %.3g, ESS bulk[0] %.0f", rate, res.Chains[0].StepSize, ESSBulk(res.Param(0)))
			})
		}
	}
}
