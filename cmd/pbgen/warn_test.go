package main

import (
	"strings"
	"testing"
)

// Modes that do not hold S to -rtol say so on stderr; the default modes
// do not warn.
func TestSimWarnsUncontrolledS(t *testing.T) {
	for _, c := range []struct {
		args []string
		warn string
	}{
		{[]string{"-paper", "-method", "pbsr"}, "-paper runs the published algorithms"},
		{[]string{"-paper", "-method", "exp"}, "-paper runs the published algorithms"},
		{[]string{"-method", "fs", "-errcon=false"}, "-errcon=false leaves S out"},
		{[]string{"-method", "pbsr"}, ""},
		{[]string{"-method", "fs"}, ""},
		{[]string{"-method", "none"}, ""},
	} {
		args := append(append([]string{"sim", "-n", "2"}, c.args...), "../../networks/Chua.xml")
		code, _, stderr := pbgen(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", c.args, code, stderr)
		}
		if c.warn == "" && strings.Contains(stderr, "warning") || c.warn != "" && !strings.Contains(stderr, c.warn) {
			t.Errorf("%q: stderr %q, want a warning containing %q", c.args, stderr, c.warn)
		}
	}
}
