package sens

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// stiffCaMKII is CaMKII with kf__CaM__Ca = 1e9 (issue #16): the fastest
// binding is then about 1e8 times faster than the rest of the network, so
// that the BDF takes long steps at quasi-steady state.
func stiffCaMKII() (model.Model, []float64) {
	m := camkii.New()
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	p[camkii.ParamKf__CaM__Ca] = 1e9
	return m, p
}

// maxScaledX is max over outputs and states of |x - xr| / (rtol |xr| +
// atol): the error of the states in units of the tolerance.
func maxScaledX(got, ref *Result, rtol, atol float64) float64 {
	var worst float64
	for i, x := range got.X {
		xr := ref.X[i]
		worst = math.Max(worst, math.Abs(x-xr)/(rtol*math.Abs(xr)+atol))
	}
	if math.IsNaN(worst) {
		return math.Inf(1)
	}
	return worst
}

// TestStiffStatesAtOutputs: on the stiff CaMKII every method reports the
// states at the outputs within the tolerance asked for (in units of it, the
// bound of the integrator's own global error, 300 as in runtime/ode), and
// PBSR and Exp the sensitivities within 5e-2 (measured 1.0e-2, 2.3e-2;
// before: 1.3 and 3.6) of FS at rtol 1e-10, FS with ErrCon within 1e-3
// (1.4e-4; without ErrCon S is not error controlled: 0.58). The
// states of PBSR and Exp at outputs between the integrator's steps came
// from a cubic Hermite interpolant: CaM_Ca1 at t = 1 was 2% off (2e4
// tolerances), and so were the x that the S steps used.
func TestStiffStatesAtOutputs(t *testing.T) {
	m, p := stiffCaMKII()
	ts := uniform(0, 10, 10)
	params := []int{camkii.ParamKf__CaM__Ca, camkii.ParamKf__CaM_Ca1__Ca, camkii.ParamKautMax}
	ref := mustSolve(t, m, p, ts, &Options{Method: FS, RTol: 1e-10, ATol: 1e-12, ErrCon: true, Params: params})
	const rtol, atol = 1e-6, 1e-8
	for _, o := range []Options{
		{Method: FS}, {Method: FS, ErrCon: true, SensScale: ScaleNone}, {Method: FS, ErrCon: true}, {Method: PBSR}, {Method: Exp},
		{Method: PBSR, Paper: true}, {Method: Exp, Paper: true},
		// The state grid with the integrator stepping over outputs: S at
		// an output was the cubic Hermite interpolant of S and Jx S + Jp
		// (8e3 and 9e5 off with 100 outputs). Now 0.25 and 0.28, bounded
		// by 0.5 only: on the state grid the state is integrated at the user's
		// tolerance (StateTolFactor 1), and S inherits its error.
		{Method: PBSR, ODE: ode.Settings{Interpolate: true}, Tuning: Tuning{Grid: GridState}},
		{Method: Exp, ODE: ode.Settings{Interpolate: true}, Tuning: Tuning{Grid: GridState}},
		{Method: FS, ODE: ode.Settings{Interpolate: true}},
	} {
		o.RTol, o.ATol, o.Params = rtol, atol, params
		r := mustSolve(t, m, p, ts, &o)
		ex := maxScaledX(r, ref, rtol, atol)
		es := maxRelFro(r, ref)
		t.Logf("%-10s states: error/tolerance %.3g; S: max rel err %.3g", describe(&o), ex, es)
		if !(ex <= 300) {
			t.Errorf("%s: states off by %.3g tolerances", describe(&o), ex)
		}
		if tol := sTol(&o); tol > 0 && !(es <= tol) {
			t.Errorf("%s: S max rel err %.3g > %.3g", describe(&o), es, tol)
		}
		if o.Method == FS && o.ErrCon && o.SensScale == ScaleParams {
			ec := maxColScaled(r, ref, p, params, rtol, atol)
			t.Logf("FS ErrCon ScaleParams: per column %.3g tolerances", ec)
			if !(ec <= 100) {
				t.Errorf("FS ErrCon ScaleParams: a column %.3g tolerances off", ec)
			}
		}
	}
}

// TestStiffWork bounds the work of PBSR and Exp on the stiff CaMKII at
// rtol 1e-4 (outputs every 0.1 on [0, 10], as pbgen sim): their grid
// intervals and exponentials against the FS steps. The S steps used x from
// a cubic Hermite interpolant that was far off at quasi-steady state, so
// Jx varied wildly within steps, the error control refined to thousands
// of intervals per unit time, each with a fresh exponential of 25
// squarings: the solve ran about 9 minutes instead of milliseconds. With
// the integrator's dense output it took 1036 intervals and 740
// exponentials (19015 squarings, each about three nx^3 products) for 400
// FS steps at rtol 1e-6, 6 to 8 times FS's time: h ||Jb - An|| exceeded
// RefTheta at every step, so no exponential was reused; refRel reuses
// them on stiff steps (71 exponentials, 1515 squarings). Bounds: intervals
// <= 4, exponentials <= 1/2, squarings <= 10 times FS's steps.
func TestStiffWork(t *testing.T) {
	m, p := stiffCaMKII()
	ts := uniform(0, 10, 100)
	for _, rtol := range []float64{1e-4, 1e-6} {
		fs := mustSolve(t, m, p, ts, &Options{Method: FS, RTol: rtol})
		nfs := fs.Stats.ODE.Steps
		for _, meth := range []Method{PBSR, Exp} {
			r := mustSolve(t, m, p, ts, &Options{Method: meth, RTol: rtol})
			st := r.Stats
			t.Logf("rtol %g %v: %d intervals, %d exponentials (%d squarings), FS %d steps", rtol, meth, st.Intervals, st.Exponentials, st.Squarings, nfs)
			if st.Intervals > 4*nfs || st.Exponentials > nfs/2 || st.Squarings > 10*nfs {
				t.Errorf("rtol %g %v: %d intervals, %d exponentials (%d squarings) for %d FS steps", rtol, meth, st.Intervals, st.Exponentials, st.Squarings, nfs)
			}
		}
	}
}

// sTol is the bound of TestStiffStatesAtOutputs on S (0: report only).
func sTol(o *Options) float64 {
	switch {
	case o.Paper:
		return 0
	case o.Method == FS && o.ErrCon && o.SensScale == ScaleNone:
		return 1e-3
	case (o.Method == PBSR || o.Method == Exp) && o.Tuning.Grid == GridDefault:
		return 5e-2
	case o.Method == PBSR || o.Method == Exp:
		return 0.5 // a bound on garbage only (see above)
	}
	return 0
}
