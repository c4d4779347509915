package mcmc

import (
	"context"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// peakHeap runs f with the collector at GOGC=1 and returns the largest
// heap seen while it ran (polled every millisecond).
func peakHeap(t *testing.T, f func() error) float64 {
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	runtime.GC()
	done := make(chan struct{})
	peak := make(chan float64)
	go func() {
		m := 0.0
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			m = math.Max(m, float64(ms.HeapAlloc))
			select {
			case <-done:
				peak <- m
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	err := f()
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	return <-peak
}

// liveHeap is the live heap after a collection.
func liveHeap() (live, total float64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc), float64(ms.TotalAlloc)
}

// TestEstimateFootprint: the estimate of what a Result holds is the heap
// it holds (within 10%: slices are rounded up to size classes), and what
// WriteSummary allocates for one quantity, an upper bound of its peak on
// top, is within the Reports estimate.
func TestEstimateFootprint(t *testing.T) {
	mu, cov := rand5()
	opt := Options{Sampler: RWM, Chains: 2, Warmup: 50, Samples: 20000, Seed: 3, Workers: 1}
	before, _ := liveHeap()
	res, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil }, &opt)
	if err != nil {
		t.Fatal(err)
	}
	held, _ := liveHeap()
	fp := EstimateFootprint(&opt, res.Dim, 0, false)
	t.Logf("estimate %v; held %.4g MB", fp, (held-before)/1e6)
	if r := (held - before) / fp.Draws; !(r > 0.9 && r < 1.1) {
		t.Errorf("the Result holds %.4g MB, estimated %.4g MB (ratio %.3f)", (held-before)/1e6, fp.Draws/1e6, r)
	}
	// The peak of the summary and the plots: the heap polled while they
	// run, collected after every 1% of growth so that it stays close to
	// what is live (some seconds of collections: not with -short).
	for _, plots := range []bool{false, true} {
		if testing.Short() {
			break
		}
		peak := peakHeap(t, func() error {
			if plots {
				_, err := WritePlots(t.TempDir(), res, 4)
				return err
			}
			return WriteSummary(io.Discard, res)
		})
		fp := EstimateFootprint(&opt, res.Dim, 0, plots)
		t.Logf("plots %v: peak %.4g MB above the Result, estimated %.4g MB", plots, (peak-held)/1e6, fp.Reports/1e6)
		if peak-held > fp.Reports {
			t.Errorf("plots %v: peak %.4g MB above the Result, more than the estimate %.4g MB", plots, (peak-held)/1e6, fp.Reports/1e6)
		}
	}
	runtime.KeepAlive(res)

	// Defaults and parts: more chains, samples, warm-up or a bigger
	// target each cost more; with plots the reports cost more.
	base := EstimateFootprint(nil, 3, 0, false)
	for name, o := range map[string]Options{"chains": {Chains: 8}, "samples": {Samples: 2000}, "warmup": {Warmup: 5000}} {
		if f := EstimateFootprint(&o, 3, 0, false); !(f.Total() > base.Total()) {
			t.Errorf("%s: %v not more than the defaults' %v", name, f, base)
		}
	}
	if f := EstimateFootprint(nil, 3, 1e6, false); f.Workers-base.Workers != 4e6 {
		t.Errorf("4 workers of 1 MB targets add %g bytes", f.Workers-base.Workers)
	}
	if f := EstimateFootprint(nil, 3, 0, true); !(f.Reports > base.Reports) {
		t.Errorf("plots do not add to the reports: %v", f)
	}
	huge := EstimateFootprint(&Options{Samples: math.MaxInt, Chains: math.MaxInt}, 1000, 0, true)
	if math.IsInf(huge.Total(), 0) || !(huge.Total() > 1e30) {
		t.Errorf("huge counts: %v", huge)
	}
}

// TestRunRefusesOverflowingCounts: counts whose buffers cannot be indexed
// are an error of Run, not a panic in make.
func TestRunRefusesOverflowingCounts(t *testing.T) {
	mu, cov := rand5()
	for _, o := range []Options{
		{Samples: math.MaxInt / 2},
		{Samples: 10, Warmup: math.MaxInt - 5},
		{Samples: 10, Warmup: math.MaxInt / 4, SaveWarmup: true},
		{Samples: 1 << 40, Chains: 1 << 30},
	} {
		o.Sampler = RWM
		_, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil }, &o)
		if err == nil || !strings.Contains(err.Error(), "mcmc:") {
			t.Errorf("%+v: err %v", o, err)
		}
	}
}
