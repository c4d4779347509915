package mcmc

import (
	"context"
	"testing"
)

var sinkAccept float64

func BenchmarkStepSMMALARand5(b *testing.B) { benchStep(b, SMMALA) }
func BenchmarkStepMALARand5(b *testing.B)   { benchStep(b, MALA) }
func BenchmarkStepRWMRand5(b *testing.B)    { benchStep(b, RWM) }

// benchStep times one transition on the 5-D Gaussian, target included:
// the sampler's own overhead per iteration, to compare with a target's
// evaluation cost.
func benchStep(b *testing.B, s Sampler) {
	mu, cov := rand5()
	k := newKernel(newGauss(mu, cov), s, nil, nil, chainRNG(1, 0))
	k.eps = 0.5
	copy(k.cur.theta, mu)
	if s != SMMALA {
		k.setPrecondition(cov)
	}
	k.evalState(k.cur)
	b.ReportAllocs()
	for b.Loop() {
		a, _ := k.step()
		sinkAccept += a
	}
}

func BenchmarkRunSMMALARand5(b *testing.B) { benchRun(b, SMMALA) }
func BenchmarkRunMALARand5(b *testing.B)   { benchRun(b, MALA) }
func BenchmarkRunRWMRand5(b *testing.B)    { benchRun(b, RWM) }

// benchRun reports bulk ESS per target evaluation of the slowest-mixing
// parameter: the figure that matters when the target is an ODE solve.
func benchRun(b *testing.B, s Sampler) {
	mu, cov := rand5()
	var essPerEval float64
	for b.Loop() {
		res, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil },
			&Options{Sampler: s, Chains: 4, Warmup: 1000, Samples: 2000, Seed: 1, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		evals := 0
		for _, c := range res.Chains {
			evals += c.Evals
		}
		minESS := 1e300
		for j := 0; j < res.Dim; j++ {
			minESS = min(minESS, ESSBulk(res.Param(j)))
		}
		essPerEval = minESS / float64(evals)
	}
	b.ReportMetric(essPerEval, "minESS/eval")
}
