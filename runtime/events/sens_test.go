package events_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
	"github.com/pbgen/pbgen/symbolic"
)

// build makes an interpreted model with events from an ODE description.
func build(t testing.TB, o *symbolic.ODE) *interp.Model {
	t.Helper()
	sys, err := symbolic.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	m, err := interp.NewWithEvents(sys)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var sensMethods = []sens.Method{sens.FS, sens.PBSR, sens.Exp, sens.PBS}

// sensTol is each method's tolerance against an exact S. Exp and PBS
// have no error control of S (sens.Exp, sens.PBS): at RTol 1e-9 they are
// about 1e-4 off on these models already before the first event, so
// their bound is looser; a wrong jump is off by O(1).
var sensTol = map[sens.Method]float64{sens.FS: 1e-6, sens.PBSR: 1e-5, sens.Exp: 1e-3, sens.PBS: 1e-3}

func sensSet(meth sens.Method) *events.SensSettings {
	return &events.SensSettings{Sens: &sens.Options{Method: meth, RTol: 1e-9, ATol: 1e-11,
		ODE: ode.Settings{RTol: 1e-10, ATol: 1e-12}}}
}

// relErr is |got - want| relative to max(|want|, scale).
func relErr(got, want, scale float64) float64 {
	return math.Abs(got-want) / math.Max(math.Abs(want), scale)
}

// decayReset is x' = -k x, x(0) = 1, with one event: at t >= T the
// assignment x := x + a (params k, a, T). The event time is T itself:
// dtau/dk = dtau/da = 0, dtau/dT = 1.
func decayReset(t *testing.T) *interp.Model {
	b := symbolic.NewBuilder()
	x, k := b.Sym("x", symbolic.KindState), b.Sym("k", symbolic.KindParam)
	a, T := b.Sym("a", symbolic.KindParam), b.Sym("T", symbolic.KindParam)
	return build(t, &symbolic.ODE{
		B: b, Name: "timereset",
		States: []symbolic.State{{Name: "x", Rate: b.Neg(b.Mul(k, x)), Init: b.Const(1)}},
		Params: []symbolic.Param{{Name: "k", Value: 1}, {Name: "a", Value: 1}, {Name: "T", Value: 1}},
		Events: []symbolic.Event{{
			Name: "add", Trigger: b.Rel(symbolic.OpGeq, b.Time(), T), InitialValue: true, Persistent: true,
			Assign: []symbolic.EventAssign{{State: 0, Value: b.Add(x, a)}},
		}},
	})
}

// TestSensTimeTrigger: x(t) = e^{-kt} + a e^{-k(t-T)} after T, so
// dx/dk = -t e^{-kt} - a (t-T) e^{-k(t-T)}, dx/da = e^{-k(t-T)} and
// dx/dT = a k e^{-k(t-T)}.
func TestSensTimeTrigger(t *testing.T) {
	m := decayReset(t)
	p := []float64{0.7, 0.4, 1.3}
	k, a, T := p[0], p[1], p[2]
	ts := []float64{0, 0.5, 1.3, 2, 3.5}
	for _, meth := range sensMethods {
		r, err := events.SolveSens(m, p, nil, nil, ts, sensSet(meth))
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		worst := 0.0
		for i, tt := range ts {
			want := []float64{-tt * math.Exp(-k*tt), 0, 0}
			if tt >= T {
				e := math.Exp(-k * (tt - T))
				want = []float64{-tt*math.Exp(-k*tt) - a*(tt-T)*e, e, a * k * e}
			}
			for j, w := range want {
				got := r.SAt(i)[j]
				if e := relErr(got, w, 0.1); e > worst {
					worst = e
				}
				if relErr(got, w, 0.1) > sensTol[meth] {
					t.Errorf("%v: t=%g: dx/d%s = %.10g, want %.10g", meth, tt, m.ParamNames()[j], got, w)
				}
			}
		}
		t.Logf("%v: worst relative error %.2g", meth, worst)
	}
}

// TestSensStateTrigger: x' = -k x, x(0) = 1, event x < c with x := a
// (set) or x := x + a (add), params k, a, c. The event is at tau =
// -ln(c)/k (dtau/dk = -tau/k, dtau/dc = -1/(k c)); after it x = v
// e^{-k(t-tau)} with v = a or c + a, so dx/dk = -t x, dx/da =
// e^{-k(t-tau)}, and dx/dc = -x/c (set) or e^{-k(t-tau)} - x/c (add).
func TestSensStateTrigger(t *testing.T) {
	for _, add := range []bool{false, true} {
		b := symbolic.NewBuilder()
		x, k := b.Sym("x", symbolic.KindState), b.Sym("k", symbolic.KindParam)
		a, c := b.Sym("a", symbolic.KindParam), b.Sym("c", symbolic.KindParam)
		val := a
		if add {
			val = b.Add(x, a)
		}
		m := build(t, &symbolic.ODE{
			B: b, Name: "statereset",
			States: []symbolic.State{{Name: "x", Rate: b.Neg(b.Mul(k, x)), Init: b.Const(1)}},
			Params: []symbolic.Param{{Name: "k", Value: 1}, {Name: "a", Value: 1}, {Name: "c", Value: 0.5}},
			Events: []symbolic.Event{{
				Name: "reset", Trigger: b.Rel(symbolic.OpLt, x, c), InitialValue: true, Persistent: true,
				Assign: []symbolic.EventAssign{{State: 0, Value: val}},
			}},
		})
		p := []float64{1.1, 0.9, 0.5}
		pk, pa, pc := p[0], p[1], p[2]
		if add {
			pa = 0.4
			p[1] = pa
		}
		tau := -math.Log(pc) / pk
		v := pa
		if add {
			v = pc + pa
		}
		// One event before the last output: the next would be at tau +
		// ln(v/c)/k.
		ts := []float64{0, 0.3, 0.9, tau + 0.9*math.Log(v/pc)/pk}
		for _, meth := range sensMethods {
			r, err := events.SolveSens(m, p, nil, nil, ts, sensSet(meth))
			if err != nil {
				t.Fatalf("%v: %v", meth, err)
			}
			if len(r.Fired) != 1 {
				t.Fatalf("%v: fired %v, want once", meth, r.Fired)
			}
			worst := 0.0
			for i, tt := range ts {
				xx := math.Exp(-pk * tt)
				want := []float64{-tt * xx, 0, 0}
				if tt > tau {
					e := math.Exp(-pk * (tt - tau))
					xx = v * e
					want = []float64{-tt * xx, e, -xx / pc}
					if add {
						want[2] += e
					}
				}
				if got := r.XAt(i)[0]; relErr(got, xx, 1e-3) > 1e-7 {
					t.Errorf("%v add=%v: x(%g) = %.10g, want %.10g", meth, add, tt, got, xx)
				}
				for j, w := range want {
					got := r.SAt(i)[j]
					e := relErr(got, w, 0.1)
					worst = math.Max(worst, e)
					if e > sensTol[meth] {
						t.Errorf("%v add=%v: t=%g: dx/d%s = %.10g, want %.10g", meth, add, tt, m.ParamNames()[j], got, w)
					}
				}
			}
			t.Logf("%v add=%v: worst relative error %.2g", meth, add, worst)
		}
	}
}

// fdSens is the central difference of events.Solve's x at ts in each
// parameter, row-major per output as SensResult.S.
func fdSens(t *testing.T, m model.Model, p, ts []float64) []float64 {
	t.Helper()
	nx, np := model.NumStates(m), len(p)
	out := make([]float64, len(ts)*nx*np)
	set := &events.Settings{ODE: &ode.Settings{RTol: 1e-12, ATol: 1e-14}, TTol: 1e-14}
	for j := range p {
		h := 1e-5 * math.Max(1, math.Abs(p[j]))
		var xs [2]*events.Result
		for s, sg := range []float64{1, -1} {
			q := append([]float64(nil), p...)
			q[j] += sg * h
			x0 := make([]float64, nx)
			m.InitialState(x0, q)
			r, err := events.Solve(m, q, x0, ts, set)
			if err != nil {
				t.Fatal(err)
			}
			xs[s] = r
		}
		for i := range ts {
			for l := 0; l < nx; l++ {
				out[i*nx*np+l*np+j] = (xs[0].XAt(i)[l] - xs[1].XAt(i)[l]) / (2 * h)
			}
		}
	}
	return out
}

// checkFD compares SolveSens with central differences of Solve for every
// method and logs the worst relative error (relative to the largest |S|
// entry of the column over all times, at least 1e-3, so entries that are
// zero by structure count against the column's scale: the differences
// carry about 1e-7 of noise).
func checkFD(t *testing.T, name string, m model.Model, p, ts []float64) {
	t.Helper()
	ref := fdSens(t, m, p, ts)
	nx, np := model.NumStates(m), len(p)
	for _, meth := range sensMethods {
		r, err := events.SolveSens(m, p, nil, nil, ts, sensSet(meth))
		if err != nil {
			t.Fatalf("%s %v: %v", name, meth, err)
		}
		worst := 0.0
		for j := 0; j < np; j++ {
			scale := 1e-3
			for i := range ts {
				for l := 0; l < nx; l++ {
					scale = math.Max(scale, math.Abs(ref[i*nx*np+l*np+j]))
				}
			}
			for i := range ts {
				for l := 0; l < nx; l++ {
					w, g := ref[i*nx*np+l*np+j], r.SAt(i)[l*np+j]
					e := math.Abs(g-w) / scale
					worst = math.Max(worst, e)
					// Central differences of Solve at h = 1e-5 carry
					// about 1e-7 of their own.
					if e > math.Max(sensTol[meth], 1e-5) {
						t.Errorf("%s %v: t=%g: d%s/d%s = %.10g, central differences %.10g", name, meth, ts[i],
							m.StateNames()[l], m.ParamNames()[j], g, w)
					}
				}
			}
		}
		t.Logf("%s %v: worst relative error %.2g (%d events)", name, meth, worst, len(r.Fired))
	}
}

// TestSensFDConversion: A -> B (k1 A), B decays (k2 B); whenever B
// exceeds c, A := A + a. The event sets A only, but f_B jumps with A, so
// S of the unassigned B jumps through (f- - f+) dtau.
func TestSensFDConversion(t *testing.T) {
	checkFD(t, "conversion", conversion(t, false), []float64{1.2, 0.3, 0.5, 0.4}, []float64{0, 1, 2, 4, 6})
	// B < c refills A whenever B decays below c (and at the start): 3
	// executions by t = 10.
	checkFD(t, "conversion refills", conversion(t, true), []float64{1.2, 0.3, 0.5, 0.4}, []float64{0, 1, 2.5, 5, 7.5, 10})
}

// conversion is A -> B (k1 A), B decays (k2 B), with the event A := A +
// a when B > c (InitialValue true: once, on the rise), or, with refill,
// when B < c (InitialValue false: at the start and after every decay
// below c).
func conversion(t testing.TB, refill bool) *interp.Model {
	b := symbolic.NewBuilder()
	A, B := b.Sym("A", symbolic.KindState), b.Sym("B", symbolic.KindState)
	k1, k2 := b.Sym("k1", symbolic.KindParam), b.Sym("k2", symbolic.KindParam)
	a, c := b.Sym("a", symbolic.KindParam), b.Sym("c", symbolic.KindParam)
	trig := b.Rel(symbolic.OpGt, B, c)
	if refill {
		trig = b.Rel(symbolic.OpLt, B, c)
	}
	return build(t, &symbolic.ODE{
		B: b, Name: "conversion",
		States: []symbolic.State{
			{Name: "A", Rate: b.Neg(b.Mul(k1, A)), Init: b.Const(1)},
			{Name: "B", Rate: b.Sub(b.Mul(k1, A), b.Mul(k2, B)), Init: b.Const(0)},
		},
		Params: []symbolic.Param{{Name: "k1"}, {Name: "k2"}, {Name: "a"}, {Name: "c"}},
		Events: []symbolic.Event{{
			Name: "refill", Trigger: trig, InitialValue: !refill, Persistent: true,
			Assign: []symbolic.EventAssign{{State: 0, Value: b.Add(A, a)}},
		}},
	})
}

// TestSensFDPriorities: two events at t >= T with priorities, x := m x
// (priority 2) and x := x + a t (priority 1), then y (y' = x - y)
// follows; and a delayed event triggered when x < c that sets y := x + a
// t, with the values of the trigger or of the execution time, after the
// delay d + x/2 (so the execution time depends on p through the trigger
// time, the state there and d).
func TestSensFDPriorities(t *testing.T) {
	for _, uvftt := range []bool{false, true} {
		b := symbolic.NewBuilder()
		x, y := b.Sym("x", symbolic.KindState), b.Sym("y", symbolic.KindState)
		k, mm := b.Sym("k", symbolic.KindParam), b.Sym("m", symbolic.KindParam)
		a, T := b.Sym("a", symbolic.KindParam), b.Sym("T", symbolic.KindParam)
		c, d := b.Sym("c", symbolic.KindParam), b.Sym("d", symbolic.KindParam)
		ge := b.Rel(symbolic.OpGeq, b.Time(), T)
		m := build(t, &symbolic.ODE{
			B: b, Name: "priorities",
			States: []symbolic.State{
				{Name: "x", Rate: b.Neg(b.Mul(k, x)), Init: b.Const(1)},
				{Name: "y", Rate: b.Sub(x, y), Init: b.Const(0)},
			},
			Params: []symbolic.Param{{Name: "k"}, {Name: "m"}, {Name: "a"}, {Name: "T"}, {Name: "c"}, {Name: "d"}},
			Events: []symbolic.Event{
				{Name: "mul", Trigger: ge, Priority: b.Const(2), InitialValue: true, Persistent: true,
					Assign: []symbolic.EventAssign{{State: 0, Value: b.Mul(mm, x)}}},
				{Name: "add", Trigger: ge, Priority: b.Const(1), InitialValue: true, Persistent: true,
					Assign: []symbolic.EventAssign{{State: 0, Value: b.Add(x, b.Mul(a, b.Time()))}}},
				{Name: "late", Trigger: b.Rel(symbolic.OpLt, x, c), Delay: b.Add(d, b.Mul(b.Const(0.5), x)),
					InitialValue: true, Persistent: true, UseValuesFromTriggerTime: uvftt,
					Assign: []symbolic.EventAssign{{State: 1, Value: b.Add(x, b.Mul(a, b.Time()))}}},
			},
		})
		p := []float64{0.8, 1.5, 0.3, 1, 0.4, 0.35}
		checkFD(t, fmt.Sprintf("priorities uvftt=%v", uvftt), m, p, []float64{0, 0.9, 1.5, 2.5, 4})
	}
}

// TestSensParamsSubset: S for a subset of the parameters, in the order
// given, equals those columns of S for all of them, and so does a given
// s0 carried through.
func TestSensParamsSubset(t *testing.T) {
	m := decayReset(t)
	p, ts := []float64{0.7, 0.4, 1.3}, []float64{0, 1, 2}
	full, err := events.SolveSens(m, p, nil, nil, ts, sensSet(sens.FS))
	if err != nil {
		t.Fatal(err)
	}
	set := sensSet(sens.FS)
	set.Sens.Params = []int{2, 0}
	sub, err := events.SolveSens(m, p, nil, nil, ts, set)
	if err != nil {
		t.Fatal(err)
	}
	if sub.NS != 2 {
		t.Fatalf("NS = %d, want 2", sub.NS)
	}
	for i := range ts {
		for c, j := range set.Sens.Params {
			check(t, fmt.Sprintf("t=%g column %d", ts[i], c), sub.SAt(i)[c], full.SAt(i)[j], 1e-9)
		}
	}
}

// TestSensNoEventDerivs: a model with events but without their
// derivatives is refused for sensitivities (and solved without columns).
func TestSensNoEventDerivs(t *testing.T) {
	m := &decay{nx: 1, evs: []testEvent{timeAt(1, model.EventInfo{Name: "e", InitialValue: true, Persistent: true},
		[]int{0}, func(t float64, x, dst []float64) { dst[0] = 1 })}}
	_, err := events.SolveSens(m, []float64{1}, []float64{1}, nil, []float64{0, 2}, nil)
	if !errors.Is(err, events.ErrNoEventDerivs) {
		t.Fatalf("got %v, want ErrNoEventDerivs", err)
	}
	r, err := events.SolveSens(m, []float64{1}, []float64{1}, nil, []float64{0, 2},
		&events.SensSettings{Sens: &sens.Options{Method: sens.FS, Params: []int{}}})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "x(2)", r.XAt(1)[0], math.Exp(-1), 1e-6)
}

