package testsuite

import (
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
)

// TestDelayCases runs every TimeCourse case with csymbol delay (the full
// suite's when present, else the vendored 00938, 00985, 01414 and 01481):
// each passes or is refused by name for another construct (events with
// delays, algebraic rules), never for the delay itself.
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
			if strings.HasSuffix(o.Reason, ": csymbol delay is not supported") {
				t.Errorf("delay case %s skipped for its delay: %s", o.Case.ID, o.Reason)
			}
		}
	}
	t.Logf("%d delay cases in %s: %d passed", len(outs), dir, passed)
}
