package main

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// pbgen petab on models with algebraic rules, fast reactions and csymbol
// delay: check names the algebraic variables and the delays and what is
// evaluated; the DAE problems' llh and gradient are those of the same
// models written as explicit ODEs (problem_ode.yaml); the delay problem
// evaluates its llh and refuses a gradient naming the delay.
func TestPEtabDAEAndDelays(t *testing.T) {
	dir := "../../petab/testdata/"
	for _, c := range []struct{ prob, want string }{
		{"alg", "algebraic variables: 1, eliminated by runtime/dae: B (algebraic rule, line 22)"},
		{"fast", "algebraic variables: 2, eliminated by runtime/dae: A (fast reactions), B (fast reactions)"},
		{"delay", "delayed values: 1 (delay(A, tau)), solved by runtime/dde: log-likelihood and simulations only, no gradient or FIM"},
	} {
		if code, out, stderr := pbgen(t, "petab", "check", dir+c.prob+"/problem.yaml"); code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("petab check %s: exit %d, stdout %q, stderr %q; want %q", c.prob, code, out, stderr, c.want)
		}
	}
	// values parses the llh and the gradient lines of pbgen petab -grad.
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
	for _, prob := range []string{"alg", "fast"} {
		for _, m := range []string{"fs", "pbsr", "exp"} {
			a := values("-method", m, dir+prob+"/problem.yaml")
			b := values("-method", m, dir+prob+"/problem_ode.yaml")
			if len(a) < 3 || len(a) != len(b) {
				t.Fatalf("%s, %s: parsed %v and %v", prob, m, a, b)
			}
			for k, w := range b {
				if math.Abs(a[k]-w) > 1e-6*(1+math.Abs(w)) {
					t.Errorf("%s, %s: %s = %.10g, the explicit ODE's %.10g", prob, m, k, a[k], w)
				}
			}
		}
	}
	code, out, stderr := pbgen(t, "petab", dir+"delay/problem.yaml")
	if code != 0 || !strings.Contains(out, "llh: ") {
		t.Errorf("delay llh: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	code, _, stderr = pbgen(t, "petab", "-grad", dir+"delay/problem.yaml")
	if code != 1 || !strings.Contains(stderr, "csymbol delay: delay(A, tau)") || !strings.Contains(stderr, "sensitivities through csymbol delay are not supported") {
		t.Errorf("delay gradient: exit %d, stderr %q", code, stderr)
	}
}
