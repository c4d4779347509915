package petab

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// The gradient check on the benchmark collection (issue #11): for every
// problem with at most gradMaxStates states, the gradient of each method at
// the objective's default tolerances agrees with central finite
// differences of the llh (computed at rtol 1e-10) at a seeded perturbation
// of the nominal point, component by component, as the field's checks
// judge it: |g - fd| <= gradATol + gradRTol |fd|.
//
// The full check takes tens of minutes on two cores (the finite
// differences of Raimundez_PCB2020 alone are 272 tight evaluations of 170
// pre-equilibrated experiments), so the default run checks the cheap
// problems only; PBGEN_LONG=1 (make petab-check) checks all of them.
const (
	gradMaxStates = 100
	gradRTol      = 1e-2
	gradATol      = 1e-3
	// fdRelStep is the central-difference step: on log scales an absolute
	// step in theta, on the linear scale relative to |theta|. Truncation is
	// O(h^2) (~1e-6 relative for smooth llh), well inside gradRTol; the
	// llh's integration error at rtol 1e-10 is divided by 2h, which keeps it
	// below gradATol unless |llh| is ~1e5 or more (Alkan_SciSignal2018's is
	// 3e8, Oliveira_NatCommun2021's 1e7: there the reference carries an
	// error of its own, which is why a tight FS gradient is checked beside
	// the methods, to tell a method's error from the reference's).
	fdRelStep = 1e-3
)

// longRun reports whether the long checks are requested.
func longRun() bool { return os.Getenv("PBGEN_LONG") != "" }

// cheapProblem says whether a problem is in the default run's subset: few
// states times few experiments (the tight finite differences of each take
// under a second or so).
func cheapProblem(p *Problem) bool {
	return model.NumStates(p.Model)*len(p.Objective.Experiments) <= 30
}

// benchProblems loads the benchmark problems with at most maxStates states
// (those the SBML reader refuses, or whose files are missing, are
// skipped), calling f for each in a subtest.
func benchProblems(t *testing.T, maxStates int, f func(t *testing.T, name string, p *Problem)) {
	root := sharedDir(t, "petab-benchmark")
	yamls, _ := filepath.Glob(filepath.Join(root, "*", "*.yaml"))
	if len(yamls) == 0 {
		t.Skip("no problems in ", root)
	}
	for _, y := range yamls {
		name := filepath.Base(filepath.Dir(y))
		if b := strings.TrimSuffix(filepath.Base(y), ".yaml"); b != name && b != "problem" {
			name += "/" + b
		}
		t.Run(name, func(t *testing.T) {
			p, err := Load(y)
			if err != nil {
				var l ErrorList
				if errors.As(err, &l) && len(l) == 1 && (strings.Contains(l[0].Msg, "not supported") || strings.Contains(l[0].Msg, "no such file")) {
					t.Skip(err)
				}
				t.Fatal(err)
			}
			if nx := model.NumStates(p.Model); nx > maxStates {
				t.Skipf("%d states", nx)
			}
			f(t, name, p)
		})
	}
}

// gradPoint is the nominal point perturbed by a seeded uniform step in
// [-0.1, 0.1] on log scales and a relative one of the same size on the
// linear scale (theta = -Inf, a log-scaled nominal 0, stays).
func gradPoint(o *objective.Objective) []float64 {
	rng := rand.New(rand.NewPCG(1, 1))
	th := o.Nominal()
	for a, s := range o.Scales() {
		d := 0.2*rng.Float64() - 0.1
		if s == objective.Lin {
			th[a] *= 1 + d
		} else {
			th[a] += d
		}
	}
	return th
}

// fdStepFor is the central-difference step of theta component a.
func fdStepFor(s objective.Scale, th float64) float64 {
	if s == objective.Lin {
		return fdRelStep * math.Max(math.Abs(th), 1e-6)
	}
	return fdRelStep
}

// gradWorst is the worst component of a gradient against the reference:
// the largest |g - fd| / (atol + rtol |fd|) (a pass is <= 1).
type gradWorst struct {
	ratio   float64
	a       int
	g, fd   float64
	failing int // components over 1
}

func worstComponent(g, fd []float64, skip []bool) gradWorst {
	w := gradWorst{a: -1}
	for a := range fd {
		if math.IsNaN(fd[a]) || skip[a] {
			continue
		}
		r := math.Abs(g[a]-fd[a]) / (gradATol + gradRTol*math.Abs(fd[a]))
		if math.IsNaN(r) {
			r = math.Inf(1)
		}
		if r > 1 {
			w.failing++
		}
		if w.a < 0 || r > w.ratio {
			w.ratio, w.a, w.g, w.fd = r, a, g[a], fd[a]
		}
	}
	return w
}

