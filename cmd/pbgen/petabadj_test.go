package main

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// pbgen petab -grad -sens adjoint prints the gradient by the adjoint,
// within 1e-7 of -sens forward at rtol 1e-10; an unknown -sens value is a
// usage error, and a case the adjoint does not cover is refused by name.
func TestPEtabSensAdjoint(t *testing.T) {
	// The shipped CaMKII problem: no pre-equilibration, events or periods.
	prob := "../../networks/petab/CaMKII/problem.yaml"
	values := func(args ...string) map[string]float64 {
		t.Helper()
		code, out, stderr := pbgen(t, append([]string{"petab", "-grad", "-rtol", "1e-10", "-atol", "1e-12"}, args...)...)
		if code != 0 {
			t.Fatalf("petab %q: exit %d: %s", args, code, stderr)
		}
		v := make(map[string]float64)
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(strings.Replace(l, ":", " ", 1))
			if len(f) == 2 {
				if x, err := strconv.ParseFloat(f[1], 64); err == nil {
					v[f[0]] = x
				}
			}
		}
		return v
	}
	// Forward without S in its error test: the adjoint's forward solve is
	// the state alone, so both then take the same state steps and differ
	// by the adjoint's backward solve only; with -errcon (the default)
	// forward's steps differ too (9e-7 relative on KD__CaM_Ca1__Ca).
	fw := values("-sens", "forward", "-errcon=false", prob)
	ad := values("-sens", "adjoint", prob)
	if len(fw) < 3 || len(ad) != len(fw) {
		t.Fatalf("parsed %v and %v", fw, ad)
	}
	for k, w := range fw {
		if math.Abs(ad[k]-w) > 1e-7*(1+math.Abs(w)) {
			t.Errorf("%s: adjoint %.12g, forward %.12g", k, ad[k], w)
		}
	}
	if code, _, stderr := pbgen(t, "petab", "-grad", "-sens", "backward", prob); code != 2 || !strings.Contains(stderr, `-sens "backward": want forward or adjoint`) {
		t.Errorf("-sens backward: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := pbgen(t, "petab", "-grad", "-fim", "-sens", "adjoint", prob); code == 0 || !strings.Contains(stderr, "Fisher information needs S") {
		t.Errorf("-fim -sens adjoint: exit %d, stderr %q", code, stderr)
	}
}
