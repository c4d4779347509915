package dde

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"gonum.org/v1/gonum/floats/scalar"
)

// hutchEv is hutch (x' = -x(t - 1), x = 1 before the start) with a
// counter y' = 0 and two events that read the delayed value d = x(t-1):
//
//	E0: t >= 0.5        x := x + d   (d = 1 there: x jumps from 0.5 to 1.5)
//	E1: d <= 0.75       y := y + 1
//
// The plain event methods see d as NaN (as generated code and interp's
// do), so a solver that does not look d up in the history fails.
type hutchEv struct{ hutch }

func (hutchEv) StateNames() []string          { return []string{"x", "y"} }
func (hutchEv) InitialState(dst, p []float64) { dst[0], dst[1] = 1, 0 }
func (h hutchEv) F(dst []float64, t float64, x, p []float64) {
	h.FDelayed(dst, t, x, p, []float64{math.NaN()})
}
func (hutchEv) JxPattern() *model.Pattern {
	return &model.Pattern{Rows: 2, Cols: 2, RowPtr: []int{0, 0, 0}}
}
func (hutchEv) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: 2, Cols: 1, RowPtr: []int{0, 0, 0}}
}
func (hutchEv) FDelayed(dst []float64, t float64, x, p, d []float64) { dst[0], dst[1] = -d[0], 0 }
func (hutchEv) NumEvents() int                                       { return 2 }
func (hutchEv) EventInfo(k int) model.EventInfo {
	return model.EventInfo{Name: [...]string{"E0", "E1"}[k], Persistent: true}
}
func (hutchEv) NumRoots() int            { return 2 }
func (hutchEv) EventTargets(k int) []int { return [...][]int{{0}, {1}}[k] }
func (h hutchEv) TriggersTo(dst []bool, t float64, x, p []float64) {
	h.TriggersDelayedTo(dst, t, x, p, []float64{math.NaN()})
}
func (h hutchEv) RootsTo(dst []float64, t float64, x, p []float64) {
	h.RootsDelayedTo(dst, t, x, p, []float64{math.NaN()})
}
func (hutchEv) Delay(k int, t float64, x, p []float64) float64    { return 0 }
func (hutchEv) Priority(k int, t float64, x, p []float64) float64 { return 0 }
func (h hutchEv) EventAssign(k int, t float64, x, p, dst []float64) {
	h.EventAssignDelayed(k, t, x, p, []float64{math.NaN()}, dst)
}
func (hutchEv) TriggersDelayedTo(dst []bool, t float64, x, p, d []float64) {
	dst[0], dst[1] = t >= 0.5, d[0] <= 0.75
}
func (hutchEv) RootsDelayedTo(dst []float64, t float64, x, p, d []float64) {
	dst[0], dst[1] = t-0.5, 0.75-d[0]
}
func (hutchEv) EventDelayDelayed(k int, t float64, x, p, d []float64) float64 { return 0 }
func (hutchEv) PriorityDelayed(k int, t float64, x, p, d []float64) float64   { return 0 }
func (hutchEv) EventAssignDelayed(k int, t float64, x, p, d, dst []float64) {
	if k == 0 {
		dst[0] = x[0] + d[0]
	} else {
		dst[0] = x[1] + 1
	}
}

var _ model.DelayEvents = hutchEv{}

// hutchEvExact is x of hutchEv, by the method of steps by hand: the jump
// at 0.5 reaches f at 1.5, and x(t-1) is read from the piece before or
// after the jump accordingly.
func hutchEvExact(t float64) float64 {
	switch {
	case t < 0.5:
		return 1 - t
	case t <= 1:
		return 2 - t // x' = -1 (the history), from x(0.5+) = 1.5
	case t <= 1.5:
		return t*t/2 - 2*t + 2.5 // x' = -(1 - (t-1))
	case t <= 2:
		return t*t/2 - 3*t + 4 // x' = -(2 - (t-1)): after the jump
	}
	c := t - 1 // x' = -((t-1)^2/2 - 2(t-1) + 2.5), x(2) = 0
	return -(c*c*c/6 - c*c + 2.5*c - 5.0/3)
}

