package petab

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// The gradient at the objective's default tolerances (rtol 1e-6, atol
// 1e-8) against FS with S in the error test at rtol 1e-10, atol 1e-12, in
// the finite-difference check's criterion |g - ref| <= gradATol +
// gradRTol |ref| per component (issue #24): with objective.Options'
// default (S in FS's error test, as AMICI) and, for the record, without it.

// errconWorst is the worst component of g against ref as a multiple of the
// criterion's tolerance (<= 1 passes; +Inf for a NaN).
func errconWorst(g, ref []float64) float64 {
	w := 0.0
	for a := range ref {
		w = math.Max(w, math.Abs(g[a]-ref[a])/(gradATol+gradRTol*math.Abs(ref[a])))
	}
	if math.IsNaN(w) || len(g) != len(ref) {
		return math.Inf(1)
	}
	return w
}

// errconVariant is one configuration of the objective at its default
// tolerances.
type errconVariant struct {
	name string
	opt  EvalOptions
}

var errconVariants = []errconVariant{
	{"FS noerrcon", EvalOptions{Method: sens.FS, NoErrCon: true}},
	{"FS errcon", EvalOptions{Method: sens.FS}},
	{"PBSR", EvalOptions{Method: sens.PBSR}},
	{"Auto", EvalOptions{Method: sens.Auto}},
}

// evalCPU is the CPU time of one llh + gradient evaluation of the
// objective with opt at theta (linear values): one objective, a warm-up
// Eval, then up to 7 samples of the mean over enough Evals for 20 ms (2 s
// at most in all), the median reported.
func evalCPU(p *Problem, theta []float64, opt EvalOptions) (time.Duration, int, error) {
	o, err := objective.New(p.Model, p.Objective, &objective.Options{Method: opt.Method, Grad: true, NoErrCon: opt.NoErrCon})
	if err != nil {
		return 0, 0, err
	}
	defer func() { o.Close() }()
	scaled := make([]float64, len(theta))
	for k, i := range p.Objective.Estimated {
		scaled[k] = objective.ToScale(p.Objective.Params[i].Scale, theta[k])
	}
	var r objective.Result
	if err := o.Eval(scaled, &r); err != nil {
		return 0, 0, err
	}
	// Samples of n Evals each, n from the warm-up so that a sample takes
	// about 20 ms of CPU; up to 7 samples within 2 s.
	c0 := cpuTime()
	if err := o.Eval(scaled, &r); err != nil {
		return 0, 0, err
	}
	n := max(1, int(20*time.Millisecond/max(cpuTime()-c0, time.Microsecond)))
	var ds []time.Duration
	var sum time.Duration
	for len(ds) < 7 && (len(ds) < 1 || sum < 2*time.Second) {
		c0 := cpuTime()
		for range n {
			if err := o.Eval(scaled, &r); err != nil {
				return 0, 0, err
			}
		}
		d := cpuTime() - c0
		ds = append(ds, d/time.Duration(n))
		sum += d
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], r.Stats.Steps, nil
}

// TestErrConGradients (PBGEN_LONG=1, or PBGEN_ERRCON_PROBLEMS=a,b for
// the problems whose names contain a or b) evaluates every loadable
// benchmark problem at its nominal parameters and asserts the criterion
// for the defaults of Evaluate with FS and with Auto (pbgen petab's
// -method auto); it logs, per variant, the worst ratio, the CPU time of
// one llh + gradient (GOMAXPROCS as set) and the steps: the table of
// docs/bench/petab-errcon-2026-12-08.txt.
func TestErrConGradients(t *testing.T) {
	only := os.Getenv("PBGEN_ERRCON_PROBLEMS")
	if !longRun() && only == "" {
		t.Skip("PBGEN_LONG=1 (or PBGEN_ERRCON_PROBLEMS) runs it: minutes")
	}
	var rows []string
	benchProblems(t, 1<<20, func(t *testing.T, name string, p *Problem) {
		if strings.Contains(name, "/") {
			t.Skip("a variant of the problem")
		}
		if only != "" && !containsAny(name, strings.Split(only, ",")) {
			t.Skip("not in PBGEN_ERRCON_PROBLEMS")
		}
		th, err := p.Theta(nil)
		if err != nil {
			t.Skip(err)
		}
		c0 := cpuTime()
		ref, err := errconRef(p, th)
		if err != nil {
			t.Skipf("reference (FS with ErrCon, rtol 1e-10): %v", err)
		}
		refCPU := cpuTime() - c0
		row := fmt.Sprintf("%-32s ref %8.2fs", name, refCPU.Seconds())
		if v := os.Getenv("PBGEN_ERRCON_REFRTOL"); v != "" {
			row += " (reference at rtol " + v + ")"
		}
		for _, v := range errconVariants {
			opt := v.opt
			opt.Grad = true
			r, err := p.Evaluate(th, &opt)
			if err != nil {
				row += fmt.Sprintf(" | %s error", v.name)
				if v.name == "FS errcon" || v.name == "Auto" {
					t.Errorf("%s: %v", v.name, err)
				}
				continue
			}
			w := errconWorst(r.Grad, ref)
			cpu, steps, err := evalCPU(p, th, v.opt)
			if err != nil {
				t.Fatalf("%s: timing: %v", v.name, err)
			}
			label := v.name
			if v.name == "Auto" {
				label = "Auto=" + r.Method.String()
			}
			row += fmt.Sprintf(" | %s %.3g %.4gs %d", label, w, cpu.Seconds(), steps)
			if why, ok := errconExceptions[name]; ok && w > 1 && (v.name == "FS errcon" || v.name == "Auto") {
				t.Logf("%s misses the criterion at the defaults (%.3g), a known exception: %s", label, w, why)
				continue
			}
			if w > 1 && (v.name == "FS errcon" || v.name == "Auto") {
				t.Errorf("%s at the defaults: gradient's worst component %.3g times the tolerance (1e-3 + 1e-2 |ref|) from FS with ErrCon at rtol 1e-10", label, w)
			}
		}
		if _, ok := errconExceptions[name]; ok {
			// The exception must still be one that a tighter rtol mends.
			r, err := p.Evaluate(th, &EvalOptions{Method: sens.FS, RTol: 1e-8, Grad: true})
			if err != nil {
				t.Fatal(err)
			}
			w := errconWorst(r.Grad, ref)
			row += fmt.Sprintf(" | FS errcon rtol 1e-8 %.3g", w)
			if !(w <= 1) {
				t.Errorf("FS at rtol 1e-8: worst %.3g of the tolerance, want <= 1 (the exception's reason no longer holds)", w)
			}
		}
		t.Log(row)
		rows = append(rows, row)
	})
	t.Log("problem | variant worst-ratio cpu-per-llh+grad steps\n" + strings.Join(rows, "\n"))
}

