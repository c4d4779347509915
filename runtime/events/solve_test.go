package events_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// decay is dx_i/dt = -k_i x_i (k_i = p[i], 0 for a counter state) with
// events given as closures: an independent hand-written model.Events, so
// the solver's rules are checked against closed forms, not against the
// SBML reader.
type decay struct {
	nx  int
	evs []testEvent
}

type testEvent struct {
	info    model.EventInfo
	trig    func(t float64, x []float64) bool
	roots   []func(t float64, x []float64) float64
	delay   func(t float64, x []float64) float64
	prio    func(t float64, x []float64) float64
	targets []int
	assign  func(t float64, x, dst []float64)
}

func (m *decay) Name() string { return "decay" }
func (m *decay) StateNames() []string {
	s := make([]string, m.nx)
	for i := range s {
		s[i] = string(rune('a' + i))
	}
	return s
}
func (m *decay) ParamNames() []string          { return m.StateNames() }
func (m *decay) DefaultParams(dst []float64)   { clear(dst) }
func (m *decay) InitialState(dst, p []float64) { clear(dst) }
func (m *decay) InitialSens(dst, p []float64)  { clear(dst) }
func (m *decay) F(dst []float64, t float64, x, p []float64) {
	for i := range dst {
		dst[i] = -p[i] * x[i]
	}
}
func (m *decay) pat(n int) *model.Pattern {
	p := &model.Pattern{Rows: n, Cols: n, RowPtr: make([]int, n+1), ColIdx: make([]int, n)}
	for i := 0; i < n; i++ {
		p.RowPtr[i+1] = i + 1
		p.ColIdx[i] = i
	}
	return p
}
func (m *decay) JxPattern() *model.Pattern { return m.pat(m.nx) }
func (m *decay) JpPattern() *model.Pattern { return m.pat(m.nx) }
func (m *decay) Jx(dst []float64, t float64, x, p []float64) {
	for i := range dst {
		dst[i] = -p[i]
	}
}
func (m *decay) Jp(dst []float64, t float64, x, p []float64) {
	for i := range dst {
		dst[i] = -x[i]
	}
}

func (m *decay) NumEvents() int                  { return len(m.evs) }
func (m *decay) EventInfo(k int) model.EventInfo { return m.evs[k].info }
func (m *decay) TriggersTo(dst []bool, t float64, x, p []float64) {
	for k, e := range m.evs {
		dst[k] = e.trig(t, x)
	}
}
func (m *decay) NumRoots() int {
	n := 0
	for _, e := range m.evs {
		n += len(e.roots)
	}
	return n
}
func (m *decay) RootsTo(dst []float64, t float64, x, p []float64) {
	i := 0
	for _, e := range m.evs {
		for _, g := range e.roots {
			dst[i] = g(t, x)
			i++
		}
	}
}
func (m *decay) Delay(k int, t float64, x, p []float64) float64 {
	if m.evs[k].delay == nil {
		return 0
	}
	return m.evs[k].delay(t, x)
}
func (m *decay) Priority(k int, t float64, x, p []float64) float64 { return m.evs[k].prio(t, x) }
func (m *decay) EventTargets(k int) []int                          { return m.evs[k].targets }
func (m *decay) EventAssign(k int, t float64, x, p, dst []float64) { m.evs[k].assign(t, x, dst) }

var _ model.Events = (*decay)(nil)

// timeAt is an event triggered by t >= t1.
func timeAt(t1 float64, info model.EventInfo, targets []int, assign func(t float64, x, dst []float64)) testEvent {
	return testEvent{
		info:    info,
		trig:    func(t float64, x []float64) bool { return t >= t1 },
		roots:   []func(float64, []float64) float64{func(t float64, x []float64) float64 { return t - t1 }},
		targets: targets, assign: assign,
	}
}

