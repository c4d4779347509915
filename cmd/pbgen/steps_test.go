package main

import (
	"strings"
	"testing"
)

// TestSimFloorSens is the report's reproduction: dX/dt = k floor(t/T),
// T = 1.3, k = 1, X(3) = 6 - 3T, so S:X:T at t = 3 is -3 and S:X:k is
// X/k = 2.1 (pbgen sim printed 0 and exit 0 before floor was lowered to
// a state held between events). Every method prints them to its output
// precision, and check counts the model's own events apart from the
// floor's.
func TestSimFloorSens(t *testing.T) {
	const path = "../../testsuite/testdata/steps/floortime.xml"
	for _, method := range []string{"fs", "pbsr", "exp", "pbs"} {
		code, out, stderr := pbgen(t, "sim", "-method", method, "-t1", "3", "-n", "3", path)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 0 || len(lines) != 5 {
			t.Fatalf("%s: exit %d\n%s%s", method, code, out, stderr)
		}
		if h := lines[0]; h != "t\tX\tfloor_1\tS:X:T\tS:X:k\tS:floor_1:T\tS:floor_1:k" {
			t.Errorf("%s: header %q", method, h)
		}
		for _, w := range []string{"2\t0.7\t1\t-1\t0.7\t0\t0", "3\t2.1\t2\t-3\t2.1\t0\t0"} {
			if !strings.Contains(out, w+"\n") {
				t.Errorf("%s: no row %q in\n%s", method, w, out)
			}
		}
	}
	code, out, stderr := pbgen(t, "check", path)
	if code != 0 || !strings.Contains(out, "events      0\n") || !strings.Contains(out, "steps       1 (floor_1:") {
		t.Errorf("check: exit %d\n%s%s", code, out, stderr)
	}
}
