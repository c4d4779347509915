package codegen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// Algebraic variables (symbolic.ODE.Algebraic > 0) make Model a
// model.Algebraic: the method NumAlgebraic and the section ResidualT (the
// partial derivatives in t of the algebraic residuals, sys.Gt). A system
// without them generates exactly what it did before they existed.

// checkAlgebraic checks that Gt has one derivative per algebraic variable.
func (g *generator) checkAlgebraic() error {
	na := g.sys.ODE.Algebraic
	if na < 0 || na > g.nx || len(g.sys.Gt) != na {
		return fmt.Errorf("codegen: model %q has %d algebraic variables among %d states and %d derivatives in t of their equations", g.sys.ODE.Name, na, g.nx, len(g.sys.Gt))
	}
	return nil
}

// gtSection is ResidualT: dst[k] = dg_k/dt.
func (g *generator) gtSection() *section {
	na := g.sys.ODE.Algebraic
	s := g.txpSection("ResidualT", "gt", "", "ResidualT writes the partial derivatives in t of the algebraic residuals at (t, x, p) into dst (model.Algebraic).", jen.Lit(na))
	first := g.nx - na
	for k, d := range g.sys.Gt {
		s.add(d, k, fmt.Sprintf("d(g of %s)/dt%s", g.sys.ODE.States[first+k].Name, g.infix(d)))
	}
	return s
}

// algebraicDecls emits NumAlgebraic and the interface assertion.
func (g *generator) algebraicDecls() []jen.Code {
	return []jen.Code{
		jen.Var().Id("_").Qual(modelPkg, "Algebraic").Op("=").Id("Model").Values(),
		jen.Comment("NumAlgebraic returns the number of algebraic variables, the last states: their rows of F are residuals that runtime/dae keeps at 0.").Line().
			Func().Params(jen.Id("Model")).Id("NumAlgebraic").Params().Int().Block(jen.Return(jen.Lit(g.sys.ODE.Algebraic))),
	}
}
