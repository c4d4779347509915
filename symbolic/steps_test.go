package symbolic

import (
	"strconv"
	"testing"
)

// TestLowerSteps checks the shape of what LowerSteps adds: one held state
// per distinct floor or ceil of a moving argument (nested ones innermost
// first, floor of parameters alone left), inserted before the algebraic
// state with the targets of the model's own events moved past it, its
// initial value the function at t0 = 0 and x0, two events each, and the
// rates reading the states; Build leaves their columns out of Jx.
func TestLowerSteps(t *testing.T) {
	b := NewBuilder()
	kind := func(name string) SymKind {
		switch name {
		case "x", "z", "ceil1", "floor2", "floor3":
			return KindState
		}
		return KindParam
	}
	parse := func(s string) *Node {
		n, err := b.ParseInfix(s, kind)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	o := &ODE{B: b, Name: "m",
		States: []State{
			// floor(t/T) twice (shared), ceil(x) inside a floor, floor(T)
			// of a parameter alone.
			{Name: "x", Rate: parse("k*floor(t/T) + floor(ceil(x)/2) + floor(T) + floor(t/T)^2"), Init: b.Const(2.5)},
			{Name: "z", Rate: parse("z - x"), Init: b.Const(0)},
		},
		Params:    []Param{{Name: "T", Value: 1.3}, {Name: "k", Value: 1}},
		Algebraic: 1,
		Events:    []Event{{Name: "e", Trigger: parse("t >= 1"), Assign: []EventAssign{{State: 1, Value: b.Const(0)}}}},
	}
	n := LowerSteps(o, func(kind string, k int) string { return kind + strconv.Itoa(k) })
	if n != 3 {
		t.Fatalf("%d states added, want 3", n)
	}
	var names []string
	for _, s := range o.States {
		names = append(names, s.Name)
	}
	want := []string{"x", "ceil1", "floor2", "floor3", "z"} // post-order over the canonical sum
	if len(names) != len(want) {
		t.Fatalf("states %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("states %v, want %v", names, want)
		}
	}
	if got := o.Events[0].Assign[0].State; got != 4 {
		t.Errorf("the model's event assigns state %d, want 4 (z moved past the steps)", got)
	}
	if len(o.Events) != 7 {
		t.Fatalf("%d events, want 1 + 2 per step", len(o.Events))
	}
	env := map[string]float64{"T": 1.3, "k": 1}
	for i, w := range []float64{3, 1, 0} { // ceil(2.5), floor(ceil(2.5)/2), floor(0/T)
		s := o.States[1+i]
		if !s.Held || !s.Rate.IsConst(0) {
			t.Errorf("%s: held %v, rate %v", s.Name, s.Held, s.Rate)
		}
		if got := Eval(s.Init, envOf(env)); got != w {
			t.Errorf("%s(t0) = %v, want %v", s.Name, got, w)
		}
		for _, e := range o.Events[1+2*i : 3+2*i] {
			if len(e.Assign) != 1 || e.Assign[0].State != 1+i || e.InitialValue || e.Delay != nil || e.Priority != nil {
				t.Errorf("%s: event %s: %+v", s.Name, e.Name, e)
			}
		}
	}
	if got, w := o.States[0].Rate, parse("floor(T) + floor2 + k*floor3 + floor3^2"); got != w {
		t.Errorf("rate %s, want %s", got, w)
	}
	// The floor of x's ceil reads the ceil's state.
	if got, w := o.Events[3].Trigger, parse("ceil1/2 >= floor2 + 1"); got != w {
		t.Errorf("floor2's upward trigger %s, want %s", got, w)
	}
	sys, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range sys.Jx {
		if e.Col >= 1 && e.Col <= 3 {
			t.Errorf("Jx has an entry in the column of held state %s: %v", o.States[e.Col].Name, e.Expr)
		}
	}
}

// TestLowerStepsDelayInit: the initial value of the state of floor(d),
// d a delayed value, is the floor of d's history at t0 - tau (d =
// delay(t/T, D): floor(-D/T) = -1), not at t0.
func TestLowerStepsDelayInit(t *testing.T) {
	b := NewBuilder()
	T, D := b.Sym("T", KindParam), b.Sym("D", KindParam)
	d := b.Sym("d1", KindDelay)
	o := &ODE{B: b, Name: "m",
		States: []State{{Name: "x", Rate: b.Func(OpFloor, d), Init: b.Const(0)}},
		Params: []Param{{Name: "T", Value: 1.3}, {Name: "D", Value: 0.5}},
		Delays: []Delay{{Name: "d1", Expr: b.Div(b.Time(), T), Tau: D, History: b.Div(b.Time(), T)}},
	}
	if n := LowerSteps(o, func(kind string, k int) string { return kind + strconv.Itoa(k) }); n != 1 {
		t.Fatalf("%d states added, want 1", n)
	}
	if got := Eval(o.States[1].Init, envOf(map[string]float64{"T": 1.3, "D": 0.5})); got != -1 {
		t.Errorf("floor1(t0) = %v, want -1", got)
	}
	if o.Delays[0].Expr != b.Div(b.Time(), T) || o.States[0].Rate != b.Sym("floor1", KindState) {
		t.Errorf("delay %v, rate %v", o.Delays[0].Expr, o.States[0].Rate)
	}
}
