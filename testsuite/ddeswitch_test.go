package testsuite

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/dde"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// ddeSwitchModel lowers testdata/delayswitch/file into an interpreted
// model with its events and switches, and its default p and x0.
func ddeSwitchModel(t *testing.T, file string) (model.Model, []float64, []float64) {
	t.Helper()
	sys, err := Lower(filepath.Join("..", "testdata", "delayswitch", file))
	if err != nil {
		t.Fatal(err)
	}
	m, err := interp.NewWithEvents(sys)
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	x0 := make([]float64, model.NumStates(m))
	m.InitialState(x0, p)
	return m, p, x0
}

// stepInputExact is stepinput.xml's x' = -x(t - 1) + u [t >= T] (x = 1
// before and at 0, 0 < T < 1) by the method of steps on [0, 2], with S
// in p = (T, u):
//
//	[0, 1]: x = 1 - t + u (t - T)+,
//	[1, 2]: x = u (1 - T) - (t - 1) + (t - 1)^2/2 - u ((t - 1 - T)+)^2/2 + u (t - 1).
//
// S_T jumps by -u at T, where f jumps by u at a time that moves with T.
func stepInputExact(t float64, p []float64) (x float64, s [2]float64) {
	T, u := p[0], p[1]
	pos := func(v float64) float64 { return math.Max(v, 0) }
	if t <= 1 {
		h := 0.0
		if t > T {
			h = 1
		}
		return 1 - t + u*pos(t-T), [2]float64{-u * h, pos(t - T)}
	}
	r := t - 1
	x = u*(1-T) - r + r*r/2 - u*pos(r-T)*pos(r-T)/2 + u*r
	return x, [2]float64{-u + u*pos(r-T), (1 - T) - pos(r-T)*pos(r-T)/2 + r}
}

// stateSwitchExact is stateswitch.xml's x' = -k x(t - tau) + b [x < c]
// (x = 1 before and at 0) by the method of steps on [0, 2 tau], for p =
// (k, tau, b, c) near the defaults (1, 1, 0.5, 0.6), where x falls
// through c at t1 = (1 - c)/k < tau and stays below it (b < k):
//
//	[0, t1]:          x = 1 - k t,
//	[t1, tau]:        x = c + (b - k)(t - t1),
//	[tau, tau + t1]:  x = x(tau) + (b - k) r + k^2 r^2/2,          r = t - tau,
//	[tau + t1, 2 tau]: x = x(tau + t1) + (b - k c) r - k (b - k) r^2/2, r = t - tau - t1.
func stateSwitchExact(t float64, p []float64) float64 {
	k, tau, b, c := p[0], p[1], p[2], p[3]
	t1 := (1 - c) / k
	xB := func(t float64) float64 { return c + (b-k)*(t-t1) }
	xC := func(t float64) float64 { r := t - tau; return xB(tau) + (b-k)*r + k*k*r*r/2 }
	switch {
	case t <= t1:
		return 1 - k*t
	case t <= tau:
		return xB(t)
	case t <= tau+t1:
		return xC(t)
	}
	r := t - tau - t1
	return xC(tau+t1) + (b-k*c)*r - k*(b-k)*r*r/2
}

// stateSwitchSens is dx/dp of stateSwitchExact by fourth-order central
// differences of the closed form (smooth in p away from the kinks t1,
// tau, tau + t1): with h = 1e-3 truncation about 1e-12 and rounding about
// 1e-13.
func stateSwitchSens(t float64, p []float64) []float64 {
	s := make([]float64, len(p))
	q := make([]float64, len(p))
	for j := range p {
		h := 1e-3
		at := func(d float64) float64 {
			copy(q, p)
			q[j] += d
			return stateSwitchExact(t, q)
		}
		s[j] = (-at(2*h) + 8*at(h) - 8*at(-h) + at(-2*h)) / (12 * h)
	}
	return s
}

// nestedJumpExact is nestedjump.xml's x' = -x(t - a - b) (x = 1 before
// and at 0) with x := x + c at T (0 < T < L = a + b), by the method of
// steps on [0, 2L], with S in p = (a, b, T, c):
//
//	[0, L]:  x = 1 - t + c [t >= T],
//	[L, 2L]: x = 1 - L + c - (t - L) + (t - L)^2/2 - c (t - L - T)+.
//
// The jump at T reaches f at L + T through the nested delay: S in a, b
// and T jumps there by c.
func nestedJumpExact(t float64, p []float64) (x float64, s [4]float64) {
	a, b, T, c := p[0], p[1], p[2], p[3]
	L := a + b
	if t < L {
		h := 0.0
		if t >= T {
			h = 1
		}
		return 1 - t + c*h, [4]float64{0, 0, 0, h}
	}
	r := t - L
	h, pos := 0.0, math.Max(r-T, 0)
	if r > T {
		h = 1
	}
	x = 1 - L + c - r + r*r/2 - c*pos
	dL := -r + c*h
	return x, [4]float64{dL, dL, c * h, 1 - pos}
}