func solve(t *testing.T, m *decay, p, x0, ts []float64, set *events.Settings) *events.Result {
	t.Helper()
	if set == nil {
		set = &events.Settings{}
	}
	if set.ODE == nil {
		set.ODE = &ode.Settings{RTol: 1e-10, ATol: 1e-12}
	}
	r, err := events.Solve(m, p, x0, ts, set)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func check(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !scalar.EqualWithinAbsOrRel(got, want, tol, tol) {
		t.Errorf("%s: got %.12g, want %.12g", what, got, want)
	}
}

// TestReset: x' = -x, x(0) = 1, reset to 1 whenever x < 1/2, so resets
// happen at n ln 2 and x(t) = exp(-(t mod ln 2)).
func TestReset(t *testing.T) {
	m := &decay{nx: 1, evs: []testEvent{{
		info:    model.EventInfo{Name: "reset", InitialValue: true, Persistent: true},
		trig:    func(t float64, x []float64) bool { return x[0] < 0.5 },
		roots:   []func(float64, []float64) float64{func(t float64, x []float64) float64 { return x[0] - 0.5 }},
		targets: []int{0},
		assign:  func(t float64, x, dst []float64) { dst[0] = 1 },
	}}}
	ts := []float64{0, 0.5, 1, 2, 3, 4.5}
	r := solve(t, m, []float64{1}, []float64{1}, ts, nil)
	for i, tt := range ts {
		check(t, "x", r.XAt(i)[0], math.Exp(-math.Mod(tt, math.Ln2)), 1e-7)
	}
	if want := int(math.Floor(4.5 / math.Ln2)); len(r.Fired) != want {
		t.Fatalf("%d resets, want %d", len(r.Fired), want)
	}
	for n, f := range r.Fired {
		check(t, "reset time", f.T, float64(n+1)*math.Ln2, 1e-8)
	}
}

// TestDelay: at t = 1 an event is triggered that executes at 1.5 and
// adds 1 to x, with x from the execution time or from the trigger time.
func TestDelay(t *testing.T) {
	for _, uvftt := range []bool{false, true} {
		ev := timeAt(1, model.EventInfo{Name: "bump", InitialValue: true, Persistent: true, HasDelay: true, UseValuesFromTriggerTime: uvftt},
			[]int{0}, func(t float64, x, dst []float64) { dst[0] = x[0] + 1 })
		ev.delay = func(t float64, x []float64) float64 { return 0.5 }
		m := &decay{nx: 1, evs: []testEvent{ev}}
		ts := []float64{0, 1.25, 1.5, 2, 3}
		r := solve(t, m, []float64{1}, []float64{1}, ts, nil)
		x15 := math.Exp(-1.5) + 1 // after the event at 1.5
		if uvftt {
			x15 = math.Exp(-1) + 1
		}
		for i, tt := range ts {
			want := math.Exp(-tt)
			if tt >= 1.5 {
				want = x15 * math.Exp(-(tt - 1.5))
			}
			check(t, "x", r.XAt(i)[0], want, 1e-8)
		}
		if len(r.Fired) != 1 || math.Abs(r.Fired[0].T-1.5) > 1e-10 {
			t.Errorf("uvftt %v: fired %v, want once at 1.5", uvftt, r.Fired)
		}
	}
}

// TestPriority: two events at t = 1, x := x + 1 and x := 2x; the one of
// higher priority goes first.
func TestPriority(t *testing.T) {
	for _, addFirst := range []bool{true, false} {
		pa, pm := 1.0, 2.0
		if addFirst {
			pa, pm = 2, 1
		}
		add := timeAt(1, model.EventInfo{Name: "add", InitialValue: true, Persistent: true, HasPriority: true},
			[]int{0}, func(t float64, x, dst []float64) { dst[0] = x[0] + 1 })
		add.prio = func(float64, []float64) float64 { return pa }
		mul := timeAt(1, model.EventInfo{Name: "mul", InitialValue: true, Persistent: true, HasPriority: true},
			[]int{0}, func(t float64, x, dst []float64) { dst[0] = 2 * x[0] })
		mul.prio = func(float64, []float64) float64 { return pm }
		m := &decay{nx: 1, evs: []testEvent{add, mul}}
		r := solve(t, m, []float64{0}, []float64{1}, []float64{0, 2}, nil)
		want := 2*1.0 + 1
		if addFirst {
			want = 2 * (1.0 + 1)
		}
		check(t, "x(2)", r.XAt(1)[0], want, 1e-12)
	}
}

// TestPersistent: triggered at t = 1 while 1 <= t < 1.2, delay 0.5: a
// persistent event executes at 1.5, a non-persistent one is cancelled
// when its trigger turns false at 1.2.
func TestPersistent(t *testing.T) {
	for _, persistent := range []bool{true, false} {
		m := &decay{nx: 1, evs: []testEvent{{
			info: model.EventInfo{Name: "window", InitialValue: true, Persistent: persistent, HasDelay: true},
			trig: func(t float64, x []float64) bool { return t >= 1 && t < 1.2 },
			roots: []func(float64, []float64) float64{
				func(t float64, x []float64) float64 { return t - 1 },
				func(t float64, x []float64) float64 { return t - 1.2 },
			},
			delay:   func(float64, []float64) float64 { return 0.5 },
			targets: []int{0},
			assign:  func(t float64, x, dst []float64) { dst[0] = 5 },
		}}}
		r := solve(t, m, []float64{1}, []float64{1}, []float64{0, 2}, nil)
		want := math.Exp(-2)
		if persistent {
			want = 5 * math.Exp(-0.5)
		}
		check(t, "x(2)", r.XAt(1)[0], want, 1e-8)
	}
}

// TestT0Firing: a trigger true at the start fires there only when its
// initial value is false.
func TestT0Firing(t *testing.T) {
	for _, initial := range []bool{true, false} {
		m := &decay{nx: 1, evs: []testEvent{{
			info:    model.EventInfo{Name: "start", InitialValue: initial, Persistent: true},
			trig:    func(t float64, x []float64) bool { return x[0] > 0.9 },
			roots:   []func(float64, []float64) float64{func(t float64, x []float64) float64 { return x[0] - 0.9 }},
			targets: []int{0},
			assign:  func(t float64, x, dst []float64) { dst[0] = 3 },
		}}}
		r := solve(t, m, []float64{1}, []float64{1}, []float64{0, 1}, nil)
		x0 := 1.0
		if !initial {
			x0 = 3
		}
		check(t, "x(0)", r.XAt(0)[0], x0, 1e-12)
		// From 3 the trigger stays true until x < 0.9: no second firing.
		check(t, "x(1)", r.XAt(1)[0], x0*math.Exp(-1), 1e-8)
	}
}

// TestLoop: two events that re-trigger each other at one instant end in
// ErrTooManyEvents instead of a hang.
func TestLoop(t *testing.T) {
	up := testEvent{
		info: model.EventInfo{Name: "up", InitialValue: false, Persistent: true},
		trig: func(t float64, x []float64) bool { return x[0] < 0.5 }, targets: []int{0},
		assign: func(t float64, x, dst []float64) { dst[0] = 1 },
	}
	down := testEvent{
		info: model.EventInfo{Name: "down", InitialValue: true, Persistent: true},
		trig: func(t float64, x []float64) bool { return x[0] > 0.5 }, targets: []int{0},
		assign: func(t float64, x, dst []float64) { dst[0] = 0 },
	}
	m := &decay{nx: 1, evs: []testEvent{up, down}}
	_, err := events.Solve(m, []float64{0}, []float64{0}, []float64{0, 1}, &events.Settings{MaxEvents: 50})
	if !errors.Is(err, events.ErrTooManyEvents) {
		t.Fatalf("got %v, want ErrTooManyEvents", err)
	}
}

// TestRandomTies: of two due events with equal priority either may go
// first; a seed makes the choice reproducible, and over seeds both orders
// occur.
func TestRandomTies(t *testing.T) {
	mk := func() *decay {
		a := timeAt(1, model.EventInfo{Name: "a", InitialValue: true, Persistent: true},
			[]int{0}, func(t float64, x, dst []float64) { dst[0] = 10*x[0] + 1 })
		b := timeAt(1, model.EventInfo{Name: "b", InitialValue: true, Persistent: true},
			[]int{0}, func(t float64, x, dst []float64) { dst[0] = 10*x[0] + 2 })
		return &decay{nx: 1, evs: []testEvent{a, b}}
	}
	seen := map[float64]bool{}
	for seed := uint64(0); seed < 16; seed++ {
		r1 := solve(t, mk(), []float64{0}, []float64{0}, []float64{0, 2}, &events.Settings{Seed: seed})
		r2 := solve(t, mk(), []float64{0}, []float64{0}, []float64{0, 2}, &events.Settings{Seed: seed})
		if r1.XAt(1)[0] != r2.XAt(1)[0] {
			t.Fatalf("seed %d: %g then %g", seed, r1.XAt(1)[0], r2.XAt(1)[0])
		}
		seen[r1.XAt(1)[0]] = true
	}
	if !seen[12] || !seen[21] || len(seen) != 2 {
		t.Errorf("outcomes %v, want both 12 (a then b) and 21 (b then a)", seen)
	}
}

// TestNoEvents: a model without events integrates as ode does.
func TestNoEvents(t *testing.T) {
	m := &decay{nx: 2}
	r := solve(t, m, []float64{1, 2}, []float64{1, 1}, []float64{0, 1, 2}, nil)
	for i, tt := range []float64{0, 1, 2} {
		check(t, "x0", r.XAt(i)[0], math.Exp(-tt), 1e-8)
		check(t, "x1", r.XAt(i)[1], math.Exp(-2*tt), 1e-8)
	}
}

func TestBadArgs(t *testing.T) {
	m := &decay{nx: 1}
	for _, ts := range [][]float64{nil, {0, math.NaN()}, {1, 0}} {
		if _, err := events.Solve(m, []float64{1}, []float64{1}, ts, nil); err == nil {
			t.Errorf("times %v: no error", ts)
		}
	}
	if _, err := events.Solve(m, []float64{1, 2}, []float64{1}, []float64{0, 1}, nil); err == nil {
		t.Error("wrong p length: no error")
	}
}

// TestBadDelay: a negative or NaN delay is an error naming the event.
func TestBadDelay(t *testing.T) {
	for _, d := range []float64{-1, math.NaN(), math.Inf(1)} {
		ev := timeAt(1, model.EventInfo{Name: "late", InitialValue: true, Persistent: true, HasDelay: true},
			[]int{0}, func(t float64, x, dst []float64) { dst[0] = 0 })
		ev.delay = func(float64, []float64) float64 { return d }
		_, err := events.Solve(&decay{nx: 1, evs: []testEvent{ev}}, []float64{1}, []float64{1}, []float64{0, 2}, nil)
		if err == nil || !strings.Contains(err.Error(), `event "late"`) {
			t.Errorf("delay %g: got %v", d, err)
		}
	}
}
