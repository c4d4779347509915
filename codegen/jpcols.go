package codegen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// Jp by parameter column (model.JpColumns): one function per parameter
// column with entries, jpColK(dst, t, x, p), straight-line code writing
// that column's entries at their JpPattern positions (its own shared
// subexpressions, nothing of the other columns), and a table of them that
// the runtime's model.JpColumnFuncs turns into the evaluator of a column
// set:
//
//	var jpColumns = [NumParams]model.JpFunc{ParamK1: jpCol0, ...}
//
//	func (Model) JpColumns(cols []int) model.JpFunc {
//		return model.JpColumnFuncs(jpColumns[:], NumStates, NNZJp, cols)
//	}
//
// A model with delays has none: its Jp holds the delayed values fixed
// through jpDelayed, and the model does not promise more than Jp there.

// hasJpColumns reports whether the model gets JpColumns.
func (g *generator) hasJpColumns() bool { return !g.delayed() }

func jpColName(j int) string { return fmt.Sprintf("jpCol%d", j) }

// jpColumnSections are the per-column functions, in column order, for
// the columns that have entries. The functions do not check their
// arguments: the evaluator JpColumnFuncs returns does, once per call.
func (g *generator) jpColumnSections() []*section {
	byCol := make([][]int, g.np)
	for k, e := range g.sys.Jp {
		byCol[e.Col] = append(byCol[e.Col], k)
	}
	var secs []*section
	for j, ks := range byCol {
		if len(ks) == 0 {
			continue
		}
		name := jpColName(j)
		s := &section{method: name, helper: name, file: "jac.go", function: true,
			doc:    fmt.Sprintf("%s writes the entries of Jp in the column of %s at (t, x, p) into their JpPattern positions of dst.", name, g.sys.ODE.Params[j].Name),
			params: txpParams, args: txpArgs}
		for _, k := range ks {
			e := g.sys.Jp[k]
			s.add(e.Expr, k, fmt.Sprintf("Jp[%d] = d(d%s/dt)/d(%s)%s", k, g.sys.ODE.States[e.Row].Name, g.sys.ODE.Params[j].Name, g.infix(e.Expr)))
		}
		secs = append(secs, s)
	}
	return secs
}

// jpColumnsDecls emits the table of the column functions and the
// JpColumns method.
func (g *generator) jpColumnsDecls() []jen.Code {
	has := make([]bool, g.np)
	for _, e := range g.sys.Jp {
		has[e.Col] = true
	}
	var elems []jen.Code
	for j, ok := range has {
		if ok {
			elems = append(elems, jen.Id(g.paramConst[j]).Op(":").Id(jpColName(j)))
		}
	}
	table := jen.Index(jen.Id("NumParams")).Qual(modelPkg, "JpFunc")
	if len(elems) > 0 {
		table = table.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, elems...)
	} else {
		table = table.Values()
	}
	return []jen.Code{
		doc("jpColumns holds, per parameter column, the function writing that column's entries of Jp (nil: the column has none).").
			Var().Id("jpColumns").Op("=").Add(table),
		jen.Var().Id("_").Qual(modelPkg, "JpColumns").Op("=").Id("Model").Values(),
		doc("JpColumns returns a function writing the entries of Jp in the parameter columns cols (distinct, in [0, NumParams), any order) into their JpPattern positions of dst, leaving the other entries as they are: the sensitivities of a few of the parameters need only their columns. It panics on a bad column list.").
			Func().Params(jen.Id("Model")).Id("JpColumns").Params(jen.Id("cols").Index().Int()).Qual(modelPkg, "JpFunc").Block(
			jen.Return(jen.Qual(modelPkg, "JpColumnFuncs").Call(jen.Id("jpColumns").Index(jen.Op(":")), jen.Id("NumStates"), jen.Id("NNZJp"), jen.Id("cols")))),
	}
}
