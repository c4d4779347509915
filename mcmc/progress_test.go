package mcmc

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestProgressFinal(t *testing.T) {
	mu, cov := corr2()
	var calls atomic.Int64
	var last Progress
	opt := &Options{Chains: 3, Warmup: 100, Samples: 200, Seed: 1, Progress: func(p Progress) {
		calls.Add(1)
		last = p
	}}
	if _, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil }, opt); err != nil {
		t.Fatal(err)
	}
	if calls.Load() == 0 {
		t.Fatal("progress never called")
	}
	if last.Done != 900 || last.Total != 900 || last.ChainsDone != 3 || last.Warmup || last.Remaining != 0 {
		t.Errorf("final progress %+v", last)
	}
	if !(last.Accept > 0.3 && last.Accept < 0.8) || !(last.IterPerSec > 0) {
		t.Errorf("final progress %+v", last)
	}
}

// TestCancelFromProgress: a run far too long to finish stops soon after
// its context is cancelled, as on Ctrl-C in the CLI. The length is in the
// warm-up, which stores nothing: kept draws are allocated up front (10^8
// of them took gigabytes and seconds to zero).
func TestCancelFromProgress(t *testing.T) {
	mu, cov := corr2()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen Progress
	var cancelled time.Time
	opt := &Options{Chains: 2, Warmup: 100_000_000, Samples: 1000, Seed: 1, ProgressEvery: 5 * time.Millisecond,
		Progress: func(p Progress) {
			// On a loaded machine the first tick may come before the
			// first iteration: wait for one.
			if p.Done > 0 && seen.Done == 0 {
				seen = p
				cancelled = time.Now()
				cancel()
			}
		}}
	_, err := Run(ctx, func() (Target, error) { return newGauss(mu, cov), nil }, opt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// The latency of the cancellation itself, from cancel() to Run's
	// return: the time before the first iteration depends on the
	// machine's load (it went past 5 s with go test ./... beside other
	// builds on 2 cores), not on Run.
	if d := time.Since(cancelled); d > 5*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	if !(seen.Done > 0 && seen.Total == 2*(100_000_000+1000) && seen.Remaining > 0) {
		t.Errorf("progress during the run: %+v", seen)
	}
}

func TestProgressString(t *testing.T) {
	p := Progress{Done: 1200, Total: 8000, Warmup: true, IterPerSec: 3400, Accept: 0.571, Failed: 2, Remaining: 2 * time.Second}
	if got, want := p.String(), "warmup 1200/8000 (15%), 3.4e+03 it/s, accept 0.57, 2 failed, 2s left"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
