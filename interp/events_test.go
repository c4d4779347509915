package interp_test

import (
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/testnet"
	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

// TestEvents: New refuses a system with events; NewWithEvents evaluates
// triggers, roots, delays, priorities and assignments as symbolic.Eval
// does, with the targets ascending.
func TestEvents(t *testing.T) {
	sys := testnet.Toy()
	b := sys.B
	names := sys.ODE.StateNames()
	params := sys.ODE.ParamNames()
	x0, x1 := b.Sym(names[0], symbolic.KindState), b.Sym(names[1], symbolic.KindState)
	p0 := b.Sym(params[0], symbolic.KindParam)
	trig := b.Logic(symbolic.OpAnd, b.Rel(symbolic.OpGt, b.Time(), b.Const(2)), b.Rel(symbolic.OpLt, x0, p0))
	sys.ODE.Events = []symbolic.Event{{
		Name: "E", Trigger: trig, Delay: b.Mul(b.Const(2), p0), Priority: x1,
		InitialValue: true, UseValuesFromTriggerTime: true,
		// Listed out of order: EventTargets must come out ascending.
		Assign: []symbolic.EventAssign{{State: 1, Value: b.Add(x0, x1)}, {State: 0, Value: b.Mul(p0, b.Time())}},
	}}
	if _, err := interp.New(sys); err == nil || !strings.Contains(err.Error(), `event "E": events are not supported`) {
		t.Fatalf("New: got %v, want a refusal naming the event", err)
	}
	m, err := interp.NewWithEvents(sys)
	if err != nil {
		t.Fatal(err)
	}
	var ev model.Switches = m
	// The toy's rates switch on t > 5 and A < 2: two switches after the
	// trigger's two roots.
	sw := b.Switches(sys.F)
	if ev.NumEvents() != 1 || ev.NumRoots() != 4 || ev.NumSwitches() != 2 || len(sw) != 2 {
		t.Fatalf("%d events, %d roots, %d switches (symbolic %d); want 1, 4, 2", ev.NumEvents(), ev.NumRoots(), ev.NumSwitches(), len(sw))
	}
	info := ev.EventInfo(0)
	if info.Name != "E" || !info.InitialValue || info.Persistent || !info.UseValuesFromTriggerTime || !info.HasDelay || !info.HasPriority {
		t.Errorf("info %+v", info)
	}
	p := make([]float64, len(params))
	m.DefaultParams(p)
	x := make([]float64, len(names))
	for i := range x {
		x[i] = float64(i + 1)
	}
	vals := map[string]float64{}
	for i, n := range names {
		vals[n] = x[i]
	}
	for j, n := range params {
		vals[n] = p[j]
	}
	ref := func(n *symbolic.Node, tt float64) float64 {
		return symbolic.Eval(n, func(s *symbolic.Node) float64 {
			if s.Kind == symbolic.KindTime {
				return tt
			}
			return vals[s.Name]
		})
	}
	for _, tt := range []float64{1, 3} {
		trigs := []bool{false}
		ev.TriggersTo(trigs, tt, x, p)
		if want := ref(trig, tt) != 0; trigs[0] != want {
			t.Errorf("t=%g: trigger %v, want %v", tt, trigs[0], want)
		}
		roots := make([]float64, 4)
		ev.RootsTo(roots, tt, x, p)
		for k, g := range append(b.Roots(trig), sw...) {
			if roots[k] != ref(g, tt) {
				t.Errorf("t=%g: root %d = %g, want %g", tt, k, roots[k], ref(g, tt))
			}
		}
		if d := ev.Delay(0, tt, x, p); d != 2*p[0] {
			t.Errorf("delay %g, want %g", d, 2*p[0])
		}
		if pr := ev.Priority(0, tt, x, p); pr != x[1] {
			t.Errorf("priority %g, want %g", pr, x[1])
		}
		if tg := ev.EventTargets(0); len(tg) != 2 || tg[0] != 0 || tg[1] != 1 {
			t.Fatalf("targets %v, want [0 1]", tg)
		}
		dst := make([]float64, 2)
		ev.EventAssign(0, tt, x, p, dst)
		if dst[0] != p[0]*tt || dst[1] != x[0]+x[1] {
			t.Errorf("t=%g: assigned %v, want [%g %g]", tt, dst, p[0]*tt, x[0]+x[1])
		}
	}
	// Without events NewWithEvents is a model with none.
	sys.ODE.Events = nil
	m2, err := interp.NewWithEvents(sys)
	if err != nil || m2.NumEvents() != 0 || m2.NumRoots() != 2 || m2.NumSwitches() != 2 {
		t.Errorf("no events: %v, %d events, %d roots, %d switches; want 0, 2, 2", err, m2.NumEvents(), m2.NumRoots(), m2.NumSwitches())
	}
}

// TestEventDerivs: RootGrad and EventDeriv against central differences.
func TestEventDerivs(t *testing.T) {
	sys := testnet.Toy()
	b := sys.B
	names, params := sys.ODE.StateNames(), sys.ODE.ParamNames()
	x0, x1 := b.Sym(names[0], symbolic.KindState), b.Sym(names[1], symbolic.KindState)
	p0 := b.Sym(params[0], symbolic.KindParam)
	tt := b.Time()
	sys.ODE.Events = []symbolic.Event{{
		Name:    "E",
		Trigger: b.Rel(symbolic.OpGt, b.Mul(x0, x1), b.Mul(p0, tt)),
		Delay:   b.Mul(p0, x0),
		Assign: []symbolic.EventAssign{
			{State: 0, Value: b.Mul(x0, p0, tt)},
			{State: 1, Value: b.Pow(x1, b.Const(2))},
		},
	}}
	m, err := interp.NewWithEvents(sys)
	if err != nil {
		t.Fatal(err)
	}
	var ed model.EventDerivs = m
	nx, np := len(names), len(params)
	p := make([]float64, np)
	m.DefaultParams(p)
	x := make([]float64, nx)
	for i := range x {
		x[i] = 0.5 + float64(i)
	}
	const t0, h = 1.5, 1e-6
	// vals is root 0 then delay and the assigned values at (t, x, p).
	vals := func(t float64, x, p []float64) []float64 {
		g := make([]float64, ed.NumRoots())
		ed.RootsTo(g, t, x, p)
		v := make([]float64, 2)
		ed.EventAssign(0, t, x, p, v)
		return []float64{g[0], ed.Delay(0, t, x, p), v[0], v[1]}
	}
	fd := func(perturb func(s float64) (float64, []float64, []float64)) []float64 {
		tp, xp, pp := perturb(h)
		tm, xm, pm := perturb(-h)
		a, c := vals(tp, xp, pp), vals(tm, xm, pm)
		for i := range a {
			a[i] = (a[i] - c[i]) / (2 * h)
		}
		return a
	}
	dx, dp := make([]float64, nx), make([]float64, np)
	gt := ed.RootGrad(0, t0, x, p, dx, dp)
	d := &model.EventDeriv{X: make([]float64, 3*nx), P: make([]float64, 3*np), T: make([]float64, 3)}
	ed.EventDeriv(0, t0, x, p, d)
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6*(1+math.Abs(want)) {
			t.Errorf("%s: %g, want %g (central difference)", what, got, want)
		}
	}
	want := fd(func(s float64) (float64, []float64, []float64) { return t0 + s, x, p })
	near("dg/dt", gt, want[0])
	for r := 0; r < 3; r++ {
		near("d(row)/dt", d.T[r], want[1+r])
	}
	for j := 0; j < nx; j++ {
		want := fd(func(s float64) (float64, []float64, []float64) {
			xs := append([]float64(nil), x...)
			xs[j] += s
			return t0, xs, p
		})
		near("dg/dx", dx[j], want[0])
		for r := 0; r < 3; r++ {
			near("d(row)/dx", d.X[r*nx+j], want[1+r])
		}
	}
	for j := 0; j < np; j++ {
		want := fd(func(s float64) (float64, []float64, []float64) {
			ps := append([]float64(nil), p...)
			ps[j] += s
			return t0, x, ps
		})
		near("dg/dp", dp[j], want[0])
		for r := 0; r < 3; r++ {
			near("d(row)/dp", d.P[r*np+j], want[1+r])
		}
	}
}
