//go:build cvodes

package cvodes_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/pbgen/pbgen/internal/cvodes"
	"github.com/pbgen/pbgen/internal/suites"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// countStates counts a SensSolver's SolveState calls.
type countStates struct {
	*cvodes.SensSolver
	n *int
}

func (c countStates) SolveState(x, p []float64, t0, t1 float64) (int, int, error) {
	*c.n++
	return c.SensSolver.SolveState(x, p, t0, t1)
}

// The objective on CVODES (NewObjectiveSolver) agrees with the objective
// on our FS at tight tolerances: llh, gradient and FIM of the vendored
// PEtab problem, whose pre-equilibrated experiment starts from an S0 that
// is not InitialSens (what SolveFrom's s0 is for).
func TestObjectiveSolver(t *testing.T) {
	root, err := suites.Root()
	if err != nil {
		t.Fatal(err)
	}
	p, err := petab.Load(filepath.Join(root, "petab", "testdata", "conv", "problem.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	preeq := false
	for _, ex := range p.Objective.Experiments {
		preeq = preeq || ex.Preeq >= 0
	}
	if !preeq {
		t.Fatal("the fixture has no pre-equilibration: the test would not exercise S0")
	}
	eval := func(hook func(*objective.Options)) *objective.Result {
		opt := &objective.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, Grad: true, FIM: true}
		if hook != nil {
			hook(opt)
		}
		o, err := objective.New(p.Model, p.Objective, opt)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		// Away from the nominal point so that no gradient component
		// vanishes by accident.
		th := o.Nominal()
		for a := range th {
			th[a] += 0.1 * float64(a%3-1)
		}
		var r objective.Result
		if err := o.Eval(th, &r); err != nil {
			t.Fatal(err)
		}
		if r.Stats.Steps == 0 {
			t.Error("no steps counted")
		}
		return &r
	}
	want := eval(nil)
	// The steady-state search integrates the state on CVODES too
	// (objective.StateSolver), counted through a wrapper.
	var stateSolves int
	got := eval(func(o *objective.Options) {
		o.NewSolver = func(m model.Model, so *sens.Options) (objective.Solver, error) {
			s, err := cvodes.NewObjectiveSolver(m, so)
			if err != nil {
				return nil, err
			}
			return countStates{s.(*cvodes.SensSolver), &stateSolves}, nil
		}
	})
	if stateSolves == 0 {
		t.Error("the pre-equilibration did not integrate the state on CVODES")
	}
	near := func(what string, g, w float64) {
		if math.Abs(g-w) > 1e-6*(1+math.Abs(w)) {
			t.Errorf("%s: CVODES %.10g, ours %.10g", what, g, w)
		}
	}
	near("llh", got.LLH, want.LLH)
	for a := range want.Grad {
		near("grad", got.Grad[a], want.Grad[a])
	}
	for i := range want.FIM {
		near("FIM", got.FIM[i], want.FIM[i])
	}
	t.Logf("llh %.10g (CVODES %.10g), grad %v", want.LLH, got.LLH, want.Grad)
}
