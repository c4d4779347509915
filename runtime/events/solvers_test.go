package events_test

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
	"github.com/pbgen/pbgen/symbolic"
)

// TestSensStateTriggerSolvers: FS through an event located by root
// finding is exact (1e-6) with every integrator: x' = -k x, x(0) = 1,
// x := a when x < c, as in TestSensStateTrigger (event at tau =
// -ln(c)/k, after it x = a e^{-k(t-tau)}, dx/dk = -t x, dx/da =
// e^{-k(t-tau)}, dx/dc = -x/c). BDF and Adams take S at the event from
// their Nordsieck polynomial (one pass), DOPRI5 and Cash-Karp from a
// second pass to the located time.
func TestSensStateTriggerSolvers(t *testing.T) {
	b := symbolic.NewBuilder()
	x, k := b.Sym("x", symbolic.KindState), b.Sym("k", symbolic.KindParam)
	a, c := b.Sym("a", symbolic.KindParam), b.Sym("c", symbolic.KindParam)
	m := build(t, &symbolic.ODE{
		B: b, Name: "statereset",
		States: []symbolic.State{{Name: "x", Rate: b.Neg(b.Mul(k, x)), Init: b.Const(1)}},
		Params: []symbolic.Param{{Name: "k", Value: 1}, {Name: "a", Value: 1}, {Name: "c", Value: 0.5}},
		Events: []symbolic.Event{{
			Name: "reset", Trigger: b.Rel(symbolic.OpLt, x, c), InitialValue: true, Persistent: true,
			Assign: []symbolic.EventAssign{{State: 0, Value: a}},
		}},
	})
	p := []float64{1.1, 0.9, 0.5}
	pk, pa, pc := p[0], p[1], p[2]
	tau := -math.Log(pc) / pk
	ts := []float64{0, 0.3, 0.9, tau + 0.9*math.Log(pa/pc)/pk}
	for _, meth := range []ode.Method{ode.BDF, ode.Adams, ode.DOPRI5, ode.CashKarp} {
		set := &events.SensSettings{Sens: &sens.Options{Method: sens.FS, RTol: 1e-9, ATol: 1e-11,
			ODE: ode.Settings{Method: meth, RTol: 1e-10, ATol: 1e-12}}}
		r, err := events.SolveSens(m, p, nil, nil, ts, set)
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		if len(r.Fired) != 1 || math.Abs(r.Fired[0].T-tau) > 1e-8 {
			t.Fatalf("%v: fired %v, want once at %g", meth, r.Fired, tau)
		}
		worst := 0.0
		for i, tt := range ts {
			xx := math.Exp(-pk * tt)
			want := []float64{-tt * xx, 0, 0}
			if tt > tau {
				e := math.Exp(-pk * (tt - tau))
				xx = pa * e
				want = []float64{-tt * xx, e, -xx / pc}
			}
			if got := r.XAt(i)[0]; relErr(got, xx, 1e-3) > 1e-7 {
				t.Errorf("%v: x(%g) = %.10g, want %.10g", meth, tt, got, xx)
			}
			for j, w := range want {
				worst = math.Max(worst, relErr(r.SAt(i)[j], w, 0.1))
			}
		}
		t.Logf("%v: worst relative error of S %.2g", meth, worst)
		if worst > 1e-6 {
			t.Errorf("%v: S off the closed form by %.3g relative", meth, worst)
		}
	}
}
