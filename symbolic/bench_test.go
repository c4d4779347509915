package symbolic

import (
	"fmt"
	"testing"
)

// chainODE is a chain of n Michaelis-Menten conversions X_i -> X_i+1
// catalysed by E, with mass-action binding X_i + E <-> C_i: 2n+1 states,
// 3n+1 parameters.
func chainODE(n int) *ODE {
	b := NewBuilder()
	st := func(s string, i int) *Node { return b.Sym(fmt.Sprint(s, i), KindState) }
	pr := func(s string, i int) *Node { return b.Sym(fmt.Sprint(s, i), KindParam) }
	E := b.Sym("E", KindState)
	rates := make(map[string][]*Node)
	add := func(name string, r *Node) { rates[name] = append(rates[name], r) }
	ode := &ODE{B: b, Name: fmt.Sprint("chain", n)}
	for i := 0; i < n; i++ {
		bind := b.Sub(b.Mul(pr("kon", i), st("X", i), E), b.Mul(pr("koff", i), st("C", i)))
		cat := b.Div(b.Mul(pr("kcat", i), st("C", i)), b.Add(b.Const(1), b.Mul(b.Sym("Ki", KindParam), st("X", i+1))))
		add(fmt.Sprint("X", i), b.Neg(bind))
		add("E", b.Neg(bind))
		add(fmt.Sprint("C", i), bind)
		add(fmt.Sprint("C", i), b.Neg(cat))
		add("E", cat)
		add(fmt.Sprint("X", i+1), cat)
		ode.Params = append(ode.Params, Param{Name: fmt.Sprint("kon", i), Value: 1}, Param{Name: fmt.Sprint("koff", i), Value: 1}, Param{Name: fmt.Sprint("kcat", i), Value: 1})
	}
	ode.Params = append(ode.Params, Param{Name: "Ki", Value: 0.1})
	names := []string{"E"}
	for i := 0; i < n; i++ {
		names = append(names, fmt.Sprint("X", i), fmt.Sprint("C", i))
	}
	names = append(names, fmt.Sprint("X", n))
	for _, s := range names {
		ode.States = append(ode.States, State{Name: s, Rate: b.Add(rates[s]...), Init: b.Const(1)})
	}
	return ode
}

func BenchmarkBuildChain100(b *testing.B)  { benchBuild(b, 100) }
func BenchmarkBuildChain1000(b *testing.B) { benchBuild(b, 1000) }

func benchBuild(b *testing.B, n int) {
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		ode := chainODE(n)
		b.StartTimer()
		if _, err := Build(ode); err != nil {
			b.Fatal(err)
		}
	}
}

var sink float64

func BenchmarkEvalToChain100Jx(b *testing.B) {
	ode := chainODE(100)
	sys, err := Build(ode)
	if err != nil {
		b.Fatal(err)
	}
	c, err := Compile(Exprs(sys.Jx), ode.StateNames(), ode.ParamNames())
	if err != nil {
		b.Fatal(err)
	}
	dst, scratch := make([]float64, c.NumRoots()), make([]float64, c.ScratchLen())
	x, p := make([]float64, len(ode.States)), make([]float64, len(ode.Params))
	for i := range x {
		x[i] = 1
	}
	for i := range p {
		p[i] = 0.5
	}
	b.ReportAllocs()
	b.ReportMetric(float64(len(sys.Jx)), "nnz")
	for b.Loop() {
		c.EvalTo(dst, scratch, 0, x, p)
	}
	sink = dst[0]
}
