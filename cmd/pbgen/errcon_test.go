package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
)

// petabGrad runs pbgen petab -grad with args and returns the printed
// gradient.
func petabGrad(t *testing.T, args ...string) []float64 {
	t.Helper()
	code, out, stderr := pbgen(t, append([]string{"petab", "-grad"}, args...)...)
	if code != 0 {
		t.Fatalf("pbgen petab -grad %q: exit %d: %s", args, code, stderr)
	}
	_, g, ok := strings.Cut(out, "gradient:\n")
	if !ok {
		t.Fatalf("no gradient in %q", out)
	}
	var v []float64
	for _, line := range strings.Split(g, "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			break
		}
		x, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			t.Fatalf("gradient line %q: %v", line, err)
		}
		v = append(v, x)
	}
	return v
}

// TestPEtabErrCon: pbgen petab's default (-errcon, S in FS's error test,
// as AMICI) gives a gradient of Bertozzi_PNAS2020 at its nominal values
// within 1e-3 + 1e-2 |ref| of -method fs at rtol 1e-10; -errcon=false
// misses it there; -errcon is the default; -errcon with a method that
// does not use it is refused (exit 2), by petab and by sample.
func TestPEtabErrCon(t *testing.T) {
	bench, err := suites.Find(suites.PEtabBenchmark)
	if err != nil {
		t.Skip(err)
	}
	y := filepath.Join(bench, "Bertozzi_PNAS2020", "problem.yaml")
	ref := petabGrad(t, "-method", "fs", "-rtol", "1e-10", "-atol", "1e-12", y)
	worst := func(g []float64) float64 {
		if len(g) != len(ref) {
			t.Fatalf("%d gradient entries, the reference %d", len(g), len(ref))
		}
		w := 0.0
		for a := range g {
			w = math.Max(w, math.Abs(g[a]-ref[a])/(1e-3+1e-2*math.Abs(ref[a])))
		}
		return w
	}
	def, on, off := worst(petabGrad(t, y)), worst(petabGrad(t, "-errcon", y)), worst(petabGrad(t, "-errcon=false", y))
	t.Logf("worst entry / tolerance: default %.3g, -errcon %.3g, -errcon=false %.3g", def, on, off)
	if !(def <= 1) {
		t.Errorf("default: worst %.3g of the tolerance, want <= 1", def)
	}
	if def != on {
		t.Errorf("-errcon is not the default (%.3g vs %.3g)", on, def)
	}
	if !(off > 1) {
		t.Errorf("-errcon=false: worst %.3g, want > 1 (else this test no longer tells them apart)", off)
	}
	for _, args := range [][]string{{"petab", "-method", "pbsr", "-errcon=false", y}, {"sample", "-method", "exp", "-errcon=false", y}} {
		if code, _, stderr := pbgen(t, args...); code != 2 || !strings.Contains(stderr, "-errcon") {
			t.Errorf("pbgen %q: exit %d (%s), want 2 naming -errcon", args, code, stderr)
		}
	}
}
