package dde

import (
	"errors"
	"math"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"gonum.org/v1/gonum/floats/scalar"
)

// hutch is x' = -x(t - tau), x = 1 before the start (tau = p[0]): the
// textbook DDE whose solution is a polynomial on each [k tau, (k+1) tau].
type hutch struct{}

func (hutch) Name() string                  { return "hutch" }
func (hutch) StateNames() []string          { return []string{"x"} }
func (hutch) ParamNames() []string          { return []string{"tau"} }
func (hutch) DefaultParams(dst []float64)   { dst[0] = 1 }
func (hutch) InitialState(dst, p []float64) { dst[0] = 1 }
func (hutch) InitialSens(dst, p []float64)  { clear(dst) }
func (h hutch) F(dst []float64, t float64, x, p []float64) {
	h.FDelayed(dst, t, x, p, []float64{math.NaN()})
}
func (hutch) JxPattern() *model.Pattern                   { return &model.Pattern{Rows: 1, Cols: 1, RowPtr: []int{0, 0}} }
func (hutch) Jx(dst []float64, t float64, x, p []float64) {}
func (hutch) JpPattern() *model.Pattern                   { return &model.Pattern{Rows: 1, Cols: 1, RowPtr: []int{0, 0}} }
func (hutch) Jp(dst []float64, t float64, x, p []float64) {}
func (hutch) NumDelays() int                              { return 1 }
func (hutch) DelayInfo(k int) model.DelayInfo {
	return model.DelayInfo{Name: "delay(x, tau)", Constant: true}
}
func (hutch) DelayArg(k int, t float64, x, p, d []float64) float64         { return x[0] }
func (hutch) DelayTime(k int, t float64, x, p, d []float64) float64        { return p[0] }
func (hutch) DelayHistory(k int, t float64, p []float64) float64           { return 1 }
func (hutch) FDelayed(dst []float64, t float64, x, p, d []float64)         { dst[0] = -d[0] }
func (hutch) JxDelayed(dst []float64, t float64, x, p, d []float64)        {}
func (hutch) OutputsDelayedTo(dst []float64, t float64, x, p, d []float64) {}

// hutchExact is the solution of hutch with tau = 1 on [0, 3].
func hutchExact(t float64) float64 {
	switch {
	case t <= 1:
		return 1 - t
	case t <= 2:
		return (t-2)*(t-2)/2 - 0.5
	}
	c := t - 3
	return -0.5 + (t-2)/2 - (c*c*c/6 + 1.0/6)
}

func TestHutchinsonExact(t *testing.T) {
	ts := []float64{0, 0.25, 0.5, 1, 1.3, 1.75, 2, 2.2, 2.5, 3}
	for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
		set := &Settings{ODE: &ode.Settings{Method: meth, RTol: 1e-10, ATol: 1e-12}}
		r, err := Solve(hutch{}, []float64{1}, []float64{1}, ts, set)
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		for i, ti := range ts {
			want, got := hutchExact(ti), r.XAt(i)[0]
			if !scalar.EqualWithinAbsOrRel(got, want, 1e-8, 1e-8) {
				t.Errorf("%v: x(%g) = %.12g, want %.12g", meth, ti, got, want)
			}
			// The delayed value is x(t - 1).
			wd := 1.0
			if ti >= 1 {
				wd = hutchExact(ti - 1)
			}
			if d := r.DAt(i)[0]; !scalar.EqualWithinAbsOrRel(d, wd, 1e-8, 1e-8) {
				t.Errorf("%v: d(%g) = %.12g, want %.12g", meth, ti, d, wd)
			}
		}
		// Breaking points of orders 1 and 2 inside (0, 3).
		if want := []float64{1, 2}; len(r.Breaks) != 2 || r.Breaks[0] != want[0] || r.Breaks[1] != want[1] {
			t.Errorf("%v: breaking points %v, want %v", meth, r.Breaks, want)
		}
	}
}

func TestBreaks(t *testing.T) {
	got := breaks(0, 2, []float64{0.5, 0.75, 0.5}, 3, 100)
	want := []float64{0.5, 0.75, 1, 1.25, 1.5, 1.75}
	if len(got) != len(want) {
		t.Fatalf("breaks = %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("breaks = %v, want %v", got, want)
		}
	}
	if got := breaks(0, 100, []float64{0.01}, 5, 7); len(got) != 5 {
		// five generations of one delay: 0.01 ... 0.05
		t.Errorf("breaks with a short delay = %v, want 5 points", got)
	}
	if got := breaks(0, 100, []float64{0.01, 0.013, 0.017}, 5, 7); len(got) != 7 {
		t.Errorf("breaks capped at 7: got %d", len(got))
	}
}