// TestSensNoEvents: without events SolveSens is one sens solve:
// x' = -k x gives S = -t e^{-kt}.
func TestSensNoEvents(t *testing.T) {
	m := &decay{nx: 1}
	ts := []float64{0, 1, 2.5}
	for _, meth := range sensMethods {
		r, err := events.SolveSens(m, []float64{0.6}, []float64{1}, nil, ts, sensSet(meth))
		if err != nil {
			t.Fatal(err)
		}
		for i, tt := range ts {
			check(t, fmt.Sprintf("%v S(%g)", meth, tt), r.SAt(i)[0], -tt*math.Exp(-0.6*tt), sensTol[meth])
		}
	}
}

// flatRoots is a decay whose event derivatives report root functions
// with no derivative at all, as at a tangential zero.
type flatRoots struct{ *decay }

func (m flatRoots) RootGrad(j int, t float64, x, p, dx, dp []float64) float64 {
	clear(dx)
	clear(dp)
	return 0
}
func (m flatRoots) EventDeriv(k int, t float64, x, p []float64, d *model.EventDeriv) {
	clear(d.X)
	clear(d.P)
	clear(d.T)
}

// TestSensTangential: an event whose root has g_x f + g_t = 0 where it
// is located has no differentiable time: SolveSens refuses with
// ErrTangential rather than dividing by zero.
func TestSensTangential(t *testing.T) {
	m := flatRoots{&decay{nx: 1, evs: []testEvent{timeAt(1, model.EventInfo{Name: "e", InitialValue: true, Persistent: true},
		[]int{0}, func(t float64, x, dst []float64) { dst[0] = 1 })}}}
	_, err := events.SolveSens(m, []float64{1}, []float64{1}, nil, []float64{0, 2}, sensSet(sens.FS))
	if !errors.Is(err, events.ErrTangential) || !strings.Contains(err.Error(), `event "e"`) {
		t.Fatalf("got %v, want ErrTangential naming event \"e\"", err)
	}
}