func TestEventsExact(t *testing.T) {
	ts := []float64{0, 0.25, 0.5, 0.75, 1, 1.2, 1.4, 1.5, 1.75, 2, 2.2, 2.5}
	// E1 fires where x(t-1) falls to 0.75: at t = 1.25 (1 - s = 0.75),
	// is reset false by the jump of x(t-1) at 1.5, and fires again at
	// t = 1 + (2 - sqrt(0.5)) (s^2/2 - 2s + 2.5 = 0.75).
	t2 := 3 - math.Sqrt(0.5)
	wantFired := []struct {
		t float64
		k int
	}{{0.5, 0}, {1.25, 1}, {t2, 1}}
	for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
		set := &Settings{ODE: &ode.Settings{Method: meth, RTol: 1e-10, ATol: 1e-12}}
		r, err := Solve(hutchEv{}, []float64{1}, []float64{1, 0}, ts, set)
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		for i, ti := range ts {
			want, got := hutchEvExact(ti), r.XAt(i)[0]
			if !scalar.EqualWithinAbsOrRel(got, want, 1e-8, 1e-8) {
				t.Errorf("%v: x(%g) = %.12g, want %.12g", meth, ti, got, want)
			}
			wy := 0.0
			switch {
			case ti >= t2:
				wy = 2
			case ti >= 1.25:
				wy = 1
			}
			if y := r.XAt(i)[1]; y != wy {
				t.Errorf("%v: y(%g) = %g, want %g", meth, ti, y, wy)
			}
			// The delayed value is x(t - 1): after the event at 0.5 for
			// t = 1.5 (outputs report the state after the instant).
			wd := 1.0
			if ti >= 1 {
				wd = hutchEvExact(ti - 1)
			}
			if d := r.DAt(i)[0]; !scalar.EqualWithinAbsOrRel(d, wd, 1e-8, 1e-8) {
				t.Errorf("%v: d(%g) = %.12g, want %.12g", meth, ti, d, wd)
			}
		}
		if len(r.Fired) != len(wantFired) {
			t.Fatalf("%v: fired %v, want %v", meth, r.Fired, wantFired)
		}
		for i, f := range r.Fired {
			if f.Event != wantFired[i].k || !scalar.EqualWithinAbsOrRel(f.T, wantFired[i].t, 1e-9, 1e-9) {
				t.Errorf("%v: execution %d: %+v, want %+v", meth, i, f, wantFired[i])
			}
		}
		// The event's breaking point t_e + tau = 1.5 (between the
		// initial ones, 1 and 2).
		found := false
		for _, b := range r.Breaks {
			found = found || b == 1.5
		}
		if !found {
			t.Errorf("%v: breaking points %v lack the event's 1.5", meth, r.Breaks)
		}
	}
}

// TestEventsSensRefused: SolveSens refuses, by name, a model with delays
// and events whose sensitivities it cannot carry across the events:
// without model.DelaySens (hutchEv), with events that may read delayed
// values but without their derivatives in them (model.DelayEventDerivs),
// and with a delay of length zero (its delayed value jumps with the state
// at an event).
func TestEventsSensRefused(t *testing.T) {
	p := []float64{1.25, 0.8, 0.6}
	for _, c := range []struct {
		m    model.Model
		p    []float64
		want string
	}{
		{hutchEv{}, []float64{1}, "model.DelaySens"},
		{noDelayEventDerivs{hutchEvS{}}, p, "model.DelayEventDerivs"},
		{zeroDelayEvS{}, p, "has length zero, with events"},
	} {
		x0 := make([]float64, model.NumStates(c.m))
		x0[0] = 1
		_, err := SolveSens(c.m, c.p, x0, nil, []float64{0, 1}, nil)
		if !errors.Is(err, ErrSens) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: SolveSens: %v, want ErrSens naming %s", c.m.Name(), err, c.want)
		}
	}
}

// noDelayEventDerivs is hutchEvS without model.DelayEventDerivs: its
// RootGradDelayed has another signature.
type noDelayEventDerivs struct{ hutchEvS }

func (noDelayEventDerivs) RootGradDelayed() {}

// zeroDelayEvS is hutchEvS with a delay of length zero.
type zeroDelayEvS struct{ hutchEvS }

