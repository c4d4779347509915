package symbolic

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// massAction is A + B <-> C (k1, k2), C -> D (Michaelis-Menten, k3, Km),
// with A(0) = A0, B(0) = 2*A0, C(0) = D(0) = 0.
func massAction(b *Builder) *ODE {
	kind := func(s string) SymKind {
		if strings.ContainsAny(s[:1], "ABCD") && len(s) == 1 {
			return KindState
		}
		return KindParam
	}
	e := func(s string) *Node {
		n, err := b.ParseInfix(s, kind)
		if err != nil {
			panic(err)
		}
		return n
	}
	return &ODE{
		B:    b,
		Name: "massaction",
		States: []State{
			{Name: "A", Rate: e("-k1*A*B + k2*C"), Init: e("A0")},
			{Name: "B", Rate: e("-k1*A*B + k2*C"), Init: e("2*A0")},
			{Name: "C", Rate: e("k1*A*B - k2*C - k3*C/(Km + C)"), Init: e("0")},
			{Name: "D", Rate: e("k3*C/(Km + C)"), Init: e("0")},
		},
		Params: []Param{{Name: "k1", Value: 1}, {Name: "k2", Value: 0.5}, {Name: "k3", Value: 2}, {Name: "Km", Value: 3}, {Name: "A0", Value: 1}},
	}
}

func pattern(es []Entry) string {
	var sb strings.Builder
	for _, e := range es {
		fmt.Fprintf(&sb, "(%d,%d)", e.Row, e.Col)
	}
	return sb.String()
}

func TestBuildMassAction(t *testing.T) {
	ode := massAction(NewBuilder())
	sys, err := Build(ode)
	if err != nil {
		t.Fatal(err)
	}
	// Structural patterns, derived by hand from the reactions.
	wantJx := "(0,0)(0,1)(0,2)(1,0)(1,1)(1,2)(2,0)(2,1)(2,2)(3,2)"
	wantJp := "(0,0)(0,1)(1,0)(1,1)(2,0)(2,1)(2,2)(2,3)(3,2)(3,3)"
	wantX0p := "(0,4)(1,4)"
	if got := pattern(sys.Jx); got != wantJx {
		t.Errorf("Jx pattern %s, want %s", got, wantJx)
	}
	if got := pattern(sys.Jp); got != wantJp {
		t.Errorf("Jp pattern %s, want %s", got, wantJp)
	}
	if got := pattern(sys.X0p); got != wantX0p {
		t.Errorf("X0p pattern %s, want %s", got, wantX0p)
	}
	checkJacobians(t, ode, sys, 10)
}

// TestBuildWide checks a system whose enzyme row is a wide sum (the
// inverted index of Diff) against finite differences.
func TestBuildWide(t *testing.T) {
	ode := chainODE(20)
	sys, err := Build(ode)
	if err != nil {
		t.Fatal(err)
	}
	// dE/dt involves every binding step (E, X_i, C_i) and every catalytic
	// step (C_i, X_i+1): its row depends on all 2n+2 states.
	row0 := 0
	for _, e := range sys.Jx {
		if e.Row == 0 {
			row0++
		}
	}
	if row0 != len(ode.States) {
		t.Errorf("row of E has %d entries, want %d", row0, len(ode.States))
	}
	checkJacobians(t, ode, sys, 2)
}

// checkJacobians compares Jx, Jp and X0p with central finite differences
// of F and X0 at random points.
func checkJacobians(t *testing.T, ode *ODE, sys *System, points int) {
	t.Helper()
	states, params := ode.StateNames(), ode.ParamNames()
	nx, np := len(states), len(params)
	fc, err := Compile(sys.F, states, params)
	if err != nil {
		t.Fatal(err)
	}
	x0c, err := Compile(sys.X0, states, params)
	if err != nil {
		t.Fatal(err)
	}
	jc, err := Compile(append(append(Exprs(sys.Jx), Exprs(sys.Jp)...), Exprs(sys.X0p)...), states, params)
	if err != nil {
		t.Fatal(err)
	}
	scratch := make([]float64, max(fc.ScratchLen(), jc.ScratchLen(), x0c.ScratchLen()))
	rng := rand.New(rand.NewPCG(1, 1))
	for k := 0; k < points; k++ {
		x, p := make([]float64, nx), make([]float64, np)
		for i := range x {
			x[i] = 0.1 + 2*rng.Float64()
		}
		for j := range p {
			p[j] = 0.1 + 2*rng.Float64()
		}
		tt := rng.Float64()
		vals := make([]float64, jc.NumRoots())
		jc.EvalTo(vals, scratch, tt, x, p)
		dense := func(es []Entry, off, cols int) [][]float64 {
			m := make([][]float64, nx)
			for i := range m {
				m[i] = make([]float64, cols)
			}
			for n, e := range es {
				m[e.Row][e.Col] = vals[off+n]
			}
			return m
		}
		jx := dense(sys.Jx, 0, nx)
		jp := dense(sys.Jp, len(sys.Jx), np)
		x0p := dense(sys.X0p, len(sys.Jx)+len(sys.Jp), np)
		f := make([]float64, nx)
		fAt := func(c *Compiled, xx, pp []float64, i int) float64 {
			c.EvalTo(f, scratch, tt, xx, pp)
			return f[i]
		}
		for i := 0; i < nx; i++ {
			for j := 0; j < nx; j++ {
				want := centralDiff(func(v float64) float64 {
					xx := append([]float64(nil), x...)
					xx[j] = v
					return fAt(fc, xx, p, i)
				}, x[j])
				if !close(jx[i][j], want, 1e-8) {
					t.Errorf("Jx[%d][%d] = %v, finite differences %v", i, j, jx[i][j], want)
				}
			}
			for j := 0; j < np; j++ {
				pv := func(c *Compiled) float64 {
					return centralDiff(func(v float64) float64 {
						pp := append([]float64(nil), p...)
						pp[j] = v
						return fAt(c, x, pp, i)
					}, p[j])
				}
				if want := pv(fc); !close(jp[i][j], want, 1e-8) {
					t.Errorf("Jp[%d][%d] = %v, finite differences %v", i, j, jp[i][j], want)
				}
				if want := pv(x0c); !close(x0p[i][j], want, 1e-8) {
					t.Errorf("X0p[%d][%d] = %v, finite differences %v", i, j, x0p[i][j], want)
				}
			}
		}
	}
}