// knownGradFailures are gradient components that every method gets wrong
// for a reason outside the integrators, by problem and parameter id. The
// check logs them apart and fails if one starts passing (then the entry
// is stale).
//
// None is left. Oliveira_NatCommun2021's t_1 was one while its switch
// stayed in the rate: beta is piecewise(beta_0, t < t_1, piecewise(beta_1,
// t < t_2, ...)), t_1 moves a discontinuity of f in time, the
// sensitivities of the smooth pieces say 0 and the true derivative
// (finite differences -5.41e9, stable over steps 1e-5..1e-2 and rtol
// 1e-8..1e-12) is the jump of f at t_1 carried forward. Load now turns
// such switches into events, and the objective stops at relations left
// in the rates (LoadOptions.KeepTimeRelations) as switches of f: both
// give it.
var knownGradFailures = map[string]map[string]string{}

// TestBenchmarkGradients is the gradient check described above. Each
// problem logs one line per method: the worst component, its gradient and
// finite-difference values, and how many components fail.
//
// A component that some method fails against the rtol 1e-10 differences
// is differenced again at rtol 1e-12 with a step 10 times larger, and that
// value is the reference for it: where |llh| is large and the component
// small (Rahman_MBS2016's treated_moderate_improve_rate, gradient -1.5e-4),
// the rtol 1e-10 differences are integration noise that changes sign with
// the step, while every method and the tight FS gradient agree. If a
// method fails against the refined value too and the two differences
// disagree with each other, the component is unresolved by finite
// differences (Okuonghae_ChaosSolitonsFractals2020's theta: llh -1.2e6,
// gradient 1.2e-3; differences from -0.02 to 3.4 over steps 1e-4..1e-2 and
// rtol 1e-10..1e-12) and the tight FS gradient is its reference. The log
// counts refined and unresolved components.
func TestBenchmarkGradients(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	benchProblems(t, gradMaxStates, func(t *testing.T, name string, p *Problem) {
		if !longRun() && !cheapProblem(p) {
			t.Skip("not in the cheap subset (PBGEN_LONG=1 or make petab-check runs it)")
		}
		checkGradients(t, name, p)
	})
}

