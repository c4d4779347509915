package codegen

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/pbgen/pbgen/symbolic"
)

// Delays (SBML csymbol delay, symbolic.ODE.Delays). A System with
// delayed values gives a Model that also implements model.Delays, with
// interp's meaning method for method: F, Jx, Jp and OutputsTo become
// FDelayed, JxDelayed, jpDelayed and OutputsDelayedTo, which take the
// delayed values d as a last argument (loaded as dl0, dl1, ...: no other
// local starts with dl), and the plain methods call them with every d_k
// NaN (a solver that ignores model.Delays fails loudly rather than
// simulate another model). Per delayed value k, delayK writes its
// argument and its delay at (t, x, p, d[:k]) into dst[0] and dst[1], and
// delayHistK its history at t into dst[0]; DelayArg, DelayTime and
// DelayHistory dispatch to them on k into stack arrays, so nothing
// allocates. Without delays nothing of this is emitted (byte for byte the
// output from before), and no GenVersion bump was needed: model.Delays
// is optional.

func (g *generator) delayed() bool { return len(g.sys.ODE.Delays) > 0 }

func delayLocal(k int) string    { return fmt.Sprintf("dl%d", k) }
func delayName(k int) string     { return fmt.Sprintf("delay%d", k) }
func delayHistName(k int) string { return fmt.Sprintf("delayHist%d", k) }