// TestSensSwitch: x' = piecewise(u, t >= T, 0) - k x, x(0) = 0, a step
// input with no event (a switch of f, model.Switches): x = 0 before T and
// (u/k)(1 - e) after, e = e^{-k(t-T)}, so dx/du = (1 - e)/k, dx/dT = -u e
// and dx/dk = -u (1 - e)/k^2 + u (t-T) e/k. S is continuous at T (the
// jump (f- - f+) dtau/dT = -u is that of dx/dT from 0), and no step
// straddles T: PBSR and Exp restart there.
func TestSensSwitch(t *testing.T) {
	b := symbolic.NewBuilder()
	x, k := b.Sym("x", symbolic.KindState), b.Sym("k", symbolic.KindParam)
	u, T := b.Sym("u", symbolic.KindParam), b.Sym("T", symbolic.KindParam)
	m := build(t, &symbolic.ODE{
		B: b, Name: "step",
		States: []symbolic.State{{Name: "x", Rate: b.Sub(b.Piecewise(u, b.Rel(symbolic.OpGeq, b.Time(), T), b.Const(0)), b.Mul(k, x)), Init: b.Const(0)}},
		Params: []symbolic.Param{{Name: "k", Value: 1}, {Name: "u", Value: 1}, {Name: "T", Value: 1}},
	})
	if m.NumEvents() != 0 || m.NumSwitches() != 1 || !events.Needed(m) {
		t.Fatalf("%d events, %d switches, Needed %v; want 0, 1, true", m.NumEvents(), m.NumSwitches(), events.Needed(m))
	}
	p := []float64{0.7, 1.3, 1.25}
	pk, pu, pT := p[0], p[1], p[2]
	ts := []float64{0, 0.5, 1.5, 2, 4}
	for _, meth := range sensMethods {
		r, err := events.SolveSens(m, p, nil, nil, ts, sensSet(meth))
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		worst := 0.0
		for i, tt := range ts {
			xx, want := 0.0, []float64{0, 0, 0}
			if tt >= pT {
				e := math.Exp(-pk * (tt - pT))
				xx = pu / pk * (1 - e)
				want = []float64{-pu*(1-e)/(pk*pk) + pu*(tt-pT)*e/pk, (1 - e) / pk, -pu * e}
			}
			if got := r.XAt(i)[0]; math.Abs(got-xx) > 1e-7 {
				t.Errorf("%v: x(%g) = %.10g, want %.10g", meth, tt, got, xx)
			}
			for j, w := range want {
				e := relErr(r.SAt(i)[j], w, 0.1)
				worst = math.Max(worst, e)
				if e > sensTol[meth] {
					t.Errorf("%v: t=%g: dx/d%s = %.10g, want %.10g", meth, tt, m.ParamNames()[j], r.SAt(i)[j], w)
				}
			}
		}
		t.Logf("%v: worst relative error %.2g", meth, worst)
	}
	// Solve (states only) lands on the same x.
	r, err := events.Solve(m, p, []float64{0}, ts, &events.Settings{ODE: &ode.Settings{RTol: 1e-10, ATol: 1e-12}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.XAt(4)[0], pu/pk*(1-math.Exp(-pk*(4-pT))); math.Abs(got-want) > 1e-8 {
		t.Errorf("Solve: x(4) = %.12g, want %.12g", got, want)
	}
}

// TestSensFDStateSwitch: A is fed at rate v while B < c (a switch on a
// state, no event) and converts to B, which decays: the switch time moves
// with every parameter, and S jumps by (f- - f+) dtau there.
func TestSensFDStateSwitch(t *testing.T) {
	b := symbolic.NewBuilder()
	A, B := b.Sym("A", symbolic.KindState), b.Sym("B", symbolic.KindState)
	k1, k2 := b.Sym("k1", symbolic.KindParam), b.Sym("k2", symbolic.KindParam)
	v, c := b.Sym("v", symbolic.KindParam), b.Sym("c", symbolic.KindParam)
	feed := b.Piecewise(v, b.Rel(symbolic.OpLt, B, c), b.Const(0))
	m := build(t, &symbolic.ODE{
		B: b, Name: "stateswitch",
		States: []symbolic.State{
			{Name: "A", Rate: b.Sub(feed, b.Mul(k1, A)), Init: b.Const(0)},
			{Name: "B", Rate: b.Sub(b.Mul(k1, A), b.Mul(k2, B)), Init: b.Const(0)},
		},
		Params: []symbolic.Param{{Name: "k1"}, {Name: "k2"}, {Name: "v"}, {Name: "c"}},
	})
	checkFD(t, "stateswitch", m, []float64{1.2, 0.3, 1, 0.5}, []float64{0, 0.5, 1.5, 3, 5})
}