// TestSuiteEventGradients is the same check on the PEtab v2 test suite's
// cases with SBML events: 0016 (an event at a period's start, after the
// condition's changes), 0023 (an event during pre-equilibration, not
// executed again after it) and 0030 (a time-triggered event at a period's
// start).
func TestSuiteEventGradients(t *testing.T) {
	root := sharedDir(t, "petab-test-suite")
	for _, id := range []string{"0016", "0023", "0030"} {
		t.Run(id, func(t *testing.T) {
			p, err := Load(filepath.Join(root, "v2.0.0", "sbml", id, "_"+id+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if p.Model.NumEvents() == 0 {
				t.Fatal("no events")
			}
			checkGradients(t, "v2/"+id, p)
		})
	}
}

// checkGradients is the gradient check of problem p (see the top of the
// file).
func checkGradients(t *testing.T, name string, p *Problem) {
	{
		mk := func(opt *objective.Options) *objective.Objective {
			o, err := objective.New(p.Model, p.Objective, opt)
			if err != nil {
				t.Fatal(err)
			}
			return o
		}
		ref := mk(&objective.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12})
		defer func() { ref.Close() }()
		theta := gradPoint(ref)
		scales := ref.Scales()
		ids := ref.Params()
		var r objective.Result
		diff := func(o *objective.Objective, a int, h float64) float64 {
			th := append([]float64(nil), theta...)
			th[a] = theta[a] + h
			if err := o.Eval(th, &r); err != nil {
				t.Fatalf("reference llh: %v", err)
			}
			up := r.LLH
			th[a] = theta[a] - h
			if err := o.Eval(th, &r); err != nil {
				t.Fatalf("reference llh: %v", err)
			}
			return (up - r.LLH) / (2 * h)
		}
		fd := make([]float64, len(theta))
		for a := range theta {
			fd[a] = math.NaN() // theta = -Inf: no finite differences
			if !math.IsInf(theta[a], 0) {
				fd[a] = diff(ref, a, fdStepFor(scales[a], theta[a]))
			}
		}
		// The gradients: FS at the reference's tolerances (if it fails, the
		// finite differences are suspect), then the methods at the
		// objective's defaults.
		rows := []struct {
			what string
			opt  objective.Options
		}{
			{"FS-1e-10", objective.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12}},
			{"FS", objective.Options{Method: sens.FS}},
			{"PBSR", objective.Options{Method: sens.PBSR}},
			{"Exp", objective.Options{Method: sens.Exp}},
			{"Adjoint", objective.Options{Gradient: objective.GradAdjoint}},
		}
		grads := make([][]float64, len(rows))
		for i := range rows {
			rows[i].opt.Grad = true
			o, err := objective.New(p.Model, p.Objective, &rows[i].opt)
			if errors.Is(err, objective.ErrAdjoint) {
				t.Logf("%-26s %-8s not covered: %v", name, rows[i].what, err)
				continue
			} else if err != nil {
				t.Fatal(err)
			}
			var g objective.Result
			err = o.Eval(theta, &g)
			o.Close()
			if err != nil {
				t.Errorf("%s: %v", rows[i].what, err)
				continue
			}
			grads[i] = g.Grad
		}
		known := knownGradFailures[name]
		refined, unresolved := 0, 0
		unres := make([]bool, len(fd))
		var fine *objective.Objective
		for a := range fd {
			if math.IsNaN(fd[a]) || known[ids[a]] != "" {
				continue
			}
			bad := false
			for _, g := range grads {
				bad = bad || g != nil && math.Abs(g[a]-fd[a]) > gradATol+gradRTol*math.Abs(fd[a])
			}
			if !bad {
				continue
			}
			if fine == nil {
				fine = mk(&objective.Options{Method: sens.FS, RTol: 1e-12, ATol: 1e-14})
				defer func() { fine.Close() }()
			}
			f12 := diff(fine, a, 10*fdStepFor(scales[a], theta[a]))
			refined++
			still := false
			for _, g := range grads {
				still = still || g != nil && math.Abs(g[a]-f12) > gradATol+gradRTol*math.Abs(f12)
			}
			if still && math.Abs(f12-fd[a]) > gradATol+gradRTol*math.Abs(f12) && grads[0] != nil {
				// A method fails against the refined differences too, and
				// the two differences disagree: the llh's integration
				// error swamps this component. Judge the methods against
				// the tight FS gradient instead (and not that row).
				t.Logf("%-26s %s unresolved by finite differences (%.3g at rtol 1e-10, %.3g at rtol 1e-12): reference is the rtol 1e-10 FS gradient %.6g",
					name, ids[a], fd[a], f12, grads[0][a])
				unres[a] = true
				unresolved++
				f12 = grads[0][a]
			}
			fd[a] = f12
		}
		skip := make([]bool, len(fd))
		for a, id := range ids {
			if why := known[id]; why != "" {
				skip[a] = true
				for i, g := range grads {
					if g == nil {
						continue
					}
					ok := math.Abs(g[a]-fd[a]) <= gradATol+gradRTol*math.Abs(fd[a])
					t.Logf("%-26s %-8s known failure %s: grad %.6g fd %.6g (%s)", name, rows[i].what, id, g[a], fd[a], why)
					if ok {
						t.Errorf("%s: %s passes now: remove it from knownGradFailures", rows[i].what, id)
					}
				}
			}
		}
		for i, g := range grads {
			if g == nil {
				continue
			}
			sk := skip
			if i == 0 {
				sk = make([]bool, len(fd))
				for a := range sk {
					sk[a] = skip[a] || unres[a]
				}
			}
			w := worstComponent(g, fd, sk)
			msg := fmt.Sprintf("%-26s %-8s worst %8.3g of tolerance: %s grad %.6g ref %.6g; %d of %d components fail (refined %d, unresolved %d)",
				name, rows[i].what, w.ratio, ids[w.a], w.g, w.fd, w.failing, len(fd), refined, unresolved)
			t.Log(msg)
			if w.ratio > 1 {
				t.Errorf("gradient check failed: %s", msg)
			}
		}
		// Not asserted: the same criterion at the nominal point against
		// the tight FS gradient. The nominal point is near the optimum,
		// where the gradient is a small sum of large data terms that
		// cancel, so it is the hardest point for a method's error in S;
		// the log shows which methods resolve it at the defaults.
		var nomRef []float64
		for i := range rows {
			o, err := objective.New(p.Model, p.Objective, &rows[i].opt)
			if errors.Is(err, objective.ErrAdjoint) {
				continue // logged above
			} else if err != nil {
				t.Fatal(err)
			}
			var g objective.Result
			err = o.Eval(o.Nominal(), &g)
			o.Close()
			if err != nil {
				t.Logf("%-26s %-8s at the nominal point: %v", name, rows[i].what, err)
				continue
			}
			if i == 0 {
				nomRef = g.Grad
				continue
			}
			if nomRef != nil {
				w := worstComponent(g.Grad, nomRef, skip)
				t.Logf("%-26s %-8s at the nominal point, against FS at rtol 1e-10: worst %8.3g of tolerance: %s grad %.6g ref %.6g",
					name, rows[i].what, w.ratio, ids[w.a], w.g, w.fd)
			}
		}
	}
}
