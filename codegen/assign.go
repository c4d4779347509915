package codegen

import (
	"fmt"
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/pbgen/pbgen/symbolic"
)

// Assignment is one set of simultaneous state assignments
// x_i := g_i(t, x, p) of an estimation problem (model.Assigner; a PEtab v2
// experiment's condition applied at a later period's start): States[i] is
// a state's name and Values[i] its new value, an expression over the
// System's states, parameters and time, evaluated at the state before the
// assignment. It mirrors interp.Assignment field for field (the PEtab
// lowering produces those), so that the generated package and the
// interpreter compile the same expressions; codegen does not import
// interp.
type Assignment struct {
	States []string
	Values []*symbolic.Node
}

// asgSet is an assignment set checked and ordered: targets ascending (the
// contract of AssignTargets), values permuted alike, and the structurally
// non-zero derivatives.
type asgSet struct {
	targets []int
	values  []*symbolic.Node
	derivs  []asgDeriv
}

// asgDeriv is one structurally non-zero derivative of an assignment set:
// of the value of its target number row with respect to state (inP false)
// or parameter (inP true) number col.
type asgDeriv struct {
	row, col int
	inP      bool
	expr     *symbolic.Node
}

// checkAssignments validates the assignment sets (states known and
// assigned at most once per set, values from the System's Builder over
// its states, parameters and time), orders each set's targets, and
// differentiates each value with respect to every state and parameter it
// uses, states first, then parameters, each by index, so that the output
// does not depend on map order. As for the observables, the derivatives
// are built with the System's Builder and share subexpressions with the
// values.
func (g *generator) checkAssignments() error {
	name := g.sys.ODE.Name
	for k, a := range g.assigns {
		if len(a.States) != len(a.Values) {
			return fmt.Errorf("codegen: model %q: assignment set %d: %d states but %d values", name, k, len(a.States), len(a.Values))
		}
		ord := make([]int, len(a.States))
		for i, s := range a.States {
			if _, ok := g.stateIx[s]; !ok {
				return fmt.Errorf("codegen: model %q: assignment set %d: %q is not a state", name, k, s)
			}
			ord[i] = i
		}
		slices.SortStableFunc(ord, func(i, j int) int { return g.stateIx[a.States[i]] - g.stateIx[a.States[j]] })
		var set asgSet
		for r, i := range ord {
			v, t := a.Values[i], g.stateIx[a.States[i]]
			if v == nil || !g.sys.B.Owns(v) {
				return fmt.Errorf("codegen: model %q: assignment set %d: value of %q is nil or from another Builder", name, k, a.States[i])
			}
			if r > 0 && t == set.targets[r-1] {
				return fmt.Errorf("codegen: model %q: assignment set %d: state %q assigned twice", name, k, a.States[i])
			}
			if err := g.checkRoot(fmt.Sprintf("assignment set %d", k), v, false); err != nil {
				return err
			}
			set.targets = append(set.targets, t)
			set.values = append(set.values, v)
		}
		for r, v := range set.values {
			xs, ps := make([]*symbolic.Node, g.nx), make([]*symbolic.Node, g.np)
			for _, s := range symbolic.FreeSymbols(v) {
				switch s.Kind {
				case symbolic.KindState:
					xs[g.stateIx[s.Name]] = s
				case symbolic.KindParam:
					ps[g.paramIx[s.Name]] = s
				}
			}
			for inP, syms := range [][]*symbolic.Node{xs, ps} {
				for col, s := range syms {
					if s == nil {
						continue
					}
					d, err := g.sys.B.Diff(v, s)
					if err != nil {
						return fmt.Errorf("codegen: model %q: assignment set %d: %w", name, k, err)
					}
					if !d.IsConst(0) {
						set.derivs = append(set.derivs, asgDeriv{row: r, col: col, inP: inP == 1, expr: d})
					}
				}
			}
		}
		g.asg = append(g.asg, set)
	}
	return nil
}

// Parameter lists of the assignment functions: (dst, t, x, p) for the
// values, and d *model.AssignDeriv in addition for the derivatives.
var (
	asgDerivParams = concat(txpParams, []jen.Code{jen.Id("d").Op("*").Qual(modelPkg, "AssignDeriv")})
	asgDerivArgs   = concat(txpArgs, []jen.Code{jen.Id("d")})
)

func asgValueName(k int) string { return fmt.Sprintf("assign%d", k) }
func asgDerivName(k int) string { return fmt.Sprintf("assignDeriv%d", k) }

