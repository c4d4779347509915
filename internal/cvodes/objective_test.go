//go:build cvodes

package cvodes_test

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pbgen/pbgen/internal/cvodes"
	"github.com/pbgen/pbgen/internal/suites"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/events"
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

// countFired is an EventSensSolver that counts the event executions of
// its solves.
type countFired struct {
	*cvodes.EventSensSolver
	n *int
}

func (c countFired) SolveEvents(res *sens.Result, p []float64, st *events.SensStart, ts []float64) error {
	err := c.EventSensSolver.SolveEvents(res, p, st, ts)
	*c.n += c.Fired()
	return err
}

// The objective of a PEtab problem with SBML events on CVODES (the
// EventSensSolver of NewObjectiveSolver, root finding on throughout)
// agrees with ours (runtime/events, and the objective's solve without
// events where none fires) at tight tolerances: llh, gradient and FIM
// of Liu_IFACPapersOnLine2025 at a perturbed point, where no event fires,
// and at one where the virus clears the tumour cells and U < 1e-8 fires
// (psi 100x nominal); and of the PEtab v2 test suite's event cases: 0016
// (an event at a period's start after the condition's changes: Open),
// 0023 (an event during pre-equilibration, not executed again after it:
// steady state in chunks with Continue, trigger values carried over) and
// 0030 (a time-triggered event at a period's start).
func TestObjectiveEventSolver(t *testing.T) {
	type point struct {
		name  string
		move  func(o *objective.Objective, th []float64)
		fires bool // CVODES must execute events here
	}
	perturb := func(o *objective.Objective, th []float64) {
		for a := range th {
			if o.Scales()[a] == objective.Lin {
				th[a] *= 1 + 0.05*float64(a%3-1)
			} else {
				th[a] += 0.05 * float64(a%3-1)
			}
		}
	}
	cases := []struct {
		name, dir, yaml string
		points          []point
	}{
		{"Liu", suites.PEtabBenchmark, "Liu_IFACPapersOnLine2025/Liu_IFACPapersOnLine2025.yaml", []point{
			{"perturbed", perturb, false},
			{"firing", func(o *objective.Objective, th []float64) {
				perturb(o, th)
				th[slices.Index(o.Params(), "psi")] += 2
			}, true},
		}},
		{"v2/0016", suites.PEtabTestSuite, "v2.0.0/sbml/0016/_0016.yaml", []point{{"perturbed", perturb, true}}},
		{"v2/0023", suites.PEtabTestSuite, "v2.0.0/sbml/0023/_0023.yaml", []point{{"perturbed", perturb, true}}},
		{"v2/0030", suites.PEtabTestSuite, "v2.0.0/sbml/0030/_0030.yaml", []point{{"perturbed", perturb, true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := suites.Dir(t, tc.dir)
			p, err := petab.Load(filepath.Join(root, tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if p.Model.NumEvents() == 0 {
				t.Fatal("no events")
			}
			var fired, made int
			hook := func(m model.Model, so *sens.Options) (objective.Solver, error) {
				if _, ok := m.(model.EventDerivs); !ok {
					t.Error("NewSolver's model has no event derivatives")
				}
				s, err := cvodes.NewObjectiveSolver(m, so)
				if err != nil {
					return nil, err
				}
				es, ok := s.(*cvodes.EventSensSolver)
				if !ok {
					t.Fatalf("NewObjectiveSolver returned a %T for a model with events", s)
				}
				made++
				return countFired{es, &fired}, nil
			}
			for _, pt := range tc.points {
				eval := func(hook func(model.Model, *sens.Options) (objective.Solver, error)) *objective.Result {
					o, err := objective.New(p.Model, p.Objective, &objective.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, Grad: true, FIM: true, NewSolver: hook})
					if err != nil {
						t.Fatal(err)
					}
					defer o.Close()
					th := o.Nominal()
					if pt.move != nil {
						pt.move(o, th)
					}
					var r objective.Result
					if err := o.Eval(th, &r); err != nil {
						t.Fatal(err)
					}
					// Twice: the objective's own path changes after a
					// phase once needed events (partial.evSlow).
					if err := o.Eval(th, &r); err != nil {
						t.Fatal(err)
					}
					return &r
				}
				want := eval(nil)
				fired = 0
				got := eval(hook)
				if made == 0 {
					t.Fatal("NewSolver not called")
				}
				if pt.fires != (fired > 0) {
					t.Errorf("%s: CVODES executed %d events, want some: %v", pt.name, fired, pt.fires)
				}
				near := func(what string, g, w float64) {
					if !(math.Abs(g-w) <= 1e-6*(1+math.Abs(w))) {
						t.Errorf("%s: %s: CVODES %.10g, ours %.10g", pt.name, what, g, w)
					}
				}
				near("llh", got.LLH, want.LLH)
				worst := 0.0
				for a := range want.Grad {
					near(fmt.Sprintf("grad[%d]", a), got.Grad[a], want.Grad[a])
					worst = math.Max(worst, math.Abs(got.Grad[a]-want.Grad[a])/(1+math.Abs(want.Grad[a])))
				}
				for i := range want.FIM {
					near("FIM", got.FIM[i], want.FIM[i])
				}
				t.Logf("%s: llh %.10g (CVODES %.10g, %d executions over two evaluations), worst gradient difference %.2g (relative to 1+|g|) in %.6g; CVODES steps %d, ours %d",
					pt.name, want.LLH, got.LLH, fired, worst, want.Grad, got.Stats.Steps, want.Stats.Steps)
			}
		})
	}
}
