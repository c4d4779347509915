package main

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestFitPower(t *testing.T) {
	ns := []int{5, 10, 20, 40}
	ys := make([]float64, len(ns))
	for i, n := range ns {
		ys[i] = 3e-6 * math.Pow(float64(n), 2.7)
	}
	a, b := fitPower(ns, ys)
	if math.Abs(b-2.7) > 1e-12 || math.Abs(a-3e-6) > 1e-15 {
		t.Errorf("fitPower = %g, %g; want 3e-6, 2.7", a, b)
	}
}

func TestRelErrors(t *testing.T) {
	ref := []float64{0, 0, 3, 4}
	s := []float64{1, 0, 3, 4.5}
	e := relErrors(s, ref, 2)
	if !math.IsNaN(e[0]) || math.Abs(e[1]-0.1) > 1e-15 {
		t.Errorf("relErrors = %v, want [NaN 0.1]", e)
	}
	mx, med := maxMedian([]float64{math.NaN(), 0.1, 0.3, 0.2})
	if mx != 0.3 || med != 0.2 {
		t.Errorf("maxMedian = %g, %g", mx, med)
	}
}

func TestTargetVerdict(t *testing.T) {
	met := &Target{Measured: 12, Bound: 10, AtLeast: true}
	met.check()
	missed := &Target{Measured: 2, Bound: 10, AtLeast: true}
	missed.check()
	over := &Target{Measured: 0.05, Bound: 1e-2}
	over.check()
	if !met.Met || met.verdict() != "met" || missed.Met || missed.verdict() != "missed by 5.000x" || over.verdict() != "missed by 5.000x" {
		t.Errorf("verdicts: %q %q %q", met.verdict(), missed.verdict(), over.verdict())
	}
}

func TestTimeBudget(t *testing.T) {
	calls := 0
	run := func() error { calls++; return nil }
	if _, k, err := timeBudget(run, 5, time.Hour); err != nil || k != 5 || calls != 6 {
		t.Errorf("ample budget: timed %d, calls %d, err %v; want 5 timed after 1 warm-up", k, calls, err)
	}
	calls = 0
	if med, k, err := timeBudget(run, 5, time.Nanosecond); err != nil || k != 0 || calls != 1 || !(med > 0) {
		t.Errorf("budget below the warm-up: timed %d, calls %d, median %g, err %v; want the warm-up alone", k, calls, med, err)
	}
	fail := errors.New("boom")
	if _, _, err := timeBudget(func() error { return fail }, 5, time.Hour); err != fail {
		t.Errorf("error %v, want %v", err, fail)
	}
}
