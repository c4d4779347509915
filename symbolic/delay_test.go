package symbolic

import (
	"fmt"
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

// DelayDerivs forms df/dd and the partials of each delay's argument,
// delay and history, sorted by kind then index, without zeros.
func TestDelayDerivs(t *testing.T) {
	b := NewBuilder()
	x, y, k, tau := b.Sym("x", KindState), b.Sym("y", KindState), b.Sym("k", KindParam), b.Sym("tau", KindParam)
	d0, d1 := b.Sym("d0", KindDelay), b.Sym("d1", KindDelay)
	o := &ODE{B: b, Name: "m",
		States: []State{
			{Name: "x", Rate: b.Neg(b.Mul(k, d1)), Init: b.Const(1)},
			{Name: "y", Rate: b.Sub(d0, y), Init: k},
		},
		Params: []Param{{Name: "k", Value: 1}, {Name: "tau", Value: 1}},
		Delays: []Delay{
			{Name: "d0", Label: "delay(x, tau)", Expr: x, Tau: tau, History: b.Mul(k, b.Time())},
			{Name: "d1", Label: "delay(x*d0, 2*tau)", Expr: b.Mul(x, d0), Tau: b.Mul(b.Const(2), tau), History: b.Const(1)},
		}}
	sys, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	dd, err := sys.DelayDerivs()
	if err != nil {
		t.Fatal(err)
	}
	str := func(es []Entry) string {
		var parts []string
		for _, e := range es {
			parts = append(parts, fmt.Sprintf("(%d,%d)=%s", e.Row, e.Col, e.Expr))
		}
		return strings.Join(parts, " ")
	}
	ps := func(qs []Partial) string {
		var parts []string
		for _, q := range qs {
			parts = append(parts, fmt.Sprintf("%s%d=%s", q.Kind, q.Index, q.Expr))
		}
		return strings.Join(parts, " ")
	}
	for _, c := range []struct{ what, got, want string }{
		{"Fd", str(dd.Fd), fmt.Sprintf("(0,1)=%s (1,0)=1", b.Neg(k))},
		{"Arg[0]", ps(dd.Arg[0]), fmt.Sprintf("%s0=1", KindState)},
		{"Arg[1]", ps(dd.Arg[1]), fmt.Sprintf("%s0=%s %s0=%s", KindState, d0, KindDelay, x)},
		{"Tau[1]", ps(dd.Tau[1]), fmt.Sprintf("%s1=2", KindParam)},
		{"History[0]", ps(dd.History[0]), fmt.Sprintf("%s0=%s %s0=%s", KindParam, b.Time(), KindTime, k)},
		{"History[1]", ps(dd.History[1]), ""},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if dd, err := (&System{ODE: &ODE{B: b}, B: b}).DelayDerivs(); dd != nil || err != nil {
		t.Errorf("without delays: %v, %v, want nil, nil", dd, err)
	}
}