// TestDelaySwitchSens: dde.SolveSens through a switch of f of a delay
// model, at rtol 1e-10 with BDF and DOPRI5 (interpreted SBML models of
// testdata/delayswitch): a step input at a parameter time T
// (stepinput.xml) and an inflow switched by the state (stateswitch.xml),
// against the method of steps by hand (for the state switch S from the
// closed form by fourth-order central differences: those of dde.Solve
// carry the location error of its switch, 2e-9 of a column at rtol
// 1e-13). The worst entry of S, relative to its
// column's largest, must be within 100 rtol: without the jump (f- - f+)
// dtau/dp at the switch S_T is off by u, a whole column.
func TestDelaySwitchSens(t *testing.T) {
	const rtol = 1e-10
	set := func(meth ode.Method) *dde.Settings {
		return &dde.Settings{ODE: &ode.Settings{Method: meth, RTol: rtol, ATol: 1e-12}}
	}
	{
		m, p, x0 := ddeSwitchModel(t, "stepinput.xml")
		ts := []float64{0, 0.2, 0.3, 0.6, 0.9, 1, 1.2, 1.3, 1.5, 1.7, 2}
		want := make([]float64, 0, 2*len(ts))
		for _, ti := range ts {
			_, s := stepInputExact(ti, p)
			want = append(want, s[:]...)
		}
		for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
			r, err := dde.SolveSens(m, p, x0, nil, ts, set(meth))
			if err != nil {
				t.Fatalf("stepinput %v: %v", meth, err)
			}
			xerr := 0.0
			for i, ti := range ts {
				x, _ := stepInputExact(ti, p)
				xerr = math.Max(xerr, math.Abs(r.XAt(i)[0]-x))
			}
			w, j := colWorst(r.S, want, 2)
			t.Logf("stepinput %v: worst S error relative to its column's largest %.2g (column %s), x within %.2g", meth, w, m.ParamNames()[j], xerr)
			if w > 100*rtol || xerr > 100*rtol {
				t.Errorf("stepinput %v: worst S error %.3g of column %s, x %.3g, want <= %g", meth, w, m.ParamNames()[j], xerr, 100*rtol)
			}
		}
	}
	{
		m, p, x0 := ddeSwitchModel(t, "stateswitch.xml")
		ts := []float64{0, 0.3, 0.5, 0.9, 1.2, 1.6, 1.9}
		var want []float64
		for _, ti := range ts {
			want = append(want, stateSwitchSens(ti, p)...)
		}
		for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
			r, err := dde.SolveSens(m, p, x0, nil, ts, set(meth))
			if err != nil {
				t.Fatalf("stateswitch %v: %v", meth, err)
			}
			xerr := 0.0
			for i, ti := range ts {
				xerr = math.Max(xerr, math.Abs(r.XAt(i)[0]-stateSwitchExact(ti, p)))
			}
			w, j := colWorst(r.S, want, len(p))
			t.Logf("stateswitch %v: worst S error relative to its column's largest %.2g (column %s), x within %.2g", meth, w, m.ParamNames()[j], xerr)
			if w > 100*rtol || xerr > 100*rtol {
				t.Errorf("stateswitch %v: worst S error %.3g of column %s, x %.3g, want <= %g", meth, w, m.ParamNames()[j], xerr, 100*rtol)
			}
		}
	}
}

// TestDelayNestedJumpSens: dde.SolveSens where a nested delay reads a
// jump of the state (nestedjump.xml: x' = -delay(delay(x, a), b) with x
// := x + c at T) against the method of steps by hand, at rtol 1e-10
// with BDF and DOPRI5. The jump at T reaches f at T + a + b only
// through the nested delay; without S's jump there, S in a, b and T is
// off by c after it.
func TestDelayNestedJumpSens(t *testing.T) {
	const rtol = 1e-10
	m, p, x0 := ddeSwitchModel(t, "nestedjump.xml")
	ts := []float64{0, 0.2, 0.6, 1, 1.3, 1.45, 1.6, 2, 2.3}
	want := make([]float64, 0, 4*len(ts))
	for _, ti := range ts {
		_, s := nestedJumpExact(ti, p)
		want = append(want, s[:]...)
	}
	for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
		r, err := dde.SolveSens(m, p, x0, nil, ts, &dde.Settings{ODE: &ode.Settings{Method: meth, RTol: rtol, ATol: 1e-12}})
		if err != nil {
			t.Fatalf("nestedjump %v: %v", meth, err)
		}
		xerr := 0.0
		for i, ti := range ts {
			x, _ := nestedJumpExact(ti, p)
			xerr = math.Max(xerr, math.Abs(r.XAt(i)[0]-x))
		}
		w, j := colWorst(r.S, want, len(p))
		t.Logf("nestedjump %v: worst S error relative to its column's largest %.2g (column %s), x within %.2g", meth, w, m.ParamNames()[j], xerr)
		if w > 100*rtol || xerr > 100*rtol {
			t.Errorf("nestedjump %v: worst S error %.3g of column %s, x %.3g, want <= %g", meth, w, m.ParamNames()[j], xerr, 100*rtol)
		}
	}
}
