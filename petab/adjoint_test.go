package petab

import (
	"errors"
	"math"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// adjTol is the agreement asked of the adjoint gradient against FS, both
// at rtol 1e-10 (atol 1e-12): |g_adj - g_FS| <= adjTol (|g_FS| + 1e-3
// max|g_FS|) per component, the floor because a component that is a small
// difference of large data terms carries the integrations' absolute error.
const adjTol = 1e-6

// TestBenchmarkAdjoint compares the adjoint gradient with FS's on every
// benchmark problem the adjoint covers (the others are skipped with the
// refusal), at the gradient check's perturbed point. The default run takes
// the cheap subset and those of at most 20 states; PBGEN_LONG=1 all,
// Lang_PLOSComputBiol2024 included.
func TestBenchmarkAdjoint(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	benchProblems(t, 1<<30, func(t *testing.T, name string, p *Problem) {
		if !longRun() && !cheapProblem(p) && model.NumStates(p.Model) > 20 {
			t.Skip("not in the cheap subset (PBGEN_LONG=1 runs it)")
		}
		tight := func(g objective.GradMethod) (*objective.Objective, error) {
			return objective.New(p.Model, p.Objective, &objective.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12,
				Grad: true, Gradient: g})
		}
		ad, err := tight(objective.GradAdjoint)
		if errors.Is(err, objective.ErrAdjoint) {
			t.Skip(err)
		} else if err != nil {
			t.Fatal(err)
		}
		defer func() { ad.Close() }()
		fs, err := tight(objective.GradForward)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { fs.Close() }()
		theta := gradPoint(fs)
		var ra, rf objective.Result
		if err := ad.Eval(theta, &ra); err != nil {
			t.Fatal(err)
		}
		if err := fs.Eval(theta, &rf); err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(ra.LLH - rf.LLH); d > 1e-7*(1+math.Abs(rf.LLH)) {
			t.Errorf("llh %.15g, FS %.15g", ra.LLH, rf.LLH)
		}
		var gmax float64
		for _, g := range rf.Grad {
			gmax = math.Max(gmax, math.Abs(g))
		}
		worst, wa := 0.0, -1
		ids := fs.Params()
		for a, g := range rf.Grad {
			r := math.Abs(ra.Grad[a]-g) / (math.Abs(g) + 1e-3*gmax)
			if math.IsNaN(r) {
				r = math.Inf(1)
			}
			if wa < 0 || r > worst {
				worst, wa = r, a
			}
		}
		if wa < 0 {
			return
		}
		t.Logf("%-26s %d params: worst |adj - FS| / (|FS| + 1e-3 max|FS|) %.3g at %s (adj %.10g, FS %.10g); steps FS %d, adjoint forward %d backward %d",
			name, len(theta), worst, ids[wa], ra.Grad[wa], rf.Grad[wa], rf.Stats.Steps, ra.Stats.Steps, ra.Stats.AdjointSteps)
		if worst > adjTol {
			t.Errorf("adjoint gradient off FS by %.3g (bound %g) at %s", worst, adjTol, ids[wa])
		}
	})
}

// knownAdjointFailures are components of Lang's gradient at the nominal
// point that the adjoint at the default tolerances gets outside the
// gradient check's tolerance against FS at rtol 1e-10, with why. The
// test fails if one starts passing (the entry is then stale).
var knownAdjointFailures = map[string]string{
	// -5.41 against -6.21, where max|g| is 1e12: the adjoint's absolute
	// error is relative to the whole gradient (one lambda serves every
	// component), and this component is a small difference of large
	// terms; forward 1e-7 with backward 1e-6 gave -7.03, forward 1e-6
	// with backward 1e-7 -5.54 again.
	"kImImSKP2_1": "a small component of a gradient of norm 1e12",
}

// TestLangAdjointGradient (PBGEN_LONG=1, about 30 s of CPU) checks the
// adjoint gradient of Lang_PLOSComputBiol2024 at the objective's default
// tolerances against FS at rtol 1e-10 at the nominal point, with the
// gradient check's criterion |g - ref| <= 1e-3 + 1e-2 |ref| (the
// reference is the tight FS gradient, not finite differences: 588 tight
// evaluations of Lang would take many minutes).
func TestLangAdjointGradient(t *testing.T) {
	if !longRun() {
		t.Skip("PBGEN_LONG=1 runs it")
	}
	benchProblems(t, 1<<30, func(t *testing.T, name string, p *Problem) {
		if name != "Lang_PLOSComputBiol2024" {
			t.Skip("Lang only")
		}
		ref, err := objective.New(p.Model, p.Objective, &objective.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, Grad: true})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { ref.Close() }()
		ad, err := objective.New(p.Model, p.Objective, &objective.Options{Grad: true, Gradient: objective.GradAdjoint})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { ad.Close() }()
		th := ref.Nominal()
		var rr, ra objective.Result
		if err := ref.Eval(th, &rr); err != nil {
			t.Fatal(err)
		}
		if err := ad.Eval(th, &ra); err != nil {
			t.Fatal(err)
		}
		fails := 0
		for a, id := range ref.Params() {
			g, want := ra.Grad[a], rr.Grad[a]
			bad := math.Abs(g-want) > gradATol+gradRTol*math.Abs(want)
			switch why := knownAdjointFailures[id]; {
			case why != "" && !bad:
				t.Errorf("%s passes now (%.6g, FS %.6g): remove it from knownAdjointFailures", id, g, want)
			case why != "":
				t.Logf("known failure %s: adjoint %.6g, FS 1e-10 %.6g (%s)", id, g, want, why)
			case bad:
				fails++
				t.Errorf("%s: adjoint %.6g, FS at rtol 1e-10 %.6g", id, g, want)
			}
		}
		t.Logf("%d components, %d known failures, %d new; adjoint steps forward %d backward %d, checkpoints %.2f MB",
			len(th), len(knownAdjointFailures), fails, ra.Stats.Steps, ra.Stats.AdjointSteps, float64(ra.Stats.AdjointBytes)/1e6)
	})
}
