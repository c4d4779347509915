package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// TestBenchScaleTiny runs the scaling section on chains of 12 and 24
// states with PBSR and Exp limited to 12: every series must hold the
// sizes it ran, with the columns of S it was asked for, the exponents
// must be the least-squares fit of the printed medians, and a series with
// one size is neither fitted nor judged.
func TestBenchScaleTiny(t *testing.T) {
	c := &config{scaleN: "12, 24", scaleMaxDense: 12, scaleMaxCVDense: 12, scaleReps: 2, scaleBudget: 200 * time.Millisecond}
	var out strings.Builder
	sr, err := benchScale(c, &out)
	if err != nil {
		t.Fatal(err)
	}
	text := out.String()
	// n = 12: 4 units, 2 kon + 4 kcat + koff + krev = 8 parameters;
	// n = 24: 4 + 8 + 2 = 14, both below the 20 of scaleParams.
	want := map[string]struct{ n, ns []int }{
		scaleStates: {[]int{12, 24}, []int{0, 0}},
		scaleFS:     {[]int{12, 24}, []int{8, 14}},
		scaleFSHalf: {[]int{12, 24}, []int{6, 12}},
		scalePBSR:   {[]int{12}, []int{8}},
		scaleExp:    {[]int{12}, []int{8}},
	}
	if haveCVODES {
		want[scaleCVStates] = struct{ n, ns []int }{[]int{12, 24}, []int{0, 0}}
		want[scaleCVFS] = struct{ n, ns []int }{[]int{12, 24}, []int{8, 14}}
		want[scaleCVFSDense] = struct{ n, ns []int }{[]int{12}, []int{8}}
	}
	if len(sr.Series) != len(want) {
		t.Errorf("%d series, want %d", len(sr.Series), len(want))
	}
	for _, s := range sr.Series {
		w := want[s.Method]
		if fmt.Sprint(s.N) != fmt.Sprint(w.n) || fmt.Sprint(s.NS) != fmt.Sprint(w.ns) || len(s.Median) != len(w.n) || len(s.Solves) != len(w.n) {
			t.Errorf("%s: n %v, ns %v, %d medians, %d counts; want n %v, ns %v", s.Method, s.N, s.NS, len(s.Median), len(s.Solves), w.n, w.ns)
			continue
		}
		for i, m := range s.Median {
			if !(m > 0) || !strings.Contains(text, dur(float64(m))) {
				t.Errorf("%s n=%d: median %g not positive or not printed", s.Method, s.N[i], m)
			}
		}
		if len(s.N) < 2 {
			if !math.IsNaN(float64(s.Exponent)) || !strings.Contains(text, fmt.Sprintf("%-10s b not fitted (1 sizes)", s.Method)) {
				t.Errorf("%s: one size but exponent %g", s.Method, s.Exponent)
			}
			continue
		}
		b := math.Log(float64(s.Median[1]/s.Median[0])) / math.Log(2)
		if math.Abs(float64(s.Exponent)-b) > 1e-9 {
			t.Errorf("%s: exponent %g, want the two-point slope %g", s.Method, s.Exponent, b)
		}
		if line := fmt.Sprintf("%-10s b = %.2f  (n = 12..24)", s.Method, b); !strings.Contains(text, line) {
			t.Errorf("output lacks %q:\n%s", line, text)
		}
	}
	if !strings.Contains(text, "    24     14") || strings.Count(text, " -") < 2 {
		t.Errorf("table row of n = 24 missing or PBSR, Exp not marked skipped:\n%s", text)
	}
	ts := scaleTargets(sr)
	nt := 4
	if haveCVODES {
		nt = 5
		// The ratios are those of the printed medians, at the sizes both ran.
		for _, r := range sr.Ratios {
			num, den := sr.series(r.Num), sr.series(r.Den)
			if len(r.N) != len(num.N) || len(r.Ratio) != len(r.N) {
				t.Errorf("ratio %s/%s at %v, want %v", r.Num, r.Den, r.N, num.N)
				continue
			}
			for i := range r.N {
				if want := num.Median[i] / den.Median[i]; math.Abs(float64(r.Ratio[i]-want)) > 1e-12*float64(want) ||
					!strings.Contains(text, fmt.Sprintf("%7.2fx", float64(want))) {
					t.Errorf("ratio %s/%s n=%d: %g, want %g, printed", r.Num, r.Den, r.N[i], r.Ratio[i], want)
				}
			}
		}
		if f := ts[4]; math.IsNaN(f.Measured) || f.Measured != math.Min(float64(sr.Ratios[0].Ratio[0]), float64(sr.Ratios[0].Ratio[1])) {
			t.Errorf("FS target %+v, want the smaller of %v", f, sr.Ratios[0].Ratio)
		}
	}
	if len(ts) != nt || ts[2].Met || ts[2].verdict() != "not measured" || ts[3].verdict() != "not measured" {
		t.Errorf("targets %+v: want %d, PBSR and Exp not measured", ts, nt)
	}
}

// TestScaleFitTargets: exponents fitted from exact power laws, targets met
// at n^1.2 and missed by 2x at n^3, NaN written as null.
func TestScaleFitTargets(t *testing.T) {
	ns := []int{48, 99, 198, 498}
	series := func(m string, b float64) *ScaleSeries {
		s := &ScaleSeries{Method: m, N: ns}
		for _, n := range ns {
			s.Median = append(s.Median, num(2e-5*math.Pow(float64(n), b)))
		}
		return s
	}
	sr := &ScaleResult{Series: []*ScaleSeries{series(scaleStates, 1.2), series(scaleFS, 1.5),
		series(scalePBSR, 3), {Method: scaleExp}}}
	fitScale(sr)
	for _, c := range []struct {
		m string
		b float64
	}{{scaleStates, 1.2}, {scaleFS, 1.5}, {scalePBSR, 3}} {
		s := sr.series(c.m)
		if math.Abs(float64(s.Exponent)-c.b) > 1e-9 || math.Abs(float64(s.Prefac)-2e-5) > 1e-14 {
			t.Errorf("%s: fit %g n^%g, want 2e-5 n^%g", c.m, s.Prefac, s.Exponent, c.b)
		}
	}
	ts := scaleTargets(sr)
	if !ts[0].Met || !ts[1].Met || ts[2].Met || ts[2].verdict() != "missed by 2.000x" || ts[3].Met {
		t.Errorf("verdicts %q %q %q %q", ts[0].verdict(), ts[1].verdict(), ts[2].verdict(), ts[3].verdict())
	}
	b, err := json.Marshal(sr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"method":"Exp","n":null,"ns":null,"median_s":null,"timed_solves":null,"exponent":null`) {
		t.Errorf("JSON of the unfitted series: %s", b)
	}
	if _, err := parseSizes("12,x"); err == nil {
		t.Error("parseSizes accepted 12,x")
	}
	if _, err := parseSizes("3"); err == nil {
		t.Error("parseSizes accepted 3 states")
	}
}
