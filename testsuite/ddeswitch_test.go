package testsuite

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/dde"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// ddeSwitchModel lowers testdata/delayswitch/file into an interpreted
// model with its events and switches, and its default p and x0.
func ddeSwitchModel(t *testing.T, file string) (model.Model, []float64, []float64) {
	t.Helper()
	return interpModel(t, filepath.Join("..", "testdata", "delayswitch", file))
}

// stepInputExact is stepinput.xml's x' = -x(t - 1) + u [t >= T] (x = 1
// before and at 0, 0 < T < 1) by the method of steps on [0, 2], with S
// in p = (T, u):
//
//	[0, 1]: x = 1 - t + u (t - T)+,
//	[1, 2]: x = u (1 - T) - (t - 1) + (t - 1)^2/2 - u ((t - 1 - T)+)^2/2 + u (t - 1).
//
// S_T jumps by -u at T, where f jumps by u at a time that moves with T.
func stepInputExact(t float64, p []float64) (x float64, s [2]float64) {
	T, u := p[0], p[1]
	pos := func(v float64) float64 { return math.Max(v, 0) }
	if t <= 1 {
		h := 0.0
		if t > T {
			h = 1
		}
		return 1 - t + u*pos(t-T), [2]float64{-u * h, pos(t - T)}
	}
	r := t - 1
	x = u*(1-T) - r + r*r/2 - u*pos(r-T)*pos(r-T)/2 + u*r
	return x, [2]float64{-u + u*pos(r-T), (1 - T) - pos(r-T)*pos(r-T)/2 + r}
}

// stateSwitchExact is stateswitch.xml's x' = -k x(t - tau) + b [x < c]
// (x = 1 before and at 0) by the method of steps on [0, 2 tau], for p =
// (k, tau, b, c) near the defaults (1, 1, 0.5, 0.6), where x falls
// through c at t1 = (1 - c)/k < tau and stays below it (b < k):
//
//	[0, t1]:          x = 1 - k t,
//	[t1, tau]:        x = c + (b - k)(t - t1),
//	[tau, tau + t1]:  x = x(tau) + (b - k) r + k^2 r^2/2,          r = t - tau,
//	[tau + t1, 2 tau]: x = x(tau + t1) + (b - k c) r - k (b - k) r^2/2, r = t - tau - t1.
func stateSwitchExact(t float64, p []float64) float64 {
	k, tau, b, c := p[0], p[1], p[2], p[3]
	t1 := (1 - c) / k
	xB := func(t float64) float64 { return c + (b-k)*(t-t1) }
	xC := func(t float64) float64 { r := t - tau; return xB(tau) + (b-k)*r + k*k*r*r/2 }
	switch {
	case t <= t1:
		return 1 - k*t
	case t <= tau:
		return xB(t)
	case t <= tau+t1:
		return xC(t)
	}
	r := t - tau - t1
	return xC(tau+t1) + (b-k*c)*r - k*(b-k)*r*r/2
}

// stateSwitchSens is dx/dp of stateSwitchExact by fourth-order central
// differences of the closed form (smooth in p away from the kinks t1,
// tau, tau + t1): with h = 1e-3 truncation about 1e-12 and rounding about
// 1e-13.
func stateSwitchSens(t float64, p []float64) []float64 {
	s := make([]float64, len(p))
	q := make([]float64, len(p))
	for j := range p {
		h := 1e-3
		at := func(d float64) float64 {
			copy(q, p)
			q[j] += d
			return stateSwitchExact(t, q)
		}
		s[j] = (-at(2*h) + 8*at(h) - 8*at(-h) + at(-2*h)) / (12 * h)
	}
	return s
}

// delayedSwitchExact is delayedswitch.xml's x' = -x(t - 1) + u [x(t - 1)
// < c] (x = 1 before and at 0, 0 < c < 1) by the method of steps on
// [0, 2], with S in p = (c, u): the delayed value 1 - (t - 1) crosses c
// at ts = 2 - c, where S_c jumps by u (dts/dc = -1, f jumps by u),
//
//	[0, 1]: x = 1 - t,
//	[1, 2]: x = -2 (t - 1) + (t^2 - 1)/2 + u (t - ts)+.
func delayedSwitchExact(t float64, p []float64) (x float64, s [2]float64) {
	c, u := p[0], p[1]
	if t <= 1 {
		return 1 - t, [2]float64{}
	}
	ts := 2 - c
	h, pos := 0.0, math.Max(t-ts, 0)
	if t > ts {
		h = 1
	}
	return -2*(t-1) + (t*t-1)/2 + u*pos, [2]float64{u * h, pos}
}