func (zeroDelayEvS) Name() string                                          { return "zeroDelayEvS" }
func (zeroDelayEvS) DelayTime(k int, t float64, x, p, d []float64) float64 { return 0 }

// hutchEv0 is hutchEv with the delay fixed at 1 and no parameters.
type hutchEv0 struct{ hutchEv }

func (hutchEv0) ParamNames() []string                                  { return nil }
func (hutchEv0) DefaultParams(dst []float64)                           {}
func (hutchEv0) DelayTime(k int, t float64, x, p, d []float64) float64 { return 1 }
func (hutchEv0) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: 2, Cols: 0, RowPtr: []int{0, 0, 0}}
}

// TestEventsSensNoParams: without parameters S is nx x 0 and SolveSens
// solves the states as Solve does.
func TestEventsSensNoParams(t *testing.T) {
	ts := []float64{0, 1, 1.75, 2.5}
	r, err := SolveSens(hutchEv0{}, nil, []float64{1, 0}, nil, ts, &Settings{ODE: &ode.Settings{RTol: 1e-10, ATol: 1e-12}})
	if err != nil {
		t.Fatal(err)
	}
	if r.NS != 0 || len(r.S) != 0 {
		t.Errorf("NS = %d, len(S) = %d, want 0 and 0", r.NS, len(r.S))
	}
	for i, ti := range ts {
		if want, got := hutchEvExact(ti), r.XAt(i)[0]; !scalar.EqualWithinAbsOrRel(got, want, 1e-8, 1e-8) {
			t.Errorf("x(%g) = %.12g, want %.12g", ti, got, want)
		}
	}
}

// TestEventModelNoAlloc: the event functions Instants calls, with their
// history lookups, allocate nothing.
func TestEventModelNoAlloc(t *testing.T) {
	m := hutchEv{}
	p := []float64{1}
	h := newHistory(m, m, p, []float64{1, 0}, 0)
	em := &evModel{Model: m, ev: m, de: m, h: h, d: make([]float64, 1)}
	x := []float64{0.5, 0}
	trig, roots, v := make([]bool, 2), make([]float64, 2), make([]float64, 1)
	if n := testing.AllocsPerRun(100, func() {
		em.TriggersTo(trig, 0.5, x, p)
		em.RootsTo(roots, 0.5, x, p)
		em.EventAssign(0, 0.5, x, p, v)
		_ = em.Priority(0, 0.5, x, p)
	}); n != 0 {
		t.Errorf("event functions allocate %v times", n)
	}
	// d = x(0.5 - 1), the history: 1.
	if em.EventAssign(0, 0.5, x, p, v); v[0] != 1.5 {
		t.Errorf("x := x + d = %g, want 1.5", v[0])
	}
}

// TestEvSensNoAlloc: the folded event derivatives the instants'
// sensitivities call (evSens, with its history lookups and D, d') and
// the event model's F allocate nothing.
func TestEvSensNoAlloc(t *testing.T) {
	m := hutchEvS{}
	p := []float64{1.25, 0.8, 0.6}
	z0 := make([]float64, 3*(1+3))
	z0[0] = 1
	h := newHistory(m, m, p, z0, 0)
	em := &evModel{Model: m, ev: m, de: m, h: h, d: make([]float64, 1)}
	sr := newSensRHS(m, m, h, p, []float64{1})
	sr.d0 = []float64{1}
	es := newEvSens(em, sr)
	x := []float64{0.5, 0, 0}
	dx, dp, f := make([]float64, 3), make([]float64, 3), make([]float64, 3)
	der := model.EventDeriv{X: make([]float64, 6), P: make([]float64, 6), T: make([]float64, 2)}
	if n := testing.AllocsPerRun(100, func() {
		es.RootGrad(1, 0.5, x, p, dx, dp)
		es.EventDeriv(0, 0.5, x, p, &der)
		em.F(f, 0.5, x, p)
	}); n != 0 {
		t.Errorf("evSens allocates %v times", n)
	}
	// At t = 0.5, d = x(-0.5) is the history: D = 0, d' = 0, so E0's
	// value derivative in a is d = 1 and that in x is 1.
	if der.P[3+1] != 1 || der.X[3] != 1 {
		t.Errorf("E0's value derivatives: P %v, X %v", der.P, der.X)
	}
}
