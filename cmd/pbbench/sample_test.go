package main

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pbgen/pbgen/mcmc"
)

// TestSummariseRun: the overhead is the chains' time not spent in the
// objective, ESS per second divides by the summed sampling time, and the
// overhead target is judged against 5% for the gradient-based runs only.
func TestSummariseRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, dim = 400, 2
	res := &mcmc.Result{Dim: dim, Names: []string{"a", "b"}}
	for c := 0; c < 2; c++ {
		ch := mcmc.Chain{Index: c, WarmupTime: time.Second, SampleTime: 3 * time.Second, Accepted: n / 2}
		for i := 0; i < n; i++ {
			ch.Draws = append(ch.Draws, rng.NormFloat64(), rng.NormFloat64())
			ch.LogPost = append(ch.LogPost, rng.NormFloat64())
			ch.AcceptStat = append(ch.AcceptStat, 0.5)
		}
		res.Chains = append(res.Chains, ch)
	}
	targets := []*timedTarget{{evalTime: 3 * time.Second, evals: 300}, {evalTime: 3600 * time.Millisecond, evals: 300}}
	r := summariseRun("SMMALA+FS", res, targets)
	if got := float64(r.Overhead); math.Abs(got-(1-6.6/8)) > 1e-12 {
		t.Errorf("overhead %g, want %g", got, 1-6.6/8)
	}
	if r.Evals != 600 || math.Abs(float64(r.SecPerEval)-0.011) > 1e-12 || r.Accept != 0.5 {
		t.Errorf("evals %d, s/eval %g, accept %g", r.Evals, r.SecPerEval, r.Accept)
	}
	// iid draws: bulk ESS near the 800 draws, over 6 s of sampling.
	if float64(r.MinESSPerSec) < 400.0/6 || float64(r.MinESSPerSec) > float64(r.MedianESSPerSec) {
		t.Errorf("min ESS/s %g, median %g", r.MinESSPerSec, r.MedianESSPerSec)
	}
	ts := samplingTargets(&SamplingResult{Runs: []*SamplingRun{r, {Name: "RWM", Overhead: 0.5}, {Name: "MALA+FS", Overhead: 0.01}}})
	if len(ts) != 2 || ts[0].Met || !ts[1].Met {
		t.Errorf("targets %+v, %+v: want SMMALA+FS missed (17.5%%), MALA+FS met, RWM not judged", ts[0], ts[1])
	}
}