var (
	txpdParams = []jen.Code{jen.Id("dst").Index().Float64(), jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p"), jen.Id("d")).Index().Float64()}
	txpdArgs   = []jen.Code{jen.Id("dst"), jen.Id("t"), jen.Id("x"), jen.Id("p"), jen.Id("d")}
	tpParams   = []jen.Code{jen.Id("dst").Index().Float64(), jen.Id("t").Float64(), jen.Id("p").Index().Float64()}
	tpArgs     = []jen.Code{jen.Id("dst"), jen.Id("t"), jen.Id("p")}
)

// delayedMethods renames the sections that read delayed values: the
// plain methods of model.Model become wrappers (delayDecls).
var delayedMethods = map[string]string{
	"F": "FDelayed", "Jx": "JxDelayed", "Jp": "JpDelayed", "OutputsTo": "OutputsDelayedTo",
	"RootsTo": "RootsDelayedTo", // events (delayEventDecls)
}

func delayGradName(k int) string     { return fmt.Sprintf("delayGrad%d", k) }
func delayTauGradName(k int) string  { return fmt.Sprintf("delayTauGrad%d", k) }
func delayHistGradName(k int) string { return fmt.Sprintf("delayHistGrad%d", k) }

// Parameter list of the gradient sections: dst[0] receives the partial
// in t, dx, dp and dd those in the states, parameters and delayed
// values (cleared by the caller).
var (
	gradParams = []jen.Code{jen.Id("dst").Index().Float64(), jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p"), jen.Id("d"), jen.Id("dx"), jen.Id("dp"), jen.Id("dd")).Index().Float64()}
	gradArgs   = []jen.Code{jen.Id("dst"), jen.Id("t"), jen.Id("x"), jen.Id("p"), jen.Id("d"), jen.Id("dx"), jen.Id("dp"), jen.Id("dd")}
)

// gradSection writes the partials ps of what (symbolic.DelayDerivs).
func (g *generator) gradSection(name, doc_, what string, ps []symbolic.Partial) *section {
	s := &section{method: name, helper: name, function: true, doc: doc_, params: gradParams, args: gradArgs}
	for _, q := range ps {
		var lhs jen.Code
		var wrt string
		switch q.Kind {
		case symbolic.KindTime:
			lhs, wrt = jen.Id("dst").Index(jen.Lit(0)), "t"
		case symbolic.KindState:
			lhs, wrt = jen.Id("dx").Index(jen.Id(g.stateConst[q.Index])), g.sys.ODE.States[q.Index].Name
		case symbolic.KindParam:
			lhs, wrt = jen.Id("dp").Index(jen.Id(g.paramConst[q.Index])), g.sys.ODE.Params[q.Index].Name
		default:
			lhs, wrt = jen.Id("dd").Index(jen.Lit(q.Index)), g.sys.ODE.Delays[q.Index].Label
		}
		s.addTo(q.Expr, 0, lhs, fmt.Sprintf("d(%s)/d(%s)%s", what, wrt, g.infix(q.Expr)))
	}
	return s
}

// delaySections turns F, Jx, Jp and OutputsTo into their variants with d
// and appends the per-delay sections.
func (g *generator) delaySections(secs []*section) []*section {
	for _, s := range secs {
		name, ok := delayedMethods[s.method]
		if !ok || s.function {
			continue
		}
		s.doc = fmt.Sprintf("%s is %s with the delayed values d (length NumDelays; model.Delays).", name, s.method)
		s.method = name
		s.params, s.args = txpdParams, txpdArgs
		s.prologue = append(s.prologue, jen.If(jen.Len(jen.Id("d")).Op("!=").Id("NumDelays")).Block(
			jen.Panic(jen.Lit(g.pkg+": "+name+": argument length mismatch"))))
	}
	for k, d := range g.sys.ODE.Delays {
		v := &section{method: delayName(k), helper: delayName(k), function: true,
			doc:    fmt.Sprintf("%s writes the argument and the delay of %s at (t, x, p, d[:%d]) into dst[0] and dst[1].", delayName(k), d.Label, k),
			params: txpdParams, args: txpdArgs}
		v.add(d.Expr, 0, "argument"+g.infix(d.Expr))
		v.add(d.Tau, 1, "delay"+g.infix(d.Tau))
		h := &section{method: delayHistName(k), helper: delayHistName(k), function: true,
			doc:    fmt.Sprintf("%s writes the argument of %s at a time t before the start into dst[0].", delayHistName(k), d.Label),
			params: tpParams, args: tpArgs}
		h.add(d.History, 0, "history"+g.infix(d.History))
		dd := g.delayDerivs
		secs = append(secs, v, h,
			g.gradSection(delayGradName(k), fmt.Sprintf("%s writes the partial derivatives of the argument of %s (model.DelaySens.DelayArgGrad).", delayGradName(k), d.Label), "argument", dd.Arg[k]),
			g.gradSection(delayTauGradName(k), fmt.Sprintf("%s writes the partial derivatives of the delay of %s (model.DelaySens.DelayTimeGrad).", delayTauGradName(k), d.Label), "delay", dd.Tau[k]),
			g.gradSection(delayHistGradName(k), fmt.Sprintf("%s writes the partial derivatives of the history of %s (model.DelaySens.DelayHistoryGrad).", delayHistGradName(k), d.Label), "history", dd.History[k]))
	}
	fd := &section{method: "FdDelayed", helper: "fd", file: "jac.go", params: txpdParams, args: txpdArgs,
		doc: "FdDelayed writes df/dd at (t, x, p, d) into dst, in FdPattern order (model.DelaySens).",
		prologue: []jen.Code{jen.If(jen.Len(jen.Id("dst")).Op("!=").Id("NNZFd").Op("||").Len(jen.Id("x")).Op("!=").Id("NumStates").Op("||").
			Len(jen.Id("p")).Op("!=").Id("NumParams").Op("||").Len(jen.Id("d")).Op("!=").Id("NumDelays")).Block(
			jen.Panic(jen.Lit(g.pkg + ": FdDelayed: argument length mismatch")))}}
	for q, e := range g.delayDerivs.Fd {
		fd.add(e.Expr, q, fmt.Sprintf("Fd[%d] = d(d%s/dt)/d(%s)%s", q, g.sys.ODE.States[e.Row].Name, g.sys.ODE.Delays[e.Col].Label, g.infix(e.Expr)))
	}
	return append(secs, fd)
}

// delayDecls emits what makes Model a model.Delays besides the sections:
// the count, the descriptions, the wrappers with NaN delayed values and
// the dispatching methods.
//
//	const NumDelays int = 1
//	var delayInfo = [NumDelays]model.DelayInfo{{Name: "delay(xS, 2)", Constant: true}}
func (g *generator) delayDecls() []jen.Code {
	o := g.sys.ODE
	index := o.DelayIndex()
	var infos []jen.Code
	for k, d := range o.Delays {
		constant, reads := o.DelayShape(k, index)
		dict := jen.Dict{jen.Id("Name"): jen.Lit(d.Label)}
		if constant {
			dict[jen.Id("Constant")] = jen.True()
		}
		if reads > 0 {
			dict[jen.Id("Reads")] = jen.Lit(reads)
		}
		hj, hm, aj, am := o.DelayJumps(k)
		for _, f := range []struct {
			name string
			on   bool
		}{{"HistoryJumps", hj}, {"HistoryJumpsMove", hm}, {"ArgJumps", aj}, {"ArgJumpsMove", am}} {
			if f.on {
				dict[jen.Id(f.name)] = jen.True()
			}
		}
		infos = append(infos, jen.Values(dict))
	}
	multi := jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, infos...)
	k, t, x, p, d := jen.Id("k"), jen.Id("t"), jen.Id("x"), jen.Id("p"), jen.Id("d")
	meth := func(doc_, name string) *jen.Statement {
		return doc(doc_).Func().Params(jen.Id("Model")).Id(name)
	}
	rangeCheck := func(method string) jen.Code {
		return jen.If(jen.Id("k").Op("<").Lit(0).Op("||").Id("k").Op(">=").Id("NumDelays")).Block(
			jen.Panic(jen.Lit(g.pkg + ": " + method + ": delay index out of range")))
	}
	// The argument and the delay of value k into the stack array v.
	values := func(method string) []jen.Code {
		return []jen.Code{
			rangeCheck(method),
			jen.If(jen.Len(jen.Id("x")).Op("!=").Id("NumStates").Op("||").Len(jen.Id("p")).Op("!=").Id("NumParams").Op("||").Len(jen.Id("d")).Op("<").Id("k")).Block(
				jen.Panic(jen.Lit(g.pkg + ": " + method + ": argument length mismatch"))),
			jen.Var().Id("v").Index(jen.Lit(2)).Float64(),
			jen.Switch(k).BlockFunc(func(grp *jen.Group) {
				for i := range o.Delays {
					grp.Case(jen.Lit(i)).Block(jen.Id(delayName(i)).Call(jen.Id("v").Index(jen.Op(":")), t, x, p, d))
				}
			}),
		}
	}
	txpd := jen.List(jen.Id("x"), jen.Id("p"), jen.Id("d")).Index().Float64()
	wrapper := func(name, target, what string) jen.Code {
		return meth(fmt.Sprintf("%s is %s with every delayed value NaN: the model needs the history a delay solver keeps (runtime/dde), see model.Delays.", name, what), name).
			Params(txpParams...).Block(
			jen.Id("d").Op(":=").Id("nanDelays").Call(),
			jen.Id("Model").Values().Dot(target).Call(jen.Id("dst"), t, x, p, jen.Id("d").Index(jen.Op(":"))))
	}
	decls := []jen.Code{
		jen.Comment("NumDelays is the number of delayed values (csymbol delay).").Line().
			Const().Id("NumDelays").Int().Op("=").Lit(len(o.Delays)),
		doc("delayInfo describes each delayed value, in the order the solver computes them.").
			Var().Id("delayInfo").Op("=").Index(jen.Id("NumDelays")).Qual(modelPkg, "DelayInfo").Add(multi),
		jen.Var().Id("_").Qual(modelPkg, "DelaySens").Op("=").Id("Model").Values(),
		jen.Comment("NNZFd is the number of structural non-zeros of Fd = df/dd.").Line().
			Const().Id("NNZFd").Int().Op("=").Lit(len(g.delayDerivs.Fd)),
		doc("nanDelays returns delayed values that are all NaN.").
			Func().Id("nanDelays").Params().Params(jen.Id("d").Index(jen.Id("NumDelays")).Float64()).Block(
			jen.For(jen.Id("i").Op(":=").Range().Id("d")).Block(jen.Id("d").Index(jen.Id("i")).Op("=").Qual("math", "NaN").Call()),
			jen.Return()),
		wrapper("F", "FDelayed", "f(t, x, p)"),
		wrapper("Jx", "JxDelayed", "df/dx in JxPattern order"),
		wrapper("Jp", "JpDelayed", "df/dp in JpPattern order (delayed values held fixed; model.DelaySens has the rest)"),
		wrapper("OutputsTo", "OutputsDelayedTo", "the outputs in the order of Outputs"),
		meth("NumDelays returns the number of delayed values.", "NumDelays").Params().Int().Block(jen.Return(jen.Id("NumDelays"))),
		meth("DelayInfo describes delayed value k.", "DelayInfo").Params(jen.Id("k").Int()).Qual(modelPkg, "DelayInfo").Block(
			rangeCheck("DelayInfo"), jen.Return(jen.Id("delayInfo").Index(k))),
		meth("DelayArg is the argument of delayed value k at (t, x, p), d[:k] the delayed values before it.", "DelayArg").
			Params(jen.Id("k").Int(), jen.Id("t").Float64(), txpd).Float64().Block(
			append(values("DelayArg"), jen.Return(jen.Id("v").Index(jen.Lit(0))))...),
		meth("DelayTime is the delay of delayed value k at (t, x, p, d[:k]).", "DelayTime").
			Params(jen.Id("k").Int(), jen.Id("t").Float64(), txpd).Float64().Block(
			append(values("DelayTime"), jen.Return(jen.Id("v").Index(jen.Lit(1))))...),
		meth("DelayHistory is the argument of delayed value k at a time t before the start.", "DelayHistory").
			Params(jen.Id("k").Int(), jen.Id("t").Float64(), jen.Id("p").Index().Float64()).Float64().Block(
			rangeCheck("DelayHistory"),
			jen.If(jen.Len(jen.Id("p")).Op("!=").Id("NumParams")).Block(jen.Panic(jen.Lit(g.pkg+": DelayHistory: argument length mismatch"))),
			jen.Var().Id("v").Index(jen.Lit(1)).Float64(),
			jen.Switch(k).BlockFunc(func(grp *jen.Group) {
				for i := range o.Delays {
					grp.Case(jen.Lit(i)).Block(jen.Id(delayHistName(i)).Call(jen.Id("v").Index(jen.Op(":")), t, p))
				}
			}),
			jen.Return(jen.Id("v").Index(jen.Lit(0)))),
	}
	// model.DelaySens: df/dd's pattern, and the gradients dispatched on
	// k into cleared destinations, with stack arrays for those a method
	// does not return.
	clearAll := func(ids ...string) []jen.Code {
		var cs []jen.Code
		for _, id := range ids {
			cs = append(cs, jen.Clear(jen.Id(id)))
		}
		return cs
	}
	dispatch := func(name func(int) string, args ...jen.Code) jen.Code {
		return jen.Switch(k).BlockFunc(func(grp *jen.Group) {
			for i := range o.Delays {
				grp.Case(jen.Lit(i)).Block(jen.Id(name(i)).Call(args...))
			}
		})
	}
	v := jen.Id("v").Index(jen.Op(":"))
	lenPanic := func(method string, cond *jen.Statement) jen.Code {
		return jen.If(cond).Block(jen.Panic(jen.Lit(g.pkg + ": " + method + ": argument length mismatch")))
	}
	xpd := func() *jen.Statement {
		return jen.Len(jen.Id("x")).Op("!=").Id("NumStates").Op("||").Len(jen.Id("p")).Op("!=").Id("NumParams").Op("||").Len(jen.Id("d")).Op("<").Id("k")
	}
	decls = append(decls, g.patternTables("fd", g.delayDerivs.Fd)...)
	decls = append(decls,
		g.patternFunc("FdPattern", "fd", "NumDelays", "Fd = df/dd (NumStates x NumDelays)"),
		meth("DelayArgGrad writes the partial derivatives of the argument of delayed value k at (t, x, p, d[:k]) in x, p and d into dx, dp and dd and returns the one in t.", "DelayArgGrad").
			Params(jen.Id("k").Int(), jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p"), jen.Id("d"), jen.Id("dx"), jen.Id("dp"), jen.Id("dd")).Index().Float64()).Float64().Block(
			append(append([]jen.Code{rangeCheck("DelayArgGrad"),
				lenPanic("DelayArgGrad", xpd().Op("||").Len(jen.Id("dx")).Op("!=").Id("NumStates").Op("||").Len(jen.Id("dp")).Op("!=").Id("NumParams").Op("||").Len(jen.Id("dd")).Op("!=").Id("NumDelays"))},
				clearAll("dx", "dp", "dd")...),
				jen.Var().Id("v").Index(jen.Lit(1)).Float64(),
				dispatch(delayGradName, v, t, x, p, d, jen.Id("dx"), jen.Id("dp"), jen.Id("dd")),
				jen.Return(jen.Id("v").Index(jen.Lit(0))))...),
		meth("DelayTimeGrad writes the derivative of the delay of delayed value k in p at (t, x, p, d[:k]) into dp.", "DelayTimeGrad").
			Params(jen.Id("k").Int(), jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p"), jen.Id("d"), jen.Id("dp")).Index().Float64()).Block(
			rangeCheck("DelayTimeGrad"),
			lenPanic("DelayTimeGrad", xpd().Op("||").Len(jen.Id("dp")).Op("!=").Id("NumParams")),
			jen.Clear(jen.Id("dp")),
			jen.Var().Defs(
				jen.Id("v").Index(jen.Lit(1)).Float64(),
				jen.Id("dx").Index(jen.Id("NumStates")).Float64(),
				jen.Id("dd").Index(jen.Id("NumDelays")).Float64(),
			),
			dispatch(delayTauGradName, v, t, x, p, d, jen.Id("dx").Index(jen.Op(":")), jen.Id("dp"), jen.Id("dd").Index(jen.Op(":")))),
		meth("DelayHistoryGrad writes the derivative in p of the history of delayed value k at t into dp and returns the one in t.", "DelayHistoryGrad").
			Params(jen.Id("k").Int(), jen.Id("t").Float64(), jen.List(jen.Id("p"), jen.Id("dp")).Index().Float64()).Float64().Block(
			rangeCheck("DelayHistoryGrad"),
			lenPanic("DelayHistoryGrad", jen.Len(jen.Id("p")).Op("!=").Id("NumParams").Op("||").Len(jen.Id("dp")).Op("!=").Id("NumParams")),
			jen.Clear(jen.Id("dp")),
			jen.Var().Defs(
				jen.Id("v").Index(jen.Lit(1)).Float64(),
				jen.Id("dx").Index(jen.Id("NumStates")).Float64(),
				jen.Id("dd").Index(jen.Id("NumDelays")).Float64(),
			),
			dispatch(delayHistGradName, v, t, jen.Nil(), p, jen.Nil(), jen.Id("dx").Index(jen.Op(":")), jen.Id("dp"), jen.Id("dd").Index(jen.Op(":"))),
			jen.Return(jen.Id("v").Index(jen.Lit(0)))),
	)
	return decls
}
