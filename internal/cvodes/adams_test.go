//go:build cvodes

package cvodes

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/generated/chua"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// TestAdamsStepSequenceMatchesCVODES: runtime/ode's Adams with S in its
// error test (ErrCon) stepping over the outputs (Interpolate) takes
// CVODES's CV_ADAMS steps with fixed-point iteration and errconS in
// CV_NORMAL (Trace), step for step: the step sizes agree to 1e-6 relative
// over the first agree steps at least, and S at the outputs those steps
// cover is CVODES's to 1e-8 (Frobenius, relative, per output). As for the
// BDF (TestStepSequenceMatchesCVODES) the two runs part where the
// rounding of a local error estimate moves a step-size factor across a
// threshold.
func TestAdamsStepSequenceMatchesCVODES(t *testing.T) {
	for _, c := range []struct {
		name       string
		m          model.Model
		tend       float64
		rtol, atol float64
		agree      int
	}{
		{"Chua", chua.New(), 20, 1e-6, 1e-8, 1},
		{"Chua", chua.New(), 20, 1e-8, 1e-10, 1},
		{"PKA", pka.New(), 600, 1e-6, 1e-8, 1},
		{"PKA", pka.New(), 600, 1e-8, 1e-10, 1},
	} {
		m := c.m
		nx, np := model.NumStates(m), model.NumParams(m)
		p := make([]float64, np)
		m.DefaultParams(p)
		x0 := make([]float64, nx)
		m.InitialState(x0, p)
		s0 := make([]float64, nx*np)
		m.InitialSens(s0, p)
		ts := make([]float64, 101)
		for i := range ts {
			ts[i] = c.tend * float64(i) / 100
		}

		sv := ode.NewSolver(m, &ode.Settings{Method: ode.Adams, RTol: c.rtol, ATol: c.atol, Interpolate: true, MaxSteps: 1000000})
		var tr ode.Trajectory
		ours := make([]float64, len(ts)*nx*np)
		if err := sv.IntegrateSens(&tr, ours, p, x0, s0, 0, ts, &ode.SensSettings{ErrCon: true}); err != nil {
			t.Fatal(err)
		}
		st := sv.Stats()

		cv, err := New(m, Options{RTol: c.rtol, ATol: c.atol, Sens: true, ErrCon: true, MaxSteps: -1, Adams: true})
		if err != nil {
			t.Fatal(err)
		}
		steps, err := cv.Trace(p, x0, s0, 0, ts[1], ts[len(ts)-1], nil, 1000000)
		if err != nil {
			cv.Close()
			t.Fatal(err)
		}
		xs, theirs := make([]float64, len(ts)*nx), make([]float64, len(ts)*nx*np)
		err = cv.Solve(p, x0, 0, ts, xs, theirs)
		cv.Close()
		if err != nil {
			t.Fatal(err)
		}
		agree := 0
		for k := 0; k < min(len(steps), tr.Len()-1); k++ {
			h := tr.T[k+1] - tr.T[k]
			if math.Abs(h-steps[k].H) > 1e-6*steps[k].H {
				break
			}
			agree++
		}
		last := steps[len(steps)-1]
		t.Logf("%s rtol %g: steps agree to 1e-6 up to step %d; ours %d steps, %d error test failures, %d+%d iterations, %d f; CVODES %d, %d, %d+%d",
			c.name, c.rtol, agree, st.Steps, st.ErrFails, st.NewtonIters, st.SensNewtonIters, st.FEvals,
			len(steps), last.Nef+last.NefS, last.Nni, last.NniS)
		if agree < c.agree {
			t.Errorf("%s rtol %g: the step sizes agree with CVODES's over %d steps, want at least %d", c.name, c.rtol, agree, c.agree)
		}
		tAgree := tr.T[agree]
		worst := 0.0
		blk := nx * np
		for k, tk := range ts {
			if tk > tAgree {
				break
			}
			var d, n float64
			for e := k * blk; e < (k+1)*blk; e++ {
				d += (ours[e] - theirs[e]) * (ours[e] - theirs[e])
				n += theirs[e] * theirs[e]
			}
			if n > 0 {
				worst = math.Max(worst, math.Sqrt(d/n))
			}
		}
		t.Logf("%s rtol %g: S at the outputs t <= %.4g: %.2g relative to CVODES's", c.name, c.rtol, tAgree, worst)
		if worst > 1e-8 {
			t.Errorf("%s rtol %g: S at the outputs up to t = %g is %.2g off CVODES's", c.name, c.rtol, tAgree, worst)
		}
	}
}
