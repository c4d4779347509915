package mcmc

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

type randT = rand.Rand

// TestSameSeedAnyWorkers runs the same chains on 1 and 3 workers: each
// chain's generator depends on (Seed, chain) only, so the draws must be
// bit-identical; a different seed must change them.
func TestSameSeedAnyWorkers(t *testing.T) {
	mu, cov := corr2()
	for _, s := range []Sampler{SMMALA, MALA, RWM} {
		run := func(workers int, seed uint64) *Result {
			opt := &Options{Sampler: s, Chains: 5, Warmup: 200, Samples: 200, Seed: seed, Workers: workers}
			res, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil }, opt)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		a, b, c := run(1, 42), run(3, 42), run(3, 43)
		for i := range a.Chains {
			ca, cb := &a.Chains[i], &b.Chains[i]
			if ca.Index != i || cb.Index != i {
				t.Fatalf("%v: chain %d has index %d, %d", s, i, ca.Index, cb.Index)
			}
			for j := range ca.Draws {
				if math.Float64bits(ca.Draws[j]) != math.Float64bits(cb.Draws[j]) {
					t.Fatalf("%v: chain %d draw %d differs between 1 and 3 workers: %v, %v", s, i, j/a.Dim, ca.Draws[j], cb.Draws[j])
				}
			}
			if ca.StepSize != cb.StepSize {
				t.Errorf("%v: chain %d step size %v vs %v", s, i, ca.StepSize, cb.StepSize)
			}
		}
		if a.Chains[0].Draws[0] == c.Chains[0].Draws[0] && a.Chains[0].Draws[len(a.Chains[0].Draws)-1] == c.Chains[0].Draws[len(c.Chains[0].Draws)-1] {
			t.Errorf("%v: seeds 42 and 43 gave the same chain", s)
		}
		if a.Chains[0].Draws[0] == a.Chains[1].Draws[0] {
			t.Errorf("%v: chains 1 and 2 start alike", s)
		}
	}
}

// TestFailingTarget: a target that errs for θ₁ > 1.5 (31% of the mass of
// the first coordinate, N(1, 1)) must not stop the run; every failure is a counted rejection and the
// chains then sample the posterior truncated to θ₁ ≤ 1.5.
func TestFailingTarget(t *testing.T) {
	mu, cov := corr2()
	for _, s := range []Sampler{SMMALA, MALA, RWM} {
		var targets []*flaky
		opt := &Options{Sampler: s, Chains: 2, Warmup: 300, Samples: 1000, Seed: 3, Workers: 1}
		res, err := Run(context.Background(), func() (Target, error) {
			f := &flaky{Target: newGauss(mu, cov)}
			targets = append(targets, f)
			return f, nil
		}, opt)
		if err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		failed, fails := 0, 0
		for _, c := range res.Chains {
			failed += c.Failed
			if c.Failed > 0 && c.FirstFailure == "" {
				t.Errorf("%v: chain %d: %d failures without a message", s, c.Index, c.Failed)
			}
			for i := range c.LogPost {
				if x := c.Draws[i*res.Dim]; x > 1.5 {
					t.Fatalf("%v: draw %v in the failing region", s, x)
				}
			}
		}
		for _, f := range targets {
			fails += f.fails
		}
		if failed == 0 || failed != fails {
			t.Errorf("%v: chains counted %d failures, the target returned %d errors", s, failed, fails)
		}
		t.Logf("%v: %d failed evaluations counted; first: %s", s, failed, res.Chains[0].FirstFailure)
		var buf bytes.Buffer
		if err := WriteCSV(&buf, res, 0); err != nil {
			t.Fatal(err)
		}
		f, err := ReadCSV(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := f.Config["failed_evaluations"], strconv.Itoa(res.Chains[0].Failed); got != want {
			t.Errorf("%v: csv failed_evaluations = %q, want %q", s, got, want)
		}
	}
}

// TestRunErrors: bad targets and options are errors, not panics.
func TestRunErrors(t *testing.T) {
	mu, cov := corr2()
	good := func() (Target, error) { return newGauss(mu, cov), nil }
	bad := map[string]struct {
		f   func() (Target, error)
		opt *Options
	}{
		"factory error": {func() (Target, error) { return nil, errors.New("no problem file") }, nil},
		"names":         {good, &Options{Names: []string{"a"}}},
		"empty bounds": {func() (Target, error) {
			g := newGauss(mu, cov)
			g.lo, g.hi = []float64{0, 0}, []float64{1, 0}
			return g, nil
		}, nil},
		"bounds length": {func() (Target, error) {
			g := newGauss(mu, cov)
			g.lo = []float64{0}
			return g, nil
		}, nil},
		"always failing": {func() (Target, error) {
			return &flaky{Target: newGauss([]float64{5, 5}, cov)}, nil
		}, &Options{Init: func(_ int, _ *randT, dst []float64) { dst[0], dst[1] = 2, 2 }, MaxInitTries: 3}},
	}
	for name, tc := range bad {
		if _, err := Run(context.Background(), tc.f, tc.opt); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, good, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// TestStepAllocs: after warm-up a transition allocates nothing, so a
// long run does not churn the garbage collector between target calls.
func TestStepAllocs(t *testing.T) {
	mu, cov := rand5()
	for _, s := range []Sampler{SMMALA, MALA, RWM} {
		k := newKernel(newGauss(mu, cov), s, nil, nil, chainRNG(1, 0))
		k.eps = 0.5
		copy(k.cur.theta, mu)
		if s != SMMALA {
			k.setPrecondition(cov)
		}
		if !k.evalState(k.cur) {
			t.Fatal("evaluation failed at the mean")
		}
		if a := testing.AllocsPerRun(100, func() { k.step() }); a != 0 {
			t.Errorf("%v: %v allocations per step", s, a)
		}
	}
}

func TestNoWarmup(t *testing.T) {
	mu, cov := corr2()
	res, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil },
		&Options{Sampler: MALA, Chains: 1, Warmup: -1, Samples: 100, StepSize: 0.3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Chains[0]; res.Options.Warmup != 0 || c.StepSize != 0.3 || len(c.LogPost) != 100 {
		t.Errorf("warmup %d, step %v, %d draws", res.Options.Warmup, c.StepSize, len(c.LogPost))
	}
}

// noMetric is a target that cannot compute a metric, like an objective
// without sensitivities.
type noMetric struct{ Target }

func (n noMetric) Eval(x, grad, metric []float64) (float64, error) {
	if metric != nil {
		return 0, errors.New("no metric")
	}
	return n.Target.Eval(x, grad, nil)
}

// TestWithoutMetric: MALA and RWM start from the identity when the target
// has no metric, and still find the posterior's scales in warm-up.
func TestWithoutMetric(t *testing.T) {
	mu, cov := corr2()
	for _, s := range []Sampler{MALA, RWM} {
		res, err := Run(context.Background(), func() (Target, error) { return noMetric{newGauss(mu, cov)}, nil },
			&Options{Sampler: s, Chains: 4, Warmup: 1000, Samples: 2000, Seed: testSeed})
		if err != nil {
			t.Fatal(err)
		}
		checkMoments(t, res, mu, cov, 4)
		for _, c := range res.Chains {
			if c.Failed != 0 {
				t.Errorf("%v: the metric call at the start counted as a failure", s)
			}
		}
	}
}
