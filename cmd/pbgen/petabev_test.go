package main

import (
	"strings"
	"testing"
)

// pbgen petab gives the switching time T of testdata/switch its gradient,
// the data's dependence on T (the rate's pieces alone give 0), whether the
// switch becomes a state kept by events (the default, -switches) or stays
// in the rate (-switches=false), where the solver stops at it as a switch
// of f; and it evaluates an SBML event problem.
func TestPEtabSwitchesFlag(t *testing.T) {
	prob := "../../petab/testdata/switch/problem.yaml"
	gradT := func(args ...string) string {
		t.Helper()
		code, out, stderr := pbgen(t, append(append([]string{"petab", "-grad", "-rtol", "1e-10", "-atol", "1e-12"}, args...), prob)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) == 2 && f[0] == "T" {
				return f[1]
			}
		}
		t.Fatalf("no gradient of T in %s", out)
		return ""
	}
	// (3.4 - 3.25 + 3.9 - 3.75)/0.04 = 7.5 with the switch, 0 without.
	for _, args := range [][]string{nil, {"-switches"}, {"-switches=false"}} {
		if g := gradT(args...); !strings.HasPrefix(g, "7.4999") && !strings.HasPrefix(g, "7.5") {
			t.Errorf("with %v: dllh/dT = %s, want 7.5", args, g)
		}
	}
	if code, out, stderr := pbgen(t, "petab", "-grad", "../../petab/testdata/events/problem.yaml"); code != 0 || !strings.Contains(out, "llh:") {
		t.Errorf("an SBML event problem: exit %d, %s%s", code, out, stderr)
	}
}
