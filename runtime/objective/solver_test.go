package objective_test

import (
	"errors"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// countingSolver is a sens.Solver that counts its solves and its Close.
type countingSolver struct {
	*sens.Solver
	solves, closes *int
}

func (s countingSolver) SolveFrom(res *sens.Result, p []float64, st *sens.Start, ts []float64) error {
	*s.solves++
	return s.Solver.SolveFrom(res, p, st, ts)
}

func (s countingSolver) Close() error { *s.closes++; return nil }

// Options.NewSolver is used for every solve of x and S, gets the resolved
// options, gives the default's results, is closed by Close, and its error
// fails New.
func TestNewSolverHook(t *testing.T) {
	prob := abcProblem()
	opt := objective.Options{Method: sens.FS, RTol: 1e-9, ATol: 1e-11, Grad: true, FIM: true}
	def, err := objective.New(newABC(), prob, &opt)
	if err != nil {
		t.Fatal(err)
	}
	defer def.Close()
	theta := def.Nominal()
	want := evalAt(t, def, theta)

	var made, solves, closes int
	hooked := opt
	hooked.NewSolver = func(m model.Model, so *sens.Options) (objective.Solver, error) {
		made++
		if so.Method != sens.FS || so.RTol != opt.RTol || so.ATol != opt.ATol {
			t.Errorf("NewSolver got method %v, tolerances %g %g; want %v, %g %g", so.Method, so.RTol, so.ATol, opt.Method, opt.RTol, opt.ATol)
		}
		return countingSolver{sens.NewSolver(m, so), &solves, &closes}, nil
	}
	o, err := objective.New(newABC(), prob, &hooked)
	if err != nil {
		t.Fatal(err)
	}
	got := evalAt(t, o, theta)
	if made == 0 || solves == 0 {
		t.Fatalf("NewSolver made %d solvers, %d solves: the hook is not used", made, solves)
	}
	// The same solver behind the hook: the results are bit-identical.
	if got.LLH != want.LLH || !floats.Equal(got.Grad, want.Grad) || !floats.Equal(got.FIM, want.FIM) {
		t.Errorf("through the hook: llh %v grad %v; default llh %v grad %v", got.LLH, got.Grad, want.LLH, want.Grad)
	}
	o.Close()
	if closes != made {
		t.Errorf("Close closed %d of %d solvers", closes, made)
	}

	bad := opt
	fail := errors.New("no solver here")
	bad.NewSolver = func(model.Model, *sens.Options) (objective.Solver, error) { return nil, fail }
	if _, err := objective.New(newABC(), prob, &bad); !errors.Is(err, fail) {
		t.Errorf("New with a failing NewSolver: error %v, want one wrapping %v", err, fail)
	}
}
