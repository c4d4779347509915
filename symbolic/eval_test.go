package symbolic

import (
	"math"
	"strings"
	"testing"
)

func TestEvalSemantics(t *testing.T) {
	vals := map[string]float64{"x": 2, "y": -3, "t": 0.5}
	cases := []struct {
		expr string
		want float64
	}{
		{"x^y", 0.125},
		{"root(3, 27*x/2)", 3},
		{"log(100)", 2},
		{"log(x, 8)", 3},
		{"factorial(x + 1)", 6},
		{"x < y", 0},
		{"x > y && y < 0", 1},
		{"x > y && y", 1}, // non-zero is true
		{"xor(x > 0, y > 0, t > 0)", 0},
		{"!(y)", 0},
		{"piecewise(1, y > 0, 2, x > 0, 3)", 2},
		{"piecewise(1, y > 0)", math.NaN()},
		{"abs(y) + floor(-t) + ceil(t)", 3},
		{"asec(x) - acos(0.5)", 0},
		{"sech(0) + coth(1)*tanh(1)", 2},
		{"t*x", 1},
	}
	for _, c := range cases {
		b := NewBuilder()
		got := Eval(mustParse(t, b, c.expr), envOf(vals))
		if !close(got, c.want, 1e-14) {
			t.Errorf("%s = %v, want %v", c.expr, got, c.want)
		}
	}
}

// TestCompiled compares Compiled.EvalTo with Eval on random expressions,
// and checks that EvalTo allocates nothing.
func TestCompiled(t *testing.T) {
	g := newGen(11)
	b := NewBuilder()
	var roots []*Node
	for i := 0; i < 200; i++ {
		roots = append(roots, g.tree(5).build(b))
	}
	roots = append(roots, b.Const(2.5), b.Sym("y", KindParam), b.Time())
	// x is a state here: substitute the parameter x by the state x.
	xs := b.Sym("x", KindState)
	for i, r := range roots {
		roots[i] = b.Substitute(r, map[*Node]*Node{b.Sym("x", KindParam): xs})
	}
	c, err := Compile(roots, []string{"w", "x"}, []string{"y", "z"})
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, c.NumRoots())
	scratch := make([]float64, c.ScratchLen())
	for k := 0; k < 20; k++ {
		tt, x, p := g.rng.Float64(), []float64{7, 4*g.rng.Float64() - 2}, []float64{3 * g.rng.Float64(), 2*g.rng.Float64() - 1}
		env := envOf(map[string]float64{"t": tt, "w": 7, "x": x[1], "y": p[0], "z": p[1]})
		for i := range dst {
			dst[i] = math.NaN()
		}
		c.EvalTo(dst, scratch, tt, x, p)
		for i, r := range roots {
			if want := Eval(r, env); !close(dst[i], want, 1e-12) {
				t.Errorf("%s: EvalTo %v, Eval %v", r, dst[i], want)
			}
		}
	}
	x, p := []float64{1, 0.5}, []float64{1.5, 0.25}
	if a := testing.AllocsPerRun(100, func() { c.EvalTo(dst, scratch, 0.3, x, p) }); a != 0 {
		t.Errorf("EvalTo allocates %v times per call", a)
	}
}

func TestCompiledErrorsAndPanics(t *testing.T) {
	b := NewBuilder()
	n := mustParse(t, b, "k*x")
	if _, err := Compile([]*Node{n}, nil, []string{"k"}); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("unknown symbol: err = %v", err)
	}
	if _, err := Compile([]*Node{b.Sym("q", KindOther)}, nil, nil); err == nil {
		t.Error("KindOther symbol compiled")
	}
	c, err := Compile([]*Node{n}, nil, []string{"k", "x"})
	if err != nil {
		t.Fatal(err)
	}
	wantPanic(t, "symbolic: EvalTo: dst length mismatch", func() { c.EvalTo(nil, make([]float64, c.ScratchLen()), 0, nil, []float64{1, 2}) })
	wantPanic(t, "symbolic: EvalTo: scratch too short", func() { c.EvalTo(make([]float64, 1), nil, 0, nil, []float64{1, 2}) })
	wantPanic(t, "symbolic: EvalTo: x or p length mismatch", func() { c.EvalTo(make([]float64, 1), make([]float64, c.ScratchLen()), 0, nil, []float64{1}) })
}

func wantPanic(t *testing.T, msg string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		if r := recover(); r != msg {
			t.Errorf("panic %v, want %q", r, msg)
		}
	}()
	f()
}

// TestDeepNonRecursive checks that the non-recursive algorithms accept
// expressions far deeper than MaxDepth, and the recursive ones refuse them.
func TestDeepNonRecursive(t *testing.T) {
	b := NewBuilder()
	x := b.Sym("x", KindParam)
	n := x
	const depth = 200000
	for i := 0; i < depth; i++ {
		n = b.Func(OpAtan, n)
	}
	if n.Height() != depth+1 {
		t.Fatalf("height %d, want %d", n.Height(), depth+1)
	}
	want := 0.5
	for i := 0; i < depth; i++ {
		want = math.Atan(want)
	}
	if got := Eval(n, func(*Node) float64 { return 0.5 }); got != want {
		t.Errorf("Eval = %v, want %v", got, want)
	}
	c, err := Compile([]*Node{n}, nil, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, 1)
	c.EvalTo(dst, make([]float64, c.ScratchLen()), 0, nil, []float64{0.5})
	if dst[0] != want {
		t.Errorf("EvalTo = %v, want %v", dst[0], want)
	}
	if s := n.String(); !strings.HasPrefix(s, "<expression of height") {
		t.Errorf("String of a deep node: %.40s", s)
	}
	if len(FreeSymbols(n)) != 1 {
		t.Error("FreeSymbols of a deep node")
	}
}
