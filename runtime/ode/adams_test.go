package ode

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/internal/testode"
)

// adamsLinearErr integrates testode.Linear(1, 2) (non-stiff) with Adams
// at rtol (atol rtol/100) with sensitivities and returns the largest
// relative errors of x and S at t = 10 against the closed forms, and the
// solver.
func adamsLinearErr(t *testing.T, rtol float64, errcon bool) (ex, eS float64, s *Solver) {
	t.Helper()
	pr := testode.Linear(1, 2)
	p := make([]float64, 2)
	pr.Model.DefaultParams(p)
	s = NewSolver(pr.Model, &Settings{Method: Adams, RTol: rtol, ATol: rtol / 100})
	var tr Trajectory
	tout := []float64{1, 5, 10}
	dstS := make([]float64, len(tout)*4)
	x0 := []float64{1, 0}
	if err := s.IntegrateSens(&tr, dstS, p, x0, nil, 0, tout, &SensSettings{ErrCon: errcon}); err != nil {
		t.Fatal(err)
	}
	want, wantS := make([]float64, 2), make([]float64, 4)
	for i, to := range tout {
		testode.LinearSolution(want, to, p)
		testode.LinearSens(wantS, to, p)
		x := tr.XAt(tr.Out[i])
		for k := range want {
			ex = math.Max(ex, math.Abs(x[k]-want[k])/(math.Abs(want[k])+1e-2))
		}
		for k := range wantS {
			eS = math.Max(eS, math.Abs(dstS[i*4+k]-wantS[k])/(math.Abs(wantS[k])+1e-2))
		}
	}
	return ex, eS, s
}

func TestAdamsLinear(t *testing.T) {
	for _, rtol := range []float64{1e-4, 1e-6, 1e-8, 1e-10} {
		ex, eS, s := adamsLinearErr(t, rtol, true)
		st := s.Stats()
		t.Logf("rtol %g: x err %.2e, S err %.2e, %d steps, %d rejected, %d f, max order", rtol, ex, eS, st.Steps, st.Rejected, st.FEvals)
	}
}
