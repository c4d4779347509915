package interp_test

import (
	"fmt"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/symbolic"
)

// A decay dx/dt = -k x with an event that resets x to 1 whenever it falls
// below 1/2 (SBML: a trigger x < 0.5 and an assignment x = 1), simulated
// with runtime/events: resets at n ln 2.
func Example_events() {
	b := symbolic.NewBuilder()
	x, k := b.Sym("x", symbolic.KindState), b.Sym("k", symbolic.KindParam)
	o := &symbolic.ODE{
		B: b, Name: "reset",
		States: []symbolic.State{{Name: "x", Rate: b.Neg(b.Mul(k, x)), Init: b.Const(1)}},
		Params: []symbolic.Param{{Name: "k", Value: 1}},
		Events: []symbolic.Event{{
			Name: "reset", Trigger: b.Rel(symbolic.OpLt, x, b.Const(0.5)),
			InitialValue: true, Persistent: true,
			Assign: []symbolic.EventAssign{{State: 0, Value: b.Const(1)}},
		}},
	}
	sys, err := symbolic.Build(o)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := interp.NewWithEvents(sys)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, x0 := []float64{1}, []float64{1}
	ts := []float64{0, 1, 2}
	r, err := events.Solve(m, p, x0, ts, &events.Settings{ODE: &ode.Settings{RTol: 1e-10, ATol: 1e-12}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, t := range ts {
		fmt.Printf("x(%g) = %.6f\n", t, r.XAt(i)[0])
	}
	for _, f := range r.Fired {
		fmt.Printf("%s at t = %.6f\n", m.EventInfo(f.Event).Name, f.T)
	}
	// Output:
	// x(0) = 1.000000
	// x(1) = 0.735759
	// x(2) = 0.541341
	// reset at t = 0.693147
	// reset at t = 1.386294
}