// nested is x' = 1, x(0) = 0 (so x = 0 before the start), with
// z = delay(x, 1) and y = delay(x, z): a delay whose length is itself a
// delayed value, and one that changes with time.
type nested struct{ hutch }

func (nested) NumDelays() int { return 2 }
func (nested) DelayInfo(k int) model.DelayInfo {
	if k == 0 {
		return model.DelayInfo{Name: "delay(x, 1)", Constant: true}
	}
	return model.DelayInfo{Name: "delay(x, z)", Reads: 1}
}
func (nested) InitialState(dst, p []float64)                        { dst[0] = 0 }
func (nested) DelayArg(k int, t float64, x, p, d []float64) float64 { return x[0] }
func (nested) DelayTime(k int, t float64, x, p, d []float64) float64 {
	if k == 0 {
		return 1
	}
	return d[0]
}
func (nested) DelayHistory(k int, t float64, p []float64) float64   { return 0 }
func (nested) FDelayed(dst []float64, t float64, x, p, d []float64) { dst[0] = 1 }
func (n nested) F(dst []float64, t float64, x, p []float64)         { dst[0] = 1 }

func TestNestedDelays(t *testing.T) {
	ts := []float64{0, 0.5, 1, 1.5, 2, 3}
	r, err := Solve(nested{}, []float64{1}, []float64{0}, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, ti := range ts {
		z := math.Max(0, ti-1)
		y := math.Min(ti, 1) // x(t - z(t))
		if d := r.DAt(i); !scalar.EqualWithinAbsOrRel(d[0], z, 1e-6, 1e-6) || !scalar.EqualWithinAbsOrRel(d[1], y, 1e-6, 1e-6) {
			t.Errorf("t=%g: z, y = %g, %g, want %g, %g", ti, d[0], d[1], z, y)
		}
	}
}

func TestNegativeDelay(t *testing.T) {
	_, err := Solve(hutch{}, []float64{-1}, []float64{1}, []float64{0, 1}, nil)
	if !errors.Is(err, ErrDelay) {
		t.Fatalf("err = %v, want ErrDelay", err)
	}
}

// runtime/ode refuses a model with delays rather than integrate it as an
// ODE.
func TestODERefuses(t *testing.T) {
	var tr ode.Trajectory
	err := ode.NewSolver(hutch{}, nil).Integrate(&tr, []float64{1}, []float64{1}, 0, []float64{1})
	if !errors.Is(err, ode.ErrDelays) {
		t.Fatalf("err = %v, want ode.ErrDelays", err)
	}
}

// The right-hand side handed to the integrator allocates nothing.
func TestRHSAllocs(t *testing.T) {
	m := nested{}
	h := newHistory(m, m, []float64{1}, []float64{0}, 0)
	r := &rhs{Model: m, dm: m, h: h, d: make([]float64, 2)}
	dst := make([]float64, 1)
	x := []float64{0.5}
	if n := testing.AllocsPerRun(100, func() { r.F(dst, 0.5, x, h.p) }); n != 0 {
		t.Errorf("F allocates %v times", n)
	}
}

// Breaking points that differ from output times by rounding (0.1 + 0.1 +
// 0.1 against 3/10) do not make segments of a few ulps.
func TestBreaksNearOutputs(t *testing.T) {
	ts := make([]float64, 11)
	for i := range ts {
		ts[i] = float64(i) / 10
	}
	for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
		r, err := Solve(hutch{}, []float64{0.1}, []float64{1}, ts, &Settings{ODE: &ode.Settings{Method: meth}})
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		// On [0, 0.1] x = 1 - t.
		if got := r.XAt(1)[0]; math.Abs(got-0.9) > 1e-6 {
			t.Errorf("%v: x(0.1) = %g, want 0.9", meth, got)
		}
	}
}

// A delay far shorter than the time span does not bound the step: the
// steps overlap it and extrapolate. x' = -x(t - tau) with tau = 1e-6 is
// x' = -x to O(tau).
func TestShortDelay(t *testing.T) {
	r, err := Solve(hutch{}, []float64{1e-6}, []float64{1}, []float64{0, 5, 10}, &Settings{ODE: &ode.Settings{RTol: 1e-8, ATol: 1e-10}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.XAt(2)[0], math.Exp(-10*(1+1e-6)); !scalar.EqualWithinAbsOrRel(got, want, 1e-8, 1e-5) {
		t.Errorf("x(10) = %g, want about %g", got, want)
	}
}

// A nil model is an error from Solve and SolveSens, not a panic.
func TestNilModel(t *testing.T) {
	if _, err := Solve(nil, nil, nil, []float64{0, 1}, nil); err == nil {
		t.Error("Solve(nil model): no error")
	}
	if _, err := SolveSens(nil, nil, nil, nil, []float64{0, 1}, nil); err == nil {
		t.Error("SolveSens(nil model): no error")
	}
}
