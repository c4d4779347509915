package events_test

import (
	"testing"

	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/internal/testode"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sens"
)

// A solve through an event takes the steps of the integration without
// events up to it and from it, as CVODE's root finding does: the pass
// that locates the event ends at the step where it happens, restarts
// happen at events only (not at outputs), and x and S are integrated
// once (FS) or the state once (PBSR and Exp, S on the state pass).
// Robertson with one dose at t = 1, over [0, 100] with 101 outputs: FS
// 416 steps as without the event (740 when the state was integrated
// alone first, past the event, and restarted at outputs), PBSR and Exp
// 500 against 510 (1198).
func TestStepsAsWithoutEvents(t *testing.T) {
	base := testode.Rober().Model
	const tev = 1
	m, err := testmodels.NewDosing(base, 0, 0, -1, 1e-6, tev, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	np, nx := model.NumParams(m), model.NumStates(m)
	p := make([]float64, np)
	m.DefaultParams(p)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	s0 := make([]float64, nx*np)
	var ts, before, after []float64
	for i := 0; i <= 100; i++ {
		ts = append(ts, float64(i))
		if i <= tev {
			before = append(before, float64(i))
		} else {
			after = append(after, float64(i))
		}
	}
	for _, meth := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
		opt := &sens.Options{Method: meth, RTol: 1e-6, ATol: 1e-10}
		v, err := events.NewSensSolver(m, &events.SensSettings{Sens: opt})
		if err != nil {
			t.Fatal(err)
		}
		var r sens.Result
		if err := v.SolveFrom(&r, p, &events.SensStart{X0: x0, S0: s0}, ts); err != nil {
			t.Fatal(err)
		}
		if n := len(v.Fired()); n != 1 {
			t.Fatalf("%v: %d executions, want 1", meth, n)
		}
		// The integration without events to the dose and from it.
		plain := sens.NewSolver(base, opt)
		var r1, r2 sens.Result
		if err := plain.SolveFrom(&r1, p, &sens.Start{X0: x0, S0: s0}, before); err != nil {
			t.Fatal(err)
		}
		x1 := append([]float64(nil), r1.XAt(len(before)-1)...)
		x1[0] += 1e-6 * p[0]
		if err := plain.SolveFrom(&r2, p, &sens.Start{T0: tev, X0: x1, S0: r1.SAt(len(before) - 1)}, after); err != nil {
			t.Fatal(err)
		}
		got, want := r.Stats.ODE.Steps, r1.Stats.ODE.Steps+r2.Stats.ODE.Steps
		t.Logf("%v: %d steps through the event, %d without it (%d + %d)", meth, got, want, r1.Stats.ODE.Steps, r2.Stats.ODE.Steps)
		if got > want+want/20+2 {
			t.Errorf("%v: %d steps through the event, %d without it", meth, got, want)
		}
	}
}
