package symbolic

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// paramKind makes every name a parameter (t is always time).
func paramKind(string) SymKind { return KindParam }

func mustParse(t testing.TB, b *Builder, s string) *Node {
	t.Helper()
	n, err := b.ParseInfix(s, paramKind)
	if err != nil {
		t.Fatalf("ParseInfix(%q): %v", s, err)
	}
	return n
}

// envOf evaluates symbols by name from vals (time is "t").
func envOf(vals map[string]float64) func(*Node) float64 {
	return func(s *Node) float64 {
		v, ok := vals[s.Name]
		if !ok {
			panic("test: no value for " + s.Name)
		}
		return v
	}
}

// centralDiff estimates f'(x) by Richardson-extrapolated central
// differences (error O(h^4)), an oracle independent of Diff.
func centralDiff(f func(float64) float64, x float64) float64 {
	h := 1e-3 * math.Max(1, math.Abs(x))
	d := func(h float64) float64 { return (f(x+h) - f(x-h)) / (2 * h) }
	return (4*d(h/2) - d(h)) / 3
}

func close(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return scalar.EqualWithinAbsOrRel(a, b, tol, tol)
}
