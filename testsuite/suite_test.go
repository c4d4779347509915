package testsuite

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
)

// TestCoreCases runs every core case through the interpreted model: all
// must pass, none may be skipped. It runs the full SBML Test Suite when
// internal/suites finds it, and the vendored subset otherwise.
func TestCoreCases(t *testing.T) {
	dir, full := suites.SBMLCases(t)
	cases, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	core := 0
	for _, c := range cases {
		if c.Core() {
			core++
		}
	}
	outs, err := RunDir(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	s := Report(&sb, outs)
	t.Logf("SBML Test Suite core cases (interpreted) in %s:\n%s", dir, lastLine(sb.String()))
	if s.Failed > 0 || s.Skipped > 0 || s.Passed != core {
		t.Errorf("core cases: %d passed, %d failed, %d skipped of %d\n%s", s.Passed, s.Failed, s.Skipped, core, sb.String())
	}
	// The full suite has 717 core cases; fewer means a damaged copy or a
	// change in what Core accepts.
	if full && s.Passed < 700 {
		t.Errorf("full suite: only %d core cases passed", s.Passed)
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndex(s, "\n")+1:]
}

func TestClose(t *testing.T) {
	nan, inf := parseNumberMust(t, "NaN"), parseNumberMust(t, "INF")
	cases := []struct {
		want, got, abs, rel float64
		ok                  bool
	}{
		{1, 1.00001, 0, 1e-4, true},
		{1, 1.001, 0, 1e-4, false},
		{0, 1e-8, 1e-7, 0, true},
		{nan, nan, 0, 0, true},
		{nan, 1, 1, 1, false},
		{inf, inf, 0, 0, true},
		{inf, -inf, 0, 0, false},
		{1, nan, 1, 1, false},
	}
	for _, c := range cases {
		if got := Close(c.want, c.got, c.abs, c.rel); got != c.ok {
			t.Errorf("Close(%g, %g, %g, %g) = %v, want %v", c.want, c.got, c.abs, c.rel, got, c.ok)
		}
	}
}

func parseNumberMust(t *testing.T, s string) float64 {
	v, err := parseNumber(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestHarnessOnOwnFolder checks that the harness works on any folder with
// the suite's layout, and that a wrong result is reported as a failure.
func TestHarnessOnOwnFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.MkdirAll(dir+"/90001", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir+"/90001/"+name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("90001-model.m", "componentTags: Compartment, Species, Reaction\ntestTags: Amount\ntestType: TimeCourse\n")
	write("90001-settings.txt", "start: 0\nduration: 1\nsteps: 2\nvariables: A\nabsolute: 1e-9\nrelative: 1e-6\namount: A\nconcentration:\n")
	write("90001-sbml-l3v2.xml", `<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2">
 <model id="decay">
  <listOfCompartments><compartment id="c" size="2" constant="true" spatialDimensions="3"/></listOfCompartments>
  <listOfSpecies><species id="A" compartment="c" initialAmount="1" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/></listOfSpecies>
  <listOfParameters><parameter id="k" value="1" constant="true"/></listOfParameters>
  <listOfReactions><reaction id="r" reversible="false">
   <listOfReactants><speciesReference species="A" stoichiometry="1" constant="true"/></listOfReactants>
   <kineticLaw><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><times/><ci>k</ci><ci>A</ci><ci>c</ci></apply></math></kineticLaw>
  </reaction></listOfReactions>
 </model>
</sbml>`)
	// amount A(t) = exp(-t): correct values pass.
	write("90001-results.csv", "time,A\n0,1\n0.5,0.6065306597126334\n1,0.36787944117144233\n")
	outs, err := RunDir(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 || outs[0].Status != Passed {
		t.Fatalf("correct results: %+v", outs)
	}
	if !testing.Short() {
		// The same case through a generated package (one temporary module).
		var log strings.Builder
		outs, err = RunDirGenerated(dir, nil, nil, &log)
		if err != nil {
			t.Fatal(err)
		}
		if len(outs) != 1 || outs[0].Status != Passed {
			t.Fatalf("generated path: %+v\n%s", outs, log.String())
		}
	}
	// A wrong expected value must fail and say where.
	write("90001-results.csv", "time,A\n0,1\n0.5,0.61\n1,0.36787944117144233\n")
	outs, _ = RunDir(dir, nil, nil)
	if outs[0].Status != Failed || !strings.Contains(outs[0].Reason, "A at t=0.5") {
		t.Fatalf("wrong results: %+v", outs[0])
	}
}

// TestEventCases runs every TimeCourse case with an event tag through the
// interpreted model and runtime/events: none may fail, and a skipped case
// must be refused for a construct other than events. With the full suite
// at least 1000 of all TimeCourse cases pass (1012 when events came in,
// against 717 before).
func TestEventCases(t *testing.T) {
	dir, full := suites.SBMLCases(t)
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
			if strings.HasPrefix(tag, "Event") {
				ids = append(ids, c.ID)
				break
			}
		}
	}
	if len(ids) == 0 {
		t.Fatalf("no event cases in %s", dir)
	}
	outs, err := RunDir(dir, &Filter{IDs: ids}, nil)
	if err != nil {
		t.Fatal(err)
	}
	passed := 0
	for _, o := range outs {
		switch o.Status {
		case Passed:
			passed++
		case Failed:
			t.Errorf("event case %s failed: %s", o.Case.ID, o.Reason)
		case Skipped:
			// The refused construct is named last ("event \"E1\": csymbol
			// rateOf is not supported" is fine).
			if strings.HasSuffix(o.Reason, "event is not supported") || strings.Contains(o.Reason, "events are not supported") {
				t.Errorf("event case %s skipped for its events: %s", o.Case.ID, o.Reason)
			}
		}
	}
	t.Logf("%d event cases in %s: %d passed", len(outs), dir, passed)
	if !full && passed < 13 {
		t.Errorf("vendored subset: %d event cases passed, want all 13", passed)
	}
	if full {
		all, err := RunDir(dir, &Filter{All: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, o := range all {
			if o.Status == Passed {
				n++
			}
		}
		if n < 1000 {
			t.Errorf("full suite: %d TimeCourse cases passed, want at least 1000", n)
		}
	}
}

// TestGeneratedEvents: event cases run through generated packages
// (codegen emits model.Events; the driver's SimulateModel routes them
// through runtime/events.Solve) with the interpreted path's outcome: every
// case the interpreter passes passes, none is skipped for its events.
// With the full suite only the first 25 event cases run (one module
// build each time), enough to cover delays, priorities and persistence.
func TestGeneratedEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a temporary module")
	}
	dir, _ := suites.SBMLCases(t)
	cases, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cases {
		if c.TestType == "TimeCourse" && slices.ContainsFunc(c.Tags, func(tag string) bool { return strings.HasPrefix(tag, "Event") }) {
			ids = append(ids, c.ID)
		}
	}
	ids = ids[:min(len(ids), 25)]
	if len(ids) == 0 {
		t.Fatalf("no event cases in %s", dir)
	}
	f := &Filter{IDs: ids}
	want, err := RunDir(dir, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	gen, err := RunDirGenerated(dir, f, nil, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if len(gen) != len(want) {
		t.Fatalf("%d generated outcomes, %d interpreted", len(gen), len(want))
	}
	passed := 0
	for i, o := range gen {
		if strings.Contains(o.Reason, "events are not supported") {
			t.Errorf("case %s skipped for its events: %s", o.Case.ID, o.Reason)
		}
		if o.Case.ID != want[i].Case.ID {
			t.Fatalf("outcome %d: case %s generated, %s interpreted", i, o.Case.ID, want[i].Case.ID)
		}
		if want[i].Status == Passed && o.Status != Passed {
			t.Errorf("case %s passes interpreted but is %v generated: %s", o.Case.ID, o.Status, o.Reason)
		}
		if o.Status == Passed {
			passed++
		}
	}
	if passed == 0 {
		t.Error("no event case passed through generated code")
	}
	t.Logf("%d event cases: %d passed generated", len(gen), passed)
}
