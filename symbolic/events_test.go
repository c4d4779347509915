package symbolic

import (
	"strings"
	"testing"
)

func TestRoots(t *testing.T) {
	b := NewBuilder()
	kind := func(s string) SymKind {
		if s == "A" || s == "B" {
			return KindState
		}
		return KindParam
	}
	e := func(s string) *Node {
		n, err := b.ParseInfix(s, kind)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Two relations, one repeated, and a constant one (no root).
	trig := b.Logic(OpAnd, b.Rel(OpGt, e("A"), e("k")), b.Logic(OpOr, b.Rel(OpLeq, e("B"), e("2*A")), b.Rel(OpGt, e("A"), e("k"))))
	got := b.Roots(trig)
	want := []*Node{e("A - k"), e("B - 2*A")}
	if len(got) != len(want) {
		t.Fatalf("roots %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("root %d: %v, want %v", i, got[i], want[i])
		}
	}
	if r := b.Roots(b.Const(1)); len(r) != 0 {
		t.Errorf("constant trigger: roots %v", r)
	}
}

func TestBuildEvents(t *testing.T) {
	for _, c := range []struct {
		name string
		ev   func(b *Builder) Event
		want string // error substring; "" = no error
	}{
		{"ok", func(b *Builder) Event {
			return Event{Name: "E", Trigger: b.Rel(OpGt, b.Time(), b.Const(1)), Delay: b.Sym("k1", KindParam),
				Assign: []EventAssign{{State: 0, Value: b.Add(b.Sym("A", KindState), b.Const(1))}}}
		}, ""},
		{"unnamed", func(b *Builder) Event { return Event{Trigger: b.Const(1)} }, "has no name"},
		{"nil trigger", func(b *Builder) Event { return Event{Name: "E"} }, `trigger of "E" is nil`},
		{"unknown symbol", func(b *Builder) Event {
			return Event{Name: "E", Trigger: b.Rel(OpGt, b.Sym("zz", KindOther), b.Const(1))}
		}, `trigger of "E" uses`},
		{"bad target", func(b *Builder) Event {
			return Event{Name: "E", Trigger: b.Const(1), Assign: []EventAssign{{State: 9, Value: b.Const(1)}}}
		}, `event "E" assigns state 9`},
		{"twice", func(b *Builder) Event {
			return Event{Name: "E", Trigger: b.Const(1), Assign: []EventAssign{{State: 1, Value: b.Const(1)}, {State: 1, Value: b.Const(2)}}}
		}, `event "E" assigns "B" twice`},
		{"negative delay", func(b *Builder) Event { return Event{Name: "E", Trigger: b.Const(1), Delay: b.Const(-1)} }, "delay -1"},
	} {
		b := NewBuilder()
		ode := massAction(b)
		ode.Events = []Event{c.ev(b)}
		_, err := Build(ode)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}
