package main

import (
	"strings"
	"testing"
)

// TestAutoDefault: -method auto is the default of pbgen sim and pbgen
// petab, each says on stderr what it chose and why, and the numbers are
// those of the chosen method named explicitly: sim on CaMKII (stiff) is
// fs, and so is PKA on [0, 10] (h ||Jx|| 46), on [0, 1] pbsr; petab on the shipped CaMKII problem (7 estimated
// parameters) fs by the column rule.
func TestAutoDefault(t *testing.T) {
	for _, c := range []struct {
		args   []string
		method string
		why    string
	}{
		{[]string{"sim", "-n", "20", "../../networks/CaMKII.xml"}, "fs", "stiff"},
		{[]string{"sim", "-n", "20", "../../networks/PKA.xml"}, "fs", "stiff"},
		{[]string{"sim", "-n", "20", "-t1", "1", "../../networks/PKA.xml"}, "pbsr", "35 columns"},
		{[]string{"petab", "-grad", "../../networks/petab/CaMKII/problem.yaml"}, "fs", "7 columns"},
	} {
		code, out, stderr := pbgen(t, c.args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", c.args, code, stderr)
		}
		want := "-method auto chose " + c.method + ": "
		if !strings.Contains(stderr, want) || !strings.Contains(stderr, c.why) {
			t.Errorf("%q: stderr %q lacks %q and %q", c.args, stderr, want, c.why)
		}
		named := append([]string{c.args[0], "-method", c.method}, c.args[1:]...)
		code, outNamed, stderr := pbgen(t, named...)
		if code != 0 || outNamed != out {
			t.Errorf("%q: exit %d, output differs from the default's (auto): %s", named, code, stderr)
		}
	}
}
