package testsuite

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// TestDelayCases runs every TimeCourse case with csymbol delay (the full
// suite's when present, else the vendored 00938, 00985, 01414, 01481,
// 01518, 01521 and 01539): each passes or is refused by name for another
// construct, never for the delay itself nor for the delay combined with
// events, algebraic rules or fast reactions.
func TestDelayCases(t *testing.T) {
	dir, _ := suites.SBMLCases(t)
	cases, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cases {
		if c.TestType != "TimeCourse" {
			continue
		}
		for _, tag := range c.Tags {
			if tag == "CSymbolDelay" {
				ids = append(ids, c.ID)
				break
			}
		}
	}
	if len(ids) == 0 {
		t.Fatalf("no delay cases in %s", dir)
	}
	outs, err := RunDir(dir, &Filter{IDs: ids, All: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	passed := 0
	for _, o := range outs {
		switch o.Status {
		case Passed:
			passed++
		case Failed:
			t.Errorf("delay case %s failed: %s", o.Case.ID, o.Reason)
		case Skipped:
			if strings.HasSuffix(o.Reason, ": csymbol delay is not supported") || strings.Contains(o.Reason, "with csymbol delay") {
				t.Errorf("delay case %s skipped for its delay: %s", o.Case.ID, o.Reason)
			}
		}
	}
	t.Logf("%d delay cases in %s: %d passed", len(outs), dir, passed)
}

// Sensitivities through delays are refused by name, by runtime/sens and
// runtime/events alike (runtime/ode refuses the model), not computed as
// if the delayed values were constants.
func TestDelaySensRefused(t *testing.T) {
	dir := suites.Testdata(t, suites.SBMLSubset)
	sys, err := Lower(filepath.Join(dir, "01414", "01414-sbml-l3v2.xml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := interp.NewWithEvents(sys)
	if err != nil {
		t.Fatal(err)
	}
	if !model.HasDelays(m) {
		t.Fatal("01414 has no delays")
	}
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	x0 := make([]float64, model.NumStates(m))
	m.InitialState(x0, p)
	ts := []float64{0, 1, 2}
	var res sens.Result
	if err := sens.NewSolver(m, &sens.Options{Method: sens.FS}).Solve(&res, p, x0, 0, ts); !errors.Is(err, ode.ErrDelays) {
		t.Errorf("sens: err = %v, want ode.ErrDelays", err)
	}
	if _, err := events.SolveSens(m, p, x0, nil, ts, nil); !errors.Is(err, ode.ErrDelays) || !strings.Contains(err.Error(), "csymbol delay") {
		t.Errorf("events.SolveSens: err = %v, want ode.ErrDelays naming csymbol delay", err)
	}
}
