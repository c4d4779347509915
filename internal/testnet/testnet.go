// Package testnet builds small symbolic.Systems for the tests and examples
// of interp and codegen: a hand-made network exercising every emission path
// (mangled names, products with divisions, general and integer powers,
// piecewise, logical conditions, time dependence, parameter-dependent
// initial values, outputs) and seeded random mass-action networks.
//
// The Jacobians are derived by symbolic.Build; the tests of interp check
// them against finite differences.
package testnet

import (
	"fmt"
	"math/rand/v2"

	"github.com/pbgen/pbgen/symbolic"
)

// Toy returns the hand-made network used by the golden files:
//
//	A + B-P -> C      v1 = k1*A*B-P/V
//	C -> A + B-P      v2 = k2*C
//	C -> type         v3 = Vmax*C^n/(Km^n + C^n)
//	type -> A         v4 = piecewise(len*type if t > 5 and A < 2, else len*type/2)
//	type ->           v5 = 0.01*type^2 - 0.001*|sin(t)| + k2*sqrt(A)*type/(V*len)
//
// Its state and parameter ids include a Go keyword ("type"), a predeclared
// name ("len") and a character that is not valid in identifiers ("B-P").
func Toy() *symbolic.System {
	b := symbolic.NewBuilder()
	st := func(n string) *symbolic.Node { return b.Sym(n, symbolic.KindState) }
	pa := func(n string) *symbolic.Node { return b.Sym(n, symbolic.KindParam) }
	c := b.Const
	A, B, C, T := st("A"), st("B-P"), st("C"), st("type")
	k1, k2, ln, km, vmax, n, v := pa("k1"), pa("k2"), pa("len"), pa("Km"), pa("Vmax"), pa("n"), pa("V")
	t := b.Time()
	v1 := b.Div(b.Mul(k1, A, B), v)
	v2 := b.Mul(k2, C)
	cn := b.Pow(C, n)
	v3 := b.Div(b.Mul(vmax, cn), b.Add(b.Pow(km, n), cn))
	cond := b.Logic(symbolic.OpAnd, b.Rel(symbolic.OpGt, t, c(5)), b.Rel(symbolic.OpLt, A, c(2)))
	v4 := b.Piecewise(b.Mul(ln, T), cond, b.Mul(c(0.5), ln, T))
	v5 := b.Add(b.Mul(c(0.01), b.Pow(T, c(2))),
		b.Mul(c(-0.001), b.Func(symbolic.OpAbs, b.Func(symbolic.OpSin, t))),
		b.Div(b.Mul(k2, b.Pow(A, c(0.5)), T), b.Mul(v, ln)))
	ode := &symbolic.ODE{
		B:    b,
		Name: "toy",
		States: []symbolic.State{
			{Name: "A", Rate: b.Add(b.Neg(v1), v2, v4), Init: b.Mul(c(10), v)},
			{Name: "B-P", Rate: b.Sub(v2, v1), Init: c(3)},
			{Name: "C", Rate: b.Add(v1, b.Neg(v2), b.Neg(v3)), Init: c(0.5)},
			{Name: "type", Rate: b.Add(v3, b.Neg(v4), b.Neg(v5)), Init: b.Pow(k1, c(2))},
		},
		Params: []symbolic.Param{
			{Name: "k1", Value: 0.3}, {Name: "k2", Value: 0.1}, {Name: "len", Value: 0.05},
			{Name: "Km", Value: 2}, {Name: "Vmax", Value: 1.2}, {Name: "n", Value: 2.5}, {Name: "V", Value: 1.5},
		},
		Outputs: []symbolic.Output{{Name: "total", Expr: b.Add(A, C, T)}},
	}
	return build(ode)
}

// Random returns a mass-action network with nx states, np rate constants
// and about 2*nx reactions of the forms X -> Y, X + Y -> Z and X -> (decay),
// each with a rate constant drawn from the np parameters; the initial values
// are constants except for state 0, whose initial value is the last
// parameter.
func Random(rng *rand.Rand, nx, np int) *symbolic.System {
	b := symbolic.NewBuilder()
	xs := make([]*symbolic.Node, nx)
	ps := make([]*symbolic.Node, np)
	ode := &symbolic.ODE{B: b, Name: fmt.Sprintf("random%dx%d", nx, np)}
	rates := make([][]*symbolic.Node, nx)
	for i := range xs {
		xs[i] = b.Sym(fmt.Sprintf("X%d", i), symbolic.KindState)
	}
	for j := range ps {
		name := fmt.Sprintf("k%d", j)
		ps[j] = b.Sym(name, symbolic.KindParam)
		ode.Params = append(ode.Params, symbolic.Param{Name: name, Value: 0.1 + rng.Float64()})
	}
	for r := 0; r < 2*nx; r++ {
		k := ps[rng.IntN(np)]
		a, bb, z := rng.IntN(nx), rng.IntN(nx), rng.IntN(nx)
		switch rng.IntN(3) {
		case 0: // a -> z
			v := b.Mul(k, xs[a])
			rates[a] = append(rates[a], b.Neg(v))
			rates[z] = append(rates[z], v)
		case 1: // a + bb -> z
			v := b.Mul(k, xs[a], xs[bb])
			rates[a] = append(rates[a], b.Neg(v))
			rates[bb] = append(rates[bb], b.Neg(v))
			rates[z] = append(rates[z], v)
		default: // a -> (decay), Michaelis-Menten
			v := b.Div(b.Mul(k, xs[a]), b.Add(b.Const(1), xs[a]))
			rates[a] = append(rates[a], b.Neg(v))
		}
	}
	for i := range xs {
		init := b.Const(0.5 + rng.Float64())
		if i == 0 {
			init = ps[np-1]
		}
		ode.States = append(ode.States, symbolic.State{Name: fmt.Sprintf("X%d", i), Rate: b.Add(rates[i]...), Init: init})
	}
	return build(ode)
}

// build derives the System with symbolic.Build; the networks here are
// fixed and valid, so an error is a bug in symbolic and panics.
func build(ode *symbolic.ODE) *symbolic.System {
	sys, err := symbolic.Build(ode)
	if err != nil {
		panic("testnet: " + err.Error())
	}
	return sys
}
