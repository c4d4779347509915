package symbolic

import (
	"fmt"
	"testing"
)

func TestHashConsing(t *testing.T) {
	b := NewBuilder()
	x, y := b.Sym("x", KindState), b.Sym("y", KindParam)
	if b.Sym("x", KindState) != x || b.Sym("x", KindParam) == x {
		t.Error("symbols are interned by name and kind")
	}
	pairs := [][2]*Node{
		{b.Add(x, y), b.Add(y, x)},
		{b.Mul(x, b.Add(y, b.Const(1))), b.Mul(b.Add(b.Const(1), y), x)},
		{b.Func(OpSin, b.Mul(x, y)), b.Func(OpSin, b.Mul(y, x))},
		{b.Div(x, y), b.Mul(b.Pow(y, b.Const(-1)), x)},
		{b.Sub(x, y), b.Add(b.Neg(y), x)},
		{mustParse(t, b, "x*y + 1"), b.Add(b.Const(1), b.Mul(b.Sym("y", KindParam), b.Sym("x", KindParam)))},
		{b.Const(0), b.Const(-1 * 0.0)},
	}
	for i, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("pair %d: %s and %s are different nodes", i, p[0], p[1])
		}
	}
	n := b.Len()
	b.Add(y, x)
	if b.Len() != n {
		t.Errorf("rebuilding an existing expression created %d nodes", b.Len()-n)
	}
}

// TestDeterminism builds the same random expressions in two Builders and in
// a third that first creates the symbols in another order: the strings and
// the program orders must agree.
func TestDeterminism(t *testing.T) {
	build := func(b *Builder) []*Node {
		g := newGen(3)
		var roots []*Node
		for i := 0; i < 300; i++ {
			roots = append(roots, g.tree(5).build(b))
		}
		return roots
	}
	b1, b2, b3 := NewBuilder(), NewBuilder(), NewBuilder()
	for _, s := range []string{"z", "y", "x"} {
		b3.Sym(s, KindParam)
	}
	r1, r2, r3 := build(b1), build(b2), build(b3)
	for i := range r1 {
		if r1[i].String() != r2[i].String() || r1[i].String() != r3[i].String() {
			t.Fatalf("root %d: %s / %s / %s", i, r1[i], r2[i], r3[i])
		}
	}
	p1, p2 := NewProgram(r1), NewProgram(r2)
	if len(p1.Steps) != len(p2.Steps) {
		t.Fatalf("program lengths %d and %d", len(p1.Steps), len(p2.Steps))
	}
	for i := range p1.Steps {
		if p1.Steps[i].ID() != p2.Steps[i].ID() || p1.Steps[i].String() != p2.Steps[i].String() {
			t.Fatalf("step %d: %s (id %d) vs %s (id %d)", i, p1.Steps[i], p1.Steps[i].ID(), p2.Steps[i], p2.Steps[i].ID())
		}
	}
}

func TestProgram(t *testing.T) {
	b := NewBuilder()
	s := mustParse(t, b, "sin(x*y)")
	f := b.Add(b.Mul(s, s), b.Func(OpExp, s)) // sin(x*y)^2 + exp(sin(x*y))
	p := NewProgram([]*Node{f, s})
	pos := make(map[*Node]int)
	for i, st := range p.Steps {
		if _, dup := pos[st]; dup {
			t.Fatalf("step %s scheduled twice", st)
		}
		pos[st] = i
		for _, a := range st.Args {
			if a.Op != OpConst && a.Op != OpSym {
				if j, ok := pos[a]; !ok || j >= i {
					t.Fatalf("step %s before its argument %s", st, a)
				}
			}
		}
	}
	// sin(x*y) is used by the square, by exp and as a root.
	if got := fmt.Sprint(len(p.Steps), p.Uses[s]); got != "5 3" {
		t.Errorf("steps, uses of sin(x*y) = %s, want 5 3 (steps %v)", got, p.Steps)
	}
}
