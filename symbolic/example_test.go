package symbolic_test

import (
	"fmt"

	"github.com/pbgen/pbgen/symbolic"
)

// ExampleBuild derives the sparse Jacobians of the reversible reaction
// A + B <-> C with mass-action kinetics, then evaluates f with a Compiled
// program.
func ExampleBuild() {
	b := symbolic.NewBuilder()
	kind := func(name string) symbolic.SymKind {
		switch name {
		case "A", "B", "C":
			return symbolic.KindState
		}
		return symbolic.KindParam
	}
	expr := func(s string) *symbolic.Node {
		n, err := b.ParseInfix(s, kind)
		if err != nil {
			panic(err)
		}
		return n
	}
	ode := &symbolic.ODE{
		B:    b,
		Name: "binding",
		States: []symbolic.State{
			{Name: "A", Rate: expr("-kf*A*B + kr*C"), Init: expr("A0")},
			{Name: "B", Rate: expr("-kf*A*B + kr*C"), Init: expr("1")},
			{Name: "C", Rate: expr("kf*A*B - kr*C"), Init: expr("0")},
		},
		Params: []symbolic.Param{{Name: "kf", Value: 2}, {Name: "kr", Value: 0.5}, {Name: "A0", Value: 1}},
	}
	sys, err := symbolic.Build(ode)
	if err != nil {
		panic(err)
	}
	for _, e := range sys.Jx {
		fmt.Printf("Jx[%d,%d] = %s\n", e.Row, e.Col, e.Expr)
	}
	for _, e := range sys.Jp {
		fmt.Printf("Jp[%d,%d] = %s\n", e.Row, e.Col, e.Expr)
	}
	for _, e := range sys.X0p {
		fmt.Printf("X0p[%d,%d] = %s\n", e.Row, e.Col, e.Expr)
	}

	f, err := symbolic.Compile(sys.F, ode.StateNames(), ode.ParamNames())
	if err != nil {
		panic(err)
	}
	dst := make([]float64, f.NumRoots())
	f.EvalTo(dst, make([]float64, f.ScratchLen()), 0, []float64{1, 1, 0}, []float64{2, 0.5, 1})
	fmt.Println("f(x0) =", dst)
	// Output:
	// Jx[0,0] = -B*kf
	// Jx[0,1] = -A*kf
	// Jx[0,2] = kr
	// Jx[1,0] = -B*kf
	// Jx[1,1] = -A*kf
	// Jx[1,2] = kr
	// Jx[2,0] = B*kf
	// Jx[2,1] = A*kf
	// Jx[2,2] = -kr
	// Jp[0,0] = -A*B
	// Jp[0,1] = C
	// Jp[1,0] = -A*B
	// Jp[1,1] = C
	// Jp[2,0] = A*B
	// Jp[2,1] = -C
	// X0p[0,2] = 1
	// f(x0) = [-2 -2 2]
}
