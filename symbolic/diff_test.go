package symbolic

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDiffFiniteDifferences checks the derivative of every operator, alone
// and composed, against finite differences at seeded random points.
func TestDiffFiniteDifferences(t *testing.T) {
	cases := []struct {
		expr   string
		lo, hi float64 // range of x; y and z are drawn from [0.5, 2]
	}{
		{"x + y + 3", -2, 2},
		{"x*y*z*x", -2, 2},
		{"x^y", 0.3, 2},
		{"y^x", -2, 2},
		{"x^3 - 2*x^-2.5", 0.3, 2},
		{"x^(x*y)", 0.3, 2},
		{"(x^2 + y)^0.5 / (x*z)", 0.3, 2},
		{"root(3, x + y)", 0, 2},
		{"log(2, x*y) + log(x)", 0.3, 2},
		{"exp(x*y)", -2, 2},
		{"ln(x*y)", 0.1, 2},
		{"abs(x - 1)", 1.1, 3},
		{"abs(x - 1)*y", -2, 0.9},
		{"floor(x) + ceil(x*y)", 0.01, 0.2},
		{"factorial(y) * x", -1, 1},
		{"sin(x*y)", -2, 2},
		{"cos(x*y)", -2, 2},
		{"tan(x)", -1.3, 1.3},
		{"sec(x)", -1.3, 1.3},
		{"csc(x)", 0.2, 3},
		{"cot(x)", 0.2, 3},
		{"sinh(x)", -2, 2},
		{"cosh(x)", -2, 2},
		{"tanh(x)", -2, 2},
		{"sech(x)", -2, 2},
		{"csch(x)", 0.2, 2},
		{"coth(x)", -2, -0.2},
		{"asin(x)", -0.9, 0.9},
		{"acos(x)", -0.9, 0.9},
		{"atan(x*y)", -3, 3},
		{"asec(x)", 1.2, 3},
		{"asec(x)", -3, -1.2},
		{"acsc(x)", 1.2, 3},
		{"acsc(x)", -3, -1.2},
		{"acot(x)", 0.2, 3},
		{"acot(x)", -3, -0.2},
		{"asinh(x)", -3, 3},
		{"acosh(x)", 1.2, 3},
		{"atanh(x)", -0.9, 0.9},
		{"asech(x)", 0.1, 0.9},
		{"acsch(x)", 0.2, 3},
		{"acsch(x)", -3, -0.2},
		{"acoth(x)", 1.2, 3},
		{"acoth(x)", -3, -1.2},
		{"piecewise(x^2, x < 1, sin(x)*y, x < 2, exp(-x))", 0, 3},
		{"piecewise(x*y, x > 0 && y > 0 || !(x < -5), -x)", -2, 2},
		{"(x < y) + (x >= y) * x + xor(x > 0, y > 1)", -2, 2},
		{"x == y || x != y", -2, 2},
		{"sin(x)^2*exp(-x*y)/(1 + x^2) - 3*t*x", -2, 2},
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range cases {
		b := NewBuilder()
		n := mustParse(t, b, c.expr)
		x := b.Sym("x", KindParam)
		d, err := b.Diff(n, x)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		checked := 0
		for k := 0; k < 20; k++ {
			vals := map[string]float64{
				"x": c.lo + (c.hi-c.lo)*rng.Float64(),
				"y": 0.5 + 1.5*rng.Float64(),
				"z": 0.5 + 1.5*rng.Float64(),
				"t": rng.Float64(),
			}
			x0 := vals["x"]
			if math.Abs(x0-1) < 0.01 || math.Abs(x0-2) < 0.01 || math.Abs(x0) < 0.01 || math.Abs(x0-vals["y"]) < 0.01 {
				continue // too close to a discontinuity of the piecewise cases
			}
			got := Eval(d, envOf(vals))
			want := centralDiff(func(v float64) float64 {
				vals["x"] = v
				defer func() { vals["x"] = x0 }()
				return Eval(n, envOf(vals))
			}, x0)
			if !close(got, want, 1e-6) {
				t.Errorf("d/dx %s at %v: got %v (%s), finite differences %v", c.expr, vals, got, d, want)
			}
			checked++
		}
		if checked < 10 {
			t.Errorf("%s: only %d points checked", c.expr, checked)
		}
	}
}

// TestDiffRules checks exact derivative shapes that finite differences
// cannot see.
func TestDiffRules(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"x^3", "3*x^2"},
		{"k*x", "k"},
		{"y", "0"},
		{"x", "1"},
		{"ln(x)", "1/x"},
		{"exp(2*x)", "2*exp(2*x)"},
		{"abs(x)", "piecewise(-1, x < 0, 1, x > 0, 0)"},
		{"piecewise(x^2, x < 1)", "piecewise(2*x, x < 1, NaN)"},
		{"floor(x)", "0"},
		{"x < 1", "0"},
		{"factorial(k)*x", "factorial(k)"},
	}
	for _, c := range cases {
		b := NewBuilder()
		d, err := b.Diff(mustParse(t, b, c.expr), b.Sym("x", KindParam))
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if d.String() != c.want {
			t.Errorf("d/dx %s = %s, want %s", c.expr, d, c.want)
		}
	}
}

func TestDiffErrors(t *testing.T) {
	b := NewBuilder()
	x := b.Sym("x", KindParam)
	_, err := b.Diff(mustParse(t, b, "2*factorial(x)"), x)
	if err == nil || !strings.Contains(err.Error(), "factorial") {
		t.Errorf("factorial(x): err = %v, want a factorial error", err)
	}
	deep := x
	for i := 0; i < MaxDepth+5; i++ {
		deep = b.Func(OpSin, deep)
	}
	if _, err := b.Diff(deep, x); !errors.Is(err, ErrTooDeep) {
		t.Errorf("deep expression: err = %v, want ErrTooDeep", err)
	}
}

// TestDiffLinearDAG differentiates a DAG with exponentially many paths; it
// must finish quickly because shared nodes are differentiated once.
func TestDiffLinearDAG(t *testing.T) {
	b := NewBuilder()
	x := b.Sym("x", KindParam)
	n := x
	for i := 0; i < 200; i++ {
		n = b.Mul(b.Func(OpSin, n), b.Func(OpCos, n)) // n used twice per level
	}
	before := b.Len()
	if _, err := b.Diff(n, x); err != nil {
		t.Fatal(err)
	}
	if grown := b.Len() - before; grown > 200*30 {
		t.Errorf("Diff created %d nodes for a 200-level DAG, want linear growth", grown)
	}
}
