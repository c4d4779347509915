package mcmc

import (
	"context"
	"os"
	"testing"
)

// TestCompareSamplers prints each sampler's acceptance, worst bulk and
// tail ESS, worst R-hat and bulk ESS per 1000 target evaluations (warm-up
// included) on the test targets. It is a measurement, not a check: run it
// with MCMC_COMPARE=1 go test -run CompareSamplers -v ./mcmc.
func TestCompareSamplers(t *testing.T) {
	if os.Getenv("MCMC_COMPARE") == "" {
		t.Skip("set MCMC_COMPARE=1 to run")
	}
	mu, cov := rand5()
	targets := map[string]func() (Target, error){
		"rand5":  func() (Target, error) { return newGauss(mu, cov), nil },
		"banana": func() (Target, error) { return &banana{1}, nil },
		"gamma":  func() (Target, error) { return &poisson{2, 1}, nil },
		"ridge":  func() (Target, error) { return ridge{}, nil },
		"decay":  func() (Target, error) { return newDecay(), nil },
	}
	for _, name := range []string{"rand5", "banana", "gamma", "ridge", "decay"} {
		for _, s := range []Sampler{SMMALA, MALA, RWM} {
			res, err := Run(context.Background(), targets[name], &Options{Sampler: s, Chains: 4, Warmup: 1000, Samples: 2000, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			evals, acc := 0, 0
			for _, c := range res.Chains {
				evals += c.Evals
				acc += c.Accepted
			}
			minB, minT, maxR := 1e300, 1e300, 0.0
			for j := 0; j < res.Dim; j++ {
				x := res.Param(j)
				minB = min(minB, ESSBulk(x))
				minT = min(minT, ESSTail(x))
				maxR = max(maxR, SplitRhat(x))
			}
			t.Logf("%-6s %-6v accept %.3f  min ESS bulk %6.0f tail %6.0f  max R-hat %.3f  bulk ESS/1000 evals %.1f", name, s, float64(acc)/8000, minB, minT, maxR, 1000*minB/float64(evals))
		}
	}
}
