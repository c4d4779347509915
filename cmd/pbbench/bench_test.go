package main

import (
	"encoding/json"
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

// timeRounds times every run in each round, at least 3 rounds even past
// the budget, at most reps; a failing run drops out with its error and nil
// runs are skipped.
func TestTimeRounds(t *testing.T) {
	var a, b, c int
	fail := errors.New("boom")
	runs := []func() error{
		func() error { a++; return nil },
		nil,
		func() error { b++; return nil },
		func() error { c++; return fail },
	}
	out := timeRounds(runs, 9, time.Hour)
	if a != 10 || b != 10 || c != 1 || out[0].n != 9 || out[2].n != 9 || out[1].n != 0 || out[3].err != fail {
		t.Errorf("ample budget: calls %d %d %d, timed %+v", a, b, c, out)
	}
	a = 0
	out = timeRounds(runs[:1], 9, time.Nanosecond)
	if a != 4 || out[0].n != 3 || !(out[0].median >= 0) {
		t.Errorf("budget below a round: %d calls, %+v; want a warm-up and 3 rounds", a, out[0])
	}
}

// The PEtab target takes the ratio of the fastest passing method and
// misses below 5.
func TestPetabTargets(t *testing.T) {
	rs := []*PetabResult{
		{Problem: "a", Best: "PBSR", Ratios: map[string]map[string]num{"llh+grad": {"PBSR": 7, "FS": 2}}},
		{Problem: "b", Best: "FS", Ratios: map[string]map[string]num{"llh+grad": {"FS": 2}}},
		{Problem: "c"},
		{Problem: "events", NoCVODES: petabNoCVODES + "a delayed event"},
	}
	var got []*Target
	petabTargets(rs, func(what string, m, bound float64, atLeast bool) {
		tg := &Target{What: what, Measured: m, Bound: bound, AtLeast: atLeast}
		tg.check()
		got = append(got, tg)
	})
	if len(got) != 3 || !got[0].Met || got[0].Measured != 7 || got[1].Met || got[1].verdict() != "missed by 2.500x" || got[2].verdict() != "not measured" {
		for _, g := range got {
			t.Logf("%s %g %s", g.What, g.Measured, g.verdict())
		}
		t.Error("PEtab targets wrong")
	}
}

// A target that was not measured is written with "measured": null
// (encoding/json refuses NaN).
func TestTargetJSON(t *testing.T) {
	b, err := json.Marshal([]*Target{{What: "x", Measured: math.NaN(), Bound: 5, AtLeast: true}, {What: "y", Measured: 7, Bound: 5}})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"target":"x","bound":5,"at_least":true,"met":false,"measured":null},{"target":"y","bound":5,"at_least":false,"met":false,"measured":7}]`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
