package main

import (
	"encoding/json"
	"fmt"
	"math"
)

// Target is one of the performance goals, checked on the numbers
// of this run.
type Target struct {
	What     string  `json:"target"`
	Measured float64 `json:"measured"`
	Bound    float64 `json:"bound"`
	AtLeast  bool    `json:"at_least"` // measured >= bound is met; else measured <= bound
	Met      bool    `json:"met"`
}

// MarshalJSON writes a target not measured (NaN) with "measured": null,
// which encoding/json cannot do for a float64.
func (t *Target) MarshalJSON() ([]byte, error) {
	type plain Target
	return json.Marshal(struct {
		*plain
		Measured num `json:"measured"`
	}{(*plain)(t), num(t.Measured)})
}

func (t *Target) check() {
	if t.AtLeast {
		t.Met = t.Measured >= t.Bound
	} else {
		t.Met = t.Measured <= t.Bound
	}
}

// verdict says met, or by what factor the target was missed.
func (t *Target) verdict() string {
	switch {
	case math.IsNaN(t.Measured):
		return "not measured"
	case t.Met:
		return "met"
	case t.AtLeast:
		return fmt.Sprintf("missed by %.3fx", t.Bound/t.Measured)
	}
	return fmt.Sprintf("missed by %.3fx", t.Measured/t.Bound)
}

// checkTargets evaluates the targets that the run has data for.
func checkTargets(res *Results) []*Target {
	var ts []*Target
	add := func(what string, measured, bound float64, atLeast bool) {
		t := &Target{What: what, Measured: measured, Bound: bound, AtLeast: atLeast}
		t.check()
		ts = append(ts, t)
	}
	for _, mr := range res.Table {
		r := func(a, b string) float64 {
			if v, ok := mr.Ratios[a+" / "+b]; ok {
				return v
			}
			return math.NaN()
		}
		errOf := func(name string) float64 {
			if m := mr.find(name); m != nil && m.ErrT != nil {
				return m.MaxErr
			}
			return math.NaN()
		}
		switch mr.Model {
		case "CaMKII":
			add("CaMKII: CVODES FS (errconS on) / PBSR >= 10", r("FS errcon on (CVODES)", "PBSR (ours)"), 10, true)
			add("CaMKII: CVODES FS (errconS on) / Exp >= 10", r("FS errcon on (CVODES)", "Exp (ours)"), 10, true)
			add("CaMKII: PBSR max relative error <= 1e-2", errOf("PBSR (ours)"), 1e-2, false)
			add("CaMKII: PBSR / our states-only <= 10", r("PBSR (ours)", "states (ours)"), 10, false)
			add("CaMKII: our states / CVODES states <= 1.5", r("states (ours)", "states (CVODES)"), 1.5, false)
			add("CaMKII: our FS / CVODES FS (errcon on) <= 1.5", r("FS errcon on (ours)", "FS errcon on (CVODES)"), 1.5, false)
		case "PKA":
			add("PKA: CVODES FS (errconS on) / PBSR > 1", r("FS errcon on (CVODES)", "PBSR (ours)"), 1, true)
			add("PKA: CVODES FS (errconS on) / Exp > 1", r("FS errcon on (CVODES)", "Exp (ours)"), 1, true)
		}
	}
	if haveCVODES {
		petabTargets(res.Petab, add)
	}
	if lr := res.Linear; lr != nil {
		for _, e := range []struct {
			name  string
			paper float64
		}{{"Exp", 2.1}, {"PBSR", 3.7}, {"FS", 4.2}} {
			add(fmt.Sprintf("random linear: %s exponent <= %.1f (paper)", e.name, e.paper), lr.Exponent[e.name], e.paper, false)
		}
		if n := len(lr.N); n >= 2 {
			// The paper's PBSR (Peano-Baker always), and ours beside it.
			for _, pb := range []string{"PBSR", "PBSR-ours"} {
				first := lr.Times["FS"][0] / lr.Times[pb][0]
				last := lr.Times["FS"][n-1] / lr.Times[pb][n-1]
				add(fmt.Sprintf("random linear: FS/%s grows in n (last/first >= 1)", pb), last/first, 1, true)
			}
		}
	}
	return ts
}

func printTargets(ts []*Target) {
	fmt.Println("\n== targets")
	for _, t := range ts {
		fmt.Printf("  %-55s measured %9.3g  %s\n", t.What, t.Measured, t.verdict())
	}
}
