package shipped

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// TestLinearSolvers: the shipped networks give the same states and
// sensitivities (all parameters) with the dense and the sparse LU of the
// BDF Newton systems, and the automatic choice keeps the dense LU for all
// of them, so their published numbers are unchanged by the sparse path.
// The two LUs' solves agree to rounding level (ode's TestSolveAgreement);
// over an integration the last-bit differences move the Newton iteration's
// stopping point within its tolerance and can move a step decision, so the
// results agree to the integration tolerance (here 1e-8: to 3e-8 measured;
// at 1e-10 to below 1e-9) and the step counts to 2%. S is in the error
// test (ErrCon): the sparse path's sensitivity corrector with many columns
// rebuilds M (sensNewtonExact) and the dense one does not, and without
// ErrCon S is not held to the tolerance, so the two converge to S's 5e-4
// apart on CaMKII; with it, 1.3e-8.
func TestLinearSolvers(t *testing.T) {
	for _, nw := range networks {
		m := nw.gen
		tout := []float64{1, 10}
		if nw.nx == 3 {
			tout = []float64{1} // Chua is chaotic: keep the horizon short
		}
		if s := ode.NewSolver(m, nil); s.UsesSparse() {
			t.Errorf("%s: LinearAuto picks the sparse LU for %d states", m.Name(), nw.nx)
		}
		run := func(ls ode.LinearSolver) (x, S []float64, st ode.Stats) {
			nx, np := model.NumStates(m), model.NumParams(m)
			p := make([]float64, np)
			m.DefaultParams(p)
			x0 := make([]float64, nx)
			m.InitialState(x0, p)
			s := ode.NewSolver(m, &ode.Settings{LinearSolver: ls, RTol: 1e-8, ATol: 1e-10})
			var tr ode.Trajectory
			S = make([]float64, len(tout)*nx*np)
			if err := s.IntegrateSens(&tr, S, p, x0, nil, 0, tout, &ode.SensSettings{ErrCon: true}); err != nil {
				t.Fatalf("%s %v: %v", m.Name(), ls, err)
			}
			for _, i := range tr.Out {
				x = append(x, tr.X[i*nx:(i+1)*nx]...)
			}
			return x, S, s.Stats()
		}
		xd, Sd, sd := run(ode.LinearDense)
		xs, Ss, ss := run(ode.LinearSparse)
		if d := sd.Steps - ss.Steps; d < -3-sd.Steps/50 || d > 3+sd.Steps/50 {
			t.Errorf("%s: steps %d vs %d, LUs %d vs %d (dense vs sparse)", m.Name(), sd.Steps, ss.Steps, sd.LUs, ss.LUs)
		}
		if d := maxRel(xs, xd); d > 1e-7 {
			t.Errorf("%s: states differ by %.3g relative", m.Name(), d)
		}
		if d := maxRel(Ss, Sd); d > 1e-7 {
			t.Errorf("%s: sensitivities differ by %.3g relative", m.Name(), d)
		}
	}
	if ode.AutoSparse(camkii.NumStates, camkii.NNZJx) {
		t.Error("AutoSparse picks the sparse LU for CaMKII")
	}
}

// maxRel is max |a - b| / (|b| + 1e-3 max|b|).
func maxRel(a, b []float64) float64 {
	var big float64
	for _, v := range b {
		big = math.Max(big, math.Abs(v))
	}
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i])/(math.Abs(b[i])+1e-3*big))
	}
	return d
}
