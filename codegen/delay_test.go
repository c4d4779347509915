package codegen

import (
	"strings"
	"testing"

	"github.com/pbgen/pbgen/symbolic"
)

// delaySystem is x' = -k d0 with d0 = delay(x, tau), d1 = delay(d0, x)
// (a nested, state-dependent delay) as an output.
func delaySystem(t *testing.T) *symbolic.System {
	b := symbolic.NewBuilder()
	x, k, tau := b.Sym("x", symbolic.KindState), b.Sym("k", symbolic.KindParam), b.Sym("tau", symbolic.KindParam)
	d0, d1 := b.Sym("delay#1", symbolic.KindDelay), b.Sym("delay#2", symbolic.KindDelay)
	o := &symbolic.ODE{B: b, Name: "dde",
		States:  []symbolic.State{{Name: "x", Rate: b.Neg(b.Mul(k, d0, x)), Init: b.Const(1)}},
		Params:  []symbolic.Param{{Name: "k", Value: 1}, {Name: "tau", Value: 1}},
		Outputs: []symbolic.Output{{Name: "y", Expr: d1}},
		Delays: []symbolic.Delay{
			{Name: "delay#1", Label: "delay(x, tau)", Expr: x, Tau: tau, History: b.Const(1)},
			{Name: "delay#2", Label: "delay(d0, x)", Expr: d0, Tau: x, History: b.Const(1)},
		}}
	sys, err := symbolic.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// A system with delays implements model.Delays: the sections that read
// delayed values take d, the plain methods pass NaN, and each delayed
// value has its argument, delay and history. (Generated packages with
// delays are compiled and run by pbgen testsuite -gen; the goldens check
// that output without delays is unchanged.)
func TestGenerateDelays(t *testing.T) {
	files, err := Generate(delaySystem(t), &Options{Package: "dde"})
	if err != nil {
		t.Fatal(err)
	}
	src := string(files["model.go"])
	for _, want := range []string{
		"var _ model.DelaySens = Model{}",
		"func (Model) JpDelayed(dst []float64, t float64, x, p, d []float64)",
		"func (Model) FdDelayed(dst []float64, t float64, x, p, d []float64)",
		"func (Model) FdPattern() *model.Pattern",
		"func delayGrad1(dst []float64, t float64, x, p, d, dx, dp, dd []float64)",
		"func delayTauGrad0(",
		"func delayHistGrad0(",
		"dp[ParamTau] = 1",
		"func (Model) FDelayed(dst []float64, t float64, x, p, d []float64)",
		"func (Model) JxDelayed(dst []float64, t float64, x, p, d []float64)",
		"func (Model) OutputsDelayedTo(dst []float64, t float64, x, p, d []float64)",
		"Model{}.FDelayed(dst, t, x, p, d[:])",
		"dl0 := d[0]",
		`"delay(x, tau)"`, "Constant: true", `"delay(d0, x)"`, "Reads: 1",
		"func delay1(dst []float64, t float64, x, p, d []float64)",
		"func delayHist0(dst []float64, t float64, p []float64)",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("generated code lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(src)
	}
}

// A system with delays and events implements model.DelayEvents: the
// event functions take d (their sections load dl0, ...), the plain
// methods pass NaN, and the derivative helpers take d and dd last with
// the event derivatives renamed ed: RootGradDelayed and
// EventDerivDelayed (model.DelayEventDerivs) give the derivatives in d,
// row-major for an event's rows. (Such packages are compiled and run by
// pbgen testsuite -gen on the SBML Test Suite's delay-with-event cases.)
func TestGenerateDelayEvents(t *testing.T) {
	sys := delaySystem(t)
	b := sys.B
	x, k := b.Sym("x", symbolic.KindState), b.Sym("k", symbolic.KindParam)
	d0 := b.Sym("delay#1", symbolic.KindDelay)
	sys.ODE.Events = []symbolic.Event{{Name: "E", Trigger: b.Rel(symbolic.OpGt, d0, x), Priority: d0,
		Assign: []symbolic.EventAssign{{State: 0, Value: b.Mul(d0, k, x)}}}}
	files, err := Generate(sys, &Options{Package: "dde"})
	if err != nil {
		t.Fatal(err)
	}
	var src string
	for _, f := range files {
		src += string(f)
	}
	for _, want := range []string{
		"var _ model.DelayEvents = Model{}",
		"func (Model) TriggersDelayedTo(dst []bool, t float64, x, p []float64, d []float64)",
		"func (Model) RootsDelayedTo(dst []float64, t float64, x, p, d []float64)",
		"func (Model) EventDelayDelayed(k int, t float64, x, p []float64, d []float64) float64",
		"func (Model) PriorityDelayed(k int, t float64, x, p []float64, d []float64) float64",
		"func (Model) EventAssignDelayed(k int, t float64, x, p, d, dst []float64)",
		"Model{}.TriggersDelayedTo(dst, t, x, p, d[:])",
		"Model{}.EventAssignDelayed(k, t, x, p, d[:], dst)",
		"func event0(dst []float64, t float64, x, p, d []float64)",
		"func triggers(dst []float64, t float64, x, p, d []float64)",
		"func eventDeriv0(t float64, x, p []float64, ed *model.EventDeriv, d, dd []float64)",
		"ed.X[NumStates+StateX] = dl0 * pK",
		"dd[1*NumDelays+0] = pK * xX",
		"dn := nanDelays()",
		"var _ model.DelayEventDerivs = Model{}",
		"func (Model) RootGradDelayed(j int, t float64, x, p, d, dx, dp, dd []float64) float64",
		"func (Model) EventDerivDelayed(k int, t float64, x, p, d []float64, ed *model.EventDeriv, dd []float64)",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("generated code lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(src)
	}
}
