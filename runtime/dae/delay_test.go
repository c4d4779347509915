package dae_test

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/runtime/dae"
	"github.com/pbgen/pbgen/runtime/dde"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// hutchDAE is the delay equation x' = -x(t - 1) (x = 1 before the start)
// posed as a DAE whose algebraic equation reads the delayed value:
//
//	x' = -z,  0 = z^3 + z - d^3 - d,  d = delay(x, 1),
//
// monotone in z, so z = d = x(t - 1). The first guess of z is 0, so the
// start goes through Newton's method with d at t0 from the history.
type hutchDAE struct{}

func (hutchDAE) Name() string                  { return "hutchDAE" }
func (hutchDAE) StateNames() []string          { return []string{"x", "z"} }
func (hutchDAE) ParamNames() []string          { return nil }
func (hutchDAE) DefaultParams(dst []float64)   {}
func (hutchDAE) NumAlgebraic() int             { return 1 }
func (hutchDAE) InitialState(dst, p []float64) { dst[0], dst[1] = 1, 0 }
func (hutchDAE) InitialSens(dst, p []float64)  {}
func (h hutchDAE) F(dst []float64, t float64, x, p []float64) {
	h.FDelayed(dst, t, x, p, []float64{math.NaN()})
}
func (hutchDAE) JxPattern() *model.Pattern {
	return &model.Pattern{Rows: 2, Cols: 2, RowPtr: []int{0, 1, 2}, ColIdx: []int{1, 1}}
}
func (h hutchDAE) Jx(dst []float64, t float64, x, p []float64) {
	h.JxDelayed(dst, t, x, p, []float64{math.NaN()})
}
func (hutchDAE) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: 2, Cols: 0, RowPtr: []int{0, 0, 0}}
}
func (hutchDAE) Jp(dst []float64, t float64, x, p []float64)        {}
func (hutchDAE) ResidualT(dst []float64, t float64, x, p []float64) { dst[0] = 0 }
func (hutchDAE) NumDelays() int                                     { return 1 }
func (hutchDAE) DelayInfo(k int) model.DelayInfo {
	return model.DelayInfo{Name: "delay(x, 1)", Constant: true}
}
func (hutchDAE) DelayArg(k int, t float64, x, p, d []float64) float64  { return x[0] }
func (hutchDAE) DelayTime(k int, t float64, x, p, d []float64) float64 { return 1 }
func (hutchDAE) DelayHistory(k int, t float64, p []float64) float64    { return 1 }
func (hutchDAE) FDelayed(dst []float64, t float64, x, p, d []float64) {
	z, e := x[1], d[0]
	dst[0], dst[1] = -z, z*z*z+z-e*e*e-e
}
func (hutchDAE) JxDelayed(dst []float64, t float64, x, p, d []float64) {
	dst[0], dst[1] = -1, 3*x[1]*x[1]+1
}
func (hutchDAE) OutputsDelayedTo(dst []float64, t float64, x, p, d []float64) {}

// hutchX is x' = -x(t - 1) with x = 1 before 0, by the method of steps.
func hutchX(t float64) float64 {
	switch {
	case t < 0:
		return 1
	case t <= 1:
		return 1 - t
	case t <= 2:
		return (t-2)*(t-2)/2 - 0.5
	}
	c := t - 3
	return -0.5 + (t-2)/2 - (c*c*c/6 + 1.0/6)
}

// TestDelayExact: the reduced model of a delay DAE is a delay model that
// runtime/dde solves; x and z agree with the method of steps by hand.
func TestDelayExact(t *testing.T) {
	r, err := dae.New(hutchDAE{})
	if err != nil {
		t.Fatal(err)
	}
	if !model.HasDelays(r) {
		t.Fatal("the reduced model does not implement model.Delays")
	}
	if err := r.Consistent(nil, nil); err != nil {
		t.Fatal(err)
	}
	x0 := make([]float64, 1)
	r.InitialState(x0, nil)
	ts := []float64{0, 0.5, 1, 1.5, 2, 2.5, 3}
	res, err := dde.Solve(r, nil, x0, ts, &dde.Settings{ODE: &ode.Settings{RTol: 1e-10, ATol: 1e-12}})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, 1)
	for i, ti := range ts {
		if got, want := res.XAt(i)[0], hutchX(ti); math.Abs(got-want) > 1e-8 {
			t.Errorf("x(%g) = %.12g, want %.12g", ti, got, want)
		}
		// z, the reduced model's output, is x(t - 1).
		r.OutputsDelayedTo(out, ti, res.XAt(i), nil, res.DAt(i))
		if got, want := out[0], hutchX(ti-1); math.Abs(got-want) > 1e-8 {
			t.Errorf("z(%g) = %.12g, want %.12g", ti, got, want)
		}
	}
}