// coincideExact is coincide.xml's x' = -x(t - 1) + u [t >= T] (x = 1
// before and at 0) with x := x + c at T0 (0 < T0 < 1 < T < 2), by the
// method of steps on [0, 2], with S in p = (T0, T, c, u):
//
//	[0, 1]: x = 1 - t + c [t >= T0],
//	[1, 2]: x = c - (t - 1) + (t - 1)^2/2 - c (t - 1 - T0)+ + u (t - T)+.
//
// The event's jump reaches f at T0 + 1, S_T0 jumping by c; the step
// input switches f at T, S_T jumping by -u: at the defaults both at 1.7.
func coincideExact(t float64, p []float64) (x float64, s [4]float64) {
	T0, T, c, u := p[0], p[1], p[2], p[3]
	step := func(v float64) float64 {
		if v > 0 {
			return 1
		}
		return 0
	}
	pos := func(v float64) float64 { return math.Max(v, 0) }
	if t <= 1 {
		return 1 - t + c*step(t-T0), [4]float64{0, 0, step(t - T0), 0}
	}
	r := t - 1
	x = c - r + r*r/2 - c*pos(r-T0) + u*pos(t-T)
	return x, [4]float64{c * step(r-T0), -u * step(t-T), 1 - pos(r-T0), pos(t - T)}
}

// nestedJumpExact is nestedjump.xml's x' = -x(t - a - b) (x = 1 before
// and at 0) with x := x + c at T (0 < T < L = a + b), by the method of
// steps on [0, 2L], with S in p = (a, b, T, c):
//
//	[0, L]:  x = 1 - t + c [t >= T],
//	[L, 2L]: x = 1 - L + c - (t - L) + (t - L)^2/2 - c (t - L - T)+.
//
// The jump at T reaches f at L + T through the nested delay: S in a, b
// and T jumps there by c.
func nestedJumpExact(t float64, p []float64) (x float64, s [4]float64) {
	a, b, T, c := p[0], p[1], p[2], p[3]
	L := a + b
	if t < L {
		h := 0.0
		if t >= T {
			h = 1
		}
		return 1 - t + c*h, [4]float64{0, 0, 0, h}
	}
	r := t - L
	h, pos := 0.0, math.Max(r-T, 0)
	if r > T {
		h = 1
	}
	x = 1 - L + c - r + r*r/2 - c*pos
	dL := -r + c*h
	return x, [4]float64{dL, dL, c * h, 1 - pos}
}

// ddeSwitchCases are the models of testdata/delayswitch with their
// output times (away from the switches, the jumps and the breaking
// points they move, where x is not differentiable in p) and x and S by
// the method of steps by hand (S row-major nx x np at each time).
var ddeSwitchCases = []struct {
	file string
	ts   []float64
	x    func(t float64, p []float64) float64
	s    func(t float64, p []float64) []float64
}{
	{"stepinput.xml", []float64{0, 0.2, 0.3, 0.6, 0.9, 1, 1.2, 1.3, 1.5, 1.7, 2},
		func(t float64, p []float64) float64 { x, _ := stepInputExact(t, p); return x },
		func(t float64, p []float64) []float64 { _, s := stepInputExact(t, p); return s[:] }},
	{"stateswitch.xml", []float64{0, 0.3, 0.5, 0.9, 1.2, 1.6, 1.9}, stateSwitchExact, stateSwitchSens},
	{"delayedswitch.xml", []float64{0, 0.5, 0.9, 1.2, 1.3, 1.5, 1.7, 1.9},
		func(t float64, p []float64) float64 { x, _ := delayedSwitchExact(t, p); return x },
		func(t float64, p []float64) []float64 { _, s := delayedSwitchExact(t, p); return s[:] }},
	{"coincide.xml", []float64{0, 0.2, 0.5, 0.9, 1.1, 1.5, 1.8, 1.9, 2},
		func(t float64, p []float64) float64 { x, _ := coincideExact(t, p); return x },
		func(t float64, p []float64) []float64 { _, s := coincideExact(t, p); return s[:] }},
	{"nestedjump.xml", []float64{0, 0.2, 0.6, 1, 1.3, 1.45, 1.6, 2, 2.3},
		func(t float64, p []float64) float64 { x, _ := nestedJumpExact(t, p); return x },
		func(t float64, p []float64) []float64 { _, s := nestedJumpExact(t, p); return s[:] }},
}

// ddeSwitchWant is case c's S at its output times, as dde.Result.S.
func ddeSwitchWant(c int, p []float64) []float64 {
	var want []float64
	for _, ti := range ddeSwitchCases[c].ts {
		want = append(want, ddeSwitchCases[c].s(ti, p)...)
	}
	return want
}

