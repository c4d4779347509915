package interp_test

import (
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

// twoStates is A <-> B with parameters k1, k2 and the assignment set
// {B := k2 * A * B + t, A := A + k1} (listed out of state order, to check
// that targets come out ascending with their values).
func twoStates(t *testing.T) (*symbolic.System, []interp.Assignment) {
	b := symbolic.NewBuilder()
	a, bb := b.Sym("A", symbolic.KindState), b.Sym("B", symbolic.KindState)
	k1, k2 := b.Sym("k1", symbolic.KindParam), b.Sym("k2", symbolic.KindParam)
	v := b.Sub(b.Mul(k1, a), b.Mul(k2, bb))
	ode := &symbolic.ODE{
		B: b, Name: "ab",
		States: []symbolic.State{{Name: "A", Rate: b.Neg(v), Init: b.Const(1)}, {Name: "B", Rate: v, Init: b.Const(0)}},
		Params: []symbolic.Param{{Name: "k1", Value: 0.5}, {Name: "k2", Value: 2}},
	}
	sys, err := symbolic.Build(ode)
	if err != nil {
		t.Fatal(err)
	}
	return sys, []interp.Assignment{{
		States: []string{"B", "A"},
		Values: []*symbolic.Node{b.Add(b.Mul(k2, a, bb), b.Time()), b.Add(a, k1)},
	}}
}

// Values and derivatives against the formulas, and Assign allocates
// nothing and leaves its inputs alone.
func TestAssign(t *testing.T) {
	sys, as := twoStates(t)
	m, err := interp.NewObservedAssign(sys, nil, as)
	if err != nil {
		t.Fatal(err)
	}
	var _ model.Assigner = m
	if n := m.NumAssignments(); n != 1 {
		t.Fatalf("%d assignment sets, want 1", n)
	}
	if tg := m.AssignTargets(0); len(tg) != 2 || tg[0] != 0 || tg[1] != 1 {
		t.Fatalf("targets %v, want [0 1]", tg)
	}
	nan := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = math.NaN()
		}
		return s
	}
	x, p := []float64{3, 4}, []float64{0.5, 2}
	dst := nan(2)
	d := &model.AssignDeriv{X: nan(4), P: nan(4)}
	m.Assign(0, 7, x, p, dst, d)
	// A := A + k1 = 3.5; B := k2 A B + t = 24 + 7 = 31.
	want := []struct {
		name      string
		got, want float64
	}{
		{"A", dst[0], 3.5}, {"B", dst[1], 31},
		{"dA/dA", d.X[0], 1}, {"dA/dB", d.X[1], 0}, {"dB/dA", d.X[2], 8}, {"dB/dB", d.X[3], 6},
		{"dA/dk1", d.P[0], 1}, {"dA/dk2", d.P[1], 0}, {"dB/dk1", d.P[2], 0}, {"dB/dk2", d.P[3], 12},
	}
	for _, w := range want {
		if math.Abs(w.got-w.want) > 1e-12 {
			t.Errorf("%s = %g, want %g", w.name, w.got, w.want)
		}
	}
	if x[0] != 3 || x[1] != 4 || p[0] != 0.5 || p[1] != 2 {
		t.Error("Assign modified its inputs")
	}
	if n := testing.AllocsPerRun(10, func() { m.Assign(0, 7, x, p, dst, d) }); n != 0 && !raceEnabled {
		t.Errorf("%v allocations per Assign", n)
	}
	// Without derivatives.
	m.Assign(0, 0, x, p, dst, nil)
	if dst[1] != 24 {
		t.Errorf("B at t = 0: %g, want 24", dst[1])
	}
}

func TestAssignErrors(t *testing.T) {
	sys, as := twoStates(t)
	for _, c := range []struct {
		name string
		edit func(a *interp.Assignment)
		want string
	}{
		{"not a state", func(a *interp.Assignment) { a.States = []string{"k1", "A"} }, `"k1" is not a state`},
		{"twice", func(a *interp.Assignment) { a.States = []string{"A", "A"} }, "assigned twice"},
		{"lengths", func(a *interp.Assignment) { a.Values = a.Values[:1] }, "2 states but 1 values"},
		{"foreign", func(a *interp.Assignment) { a.Values = []*symbolic.Node{symbolic.NewBuilder().Const(1), a.Values[1]} }, "another Builder"},
		{"unknown symbol", func(a *interp.Assignment) {
			a.Values = []*symbolic.Node{sys.B.Sym("zz", symbolic.KindParam), a.Values[1]}
		}, "assignment set 0"},
	} {
		a := interp.Assignment{States: append([]string(nil), as[0].States...), Values: append([]*symbolic.Node(nil), as[0].Values...)}
		c.edit(&a)
		if _, err := interp.NewObservedAssign(sys, nil, []interp.Assignment{a}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}
