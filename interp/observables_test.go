package interp_test

import (
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

// decayWithObservable is dx/dt = -k*x with the observable h = s*x + u0 and
// noise sigma = u1*h (a proportional noise model with a placeholder).
func decayWithObservable(t *testing.T) (*symbolic.System, []interp.Observable) {
	b := symbolic.NewBuilder()
	x := b.Sym("x", symbolic.KindState)
	k := b.Sym("k", symbolic.KindParam)
	s := b.Sym("s", symbolic.KindParam)
	u0, u1 := b.Sym("u:off", symbolic.KindParam), b.Sym("u:rel", symbolic.KindParam)
	ode := &symbolic.ODE{
		B: b, Name: "decay",
		States: []symbolic.State{{Name: "x", Rate: b.Neg(b.Mul(k, x)), Init: b.Const(1)}},
		Params: []symbolic.Param{{Name: "k", Value: 0.5}, {Name: "s", Value: 2}},
	}
	sys, err := symbolic.Build(ode)
	if err != nil {
		t.Fatal(err)
	}
	h := b.Add(b.Mul(s, x), u0)
	return sys, []interp.Observable{{ID: "obs", H: h, Sigma: b.Mul(u1, h), U: []string{"u:off", "u:rel"}, NObs: 1}}
}

func TestObserved(t *testing.T) {
	sys, obs := decayWithObservable(t)
	m, err := interp.NewObserved(sys, obs)
	if err != nil {
		t.Fatal(err)
	}
	var _ model.Observables = m
	if ids := m.ObservableIDs(); len(ids) != 1 || ids[0] != "obs" {
		t.Fatalf("ids %v", ids)
	}
	if no, nn := m.Placeholders(0); no != 1 || nn != 1 {
		t.Fatalf("placeholders %d, %d; want 1, 1", no, nn)
	}
	fill := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = math.NaN()
		}
		return s
	}
	d := &model.ObsDeriv{HX: fill(1), HP: fill(2), HU: fill(2), SX: fill(1), SP: fill(2), SU: fill(2)}
	x, p, u := []float64{3}, []float64{0.5, 2}, []float64{0.1, 0.2}
	y, sigma := m.Observe(0, 0, x, p, u, d)
	// h = s*x + off = 6.1, sigma = rel*h = 1.22
	want := []struct {
		name      string
		got, want float64
	}{
		{"h", y, 6.1}, {"sigma", sigma, 1.22},
		{"dh/dx", d.HX[0], 2}, {"dh/dk", d.HP[0], 0}, {"dh/ds", d.HP[1], 3}, {"dh/doff", d.HU[0], 1}, {"dh/drel", d.HU[1], 0},
		{"dsigma/dx", d.SX[0], 0.4}, {"dsigma/dk", d.SP[0], 0}, {"dsigma/ds", d.SP[1], 0.6}, {"dsigma/doff", d.SU[0], 0.2}, {"dsigma/drel", d.SU[1], 6.1},
	}
	for _, w := range want {
		if math.Abs(w.got-w.want) > 1e-12 {
			t.Errorf("%s = %g, want %g", w.name, w.got, w.want)
		}
	}
	if x[0] != 3 || p[1] != 2 || u[1] != 0.2 {
		t.Errorf("Observe modified its inputs")
	}
}

func TestObservedErrors(t *testing.T) {
	sys, obs := decayWithObservable(t)
	bad := obs[0]
	bad.U = []string{"k", "u:rel"} // a placeholder with a parameter's name
	if _, err := interp.NewObserved(sys, []interp.Observable{bad}); err == nil || !strings.Contains(err.Error(), "also a parameter") {
		t.Errorf("placeholder named like a parameter: %v", err)
	}
	bad = obs[0]
	bad.NObs = 3
	if _, err := interp.NewObserved(sys, []interp.Observable{bad}); err == nil {
		t.Error("NObs beyond U: no error")
	}
	bad = obs[0]
	bad.H = symbolic.NewBuilder().Const(1)
	if _, err := interp.NewObserved(sys, []interp.Observable{bad}); err == nil || !strings.Contains(err.Error(), "another Builder") {
		t.Errorf("foreign node: %v", err)
	}
	bad = obs[0]
	bad.U = bad.U[:1] // u:rel is then an unknown symbol
	bad.NObs = 1
	if _, err := interp.NewObserved(sys, []interp.Observable{bad}); err == nil {
		t.Error("undeclared placeholder: no error")
	}
}
