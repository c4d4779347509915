package petab

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/sens"
)

// copyProblem copies the problem folder dir into a temporary folder with
// the parameter table replaced by params, and loads it.
func copyProblem(t *testing.T, dir, params string) (*Problem, error) {
	t.Helper()
	tmp := t.TempDir()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "parameters.tsv" {
			b = []byte(params)
		}
		if err := os.WriteFile(filepath.Join(tmp, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Load(filepath.Join(tmp, "problem.yaml"))
}

// TestLogScaleZeroNominal: a nominal value 0 on a log scale (a reaction
// switched off, as in Lang_PLOSComputBiol2024's parameter table) is
// evaluated as theta = -Inf, the linear value 0, with derivative 0 on the
// scale, as petab's scaled nominal values and AMICI have it. On
// testdata/floor with k = 0, x stays 0: the llh and the gradients of T
// (0: x does not move) and sigma are closed forms. A negative value on a
// log scale is refused by name.
func TestLogScaleZeroNominal(t *testing.T) {
	const head = "parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\n"
	p, err := copyProblem(t, "testdata/floor", head+
		"T\tlin\t0.1\t10\t1.3\t1\nk\tlog10\t0.001\t10\t0\t1\nsigma\tlin\t0.001\t10\t0.2\t1\n")
	if err != nil {
		t.Fatal(err)
	}
	th, err := p.Theta(nil)
	if err != nil {
		t.Fatalf("nominal k = 0 on log10 scale: %v", err)
	}
	ys, sigma := []float64{0.1, 0.6, 2.3, 4.5}, 0.2
	llh, dsigma := 0.0, 0.0
	for _, y := range ys {
		llh += -0.5*(y/sigma)*(y/sigma) - math.Log(math.Sqrt(2*math.Pi)*sigma)
		dsigma += y*y/(sigma*sigma*sigma) - 1/sigma
	}
	for _, m := range []sens.Method{sens.FS, sens.PBSR} {
		r, err := p.Evaluate(th, &EvalOptions{Method: m, RTol: 1e-10, ATol: 1e-12, Grad: true, FIM: true})
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		if math.Abs(r.LLH-llh) > 1e-9*math.Abs(llh) {
			t.Errorf("%v: llh %.15g, want %.15g", m, r.LLH, llh)
		}
		if r.Grad[0] != 0 || r.Grad[1] != 0 || math.Abs(r.Grad[2]-dsigma) > 1e-8*math.Abs(dsigma) {
			t.Errorf("%v: gradient (T, log10 k, sigma) = %v, want (0, 0, %.10g)", m, r.Grad, dsigma)
		}
		for j := range r.FIM[1] {
			if r.FIM[1][j] != 0 || math.IsNaN(r.FIM[j][1]) {
				t.Errorf("%v: FIM row of log10 k = %v, want 0", m, r.FIM[1])
				break
			}
		}
	}
	p, err = copyProblem(t, "testdata/floor", head+
		"T\tlin\t0.1\t10\t1.3\t1\nk\tlog10\t0.001\t10\t-1\t1\nsigma\tlin\t0.001\t10\t0.2\t1\n")
	if err == nil {
		_, err = p.Theta(nil)
	}
	if err == nil || !strings.Contains(err.Error(), `"k"`) || !strings.Contains(err.Error(), "negative") {
		t.Errorf("nominal k = -1 on log10 scale: error %v, want one naming k as negative", err)
	}
}
