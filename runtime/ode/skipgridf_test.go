package ode

import (
	"fmt"
	"math"
	"testing"

	"github.com/pbgen/pbgen/internal/testode"
	"github.com/pbgen/pbgen/runtime/model"
)

// SkipGridF changes nothing but Trajectory.F and the f count: the BDF
// takes the same steps to the same states and sensitivities (bit for
// bit), with one f evaluation fewer per step, and F is NaN at the grid
// points after the start. DOPRI5 ignores it.
func TestSkipGridF(t *testing.T) {
	for _, pr := range []testode.Problem{testode.Hires(), testode.Linear(1, 1000)} {
		p, x0 := setup(pr)
		tout := refTimes(pr)
		ns := model.NumParams(pr.Model)
		for _, meth := range []Method{BDF, DOPRI5} {
			if meth == DOPRI5 && pr.Stiff {
				continue
			}
			for _, interp := range []bool{false, true} {
				for _, sens := range []bool{false, true} {
					name := fmt.Sprintf("%s/%v/interp=%v/sens=%v", pr.Name, meth, interp, sens)
					run := func(skip bool) (*Trajectory, []float64, Stats) {
						set := problemSettings(pr, 1e-6)
						set.Method, set.Interpolate, set.SkipGridF = meth, interp, skip
						s := NewSolver(pr.Model, &set)
						tr := &Trajectory{}
						var dst []float64
						var err error
						if sens {
							dst = make([]float64, len(tout)*len(x0)*ns)
							err = s.IntegrateSens(tr, dst, p, x0, nil, 0, tout, nil)
						} else {
							err = s.Integrate(tr, p, x0, 0, tout)
						}
						if err != nil {
							t.Fatal(name, err)
						}
						return tr, dst, s.Stats()
					}
					tr, s, st := run(false)
					trk, sk, stk := run(true)
					if tr.Len() != trk.Len() || st.Steps != stk.Steps {
						t.Fatalf("%s: %d grid points, %d steps; skipping f: %d, %d", name, tr.Len(), st.Steps, trk.Len(), stk.Steps)
					}
					for i, v := range tr.X {
						if trk.X[i] != v {
							t.Fatalf("%s: X[%d] %v, skipping f %v", name, i, v, trk.X[i])
						}
					}
					for i, v := range s {
						if sk[i] != v {
							t.Fatalf("%s: S[%d] %v, skipping f %v", name, i, v, sk[i])
						}
					}
					saved := st.FEvals - stk.FEvals
					if meth == DOPRI5 {
						if saved != 0 {
							t.Errorf("%s: DOPRI5 saved %d f evaluations, want 0", name, saved)
						}
						continue
					}
					if saved != st.Steps {
						t.Errorf("%s: %d f evaluations saved, want one per step (%d)", name, saved, st.Steps)
					}
					for k := 1; k < trk.Len(); k++ {
						if !math.IsNaN(trk.FAt(k)[0]) {
							t.Fatalf("%s: F at grid point %d is %v, want NaN", name, k, trk.FAt(k)[0])
						}
					}
				}
			}
		}
	}
}
