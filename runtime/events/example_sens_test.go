package events_test

import (
	"fmt"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/sens"
	"github.com/pbgen/pbgen/symbolic"
)

// x' = -k x from x = 1, reset to a when x falls below c: the
// sensitivities after the reset are dx/dk = -t x, dx/da = x/a and
// dx/dc = -x/c (the reset time -ln(c)/k moves with k and c).
func ExampleSolveSens() {
	b := symbolic.NewBuilder()
	x, k := b.Sym("x", symbolic.KindState), b.Sym("k", symbolic.KindParam)
	a, c := b.Sym("a", symbolic.KindParam), b.Sym("c", symbolic.KindParam)
	sys, err := symbolic.Build(&symbolic.ODE{
		B: b, Name: "reset",
		States: []symbolic.State{{Name: "x", Rate: b.Neg(b.Mul(k, x)), Init: b.Const(1)}},
		Params: []symbolic.Param{{Name: "k", Value: 1}, {Name: "a", Value: 0.9}, {Name: "c", Value: 0.5}},
		Events: []symbolic.Event{{
			Name: "reset", Trigger: b.Rel(symbolic.OpLt, x, c), InitialValue: true, Persistent: true,
			Assign: []symbolic.EventAssign{{State: 0, Value: a}},
		}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := interp.NewWithEvents(sys)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := []float64{1, 0.9, 0.5}
	r, err := events.SolveSens(m, p, nil, nil, []float64{0, 1}, &events.SensSettings{
		Sens: &sens.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("x(1) = %.6f\n", r.XAt(1)[0])
	for j, name := range m.ParamNames() {
		fmt.Printf("dx(1)/d%s = %.6f\n", name, r.SAt(1)[j])
	}
	// Output:
	// x(1) = 0.662183
	// dx(1)/dk = -0.662183
	// dx(1)/da = 0.735759
	// dx(1)/dc = -1.324366
}