// TestDelaySwitchSens: dde.SolveSens, at rtol 1e-10 with BDF and DOPRI5,
// through a switch of f of a delay model and where a nested delay reads
// a jump of the state (interpreted SBML models of testdata/delayswitch),
// against the method of steps by hand (for the state switch S from the
// closed form by fourth-order central differences: those of dde.Solve
// carry the location error of its switch, 2e-9 of a column at rtol
// 1e-13):
//   - stepinput.xml: a step input at a parameter time T; without the
//     jump (f- - f+) dtau/dp at the switch S_T is off by u, a whole
//     column;
//   - stateswitch.xml: an inflow switched by the state; without the jump
//     S_c is off by a whole column;
//   - delayedswitch.xml: an inflow switched by a delayed value (the
//     root's derivative in it folded into dtau/dp); without the jump S_c
//     is off by a whole column;
//   - coincide.xml: a step input switching f where an event's jump
//     reaches it (T = T0 + 1 = 1.7): the switch is carried across a
//     bracket that holds that breaking point, and S takes both jumps,
//     each once (without evModel.fFrom S_T is off by c/u = 0.8 of its
//     column, with MovesWith taken at the switch's root by 1.25);
//   - nestedjump.xml: x' = -delay(delay(x, a), b) with x := x + c at T,
//     whose jump reaches f at T + a + b only through the nested delay;
//     without S's jump there S in a, b and T is off by c after it.
//
// The worst entry of S, relative to its column's largest, and of x must
// be within 100 rtol.
func TestDelaySwitchSens(t *testing.T) {
	const rtol = 1e-10
	for c, sc := range ddeSwitchCases {
		m, p, x0 := ddeSwitchModel(t, sc.file)
		want := ddeSwitchWant(c, p)
		for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
			r, err := dde.SolveSens(m, p, x0, nil, sc.ts, &dde.Settings{ODE: &ode.Settings{Method: meth, RTol: rtol, ATol: 1e-12}})
			if err != nil {
				t.Fatalf("%s %v: %v", sc.file, meth, err)
			}
			xerr := 0.0
			for i, ti := range sc.ts {
				xerr = math.Max(xerr, math.Abs(r.XAt(i)[0]-sc.x(ti, p)))
			}
			w, j := colWorst(r.S, want, len(p))
			t.Logf("%s %v: worst S error relative to its column's largest %.2g (column %s), x within %.2g", sc.file, meth, w, m.ParamNames()[j], xerr)
			if w > 100*rtol || xerr > 100*rtol {
				t.Errorf("%s %v: worst S error %.3g of column %s, x %.3g, want <= %g", sc.file, meth, w, m.ParamNames()[j], xerr, 100*rtol)
			}
		}
	}
	// The nested jump's time is a breaking point of the second generation,
	// there whatever Settings.MaxOrder and MaxBreaks say.
	c := len(ddeSwitchCases) - 1
	sc := ddeSwitchCases[c]
	m, p, x0 := ddeSwitchModel(t, sc.file)
	r, err := dde.SolveSens(m, p, x0, nil, sc.ts, &dde.Settings{ODE: &ode.Settings{Method: ode.DOPRI5, RTol: rtol, ATol: 1e-12}, MaxOrder: 1, MaxBreaks: 1})
	if err != nil {
		t.Fatal(err)
	}
	if w, j := colWorst(r.S, ddeSwitchWant(c, p), len(p)); w > 100*rtol {
		t.Errorf("%s MaxOrder 1, MaxBreaks 1: worst S error %.3g of column %s, want <= %g", sc.file, w, m.ParamNames()[j], 100*rtol)
	}
}

// TestDelaySwitchSensGenerated is TestDelaySwitchSens on generated
// packages of the same models (their switches and derivatives are
// codegen's), with its bound; the model.DelayEventDerivs methods
// allocate nothing.
func TestDelaySwitchSensGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a temporary module")
	}
	var files []string
	var ts [][]float64
	for _, c := range ddeSwitchCases {
		files, ts = append(files, c.file), append(ts, c.ts)
	}
	res, _, _ := runDelayGenerated(t, "delayswitch", files, ts)
	for c, sc := range ddeSwitchCases {
		m, p, _ := ddeSwitchModel(t, sc.file)
		name := strings.TrimSuffix(sc.file, ".xml")
		r := res[name]
		if r.Err != "" {
			t.Errorf("%s: %s", name, r.Err)
			continue
		}
		if r.Allocs != 0 {
			t.Errorf("%s: the model.DelayEventDerivs methods allocate %v times", name, r.Allocs)
		}
		want := ddeSwitchWant(c, p)
		for _, meth := range []string{"BDF", "DOPRI5"} {
			w, j := colWorst(r.S[meth], want, len(p))
			t.Logf("%s generated %s: worst S error relative to its column's largest %.2g (column %s)", name, meth, w, m.ParamNames()[j])
			if w > 100*1e-10 {
				t.Errorf("%s generated %s: worst S error %.3g of column %s, want <= 1e-8", name, meth, w, m.ParamNames()[j])
			}
		}
	}
}

