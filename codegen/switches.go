package codegen

import (
	"github.com/dave/jennifer/jen"
)

// hasEvents reports whether the model implements model.Events: it has
// events, or switches of f (relations in the rates, model.Switches),
// which are root functions without an event. A model with neither is
// emitted as before switches existed.
func (g *generator) hasEvents() bool { return len(g.evs) > 0 || g.nsw > 0 }

// numRootsDoc is the comment of the NumRoots constant: without switches
// the text that generated code had before them, so that its output is
// unchanged.
func numRootsDoc(nsw int) string {
	if nsw == 0 {
		return "NumRoots is the number of root functions of the triggers."
	}
	return "NumRoots is the number of root functions: those of the triggers, then NumSwitches switches of the right-hand side."
}

// switchDecls emits model.Switches for a model whose rates switch:
//
//	const NumSwitches int = 2
//	var _ model.Switches = Model{}
//	func (Model) NumSwitches() int { return NumSwitches }
//
// Nothing for a model without switches.
func (g *generator) switchDecls() []jen.Code {
	if g.nsw == 0 {
		return nil
	}
	return []jen.Code{
		jen.Comment("NumSwitches is the number of switches of the right-hand side (relations in the rates): the last root functions, which belong to no event.").Line().
			Const().Id("NumSwitches").Int().Op("=").Lit(g.nsw),
		jen.Var().Id("_").Qual(modelPkg, "Switches").Op("=").Id("Model").Values(),
		doc("NumSwitches returns the number of switch root functions, the last of RootsTo (model.Switches).").
			Func().Params(jen.Id("Model")).Id("NumSwitches").Params().Int().Block(jen.Return(jen.Id("NumSwitches"))),
	}
}
