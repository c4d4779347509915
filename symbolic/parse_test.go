package symbolic

import (
	"math"
	"strings"
	"testing"
)

func TestParseInfix(t *testing.T) {
	cases := []struct{ in, want string }{
		{"1 + 2*3", "7"},
		{"2^3^2", "512"},
		{"-2^2", "-4"},
		{"(-2)^2", "4"},
		{"2^-1", "0.5"},
		{"1e-3 + .5 + 2E2", "200.501"},
		{"a - b - c", "a - b - c"},
		{"a/b/c", "a/(b*c)"},
		{"a*(b + c)", "a*(b + c)"},
		{"sqrt(a)", "a^0.5"},
		{"arcsin(a) + asin(a)", "2*asin(a)"},
		{"pow(a, b)", "a^b"},
		{"a < b && !(c >= d) || e == f", "e == f || a < b && !(c >= d)"},
		{"and(a < b, c != d)", "c != d && a < b"},
		{"xor(a < b, c < d)", "xor(a < b, c < d)"},
		{"piecewise(a, b > 0)", "piecewise(a, b > 0, NaN)"},
		{"NaN*a", "NaN"},
		{"-Inf", "-Inf"},
		{"t*a", "a*t"},
		{"+a", "a"},
	}
	for _, c := range cases {
		b := NewBuilder()
		n, err := b.ParseInfix(c.in, paramKind)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if n.String() != c.want {
			t.Errorf("%q: got %s, want %s", c.in, n, c.want)
		}
	}
	b := NewBuilder()
	kinds := func(s string) SymKind {
		if s == "X" {
			return KindState
		}
		return KindParam
	}
	n, _ := b.ParseInfix("k*X*t", kinds)
	if n != b.Mul(b.Sym("k", KindParam), b.Sym("X", KindState), b.Time()) {
		t.Errorf("kinds not applied: %s", n)
	}
	if n, _ := b.ParseInfix("q", nil); n != b.Sym("q", KindOther) {
		t.Errorf("nil kind: %v", n)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ in, msg string }{
		{"", "unexpected end of input"},
		{"a +", "unexpected end of input"},
		{"(a", "expected ')'"},
		{"a b", "unexpected name b"},
		{"a $ b", "unexpected character"},
		{"foo(a)", "unknown function foo"},
		{"sin(a, b)", "sin takes 1 argument"},
		{"log(a, b, c)", "log takes 1 or 2"},
		{"1.2.3", "bad number"},
		{"a < b < c", "unexpected '<'"},
		{strings.Repeat("(", MaxDepth+1) + "a" + strings.Repeat(")", MaxDepth+1), "nested deeper"},
		{strings.Repeat("-", 3*MaxDepth) + "a", "nested deeper"},
		{strings.Repeat("a^", 2*MaxDepth) + "a", "nested deeper"},
	}
	for _, c := range cases {
		b := NewBuilder()
		_, err := b.ParseInfix(c.in, paramKind)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%.30q: err = %v, want %q", c.in, err, c.msg)
		}
	}
}

// TestStringRoundTrip checks that String prints what ParseInfix reads back
// into the same node, on random expressions.
func TestStringRoundTrip(t *testing.T) {
	g := newGen(5)
	b := NewBuilder()
	for i := 0; i < 3000; i++ {
		n := g.tree(5).build(b)
		back, err := b.ParseInfix(n.String(), paramKind)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if back != n {
			t.Errorf("%s reads back as %s", n, back)
		}
	}
}

// TestParsePEtab checks the PEtab dialect by value, so that a wrong
// operator or argument order shows as a number.
func TestParsePEtab(t *testing.T) {
	env := map[string]float64{"a": 2, "b": 3, "t": 5}
	cases := []struct {
		in   string
		want float64
	}{
		{"log(8, 2)", 3},
		{"log(exp(2))", 2},
		{"ln(exp(1.5))", 1.5},
		{"log2(8) + log10(100)", 5},
		{"2^3^2", 512},
		{"-2^2", -4},
		{"sign(-a) + sign(0) + sign(a)", 0},
		{"min(a, b) + 10*max(a, b)", 32},
		{"t*time", 35}, // t is a name; time is the time symbol
		{"true + false", 1},
		{"1 || 0 && 0", 0}, // same precedence, left to right: (1 || 0) && 0
		{"3 > 2 > 0", 1},   // (3 > 2) > 0
		{"piecewise(a, a > b, b)", 3},
		{"inf > 1e308", 1},
		{"arcsinh(sinh(0.5))", 0.5},
	}
	for _, c := range cases {
		b := NewBuilder()
		n, err := b.ParsePEtab(c.in, paramKind)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		got := Eval(n, func(s *Node) float64 {
			if s.Kind == KindTime {
				return 7
			}
			return env[s.Name]
		})
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%q = %s: got %g, want %g", c.in, n, got, c.want)
		}
	}
	for _, bad := range []string{"log(a, b, c)", "sign(a, b)", "min(a)", "a +", "foo(a)", "log2()"} {
		if _, err := NewBuilder().ParsePEtab(bad, paramKind); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
