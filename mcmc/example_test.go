package mcmc_test

import (
	"context"
	"fmt"
	"math"

	"github.com/pbgen/pbgen/mcmc"
)

// normal2 is a correlated 2-D normal posterior, N(mu, Σ) with
// Σ = [[1, 0.8], [0.8, 1]], and theta₁ ≥ -3 as a bound.
type normal2 struct{ mu [2]float64 }

func (g *normal2) Dim() int { return 2 }

func (g *normal2) Bounds() (lo, hi []float64) {
	return []float64{-3, math.Inf(-1)}, nil
}

// Eval uses the precision Σ⁻¹ = [[1, -0.8], [-0.8, 1]]/0.36, which is
// also the metric (the Fisher information of a Gaussian).
func (g *normal2) Eval(theta, grad, metric []float64) (float64, error) {
	a, b := theta[0]-g.mu[0], theta[1]-g.mu[1]
	p := [4]float64{1 / 0.36, -0.8 / 0.36, -0.8 / 0.36, 1 / 0.36}
	ga, gb := p[0]*a+p[1]*b, p[2]*a+p[3]*b
	if grad != nil {
		grad[0], grad[1] = -ga, -gb
	}
	if metric != nil {
		copy(metric, p[:])
	}
	return -0.5 * (a*ga + b*gb), nil
}

func ExampleRun() {
	newTarget := func() (mcmc.Target, error) { return &normal2{mu: [2]float64{1, 2}}, nil }
	res, err := mcmc.Run(context.Background(), newTarget, &mcmc.Options{
		Sampler: mcmc.SMMALA,
		Chains:  4,
		Warmup:  500,
		Samples: 2000,
		Seed:    1,
		Names:   []string{"a", "b"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// mcmc.WriteSummary(os.Stdout, res) prints the full table;
	// mcmc.WriteCSVFiles(dir, res) and mcmc.WritePlots(dir, res, 4) write
	// chain_N.csv and the PNGs.
	for _, s := range mcmc.Summarize(res)[2:] {
		fmt.Printf("%s: mean %.1f, sd %.1f, R-hat < 1.01: %v\n", s.Name, s.Mean, s.StdDev, s.Rhat < 1.01)
	}
	// Output:
	// a: mean 1.0, sd 1.0, R-hat < 1.01: true
	// b: mean 2.0, sd 1.0, R-hat < 1.01: true
}