// TestBuildSparsity checks on random systems that the Jacobians are sorted,
// free of constant-zero entries, and complete: every structurally non-zero
// derivative (one that Diff does not reduce to 0) is present.
func TestBuildSparsity(t *testing.T) {
	g := newGen(13)
	for k := 0; k < 30; k++ {
		b := NewBuilder()
		toState := map[*Node]*Node{b.Sym("x", KindParam): b.Sym("x", KindState), b.Sym("y", KindParam): b.Sym("y", KindState)}
		ode := &ODE{B: b, Params: []Param{{Name: "z"}}}
		for _, name := range []string{"x", "y"} {
			ode.States = append(ode.States, State{Name: name, Rate: b.Substitute(g.tree(4).build(b), toState), Init: b.Sym("z", KindParam)})
		}
		sys, err := Build(ode)
		if err != nil {
			if strings.Contains(err.Error(), "factorial") {
				continue
			}
			t.Fatal(err)
		}
		for _, m := range [][]Entry{sys.Jx, sys.Jp, sys.X0p} {
			for n, e := range m {
				if e.Expr.IsConst(0) {
					t.Errorf("structural zero at (%d,%d)", e.Row, e.Col)
				}
				if n > 0 && (m[n-1].Row > e.Row || m[n-1].Row == e.Row && m[n-1].Col >= e.Col) {
					t.Errorf("entries not sorted: %s", pattern(m))
				}
			}
		}
		count := 0
		for _, s := range ode.States {
			for _, v := range []*Node{b.Sym("x", KindState), b.Sym("y", KindState)} {
				d, err := b.Diff(s.Rate, v)
				if err != nil {
					t.Fatal(err)
				}
				if !d.IsConst(0) {
					count++
				}
			}
		}
		if count != len(sys.Jx) {
			t.Errorf("Jx has %d entries, %d derivatives are non-zero", len(sys.Jx), count)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(o *ODE)
		msg    string
	}{
		{"no builder", func(o *ODE) { o.B = nil }, "no Builder"},
		{"empty state name", func(o *ODE) { o.States[1].Name = "" }, "state with an empty name"},
		{"duplicate state", func(o *ODE) { o.States[1].Name = "A" }, `state "A" has the name of a state`},
		{"param named like a state", func(o *ODE) { o.Params[0].Name = "C" }, `parameter "C" has the name of a state`},
		{"duplicate output", func(o *ODE) {
			o.Outputs = []Output{{Name: "k2", Expr: o.B.Const(1)}, {Name: "k2", Expr: o.B.Const(2)}}
		}, `output "k2" is defined twice`},
		{"nil rate", func(o *ODE) { o.States[2].Rate = nil }, `rate of "C" is nil`},
		{"nil init", func(o *ODE) { o.States[0].Init = nil }, `initial value of "A" is nil`},
		{"nil output", func(o *ODE) { o.Outputs = []Output{{Name: "o"}} }, `expression of "o" is nil`},
		{"foreign node", func(o *ODE) { o.States[0].Rate = NewBuilder().Const(1) }, "another Builder"},
		{"other symbol", func(o *ODE) { o.States[0].Rate = o.B.Sym("V", KindOther) }, `uses other "V"`},
		{"undeclared state", func(o *ODE) { o.States[0].Rate = o.B.Sym("E", KindState) }, `uses state "E"`},
		{"undeclared param", func(o *ODE) { o.States[3].Rate = o.B.Sym("k9", KindParam) }, `rate of "D" uses parameter "k9"`},
		{"init uses a state", func(o *ODE) { o.States[0].Init = o.B.Sym("B", KindState) }, `initial value of "A" uses state "B"`},
		{"init uses time", func(o *ODE) { o.States[0].Init = o.B.Time() }, `initial value of "A" uses time "t"`},
		{"output uses other", func(o *ODE) {
			o.Outputs = []Output{{Name: "o", Expr: o.B.Sym("V", KindOther)}}
		}, `expression of "o" uses other "V"`},
		{"factorial", func(o *ODE) {
			o.States[0].Rate = o.B.Func(OpFactorial, o.B.Sym("A", KindState))
		}, "factorial"},
		{"too deep", func(o *ODE) {
			n := o.B.Sym("A", KindState)
			for i := 0; i < MaxDepth; i++ {
				n = o.B.Func(OpExp, n)
			}
			o.States[0].Rate = n
		}, "deeper than MaxDepth"},
	}
	for _, c := range cases {
		o := massAction(NewBuilder())
		c.mutate(o)
		_, err := Build(o)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.msg)
		}
	}
	o := massAction(NewBuilder())
	o.States[0].Rate = o.B.Mul(o.States[0].Rate, o.B.Time()) // time is allowed in rates
	o.Outputs = []Output{{Name: "total", Expr: o.B.Add(o.B.Sym("A", KindState), o.B.Sym("C", KindState))}}
	if _, err := Build(o); err != nil {
		t.Errorf("valid ODE: %v", err)
	}
}