// asgValueSection is assignment set k's values: dst[r] is the new value
// of its target number r. Assign checks the arguments, so the function
// has no prologue.
func (g *generator) asgValueSection(k int) *section {
	s := &section{method: asgValueName(k), helper: asgValueName(k), file: "assign.go", function: true,
		doc:    fmt.Sprintf("%s writes the new values of the states that assignment set %d sets into dst, in the order of AssignTargets(%d).", asgValueName(k), k, k),
		params: txpParams, args: txpArgs}
	g.addAsgValues(s, g.asg[k])
	return s
}

// addAsgValues adds set's values to s, dst[r] for target number r.
func (g *generator) addAsgValues(s *section, set asgSet) {
	for r, v := range set.values {
		c := g.sys.ODE.States[set.targets[r]].Name + " :="
		if e := oneLine(v.String(), 100); e != "" {
			c += " " + e
		}
		s.add(v, r, c)
	}
}

// asgDerivSection is assignment set k's values and their structurally
// non-zero derivatives, written into d.X and d.P (row-major, one row per
// target), which Assign has checked and cleared: values and derivatives
// are one body, so they share subexpressions.
func (g *generator) asgDerivSection(k int) *section {
	set := g.asg[k]
	s := &section{method: asgDerivName(k), helper: asgDerivName(k), file: "assign.go", function: true,
		doc: fmt.Sprintf("%s writes the new values of the states that assignment set %d sets into dst and their non-zero derivatives into d, whose slices Assign has checked and cleared.",
			asgDerivName(k), k),
		params: asgDerivParams, args: asgDerivArgs}
	g.addAsgValues(s, set)
	for _, d := range set.derivs {
		// d.X[StateA], d.P[NumParams+ParamK], d.X[2*NumStates+StateB]
		var field, size, col, wrt string
		if d.inP {
			field, size, col, wrt = "P", "NumParams", g.paramConst[d.col], g.sys.ODE.Params[d.col].Name
		} else {
			field, size, col, wrt = "X", "NumStates", g.stateConst[d.col], g.sys.ODE.States[d.col].Name
		}
		var ix *jen.Statement
		switch d.row {
		case 0:
			ix = jen.Id(col)
		case 1:
			ix = jen.Id(size).Op("+").Id(col)
		default:
			ix = jen.Lit(d.row).Op("*").Id(size).Op("+").Id(col)
		}
		target := g.sys.ODE.States[set.targets[d.row]].Name
		s.addTo(d.expr, 0, jen.Id("d").Dot(field).Index(ix), fmt.Sprintf("d(new %s)/d(%s)%s", target, wrt, g.infix(d.expr)))
	}
	return s
}

// assignDecls emits what makes Model a model.Assigner besides the
// per-set functions: NumAssignments, the target tables and the methods
// NumAssignments, AssignTargets and Assign.
//
//	const NumAssignments int = 2
//	var assignPtr = [NumAssignments + 1]int{0, 1, 3}
//	var assignTargets = [3]int{StateA, StateA, StateB}
func (g *generator) assignDecls() []jen.Code {
	ptr := []jen.Code{jen.Lit(0)}
	var rows []jen.Code
	n := 0
	for _, set := range g.asg {
		n += len(set.targets)
		ptr = append(ptr, jen.Lit(n))
		if len(set.targets) == 0 {
			continue
		}
		var ids []jen.Code
		for _, t := range set.targets {
			ids = append(ids, jen.Id(g.stateConst[t]))
		}
		rows = append(rows, jen.List(ids...))
	}
	var targets jen.Code = jen.Values()
	if len(rows) > 0 {
		targets = jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, rows...)
	}
	return []jen.Code{
		jen.Comment("NumAssignments is the number of assignment sets.").Line().
			Const().Id("NumAssignments").Int().Op("=").Lit(len(g.asg)),
		doc("assignPtr and assignTargets are the states each assignment set sets, ascending: those of set k are assignTargets[assignPtr[k]:assignPtr[k+1]] (one line per set).").
			Var().Id("assignPtr").Op("=").Index(jen.Id("NumAssignments").Op("+").Lit(1)).Int().Values(ptr...),
		jen.Var().Id("assignTargets").Op("=").Index(jen.Lit(n)).Int().Add(targets),
		jen.Var().Id("_").Qual(modelPkg, "Assigner").Op("=").Id("Model").Values(),
		jen.Comment("NumAssignments returns the number of assignment sets.").Line().
			Func().Params(jen.Id("Model")).Id("NumAssignments").Params().Int().Block(jen.Return(jen.Id("NumAssignments"))),
		doc("AssignTargets returns a copy of the states (indices, ascending) that assignment set k sets.").
			Func().Params(jen.Id("Model")).Id("AssignTargets").Params(jen.Id("k").Int()).Index().Int().Block(
			g.assignRangeCheck("AssignTargets"),
			jen.Return(jen.Append(jen.Index().Int().Parens(jen.Nil()),
				jen.Id("assignTargets").Index(jen.Id("assignPtr").Index(jen.Id("k")).Op(":").Id("assignPtr").Index(jen.Id("k").Op("+").Lit(1))).Op("...")))),
		g.assign(),
	}
}

