//go:build cvodes

package testsuite

import (
	"math"
	"math/cmplx"
	"path/filepath"
	"testing"

	"github.com/pbgen/pbgen/internal/cvodes"
	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sens"
)

// TestStateTriggerSegmentCVODES integrates one stretch of the state
// trigger model (testdata/events/statetrigger.xml) between two harvests
// without events: X from c/2 = 0.6 with S after the fifth harvest (from
// the closed form), over the 0.835 time units the logistic takes to
// reach c again, at RTol 1e-10 with S in the error control, by FS and by
// CVODES (CVodeSetSensErrCon), against the closed form. Both are 3.8e-9
// to 6.2e-9 off relative to dX/dp, 40 to 60 times the tolerance, in the
// same 81 steps, and agree with each other to 2% (asserted: 10%): FS's
// error after the harvests in TestEventSensModels is the integrator's,
// as CVODES has it.
func TestStateTriggerSegmentCVODES(t *testing.T) {
	sys, err := Lower(filepath.Join("..", "testdata", "events", "statetrigger.xml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := interp.NewWithEvents(sys)
	if err != nil {
		t.Fatal(err)
	}
	np := model.NumParams(m)
	p := make([]float64, np)
	m.DefaultParams(p)
	p[2] = 100 // c: no harvest within the stretch
	// S after the fifth harvest: rows X, H; columns r, K, c, kh (the H
	// row stays zero without events, as H does).
	s0 := []float64{2.34106767098, 1.20394736928, -1.87500000112, 0, 0, 0, 0, 0}
	x0 := []float64{0.6, 0}
	const T, rtol = 0.835, 1e-10
	// The closed form X(T) = K / (1 + (K/x0 - 1) e^{-rT}), the complex
	// step carried through x0 (its S0) and r, K.
	exact := func(j int) float64 {
		const h = 1e-30
		r, K := complex(p[0], 0), complex(p[1], 0)
		switch j {
		case 0:
			r += complex(0, h)
		case 1:
			K += complex(0, h)
		}
		x := complex(x0[0], h*s0[j])
		return imag(K/(1+(K/x-1)*cmplx.Exp(-r*complex(T, 0)))) / h
	}
	o := sens.Options{Method: sens.FS, ErrCon: true, RTol: rtol, ATol: rtol * 1e-2}
	sv := sens.NewSolver(withoutEventsModel{m}, &o)
	var res sens.Result
	if err := sv.SolveFrom(&res, p, &sens.Start{T0: 0, X0: x0, S0: s0}, []float64{T}); err != nil {
		t.Fatal(err)
	}
	cv, err := cvodes.New(withoutEventsModel{m}, cvodes.Options{RTol: rtol, ATol: rtol * 1e-2, Sens: true, ErrCon: true, MaxSteps: 100000})
	if err != nil {
		t.Fatal(err)
	}
	defer cv.Close()
	cx, cs := make([]float64, 2), make([]float64, 2*np)
	if err := cv.SolveFrom(p, x0, s0, 0, []float64{T}, cx, cs); err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 3; j++ {
		e := exact(j)
		ef, ec := (res.SAt(0)[j]-e)/e, (cs[j]-e)/e
		t.Logf("dX/d%s: FS %.3g off (%d steps), CVODES %.3g off (%d steps)", m.ParamNames()[j], ef, res.Stats.ODE.Steps, ec, cv.LastStats().Steps)
		if math.Abs(ef-ec) > 0.1*math.Abs(ec)+1e-11 {
			t.Errorf("dX/d%s: FS is %.3g off the closed form, CVODES %.3g", m.ParamNames()[j], ef, ec)
		}
	}
}

// withoutEventsModel hides a model's events, which sens.Solver and
// cvodes.Solver refuse; the stretch has none.
type withoutEventsModel struct{ model.Model }

// TestEventSensModelsCVODES solves the models of TestEventSensModels by
// CVODES with its root finding and S in its error test
// (cvodes.EventSolver, the sensitivities carried across each event as
// AMICI carries them) at the same RTol 1e-10, ATol 1e-12, and compares
// both errors against the closed forms: what "within 10x the tolerance"
// asks of our FS (issue #12), CVODES is held to as well. Measured
// (ours, CVODES): 4.3e-10, 4.4e-10 on the baseline without events,
// 8.4e-10, 9.0e-10 (bolus), 3.6e-10, 3.6e-10 (event time), 1.2e-8,
// 1.2e-8 (state trigger) and 1.4e-9, 1.2e-9 (piecewise). Ours lands on
// the output times, where CVODES steps over them and interpolates; with
// ODE.Interpolate ours is CVODES's to the two digits shown on every
// model but the piecewise one, at RTol 1e-6, 1e-8 and 1e-10. Before our
// initial step took S into account as CVODES's does (errconS), the
// baseline was 1.3e-9 in 322 steps: the same algorithm, but a step
// sequence that after the output at t = 1 sat near the top of the band
// where the step is kept (local error estimates 0.45 of the tolerance,
// where CVODES's sat lower). Perturbing RTol by 1e-12 to 1e-6 of itself
// moves CVODES's own error on the piecewise model between 1.2e-9 and
// 2.3e-9 (ours stays at 1.4e-9): these are draws of step sequences, and
// the bound, 1.5 times CVODES's error, is for that scatter.
func TestEventSensModelsCVODES(t *testing.T) {
	const rtol = 1e-10
	for _, c := range eventSensCases() {
		m, p, ref := c.load(t)
		np, nx := model.NumParams(m), model.NumStates(m)

		o := sens.Options{Method: sens.FS, ErrCon: true, RTol: rtol, ATol: rtol * 1e-2}
		r, err := events.SolveSens(m, p, nil, nil, c.ts, &events.SensSettings{Sens: &o})
		if err != nil {
			t.Fatalf("%s FS: %v", c.name, err)
		}
		ours := worstSensErr(t, c.name+" FS", m, c.ts, ref, r.S)

		cv, err := cvodes.NewEvents(m, cvodes.Options{RTol: rtol, ATol: rtol * 1e-2, Sens: true, ErrCon: true, MaxSteps: -1})
		if err != nil {
			t.Fatalf("%s CVODES: %v", c.name, err)
		}
		x0 := make([]float64, nx)
		m.InitialState(x0, p)
		xs, ss := make([]float64, len(c.ts)*nx), make([]float64, len(c.ts)*nx*np)
		err = cv.Solve(p, x0, c.ts[0], c.ts, xs, ss)
		fired := cv.Fired()
		cv.Close()
		if err != nil {
			t.Fatalf("%s CVODES: %v", c.name, err)
		}
		if fired != len(r.Fired) {
			t.Errorf("%s: CVODES fired %d events, runtime/events %d", c.name, fired, len(r.Fired))
		}
		theirs := worstSensErr(t, c.name+" CVODES FS", m, c.ts, ref, ss)
		t.Logf("%s: FS %.2g, CVODES FS %.2g (x rtol: %.1f, %.1f)", c.name, ours, theirs, ours/rtol, theirs/rtol)
		if ours > 1.5*theirs+rtol {
			t.Errorf("%s: our FS is %.2g off, CVODES FS %.2g", c.name, ours, theirs)
		}
	}
}
