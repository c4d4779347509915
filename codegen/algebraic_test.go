package codegen

import (
	"strings"
	"testing"

	"github.com/pbgen/pbgen/symbolic"
)

// TestAlgebraic checks that a system with an algebraic variable makes
// Model a model.Algebraic (NumAlgebraic, ResidualT with the derivative in
// t of the residual) and that compiling the output is left to the
// end-to-end paths (pbgen testsuite -gen runs the suite's algebraic and
// fast-reaction cases through generated packages).
func TestAlgebraic(t *testing.T) {
	b := symbolic.NewBuilder()
	x, z := b.Sym("x", symbolic.KindState), b.Sym("z", symbolic.KindState)
	k := b.Sym("k", symbolic.KindParam)
	ode := &symbolic.ODE{B: b, Name: "dae", Algebraic: 1,
		States: []symbolic.State{
			{Name: "x", Rate: b.Neg(b.Mul(k, z)), Init: b.Const(1)},
			{Name: "z", Rate: b.Sub(z, b.Mul(x, b.Time())), Init: b.Const(0)},
		},
		Params: []symbolic.Param{{Name: "k", Value: 2}}}
	sys, err := symbolic.Build(ode)
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := string(files["model.go"])
	for _, want := range []string{"var _ model.Algebraic = Model{}", "func (Model) NumAlgebraic() int {\n\treturn 1", "func (Model) ResidualT(dst []float64, t float64, x, p []float64)"} {
		if !strings.Contains(src, want) {
			t.Errorf("generated code lacks %q", want)
		}
	}
	// dg/dt = -x.
	if !strings.Contains(src, "dst[0] = -x[StateX]") && !strings.Contains(src, "= -x") {
		t.Errorf("ResidualT does not write -x:\n%s", src[strings.Index(src, "func (Model) ResidualT"):])
	}
	ode.Algebraic = 0
	sys, err = symbolic.Build(ode)
	if err != nil {
		t.Fatal(err)
	}
	files, err = Generate(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if src := string(files["model.go"]); strings.Contains(src, "Algebraic") || strings.Contains(src, "ResidualT") {
		t.Error("a system without algebraic variables has NumAlgebraic or ResidualT")
	}
}
