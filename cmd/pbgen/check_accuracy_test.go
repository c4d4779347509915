package main

import (
	"strings"
	"testing"
)

// TestSimCheckAccuracy: with -check (the default) a method whose S the
// accuracy check finds beyond 100 tolerances exits 1 with a first line
// that names the method as its flags, the time and -method fs, and writes
// no rows past the failing chunk; the methods that control S exit 0.
// Measured at -rtol 1e-6 (runtime/sens TestCheckEstimate, per column of
// p_j S_ij): on CaMKII the paper's PBSR 2.0e4 tolerances off; Exp 554 on
// PKA; PBS gives up by itself (dt ||Jx|| > 2), on PKA only at t = 0.25,
// and over [0, 1] it is 5.2e3 off; on PKA the default PBSR is 566, 19.6
// after one retry, and FS 16.6.
func TestSimCheckAccuracy(t *testing.T) {
	for _, c := range []struct {
		net  string
		args []string
		code int
		want []string // in the first line of stderr
	}{
		{"CaMKII", []string{"-method", "pbsr", "-paper"}, 1, []string{"-method pbsr -paper gave up at t = ", "tolerances off", "use -method fs"}},
		{"CaMKII", []string{"-method", "exp", "-paper"}, 1, []string{"-method exp -paper gave up at t = ", "use -method fs"}},
		// Exp on CaMKII passes after two retries (268 -> 57.7 tolerances
		// per column, TestCheckEstimate); on PKA it fails (554).
		{"PKA", []string{"-method", "exp"}, 1, []string{"-method exp gave up at t = ", "use -method fs"}},
		{"CaMKII", []string{"-method", "pbs"}, 1, []string{"PBS gave up at t = ", "FS"}},
		// Before it gives up (t = 0.25), PBS on PKA is 1.7e4 tolerances off.
		{"PKA", []string{"-method", "pbs", "-t1", "1"}, 1, []string{"-method pbs gave up at t = ", "use -method fs"}},
		{"CaMKII", []string{"-method", "pbsr", "-paper", "-check=false"}, 0, []string{"warning: -paper"}},
		{"PKA", []string{"-method", "pbsr"}, 0, nil},
		{"PKA", []string{"-method", "fs"}, 0, nil},
		{"PKA", []string{}, 0, []string{"-method auto chose fs"}},
	} {
		args := append(append([]string{"sim"}, c.args...), "../../networks/"+c.net+".xml")
		code, stdout, stderr := pbgen(t, args...)
		if code != c.code {
			t.Errorf("%s %q: exit %d, want %d; stderr %q", c.net, c.args, code, c.code, stderr)
			continue
		}
		first, _, _ := strings.Cut(stderr, "\n")
		for _, w := range c.want {
			if !strings.Contains(first, w) {
				t.Errorf("%s %q: first line of stderr %q lacks %q", c.net, c.args, first, w)
			}
		}
		if c.code == 0 && c.want == nil && (stderr != "" || strings.Count(stdout, "\n") != 102) {
			t.Errorf("%s %q: %d lines out, stderr %q", c.net, c.args, strings.Count(stdout, "\n"), stderr)
		}
		if c.code != 0 && stdout != "" {
			t.Errorf("%s %q: rows written before the failure: %.80q", c.net, c.args, stdout)
		}
	}
	if code, _, stderr := pbgen(t, "sim", "-method", "none", "-check=false", "../../networks/PKA.xml"); code != 2 || !strings.Contains(stderr, "-check applies") {
		t.Errorf("-method none -check=false: exit %d, %q", code, stderr)
	}
}
