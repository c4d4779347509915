package main

import (
	"math"
	"strings"
	"testing"
)

// TestSimSolvers: pbgen sim -solver runs each integrator with fs and its
// accuracy check (on by default: exit 0 means x and S are within 100
// tolerances of the check's tighter solve), and x and S at t = 20 on Chua
// agree between the solvers within 1e-3 relative to the largest entry (at
// the default rtol 1e-6 they differ by about 1e-5 on this chaotic
// oscillator); an
// unknown name is a usage error.
func TestSimSolvers(t *testing.T) {
	var ref []float64
	for _, sv := range []string{"bdf", "adams", "dopri5", "rk45", "ckrk", "auto"} {
		code, out, stderr := pbgen(t, "sim", "-solver", sv, "-method", "fs", "-t1", "20", "-n", "20", "../../networks/Chua.xml")
		if code != 0 {
			t.Fatalf("-solver %s: exit %d: %s", sv, code, stderr)
		}
		_, rows := readTSV(t, out)
		last := rows[len(rows)-1]
		if ref == nil {
			ref = last
			continue
		}
		scale := 0.0
		for _, v := range ref[1:] {
			scale = math.Max(scale, math.Abs(v))
		}
		for k := range last {
			if d := math.Abs(last[k] - ref[k]); d > 1e-3*scale {
				t.Errorf("-solver %s: column %d at t = 20 is %v, bdf's %v", sv, k, last[k], ref[k])
			}
		}
	}
	code, _, stderr := pbgen(t, "sim", "-solver", "euler", "../../networks/Chua.xml")
	if code != 2 || !strings.Contains(stderr, "not a solver") {
		t.Errorf("-solver euler: exit %d, %q; want 2 and the solver names", code, stderr)
	}
}
