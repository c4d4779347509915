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
