package symbolic

import (
	"math"
	"strings"
	"testing"
)

// FuzzExpr parses arbitrary text and checks, for every expression that
// parses: no panic anywhere; String reads back as the same node; Diff
// succeeds (except for factorial of x); and where the function is smooth
// and finite around the point (finite differences at three step sizes
// agree), the derivative agrees with finite differences.
//
//	go test -fuzz FuzzExpr -fuzztime 60s ./symbolic
func FuzzExpr(f *testing.F) {
	for _, s := range []string{
		"x", "x*y + 3", "x^y", "exp(-x^2)*sin(3*x)", "ln(x)/(1 + x)", "sqrt(x*x + y)",
		"piecewise(x^2, x < 1, 2*x - 1)", "abs(x - 0.2)", "atan(x)/acot(x)", "(x^3)^0.5",
		"1/(x*y)/(x*z)", "xor(x > 0, y > 0) + !(x == y)", "log(2, x) + log(x)", "root(3, x)",
		"asinh(x) + acosh(2 + x) + atanh(x/2)", "sech(x)*csch(x)*coth(x)", "x^-2.5e-1",
		"-(x - y)*(x + y)", "factorial(x)", "t*x - 2*(x + t)", "floor(x)*ceil(y)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 200 {
			return
		}
		b := NewBuilder()
		n, err := b.ParseInfix(s, paramKind)
		if err != nil {
			return
		}
		str := n.String()
		back, err := b.ParseInfix(str, paramKind)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, str, err)
		}
		if back != n {
			t.Fatalf("%q printed as %q, which reads back as %q", s, str, back)
		}
		x := b.Sym("x", KindParam)
		d, err := b.Diff(n, x)
		if err != nil {
			if strings.Contains(err.Error(), "factorial") {
				return
			}
			t.Fatalf("Diff(%s): %v", n, err)
		}
		x0 := 0.7
		env := func(v float64) func(*Node) float64 {
			return func(s *Node) float64 {
				switch s.Name {
				case "x":
					return v
				case "y":
					return 1.3
				case "z":
					return -0.4
				case "t":
					return 0.25
				}
				return 0.5
			}
		}
		fx := func(v float64) float64 { return Eval(n, env(v)) }
		f0 := fx(x0)
		got := Eval(d, env(x0))
		const h = 1e-3
		cd := func(h float64) float64 { return (fx(x0+h) - fx(x0-h)) / (2 * h) }
		d1, d2, d3 := cd(h), cd(h/2), cd(h/4)
		scale := math.Max(1, math.Abs(f0))
		for _, v := range []float64{f0, d1, d2, d3} {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e12 {
				return // not finite around x0, or too steep to test
			}
		}
		if math.Abs(d1-d2) > 1e-4*scale || math.Abs(d2-d3) > 1e-5*scale {
			return // not smooth around x0
		}
		want := (4*d3 - d2) / 3
		if math.Abs(got-want) > 1e-5*math.Max(scale, math.Abs(want)) {
			t.Fatalf("d/dx %s = %s = %v at x = %v, finite differences %v", n, d, got, x0, want)
		}
	})
}
