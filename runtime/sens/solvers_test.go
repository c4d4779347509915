package sens

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/generated/chua"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// TestSolverMenu: Options.ODE.Method chooses the integrator of x (and of
// S with FS): FS and PBSR on Chua (t in [0, 10], 50 outputs) with each of
// BDF, Adams, DOPRI5 and Cash-Karp at rtol 1e-6 and 1e-8 (atol rtol/100)
// keep S within 100 rtol of FS (BDF, ErrCon) at rtol 1e-10, in max_t
// ||S - S_ref||_F / ||S_ref||_F, and the check (Options.Check) passes.
// Measured in tolerances, FS at rtol 1e-6 and 1e-8: BDF 53, 72; Adams
// 9.4, 6.8; DOPRI5 2.0, 1.5; Cash-Karp 2.4, 6.1 (PBSR, whose S has its
// own error test, 8-21 with every integrator).
func TestSolverMenu(t *testing.T) {
	m := chua.New()
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	ts := make([]float64, 51)
	for i := range ts {
		ts[i] = 0.2 * float64(i)
	}
	ref := mustSolve(t, m, p, ts, &Options{Method: FS, RTol: 1e-10, ATol: 1e-12, ErrCon: true})
	for _, meth := range []ode.Method{ode.BDF, ode.Adams, ode.DOPRI5, ode.CashKarp} {
		for _, sm := range []Method{FS, PBSR} {
			for _, rtol := range []float64{1e-6, 1e-8} {
				o := &Options{Method: sm, RTol: rtol, ATol: rtol / 100, ErrCon: true, Check: true, ODE: ode.Settings{Method: meth}}
				r := mustSolve(t, m, p, ts, o)
				worst := 0.0
				for k := 1; k < len(ts); k++ {
					var d, n float64
					for e, v := range r.SAt(k) {
						w := ref.SAt(k)[e]
						d += (v - w) * (v - w)
						n += w * w
					}
					worst = math.Max(worst, math.Sqrt(d/n))
				}
				t.Logf("%v %v rtol %g: S %.2g off FS at 1e-10 (%.1f tolerances)", meth, sm, rtol, worst, worst/rtol)
				if worst > 100*rtol {
					t.Errorf("%v %v rtol %g: S %.3g off FS at rtol 1e-10, more than 100 tolerances", meth, sm, rtol, worst)
				}
			}
		}
	}
}