// dde.Solve of a model without delays whose rate switches (x' = -x +
// piecewise(u, t >= T, 0)) is runtime/events': it stops at the switch,
// x = exp(-t) + u (1 - exp(-(t - T)))+ to 100 rtol at rtol 1e-10 (a plain
// integration would step over it).
func TestDelaySolveSwitchNoDelay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "step.xml")
	const net = `<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version1/core" level="3" version="1">
  <model id="step">
    <listOfParameters>
      <parameter id="T" value="0.4" constant="true"/>
      <parameter id="u" value="0.5" constant="true"/>
      <parameter id="x" value="1" constant="false"/>
    </listOfParameters>
    <listOfRules>
      <rateRule variable="x"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><plus/><apply><minus/><ci>x</ci></apply><piecewise><piece><ci>u</ci><apply><geq/><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol><ci>T</ci></apply></piece><otherwise><cn>0</cn></otherwise></piecewise></apply></math></rateRule>
    </listOfRules>
  </model>
</sbml>`
	if err := os.WriteFile(path, []byte(net), 0o644); err != nil {
		t.Fatal(err)
	}
	sys, err := Lower(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := interp.NewWithEvents(sys)
	if err != nil {
		t.Fatal(err)
	}
	ts := []float64{0, 0.3, 0.5, 1, 2}
	r, err := dde.Solve(m, []float64{0.4, 0.5}, []float64{1}, ts, &dde.Settings{ODE: &ode.Settings{RTol: 1e-10, ATol: 1e-12}})
	if err != nil {
		t.Fatal(err)
	}
	for i, ti := range ts {
		want := math.Exp(-ti) + 0.5*math.Max(0, 1-math.Exp(-(ti-0.4)))
		if e := math.Abs(r.XAt(i)[0] - want); e > 1e-8 {
			t.Errorf("x(%g) = %.12g, want %.12g", ti, r.XAt(i)[0], want)
		}
	}
}

// crossback.xml: a switch on a delayed value whose root reaches zero
// exactly where a jump of the state arrives and sends it back (d = 2 - t
// meets c = 0.5 at 1.5, then jumps to 0.8). Depending on the steps the
// touch is located or not; located, the switch cannot be carried onto its
// new side, and Solve and SolveSens refuse by name rather than carry the
// state with f- (up to 2^30 location tolerances); not located, x is the
// method of steps' (the relation holds from 1.8 on): x(1) = 0.3,
// x(1.4) = -0.02, x(1.6) = -0.15, x(2) = -0.25. S is not checked: x is
// not differentiable in p at this coincidence.
func TestDelaySwitchCrossBack(t *testing.T) {
	m, p, x0 := ddeSwitchModel(t, "crossback.xml")
	ts := []float64{0, 1, 1.4, 1.6, 2}
	want := []float64{1, 0.3, -0.02, -0.15, -0.25}
	for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
		set := &dde.Settings{ODE: &ode.Settings{Method: meth, RTol: 1e-10, ATol: 1e-12}}
		for _, withS := range []bool{false, true} {
			var r *dde.Result
			var err error
			if withS {
				r, err = dde.SolveSens(m, p, x0, nil, ts, set)
			} else {
				r, err = dde.Solve(m, p, x0, ts, set)
			}
			if err != nil {
				if !strings.Contains(err.Error(), "switch root 1 of f") || !strings.Contains(err.Error(), "crossback") {
					t.Errorf("%v (S %v): %v, want the refusal naming the model and the switch root", meth, withS, err)
				}
				t.Logf("%v (S %v): refused: %v", meth, withS, err)
				continue
			}
			for i := range ts {
				if e := math.Abs(r.XAt(i)[0] - want[i]); e > 1e-8 {
					t.Errorf("%v (S %v): x(%g) = %.12g, want %g", meth, withS, ts[i], r.XAt(i)[0], want[i])
				}
			}
			t.Logf("%v (S %v): solved, x as the method of steps'", meth, withS)
		}
	}
}
