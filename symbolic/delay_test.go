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

// TestDelayJumps: where a delayed value's history or expression jumps
// (ODE.DelayJumps), on d = delay(e, D) for several e.
func TestDelayJumps(t *testing.T) {
	b := NewBuilder()
	tm, x := b.Time(), b.Sym("x", KindState)
	T, D, x0 := b.Sym("T", KindParam), b.Sym("D", KindParam), b.Const(1)
	hist := func(e *Node) *Node { return b.Substitute(e, map[*Node]*Node{x: x0}) }
	for _, c := range []struct {
		name                 string
		e                    *Node
		hist, hmove, arg, am bool
	}{
		{"floor((t + 0.6)/T)", b.Func(OpFloor, b.Div(b.Add(tm, b.Const(0.6)), T)), true, true, true, true},
		{"floor(t/2)", b.Func(OpFloor, b.Div(tm, b.Const(2))), true, false, true, false},
		{"piecewise(1, t >= T, 0)", b.Piecewise(b.Const(1), b.Rel(OpGeq, tm, T), b.Const(0)), true, true, true, true},
		{"piecewise(1, x >= T, 0)", b.Piecewise(b.Const(1), b.Rel(OpGeq, x, T), b.Const(0)), false, false, true, true},
		{"piecewise(1, x >= 2, 0)", b.Piecewise(b.Const(1), b.Rel(OpGeq, x, b.Const(2)), b.Const(0)), false, false, true, true},
		{"floor(T) x", b.Mul(b.Func(OpFloor, T), x), false, false, false, false},
		{"piecewise(x, T > 1, 0)", b.Piecewise(x, b.Rel(OpGt, T, b.Const(1)), b.Const(0)), false, false, false, false},
		{"x t", b.Mul(x, tm), false, false, false, false},
	} {
		o := &ODE{B: b, Delays: []Delay{{Name: "d", Label: c.name, Expr: c.e, Tau: D, History: hist(c.e)}}}
		h, hm, a, am := o.DelayJumps(0)
		if h != c.hist || hm != c.hmove || a != c.arg || am != c.am {
			t.Errorf("%s: DelayJumps = %v %v %v %v, want %v %v %v %v", c.name, h, hm, a, am, c.hist, c.hmove, c.arg, c.am)
		}
	}
}
