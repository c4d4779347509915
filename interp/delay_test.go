package interp

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

// x' = -k d0 x with d0 = delay(x, tau) and the output y = d1 =
// delay(d0, x): a nested, state-dependent delay.
func delaySys(t *testing.T) *symbolic.System {
	b := symbolic.NewBuilder()
	x, k, tau := b.Sym("x", symbolic.KindState), b.Sym("k", symbolic.KindParam), b.Sym("tau", symbolic.KindParam)
	d0, d1 := b.Sym("delay#1", symbolic.KindDelay), b.Sym("delay#2", symbolic.KindDelay)
	o := &symbolic.ODE{B: b, Name: "dde",
		States:  []symbolic.State{{Name: "x", Rate: b.Neg(b.Mul(k, d0, x)), Init: b.Const(1)}},
		Params:  []symbolic.Param{{Name: "k", Value: 2}, {Name: "tau", Value: 0.5}},
		Outputs: []symbolic.Output{{Name: "y", Expr: d1}},
		Delays: []symbolic.Delay{
			{Name: "delay#1", Label: "delay(x, tau)", Expr: x, Tau: tau, History: b.Add(b.Const(1), b.Time())},
			{Name: "delay#2", Label: "delay(d0, x)", Expr: d0, Tau: x, History: b.Const(1)},
		}}
	sys, err := symbolic.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

func TestDelays(t *testing.T) {
	m, err := New(delaySys(t))
	if err != nil {
		t.Fatal(err)
	}
	var dm model.Delays = m
	if dm.NumDelays() != 2 || !model.HasDelays(m) {
		t.Fatalf("NumDelays = %d", dm.NumDelays())
	}
	if i := dm.DelayInfo(0); !i.Constant || i.Reads != 0 {
		t.Errorf("delay 0: %+v, want constant, reading nothing", i)
	}
	if i := dm.DelayInfo(1); i.Constant || i.Reads != 1 {
		t.Errorf("delay 1: %+v, want not constant, reading d[:1]", i)
	}
	p, x, d := []float64{2, 0.5}, []float64{3}, []float64{0.25, 7}
	if got := dm.DelayArg(0, 1, x, p, d[:0]); got != 3 {
		t.Errorf("DelayArg(0) = %g, want x = 3", got)
	}
	if got := dm.DelayArg(1, 1, x, p, d[:1]); got != 0.25 {
		t.Errorf("DelayArg(1) = %g, want d0 = 0.25", got)
	}
	if got := dm.DelayTime(1, 1, x, p, d[:1]); got != 3 {
		t.Errorf("DelayTime(1) = %g, want x = 3", got)
	}
	if got := dm.DelayHistory(0, -0.5, p); got != 0.5 {
		t.Errorf("DelayHistory(0, -0.5) = %g, want 1 + t = 0.5", got)
	}
	f := make([]float64, 1)
	dm.FDelayed(f, 1, x, p, d)
	if f[0] != -2*0.25*3 {
		t.Errorf("FDelayed = %g, want %g", f[0], -2*0.25*3)
	}
	jx := make([]float64, m.JxPattern().NNZ())
	dm.JxDelayed(jx, 1, x, p, d)
	if len(jx) != 1 || jx[0] != -2*0.25 {
		t.Errorf("JxDelayed = %v, want [-0.5] (d held fixed)", jx)
	}
	out := make([]float64, 1)
	dm.OutputsDelayedTo(out, 1, x, p, d)
	if out[0] != 7 {
		t.Errorf("OutputsDelayedTo = %g, want d1 = 7", out[0])
	}
	// The plain methods see NaN delayed values.
	m.F(f, 1, x, p)
	m.OutputsTo(out, 1, x, p)
	if !math.IsNaN(f[0]) || !math.IsNaN(out[0]) {
		t.Errorf("F, OutputsTo = %g, %g, want NaN", f[0], out[0])
	}
	if n := testing.AllocsPerRun(100, func() {
		dm.FDelayed(f, 1, x, p, d)
		_ = dm.DelayArg(1, 1, x, p, d[:1])
		_ = dm.DelayHistory(0, -1, p)
	}); n != 0 && !raceOn {
		t.Errorf("delay methods allocate %v times", n)
	}
}

// The derivatives of model.DelaySens on delaySys (x' = -k d0 x, d0 =
// delay(x, tau) with history 1 + t, d1 = delay(d0, x)): df/dd, the
// partials of each argument, delay and history, written in full (the
// destinations NaN-filled before), and nothing allocated.
func TestDelaySens(t *testing.T) {
	m, err := New(delaySys(t))
	if err != nil {
		t.Fatal(err)
	}
	var ds model.DelaySens = m
	p, x, d := []float64{2, 0.5}, []float64{3}, []float64{0.25, 7}
	nan := func(v []float64) {
		for i := range v {
			v[i] = math.NaN()
		}
	}
	pat := ds.FdPattern()
	if pat.Rows != 1 || pat.Cols != 2 || pat.NNZ() != 1 || pat.ColIdx[0] != 0 {
		t.Fatalf("FdPattern = %+v, want the one entry df/dd0", pat)
	}
	fd := []float64{math.NaN()}
	ds.FdDelayed(fd, 1, x, p, d)
	if fd[0] != -2*3 { // -k x
		t.Errorf("FdDelayed = %v, want -k x = -6", fd)
	}
	jp := make([]float64, m.JpPattern().NNZ())
	nan(jp)
	ds.JpDelayed(jp, 1, x, p, d)
	if len(jp) != 1 || jp[0] != -0.25*3 { // d/dk = -d0 x
		t.Errorf("JpDelayed = %v, want [-0.75]", jp)
	}
	dx, dp, dd := make([]float64, 1), make([]float64, 2), make([]float64, 2)
	nan(dx)
	nan(dp)
	nan(dd)
	// e1 = d0: partials 0 in x and p, 1 in d0, 0 in t.
	if gt := ds.DelayArgGrad(1, 1, x, p, d, dx, dp, dd); gt != 0 || dx[0] != 0 || dp[0] != 0 || dp[1] != 0 || dd[0] != 1 || dd[1] != 0 {
		t.Errorf("DelayArgGrad(1) = %g, dx %v, dp %v, dd %v, want 0, [0], [0 0], [1 0]", gt, dx, dp, dd)
	}
	// e0 = x.
	if gt := ds.DelayArgGrad(0, 1, x, p, d, dx, dp, dd); gt != 0 || dx[0] != 1 || dd[0] != 0 {
		t.Errorf("DelayArgGrad(0) = %g, dx %v, dd %v, want 0, [1], [0 0]", gt, dx, dd)
	}
	nan(dp)
	ds.DelayTimeGrad(0, 1, x, p, d, dp) // tau0 = tau
	if dp[0] != 0 || dp[1] != 1 {
		t.Errorf("DelayTimeGrad(0) = %v, want [0 1]", dp)
	}
	nan(dp)
	if gt := ds.DelayHistoryGrad(0, -0.5, p, dp); gt != 1 || dp[0] != 0 || dp[1] != 0 { // 1 + t
		t.Errorf("DelayHistoryGrad(0) = %g, %v, want 1, [0 0]", gt, dp)
	}
	if n := testing.AllocsPerRun(100, func() {
		ds.FdDelayed(fd, 1, x, p, d)
		ds.JpDelayed(jp, 1, x, p, d)
		ds.DelayArgGrad(1, 1, x, p, d, dx, dp, dd)
		ds.DelayTimeGrad(0, 1, x, p, d, dp)
		ds.DelayHistoryGrad(0, -0.5, p, dp)
	}); n != 0 && !raceOn {
		t.Errorf("DelaySens methods allocate %v times", n)
	}
}

// delaySys with an event that reads the delayed values everywhere:
// trigger d0 > x, delay d1, priority d0 + 1, x := d0 * k.
func delayEventSys(t *testing.T) *symbolic.System {
	sys := delaySys(t)
	b := sys.B
	x, k := b.Sym("x", symbolic.KindState), b.Sym("k", symbolic.KindParam)
	d0, d1 := b.Sym("delay#1", symbolic.KindDelay), b.Sym("delay#2", symbolic.KindDelay)
	sys.ODE.Events = []symbolic.Event{{Name: "E", Trigger: b.Rel(symbolic.OpGt, d0, x), Delay: d1, Priority: b.Add(d0, b.Const(1)),
		Assign: []symbolic.EventAssign{{State: 0, Value: b.Mul(d0, k)}}}}
	return sys
}

// TestDelayEvents: the Delayed event methods (model.DelayEvents) read
// the delayed values they are given, the plain ones see them as NaN,
// and none allocates.
func TestDelayEvents(t *testing.T) {
	m, err := NewWithEvents(delayEventSys(t))
	if err != nil {
		t.Fatal(err)
	}
	var de model.DelayEvents = m
	p, x, d := []float64{2, 0.5}, []float64{3}, []float64{4, 7}
	trig := make([]bool, 1)
	de.TriggersDelayedTo(trig, 1, x, p, d)
	if !trig[0] {
		t.Errorf("trigger d0 > x at d0 = 4, x = 3 is false")
	}
	de.TriggersDelayedTo(trig, 1, []float64{5}, p, d)
	if trig[0] {
		t.Errorf("trigger d0 > x at d0 = 4, x = 5 is true")
	}
	roots := make([]float64, de.NumRoots())
	de.RootsDelayedTo(roots, 1, x, p, d)
	if len(roots) != 1 || math.Abs(roots[0]) != 1 {
		t.Errorf("roots %v, want one of magnitude |d0 - x| = 1", roots)
	}
	if got := de.EventDelayDelayed(0, 1, x, p, d); got != 7 {
		t.Errorf("event delay %g, want d1 = 7", got)
	}
	if got := de.PriorityDelayed(0, 1, x, p, d); got != 5 {
		t.Errorf("priority %g, want d0 + 1 = 5", got)
	}
	v := make([]float64, 1)
	de.EventAssignDelayed(0, 1, x, p, d, v)
	if v[0] != 8 {
		t.Errorf("assigned %g, want d0 k = 8", v[0])
	}
	// The plain methods: NaN delayed values (a NaN trigger is false).
	de.TriggersTo(trig, 1, x, p)
	de.RootsTo(roots, 1, x, p)
	de.EventAssign(0, 1, x, p, v)
	if trig[0] || !math.IsNaN(roots[0]) || !math.IsNaN(v[0]) || !math.IsNaN(de.Delay(0, 1, x, p)) {
		t.Errorf("plain methods: trigger %v, root %g, value %g: want false and NaN", trig[0], roots[0], v[0])
	}
	if n := testing.AllocsPerRun(100, func() {
		de.TriggersDelayedTo(trig, 1, x, p, d)
		de.RootsDelayedTo(roots, 1, x, p, d)
		de.EventAssignDelayed(0, 1, x, p, d, v)
		_ = de.PriorityDelayed(0, 1, x, p, d)
	}); n != 0 && !raceOn {
		t.Errorf("delayed event methods allocate %v times", n)
	}
}
