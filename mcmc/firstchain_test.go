package mcmc

import (
	"context"
	"math"
	"testing"
)

// TestFirstChain: chain 2 run alone (FirstChain 2, one chain, as a Slurm
// array task runs it) is bit-identical to chain 2 of a four-chain run
// with the same seed, and carries index 2.
func TestFirstChain(t *testing.T) {
	mu, cov := corr2()
	for _, s := range []Sampler{SMMALA, MALA, RWM} {
		run := func(first, chains int) *Result {
			res, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil },
				&Options{Sampler: s, Chains: chains, FirstChain: first, Warmup: 150, Samples: 100, Seed: 11})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		all, one := run(0, 4), run(2, 1)
		a, b := &all.Chains[2], &one.Chains[0]
		if b.Index != 2 {
			t.Errorf("%v: chain run alone has index %d, want 2", s, b.Index)
		}
		for j := range a.Draws {
			if math.Float64bits(a.Draws[j]) != math.Float64bits(b.Draws[j]) {
				t.Fatalf("%v: draw %d differs: %v in the four-chain run, %v alone", s, j/all.Dim, a.Draws[j], b.Draws[j])
			}
		}
	}
	if _, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil }, &Options{FirstChain: -1}); err == nil {
		t.Error("negative FirstChain: no error")
	}
}
