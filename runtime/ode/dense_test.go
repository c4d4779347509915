package ode

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/internal/testode"
)

// maxDenseToLocal bounds the local error of the dense output in units of
// the local tolerance. Measured at rtol 1e-6: ROBER 4.4, HIRES 13, VDPOL
// 4.7, OREGO 27, E5 24, POLLU 4.7, LINEAR 3.1 (BDF); the cubic Hermite
// interpolant used before: 2.6e7, 1.4e3, 1.5e4, 2.9e4, 1e8, 6.2, 3.5.
const maxDenseToLocal = 60

// TestDenseOutput checks x(t) between grid points (Trajectory.InterpTo,
// the states that sens reports at output times and uses inside its steps)
// against a reference integrated at rtol 1e-11 from the start of the same
// step: the error in units of the local tolerance must stay within
// maxDenseToLocal. The cubic Hermite interpolant
// through (x, f) at the ends of a step, used before, is reported for
// comparison: on the stiff problems f at a computed state carries the
// state's error times ||Jx||, and its error reached about 1e5 tolerances.
func TestDenseOutput(t *testing.T) {
	probs := append(testode.All(), testode.Linear(1, 1000), testode.Linear(1, 3))
	for _, pr := range probs {
		for _, meth := range []Method{BDF, DOPRI5, Adams, CashKarp} {
			if meth != BDF && pr.Stiff {
				continue
			}
			st := problemSettings(pr, 1e-6)
			st.Method = meth
			st.Interpolate = true
			p, x0 := setup(pr)
			var tr Trajectory
			if err := NewSolver(pr.Model, &st).Integrate(&tr, p, x0, pr.T0, []float64{pr.TEnd}); err != nil {
				t.Fatalf("%s %v: %v", pr.Name, meth, err)
			}
			// Reference: from the grid point at the start of each step, at
			// rtol 1e-11, to query points inside it. This measures the
			// local error of the dense output, which is what the
			// integrator controls (a global reference would also measure
			// the phase error that VDPOL and OREGO accumulate in their
			// fast transitions).
			rst := problemSettings(pr, 1e-11)
			rs := NewSolver(pr.Model, &rst)
			var ref Trajectory
			nx := tr.NX
			x, xh := make([]float64, nx), make([]float64, nx)
			var worst, worstH float64
			for k := 0; k+1 < tr.Len(); k++ {
				var ts []float64
				for _, c := range []float64{0.25, 0.5, 0.75} {
					q := tr.T[k] + c*(tr.T[k+1]-tr.T[k])
					if q > tr.T[k] && q < tr.T[k+1] {
						ts = append(ts, q)
					}
				}
				if len(ts) == 0 {
					continue
				}
				if err := rs.Integrate(&ref, p, tr.XAt(k), tr.T[k], ts); err != nil {
					t.Fatalf("%s reference: %v", pr.Name, err)
				}
				for i, q := range ts {
					tr.InterpTo(x, q)
					hermiteTo(xh, q, tr.T[k], tr.T[k+1], tr.XAt(k), tr.XAt(k+1), tr.FAt(k), tr.FAt(k+1))
					xr := ref.XAt(ref.Out[i])
					for j := range x {
						atol := st.ATol
						if st.ATolVec != nil {
							atol = st.ATolVec[j]
						}
						w := st.RTol*math.Abs(xr[j]) + atol
						worst = math.Max(worst, math.Abs(x[j]-xr[j])/w)
						worstH = math.Max(worstH, math.Abs(xh[j]-xr[j])/w)
					}
				}
			}
			t.Logf("%-6s %-6v %4d steps: dense output error/tolerance %.3g (cubic Hermite %.3g)", pr.Name, meth, tr.Len()-1, worst, worstH)
			if !(worst <= maxDenseToLocal) {
				t.Errorf("%s %v: dense output error %.3g tolerances, want <= %d", pr.Name, meth, worst, maxDenseToLocal)
			}
		}
	}
}
