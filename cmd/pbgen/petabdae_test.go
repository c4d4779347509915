package main

import (
	"maps"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pbgen petab on models with algebraic rules, fast reactions and csymbol
// delay: check names the algebraic variables and the delays and what is
// evaluated; the DAE problems' llh and gradient are those of the same
// models written as explicit ODEs (problem_ode.yaml); the delay problem
// evaluates its llh and gradient (the same with every method), and a
// delay whose length depends on the state is refused a gradient, naming
// why.
func TestPEtabDAEAndDelays(t *testing.T) {
	dir := "../../petab/testdata/"
	for _, c := range []struct{ prob, want string }{
		{"alg", "algebraic variables: 1, eliminated by runtime/dae: B (algebraic rule, line 22)"},
		{"fast", "algebraic variables: 2, eliminated by runtime/dae: A (fast reactions), B (fast reactions)"},
		{"delay", "delayed values: 1 (delay(A, tau)), solved by runtime/dde: log-likelihood, simulations, and gradient and FIM by forward sensitivity through the delays (dde.SolveSens, for any -method)"},
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
	// The gradient of the delay problem: every method's is
	// dde.SolveSens's (digit for digit), and a method other than fs says
	// so on stderr.
	fs := values("-method", "fs", dir+"delay/problem.yaml")
	for _, id := range []string{"llh", "scale", "sd", "k1", "tau", "A0"} {
		if v, ok := fs[id]; !ok || v == 0 || math.IsNaN(v) {
			t.Errorf("delay, fs: %s = %v (parsed %v)", id, v, fs)
		}
	}
	for _, m := range []string{"pbsr", "exp"} {
		if v := values("-method", m, dir+"delay/problem.yaml"); !maps.Equal(v, fs) {
			t.Errorf("delay, %s: %v, fs %v", m, v, fs)
		}
	}
	for _, m := range []string{"fs", "pbsr"} {
		code, _, stderr := pbgen(t, "petab", "-grad", "-method", m, dir+"delay/problem.yaml")
		note := strings.Contains(stderr, "forward sensitivity through the delays (runtime/dde), not -method pbsr")
		if code != 0 || note != (m == "pbsr") {
			t.Errorf("delay gradient, %s: exit %d, stderr %q", m, code, stderr)
		}
	}
	// A delay whose length depends on the state: refused, saying why.
	tmp := t.TempDir()
	for _, f := range []string{"problem.yaml", "conditions.tsv", "measurements.tsv", "observables.tsv", "parameters.tsv", "model.xml"} {
		b, err := os.ReadFile(dir + "delay/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if f == "model.xml" {
			b = []byte(strings.Replace(string(b), "<ci>A</ci><ci>tau</ci>", "<ci>A</ci><apply><plus/><ci>tau</ci><apply><times/><cn>0.01</cn><ci>A</ci></apply></apply>", 1))
		}
		if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	why := "the length of delay(A, 0.01*A + tau) depends on the state or time"
	if code, out, _ := pbgen(t, "petab", "check", filepath.Join(tmp, "problem.yaml")); code != 0 || !strings.Contains(out, "no gradient or FIM of parameters that reach the model ("+why+")") {
		t.Errorf("check of a state-dependent delay: exit %d, stdout %q", code, out)
	}
	code, _, stderr = pbgen(t, "petab", "-grad", filepath.Join(tmp, "problem.yaml"))
	if code != 1 || !strings.Contains(stderr, "csymbol delay: delay(A, 0.01*A + tau)") || !strings.Contains(stderr, "sensitivities through csymbol delay are not supported") || !strings.Contains(stderr, why) {
		t.Errorf("gradient of a state-dependent delay: exit %d, stderr %q", code, stderr)
	}
}
