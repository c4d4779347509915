package symbolic

import (
	"strings"
	"testing"
)

// Build checks the delays: a delayed value may read only those listed
// before it, and its history only time and parameters.
func TestBuildDelays(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(b *Builder, o *ODE)
		want string
	}{
		{"ok", func(*Builder, *ODE) {}, ""},
		{"reads a later one", func(b *Builder, o *ODE) {
			o.Delays[0].Expr = b.Sym("d1", KindDelay)
		}, "not listed before it"},
		{"history with a state", func(b *Builder, o *ODE) {
			o.Delays[1].History = b.Sym("x", KindState)
		}, "history of"},
		{"unknown delayed value", func(b *Builder, o *ODE) {
			o.States[0].Rate = b.Sym("d9", KindDelay)
		}, "not allowed"},
		{"delayed value in an initial value", func(b *Builder, o *ODE) {
			o.States[0].Init = b.Sym("d0", KindDelay)
		}, "not allowed"},
	} {
		b := NewBuilder()
		x, tau := b.Sym("x", KindState), b.Sym("tau", KindParam)
		o := &ODE{B: b, Name: "m",
			States: []State{{Name: "x", Rate: b.Neg(b.Sym("d0", KindDelay)), Init: b.Const(1)}},
			Params: []Param{{Name: "tau", Value: 1}},
			Delays: []Delay{
				{Name: "d0", Label: "delay(x, tau)", Expr: x, Tau: tau, History: b.Const(1)},
				{Name: "d1", Label: "delay(d0, 1)", Expr: b.Sym("d0", KindDelay), Tau: b.Const(1), History: b.Time()},
			}}
		c.mod(b, o)
		sys, err := Build(o)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == "" && len(sys.Jx) != 0:
			t.Errorf("%s: Jx %v, want none (d held fixed)", c.name, sys.Jx)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
		if c.want == "" {
			idx := o.DelayIndex()
			if k, r := o.DelayShape(1, idx); !k || r != 1 {
				t.Errorf("DelayShape(1) = %v, %d; want true, 1", k, r)
			}
			if k, r := o.DelayShape(0, idx); !k || r != 0 {
				t.Errorf("DelayShape(0) = %v, %d; want true, 0", k, r)
			}
		}
	}
}