// errconExceptions are the problems whose gradient misses the criterion
// at the defaults whatever the method and ErrCon, and why; the test
// checks that FS at rtol 1e-8 meets it there.
var errconExceptions = map[string]string{
	// Measured: worst 56 without ErrCon, 62 with it, 51 with PBSR, 4.9
	// with the steady states at 1e-10, 0.82 at rtol 1e-8.
	"Raimundez_PCB2020": "the worst entry is the derivative in an observable's scale parameter (s_pEGFR_ID9b_MKN1_HM_1EGF: -0.059 at the defaults against 0.0092), which needs h, not S, more accurate: a tighter rtol mends it, ErrCon does not",
}

// errconRef is the reference gradient at theta (linear values): FS with
// S in the error test at rtol 1e-10, atol 1e-12, up to 1e7 steps per
// solve (Lang_PLOSComputBiol2024 takes more than the default 1e5 there).
//
// PBGEN_ERRCON_REFRTOL replaces rtol 1e-10 (atol 1e-12 stays), for a
// problem whose reference takes too long (a weaker check, which the row
// names).
func errconRef(p *Problem, theta []float64) ([]float64, error) {
	rtol := 1e-10
	if v, err := strconv.ParseFloat(os.Getenv("PBGEN_ERRCON_REFRTOL"), 64); err == nil && v > 0 {
		rtol = v
	}
	o, err := objective.New(p.Model, p.Objective, &objective.Options{Method: sens.FS, RTol: rtol, ATol: 1e-12, Grad: true,
		Sens: &sens.Options{ODE: ode.Settings{MaxSteps: 10000000}}})
	if err != nil {
		return nil, err
	}
	defer func() { o.Close() }()
	scaled := make([]float64, len(theta))
	for k, i := range p.Objective.Estimated {
		scaled[k] = objective.ToScale(p.Objective.Params[i].Scale, theta[k])
	}
	var r objective.Result
	if err := o.Eval(scaled, &r); err != nil {
		return nil, err
	}
	return r.Grad, nil
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if x = strings.TrimSpace(x); x != "" && strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// TestErrConDefault: on Bertozzi_PNAS2020 and Armistead_CellDeathDis2024
// (shared collection; skipped without it), small and fast, FS at the
// objective's default tolerances without S in its error test misses FS
// with it at rtol 1e-10 in the criterion at the nominal parameters, and
// Evaluate's default (S in the error test), with FS and with Auto, meets
// it.
func TestErrConDefault(t *testing.T) {
	root := sharedDir(t, "petab-benchmark")
	for _, name := range []string{"Bertozzi_PNAS2020", "Armistead_CellDeathDis2024"} {
		t.Run(name, func(t *testing.T) {
			y := filepath.Join(root, name, "problem.yaml")
			if _, err := os.Stat(y); err != nil {
				y = filepath.Join(root, name, name+".yaml")
			}
			if _, err := os.Stat(y); err != nil {
				t.Skip(err)
			}
			p, err := Load(y)
			if err != nil {
				t.Fatal(err)
			}
			th, err := p.Theta(nil)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := p.Evaluate(th, &EvalOptions{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, Grad: true})
			if err != nil {
				t.Fatal(err)
			}
			worst := func(opt EvalOptions) float64 {
				opt.Grad = true
				r, err := p.Evaluate(th, &opt)
				if err != nil {
					t.Fatal(err)
				}
				return errconWorst(r.Grad, ref.Grad)
			}
			if w := worst(EvalOptions{Method: sens.FS, NoErrCon: true}); !(w > 1) {
				t.Errorf("FS without ErrCon: worst %.3g of the tolerance, want it to miss (> 1): the test no longer tells the settings apart", w)
			} else {
				t.Logf("FS without ErrCon: worst %.3g of the tolerance", w)
			}
			for _, m := range []sens.Method{sens.FS, sens.Auto} {
				if w := worst(EvalOptions{Method: m}); !(w <= 1) {
					t.Errorf("%v at the defaults (ErrCon): worst %.3g of the tolerance, want <= 1", m, w)
				} else {
					t.Logf("%v at the defaults: worst %.3g", m, w)
				}
			}
		})
	}
}
