package symbolic

import "testing"

func TestSubstitute(t *testing.T) {
	b := NewBuilder()
	n := mustParse(t, b, "k*V*x + sin(V)^2 + piecewise(V, V > 1, x)")
	V := b.Sym("V", KindParam)
	got := b.Substitute(n, map[*Node]*Node{V: b.Add(b.Sym("x", KindParam), b.Const(1))})
	want := mustParse(t, b, "k*(x + 1)*x + sin(x + 1)^2 + piecewise(x + 1, x + 1 > 1, x)")
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// A replaced value is not substituted again, and simplification runs.
	x := b.Sym("x", KindParam)
	if got := b.Substitute(mustParse(t, b, "x - V"), map[*Node]*Node{V: x}); !got.IsConst(0) {
		t.Errorf("x - V with V = x: got %s", got)
	}
	if got := b.Substitute(x, map[*Node]*Node{x: V}); got != V {
		t.Errorf("root replaced: got %s", got)
	}
	// Deep expressions do not overflow the stack.
	deep := x
	for i := 0; i < 100000; i++ {
		deep = b.Func(OpSinh, deep)
	}
	if got := b.Substitute(deep, map[*Node]*Node{x: b.Const(0)}); !got.IsConst(0) {
		t.Errorf("deep: got %s", got)
	}
}
