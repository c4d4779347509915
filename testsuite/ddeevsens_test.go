package testsuite

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/dde"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// ddeEvModels are the SBML models of testdata/delayevents with their
// output times, away from the event instants and the breaking points
// they move (where x is not differentiable in p):
//   - hutchevents: x' = -k delay(x, tau), an event at t >= T assigning
//     x + a delay(x, tau), one triggered by delay(x, tau) < c (E0 at 1.1,
//     its jump reaching f at 1.9; E1 at 1.3);
//   - feedbackevents: a delayed negative feedback with a state trigger
//     (q > th, at about 1.45) and a delayed event (t >= T0, executed at
//     T0 + dl = 2.7 with a delayed value from the trigger time).
var ddeEvModels = []struct {
	file string
	ts   []float64
}{
	{"hutchevents.xml", []float64{0, 0.5, 1, 1.5, 2.2, 3, 3.8, 4.7, 5.6, 6.5}},
	{"feedbackevents.xml", []float64{0, 1, 2, 2.5, 3.3, 4, 5, 6.1, 8, 10}},
}

// ddeEvFD is dx/dp by fourth-order central differences of dde.Solve,
// (-x(p + 2h) + 8 x(p + h) - 8 x(p - h) + x(p - 2h)) / (12 h) with
// h = 1e-3 max(|p_j|, 1), each solve by DOPRI5 at rtol 1e-13 (events
// located to 1e-14): truncation about h^4, rounding of the solves about
// 1e-13/h, both below 1e-9 of a column of size 1.
func ddeEvFD(t *testing.T, m model.Model, p, ts []float64) []float64 {
	t.Helper()
	nx, np := model.NumStates(m), len(p)
	set := &dde.Settings{ODE: &ode.Settings{Method: ode.DOPRI5, RTol: 1e-13, ATol: 1e-15, MaxSteps: 1000000},
		Events: &events.Settings{TTol: 1e-14}}
	solve := func(q []float64) []float64 {
		x0 := make([]float64, nx)
		m.InitialState(x0, q)
		r, err := dde.Solve(m, q, x0, ts, set)
		if err != nil {
			t.Fatal(err)
		}
		return r.X
	}
	out := make([]float64, len(ts)*nx*np)
	for j := range p {
		h := 1e-3 * math.Max(math.Abs(p[j]), 1)
		at := func(s float64) []float64 {
			q := append([]float64(nil), p...)
			q[j] += s * h
			return solve(q)
		}
		a2, a1, b1, b2 := at(2), at(1), at(-1), at(-2)
		for e := range a1 {
			k, i := e/nx, e%nx
			out[k*nx*np+i*np+j] = (-a2[e] + 8*a1[e] - 8*b1[e] + b2[e]) / (12 * h)
		}
	}
	return out
}

// colWorst is the largest |got - want| of each column of S (laid out as
// dde.Result.S) relative to the column's largest |want|, the worst of
// them, and that column.
func colWorst(got, want []float64, np int) (float64, int) {
	w, at := 0.0, 0
	for j := 0; j < np; j++ {
		scale, e := 0.0, 0.0
		for q := j; q < len(want); q += np {
			scale = math.Max(scale, math.Abs(want[q]))
			e = math.Max(e, math.Abs(got[q]-want[q]))
		}
		if scale == 0 {
			scale = 1
		}
		if r := e / scale; r > w || math.IsNaN(r) {
			w, at = r, j
		}
	}
	return w, at
}

// TestDelayEventSens: dde.SolveSens through the events of the delay
// models of testdata/delayevents (interpreted), against fourth-order
// central differences of dde.Solve, at rtol 1e-10 with BDF and DOPRI5.
// The worst entry of S, relative to its column's largest, must be within
// 100 rtol: a missing jump of S (at an event, or where an event's jump
// reaches f a delay later) is off by the jump, a fraction of the column.
func TestDelayEventSens(t *testing.T) {
	if testing.Short() {
		t.Skip("finite differences of delay solutions")
	}
	for _, c := range ddeEvModels {
		sys, err := Lower(filepath.Join("..", "testdata", "delayevents", c.file))
		if err != nil {
			t.Fatal(err)
		}
		m, err := interp.NewWithEvents(sys)
		if err != nil {
			t.Fatal(err)
		}
		np := model.NumParams(m)
		p := make([]float64, np)
		m.DefaultParams(p)
		x0 := make([]float64, model.NumStates(m))
		m.InitialState(x0, p)
		want := ddeEvFD(t, m, p, c.ts)
		for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
			r, err := dde.SolveSens(m, p, x0, nil, c.ts, &dde.Settings{ODE: &ode.Settings{Method: meth, RTol: 1e-10, ATol: 1e-12}})
			if err != nil {
				t.Fatalf("%s %v: %v", c.file, meth, err)
			}
			if len(r.Fired) < 2 {
				t.Errorf("%s %v: fired %v, want both events", c.file, meth, r.Fired)
			}
			w, j := colWorst(r.S, want, np)
			t.Logf("%s %v: worst S error relative to its column's largest entry %.2g (column %s; events at %v)", c.file, meth, w, m.ParamNames()[j], r.Fired)
			if w > 100*1e-10 {
				t.Errorf("%s %v: worst error %.3g of column %s, want <= 1e-8", c.file, meth, w, m.ParamNames()[j])
			}
		}
	}
}
