package petab

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/pbgen/pbgen/runtime/sens"
)

// testdata/events is an SBML event in a PEtab v1 problem: x' = s (1 + y) -
// k x, and when x rises above c, y := y + a. Condition A rises through the
// event at t = ln 1.5 (x0 = 0.5, s = 2, k = 1, c = 1, a = 0.5): x = 2 -
// 1.5 e^{-t}, then 3 - 2 e^{-(t - tau)}, steady 3. Condition B is
// pre-equilibrated in "pre" (s = 1.7: through the event, to 2.55) and
// decays to 1.2 without executing the event again (its trigger stays true
// from pre-equilibration; a second execution would aim at 1.6).
func TestEventsProblem(t *testing.T) {
	p, err := Load("testdata/events/problem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	th, err := p.Theta(nil)
	if err != nil {
		t.Fatal(err)
	}
	tau := math.Log(1.5)
	after := func(t float64) float64 { return 3 - 2*math.Exp(-(t-tau)) }
	b := func(t float64) float64 { return 1.2 + 1.35*math.Exp(-t) }
	want := []float64{2 - 1.5*math.Exp(-0.2), after(1), after(2), after(4), 3, b(0), b(1), b(3)}
	for _, m := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
		r, err := p.Evaluate(th, &EvalOptions{Method: m, RTol: 1e-10, ATol: 1e-12, Grad: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if math.Abs(r.Sim[i]-w) > 1e-7 {
				t.Errorf("%v: row %d: simulated %.10g, want %.10g", m, i, r.Sim[i], w)
			}
		}
	}
	checkGradients(t, "testdata/events", p)
}

// testdata/switch: x' = piecewise(1, t < T, 0) + piecewise(0, t < 1.5, r),
// T estimated. By default (not LoadOptions.KeepTimeRelations) the switch at T becomes a
// state and two events (switches.go), the fixed one at 1.5 stays in the rate; x = t until T =
// 2.5, plus r (t - 1.5) after 1.5, so dx/dT = 1 after T, which only the
// events give (the rate's pieces do not depend on T).
func TestTimeSwitches(t *testing.T) {
	if p, err := LoadWith("testdata/switch/problem.yaml", &LoadOptions{KeepTimeRelations: true}); err != nil || p.Model.NumEvents() != 0 {
		t.Fatalf("with LoadOptions.KeepTimeRelations: %v, %d events, want none", err, p.Model.NumEvents())
	}
	p, err := Load("testdata/switch/problem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if n, ne := len(p.Model.StateNames()), p.Model.NumEvents(); n != 2 || ne != 2 {
		t.Fatalf("%d states and %d events (%v), want x and one switch with two events", n, ne, p.Model.StateNames())
	}
	th, err := p.Theta(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 2.25, 3.25, 3.75}
	for _, m := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
		r, err := p.Evaluate(th, &EvalOptions{Method: m, RTol: 1e-10, ATol: 1e-12, Grad: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if math.Abs(r.Sim[i]-w) > 1e-7 {
				t.Errorf("%v: row %d: simulated %.10g, want %.10g", m, i, r.Sim[i], w)
			}
		}
		// dllh/dT = sum over t > T of r_i/sigma (dx/dT = 1 there).
		g := 0.0
		for i, y := range []float64{1.1, 2.2, 3.4, 3.9} {
			if i >= 2 {
				g += (y - r.Sim[i]) / (0.2 * 0.2)
			}
		}
		if math.Abs(r.Grad[0]-g) > 1e-5*(1+math.Abs(g)) {
			t.Errorf("%v: dllh/dT = %.10g, want %.10g", m, r.Grad[0], g)
		}
	}
	checkGradients(t, "testdata/switch", p)
}

// Oliveira_NatCommun2021 with its switches as events (the default): its t_1 (the
// switching time of beta = piecewise(beta_0, t < t_1, ...)) passes the
// gradient check, which it fails without (knownGradFailures).
func TestTimeSwitchesOliveira(t *testing.T) {
	y := filepath.Join(sharedDir(t, "petab-benchmark"), "Oliveira_NatCommun2021", "Oliveira_NatCommun2021.yaml")
	p, err := Load(y)
	if err != nil {
		t.Skip(err)
	}
	if p.Model.NumEvents() != 4 {
		t.Fatalf("%d events, want 4 (t_1 and t_2, on and off)", p.Model.NumEvents())
	}
	checkGradients(t, "Oliveira_NatCommun2021 (switches)", p)
}

// testdata/floor: x' = k floor(t/T), the floor lowered to a state held
// between events at the integers of t/T. x = k (T m(m-1)/2 + m (t - m T)),
// m = floor(t/T), so dx/dT = -k m(m+1)/2 (-1 at t = 2, -3 at t = 3, -6 at
// t = 4 for T = 1.3): the gradient in T is the sum of the residuals
// times these, which the derivative of floor alone (0) misses; FS, PBSR
// and Exp, and the finite-difference check.
func TestFloorGradient(t *testing.T) {
	p, err := Load("testdata/floor/problem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	th, err := p.Theta(nil)
	if err != nil {
		t.Fatal(err)
	}
	T, k := 1.3, 1.0
	ts, ys := []float64{1, 2, 3, 4}, []float64{0.1, 0.6, 2.3, 4.5}
	for _, m := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
		r, err := p.Evaluate(th, &EvalOptions{Method: m, RTol: 1e-10, ATol: 1e-12, Grad: true})
		if err != nil {
			t.Fatal(err)
		}
		gT, gk := 0.0, 0.0
		for i, tt := range ts {
			n := math.Floor(tt / T)
			x := k * (T*n*(n-1)/2 + n*(tt-n*T))
			if math.Abs(r.Sim[i]-x) > 1e-7 {
				t.Errorf("%v: row %d: simulated %.10g, want %.10g", m, i, r.Sim[i], x)
			}
			res := (ys[i] - x) / (0.2 * 0.2)
			gT += res * (-k * n * (n + 1) / 2)
			gk += res * x / k
		}
		if math.Abs(r.Grad[0]-gT) > 1e-6*(1+math.Abs(gT)) || math.Abs(r.Grad[1]-gk) > 1e-6*(1+math.Abs(gk)) {
			t.Errorf("%v: dllh/dT, dllh/dk = %.10g, %.10g, want %.10g, %.10g", m, r.Grad[0], r.Grad[1], gT, gk)
		}
	}
	checkGradients(t, "testdata/floor", p)
}
