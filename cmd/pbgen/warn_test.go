package main

import (
	"strings"
	"testing"
)

// Modes that do not hold S to -rtol say so on stderr when -check=false
// leaves them unchecked; with -check (the default) the check's verdict
// replaces the warning (TestSimCheckAccuracy), and the default modes do
// not warn.
func TestSimWarnsUncontrolledS(t *testing.T) {
	for _, c := range []struct {
		args []string
		warn string
		any  bool // the exit status is the check's verdict, not tested here
	}{
		{[]string{"-paper", "-method", "pbsr", "-check=false"}, "-paper runs the published algorithms", false},
		{[]string{"-paper", "-method", "exp", "-check=false"}, "-paper runs the published algorithms", false},
		{[]string{"-method", "fs", "-errcon=false", "-check=false"}, "-errcon=false leaves S out", false},
		{[]string{"-paper", "-method", "pbsr"}, "", true},
		{[]string{"-method", "fs", "-errcon=false"}, "", true},
		{[]string{"-method", "pbsr"}, "", false},
		{[]string{"-method", "fs"}, "", false},
		{[]string{"-method", "pbsr", "-check=false"}, "", false},
		{[]string{"-method", "none"}, "", false},
	} {
		args := append(append([]string{"sim", "-n", "2"}, c.args...), "../../networks/Chua.xml")
		code, _, stderr := pbgen(t, args...)
		if code != 0 && !c.any {
			t.Fatalf("%q: exit %d: %s", c.args, code, stderr)
		}
		if c.warn == "" && strings.Contains(stderr, "warning") || c.warn != "" && !strings.Contains(stderr, c.warn) {
			t.Errorf("%q: stderr %q, want a warning containing %q", c.args, stderr, c.warn)
		}
	}
}
