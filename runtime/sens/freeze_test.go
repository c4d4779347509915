package sens

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/runtime/model"
)

// TestFrozenSteadyState: CaMKII settles by t ~ 40 (with S drifting
// linearly along a neutral direction of Jx). The frozen steps near
// equilibrium and the skipped converged steps must be as accurate as
// stepping every interval with the Jacobians of the trajectory, both
// against FS at rtol 1e-10: overall (where the state's error dominates,
// the two differ by a few 1e-4 in the transient) and in the steady tail,
// and most steady-state steps must be skipped.
func TestFrozenSteadyState(t *testing.T) {
	m := camkii.New()
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	ts := make([]float64, 601)
	for i := range ts {
		ts[i] = float64(i)
	}
	ref := mustSolve(t, m, p, ts, &Options{Method: FS, RTol: 1e-10, ATol: 1e-12, ErrCon: true})
	tail := func(r *Result) float64 { // max rel error for t >= 100
		var worst float64
		for k := 100; k < len(ts); k++ {
			var d, n float64
			for i, x := range ref.SAt(k) {
				d += (r.SAt(k)[i] - x) * (r.SAt(k)[i] - x)
				n += x * x
			}
			worst = math.Max(worst, math.Sqrt(d/n))
		}
		return worst
	}
	for _, meth := range []Method{PBSR, Exp} {
		o := &Options{Method: meth, RTol: 1e-5, ATol: 1e-6}
		frozen := NewSolver(m, o)
		plain := NewSolver(m, o)
		plain.cfg.noFreeze = true
		var rf, rp Result
		if err := frozen.Solve(&rf, p, nil, 0, ts); err != nil {
			t.Fatal(err)
		}
		if err := plain.Solve(&rp, p, nil, 0, ts); err != nil {
			t.Fatal(err)
		}
		ef, ep := maxRelFro(&rf, ref), maxRelFro(&rp, ref)
		tf, tp := tail(&rf), tail(&rp)
		t.Logf("%v: max rel err frozen %.3g plain %.3g; t >= 100: frozen %.3g plain %.3g; converged steps %d of %d",
			meth, ef, ep, tf, tp, rf.Stats.Converged, rf.Stats.Intervals)
		if !(ef <= 1.5*ep) || !(tf <= 1e-4) || !(tf <= 2*tp+1e-6) {
			t.Errorf("%v: frozen max rel err %.3g (tail %.3g), plain %.3g (tail %.3g)", meth, ef, tf, ep, tp)
		}
		if rf.Stats.Converged < 400 {
			t.Errorf("%v: %d converged steps, want >= 400", meth, rf.Stats.Converged)
		}
		if rp.Stats.Converged != 0 {
			t.Errorf("%v without freezing: %d converged steps", meth, rp.Stats.Converged)
		}
	}
}