// assignRangeCheck panics on an assignment set number out of range.
func (g *generator) assignRangeCheck(method string) jen.Code {
	return jen.If(jen.Id("k").Op("<").Lit(0).Op("||").Id("k").Op(">=").Id("NumAssignments")).Block(
		jen.Panic(jen.Lit(g.pkg + ": " + method + ": assignment set index out of range")))
}

// assign emits the Assign method, which checks the arguments, clears the
// derivative slices when d is not nil (the contract writes them whole; the
// per-set functions then write only their non-zeros), and dispatches on k
// with a switch, so that nothing escapes and Assign does not allocate:
//
//	func (Model) Assign(k int, t float64, x, p, dst []float64, d *model.AssignDeriv) {
//		if k < 0 || k >= NumAssignments { panic(...) }
//		n := assignPtr[k+1] - assignPtr[k]
//		if len(x) != NumStates || len(p) != NumParams || len(dst) != n { panic(...) }
//		if d == nil {
//			switch k { case 0: assign0(dst, t, x, p) ... }
//			return
//		}
//		if len(d.X) != n*NumStates || len(d.P) != n*NumParams { panic(...) }
//		clear(d.X)
//		clear(d.P)
//		switch k { case 0: assignDeriv0(dst, t, x, p, d) ... }
//	}
func (g *generator) assign() jen.Code {
	dispatch := func(name func(int) string, args []jen.Code) jen.Code {
		return jen.Switch(jen.Id("k")).BlockFunc(func(grp *jen.Group) {
			for k := range g.asg {
				grp.Case(jen.Lit(k)).Block(jen.Id(name(k)).Call(args...))
			}
		})
	}
	return doc("Assign writes the new values of the states that assignment set k sets at (t, x, p) into dst, in the order of AssignTargets(k), and, when d is not nil, their derivatives with respect to x and p into d.X and d.P (row-major, one row per target): every entry, zeros included (only the structurally non-zero ones are computed). The values are those of the state before the assignment, so dst must not alias x.").
		Func().Params(jen.Id("Model")).Id("Assign").
		Params(jen.Id("k").Int(), jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p"), jen.Id("dst")).Index().Float64(), jen.Id("d").Op("*").Qual(modelPkg, "AssignDeriv")).
		Block(
			g.assignRangeCheck("Assign"),
			jen.Id("n").Op(":=").Id("assignPtr").Index(jen.Id("k").Op("+").Lit(1)).Op("-").Id("assignPtr").Index(jen.Id("k")),
			jen.If(jen.Len(jen.Id("x")).Op("!=").Id("NumStates").Op("||").Len(jen.Id("p")).Op("!=").Id("NumParams").Op("||").Len(jen.Id("dst")).Op("!=").Id("n")).Block(
				jen.Panic(jen.Lit(g.pkg+": Assign: argument length mismatch"))),
			jen.If(jen.Id("d").Op("==").Nil()).Block(dispatch(asgValueName, txpArgs), jen.Return()),
			jen.If(jen.Len(jen.Id("d").Dot("X")).Op("!=").Id("n").Op("*").Id("NumStates").Op("||").Len(jen.Id("d").Dot("P")).Op("!=").Id("n").Op("*").Id("NumParams")).Block(
				jen.Panic(jen.Lit(g.pkg+": Assign: derivative slice length mismatch"))),
			jen.Id("clear").Call(jen.Id("d").Dot("X")),
			jen.Id("clear").Call(jen.Id("d").Dot("P")),
			dispatch(asgDerivName, asgDerivArgs),
		)
}
