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
