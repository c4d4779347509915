package interp_test

import (
	"fmt"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/symbolic"
)

// Example builds dx/dt = -k*x, x(0) = x0, compiles it and evaluates f, the
// Jacobians and the initial state.
func Example() {
	b := symbolic.NewBuilder()
	x := b.Sym("x", symbolic.KindState)
	k := b.Sym("k", symbolic.KindParam)
	x0 := b.Sym("x0", symbolic.KindParam)
	ode := &symbolic.ODE{
		B:      b,
		Name:   "decay",
		States: []symbolic.State{{Name: "x", Rate: b.Neg(b.Mul(k, x)), Init: x0}},
		Params: []symbolic.Param{{Name: "k", Value: 0.5}, {Name: "x0", Value: 2}},
	}
	sys, err := symbolic.Build(ode) // derives Jx, Jp and dx0/dp
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := interp.New(sys)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := make([]float64, 2)
	m.DefaultParams(p)
	xs := make([]float64, 1)
	m.InitialState(xs, p)
	f, jx, jp := make([]float64, 1), make([]float64, 1), make([]float64, 1)
	m.F(f, 0, xs, p)
	m.Jx(jx, 0, xs, p)
	m.Jp(jp, 0, xs, p)
	fmt.Println(m.StateNames(), m.ParamNames(), p)
	fmt.Println("x0 =", xs[0], "f =", f[0], "Jx =", jx[0], "Jp =", jp[0])
	// Output:
	// [x] [k x0] [0.5 2]
	// x0 = 2 f = -1 Jx = -0.5 Jp = -2
}
