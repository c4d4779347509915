package codegen

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/pbgen/pbgen/symbolic"
)

// Observable is one observable of a measurement model, in symbolic form:
// the value H = h(t, x, p, u) and the noise scale Sigma = sigma(t, x, p, u)
// over the System's states and parameters, time, and the placeholder
// symbols named in U (of kind KindParam, names distinct from the
// parameters'). U holds the NObs observable placeholders first, then the
// noise placeholders. It mirrors interp.Observable field for field (the
// PEtab lowering produces those), so that the generated package and the
// interpreter compile the same expressions; codegen does not import interp.
type Observable struct {
	ID       string
	H, Sigma *symbolic.Node
	U        []string
	NObs     int
}

// obsDeriv is one structurally non-zero derivative of an observable: of h
// (fn 0) or sigma (fn 1) with respect to a state, parameter or
// placeholder (group 0, 1, 2) number i.
type obsDeriv struct {
	fn, group, i int
	expr         *symbolic.Node
}

// obsFields are the model.ObsDeriv fields by fn and group.
var obsFields = [2][3]string{{"HX", "HP", "HU"}, {"SX", "SP", "SU"}}

// checkObservables validates the observables (placeholder counts, names
// distinct from the parameters and from each other, symbols known) and
// differentiates h and sigma with respect to every symbol they use, in
// the order states, parameters, placeholders, each by index, so that the
// output does not depend on map order. The derivatives are built with the
// System's Builder (Generate therefore adds nodes to it) and share
// subexpressions with h and sigma.
func (g *generator) checkObservables() error {
	name := g.sys.ODE.Name
	seenID := make(map[string]bool)
	for k, o := range g.obs {
		if seenID[o.ID] {
			return fmt.Errorf("codegen: model %q: duplicate observable %q", name, o.ID)
		}
		seenID[o.ID] = true
		if o.H == nil || o.Sigma == nil || !g.sys.B.Owns(o.H) || !g.sys.B.Owns(o.Sigma) {
			return fmt.Errorf("codegen: model %q: observable %q: h or sigma is nil or from another Builder", name, o.ID)
		}
		if o.NObs < 0 || o.NObs > len(o.U) {
			return fmt.Errorf("codegen: model %q: observable %q: %d observable placeholders of %d", name, o.ID, o.NObs, len(o.U))
		}
		u := make(map[string]int, len(o.U))
		for i, s := range o.U {
			if _, dup := u[s]; dup {
				return fmt.Errorf("codegen: model %q: observable %q: duplicate placeholder %q", name, o.ID, s)
			}
			if _, isParam := g.paramIx[s]; isParam {
				return fmt.Errorf("codegen: model %q: observable %q: placeholder %q is also a parameter", name, o.ID, s)
			}
			u[s] = i
		}
		g.obsU = append(g.obsU, u)
		var ds []obsDeriv
		for fn, f := range []*symbolic.Node{o.H, o.Sigma} {
			var vars [3][]*symbolic.Node // by group, indexed like x, p, u
			vars[0], vars[1], vars[2] = make([]*symbolic.Node, g.nx), make([]*symbolic.Node, g.np), make([]*symbolic.Node, len(o.U))
			for _, s := range symbolic.FreeSymbols(f) {
				i, ok := 0, false
				group := 0
				switch s.Kind {
				case symbolic.KindState:
					i, ok = g.stateIx[s.Name]
				case symbolic.KindParam:
					group = 2
					if i, ok = u[s.Name]; !ok {
						group = 1
						i, ok = g.paramIx[s.Name]
					}
				case symbolic.KindTime:
					continue
				}
				if !ok {
					return fmt.Errorf("codegen: model %q: observable %q uses %s %q, which is not allowed there", name, o.ID, s.Kind, s.Name)
				}
				vars[group][i] = s
			}
			for group, vs := range vars {
				for i, v := range vs {
					if v == nil {
						continue
					}
					d, err := g.sys.B.Diff(f, v)
					if err != nil {
						return fmt.Errorf("codegen: model %q: observable %q (number %d): %w", name, o.ID, k, err)
					}
					if !d.IsConst(0) {
						ds = append(ds, obsDeriv{fn: fn, group: group, i: i, expr: d})
					}
				}
			}
		}
		g.obsDerivs = append(g.obsDerivs, ds)
	}
	return nil
}

// Parameter lists of the observable functions: (dst, t, x, p, u) for the
// value, and d *model.ObsDeriv in addition for the derivatives.
var (
	obsParams      = []jen.Code{jen.Id("dst").Index().Float64(), jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p"), jen.Id("u")).Index().Float64()}
	obsArgs        = []jen.Code{jen.Id("dst"), jen.Id("t"), jen.Id("x"), jen.Id("p"), jen.Id("u")}
	obsDerivParams = concat(obsParams, []jen.Code{jen.Id("d").Op("*").Qual(modelPkg, "ObsDeriv")})
	obsDerivArgs   = concat(obsArgs, []jen.Code{jen.Id("d")})
)

func obsValueName(k int) string { return fmt.Sprintf("observe%d", k) }
func obsDerivName(k int) string { return fmt.Sprintf("observeDeriv%d", k) }

// obsValueSection is observable k's value: dst[0] = h, dst[1] = sigma.
// Observe checks the arguments, so the function has no prologue.
func (g *generator) obsValueSection(k int) *section {
	o := g.obs[k]
	s := &section{method: obsValueName(k), helper: obsValueName(k), file: "obs.go", function: true, u: g.obsU[k],
		doc:    fmt.Sprintf("%s writes h and sigma of observable %d (%q) into dst[0] and dst[1].", obsValueName(k), k, o.ID),
		params: obsParams, args: obsArgs}
	s.add(o.H, 0, "h"+g.infix(o.H))
	s.add(o.Sigma, 1, "sigma"+g.infix(o.Sigma))
	return s
}

// obsDerivSection is observable k's value and its structurally non-zero
// derivatives, written into d's slices, which Observe has cleared: h,
// sigma and the derivatives are one body, so they share subexpressions.
func (g *generator) obsDerivSection(k int) *section {
	o := g.obs[k]
	s := &section{method: obsDerivName(k), helper: obsDerivName(k), file: "obs.go", function: true, u: g.obsU[k],
		doc: fmt.Sprintf("%s writes h and sigma of observable %d (%q) into dst[0] and dst[1] and their non-zero derivatives into d, whose slices Observe has checked and cleared.",
			obsDerivName(k), k, o.ID),
		params: obsDerivParams, args: obsDerivArgs}
	s.add(o.H, 0, "h"+g.infix(o.H))
	s.add(o.Sigma, 1, "sigma"+g.infix(o.Sigma))
	fns := [2]string{"h", "sigma"}
	for _, d := range g.obsDerivs[k] {
		var wrt string
		switch d.group {
		case 0:
			wrt = g.sys.ODE.States[d.i].Name
		case 1:
			wrt = g.sys.ODE.Params[d.i].Name
		default:
			wrt = o.U[d.i]
		}
		// d.HX[StateA], d.HP[ParamK], d.HU[0]
		var ix jen.Code = jen.Lit(d.i)
		switch d.group {
		case 0:
			ix = jen.Id(g.stateConst[d.i])
		case 1:
			ix = jen.Id(g.paramConst[d.i])
		}
		lhs := jen.Id("d").Dot(obsFields[d.fn][d.group]).Index(ix)
		s.addTo(d.expr, 0, lhs, fmt.Sprintf("d(%s)/d(%s)%s", fns[d.fn], wrt, g.infix(d.expr)))
	}
	return s
}

// observableDecls emits what makes Model a model.Observables besides the
// per-observable functions: NumObservables, the ids and placeholder
// counts, and the methods ObservableIDs, Placeholders and Observe.
func (g *generator) observableDecls() []jen.Code {
	var ids []string
	for _, o := range g.obs {
		ids = append(ids, o.ID)
	}
	return []jen.Code{
		jen.Comment("NumObservables is the number of observables.").Line().
			Const().Id("NumObservables").Int().Op("=").Lit(len(g.obs)),
		stringTable("observableIDs", "observableIDs are the observables' ids, in observable order.", "NumObservables", ids),
		doc("placeholders[k] holds observable k's numbers of observable and noise placeholders, the lengths of the two parts of Observe's u.").
			Var().Id("placeholders").Op("=").Index(jen.Id("NumObservables")).Index(jen.Lit(2)).Int().ValuesFunc(func(grp *jen.Group) {
			for _, o := range g.obs {
				grp.Values(jen.Lit(o.NObs), jen.Lit(len(o.U)-o.NObs))
			}
		}),
		jen.Var().Id("_").Qual(modelPkg, "Observables").Op("=").Id("Model").Values(),
		copier("ObservableIDs", "ObservableIDs returns a copy of the observables' ids, in observable order.", "observableIDs", jen.String()),
		doc("Placeholders returns observable k's numbers of observable and noise placeholders.").
			Func().Params(jen.Id("Model")).Id("Placeholders").Params(jen.Id("k").Int()).Params(jen.Id("nObs"), jen.Id("nNoise").Int()).Block(
			jen.Return(jen.Id("placeholders").Index(jen.Id("k")).Index(jen.Lit(0)), jen.Id("placeholders").Index(jen.Id("k")).Index(jen.Lit(1)))),
		g.observe(),
	}
}

// observe emits the Observe method, which checks the arguments, clears
// the derivative slices when d is not nil (the contract writes them whole;
// the per-observable functions then write only their non-zeros), and
// dispatches on k with a switch, so that nothing escapes and Observe does
// not allocate:
//
//	func (Model) Observe(k int, t float64, x, p, u []float64, d *model.ObsDeriv) (y, sigma float64) {
//		if k < 0 || k >= NumObservables { panic(...) }
//		if len(x) != NumStates || ... { panic(...) }
//		var v [2]float64
//		if d == nil {
//			switch k { case 0: observe0(v[:], t, x, p, u) ... }
//			return v[0], v[1]
//		}
//		if len(d.HX) != NumStates || ... { panic(...) }
//		clear(d.HX) ...
//		switch k { case 0: observeDeriv0(v[:], t, x, p, u, d) ... }
//		return v[0], v[1]
//	}
func (g *generator) observe() jen.Code {
	nu := jen.Id("placeholders").Index(jen.Id("k")).Index(jen.Lit(0)).Op("+").Id("placeholders").Index(jen.Id("k")).Index(jen.Lit(1))
	dispatch := func(name func(int) string, args []jen.Code) jen.Code {
		return jen.Switch(jen.Id("k")).BlockFunc(func(grp *jen.Group) {
			for k := range g.obs {
				grp.Case(jen.Lit(k)).Block(jen.Id(name(k)).Call(args...))
			}
		})
	}
	v := jen.Id("v").Index(jen.Op(":"))
	valueArgs := []jen.Code{v, jen.Id("t"), jen.Id("x"), jen.Id("p"), jen.Id("u")}
	ret := jen.Return(jen.Id("v").Index(jen.Lit(0)), jen.Id("v").Index(jen.Lit(1)))
	var lenD jen.Code = jen.Null()
	var clears []jen.Code
	for i, f := range []string{"HX", "HP", "HU", "SX", "SP", "SU"} {
		want := [3]string{"NumStates", "NumParams", ""}[i%3]
		var w jen.Code = jen.Id(want)
		if want == "" {
			w = jen.Len(jen.Id("u"))
		}
		c := jen.Len(jen.Id("d").Dot(f)).Op("!=").Add(w)
		if i > 0 {
			lenD = jen.Add(lenD).Op("||").Add(c)
		} else {
			lenD = c
		}
		clears = append(clears, jen.Id("clear").Call(jen.Id("d").Dot(f)))
	}
	body := []jen.Code{
		jen.If(jen.Id("k").Op("<").Lit(0).Op("||").Id("k").Op(">=").Id("NumObservables")).Block(
			jen.Panic(jen.Lit(g.pkg + ": Observe: observable index out of range"))),
		jen.If(jen.Len(jen.Id("x")).Op("!=").Id("NumStates").Op("||").Len(jen.Id("p")).Op("!=").Id("NumParams").Op("||").Len(jen.Id("u")).Op("!=").Add(nu)).Block(
			jen.Panic(jen.Lit(g.pkg + ": Observe: argument length mismatch"))),
		jen.Var().Id("v").Index(jen.Lit(2)).Float64(),
		jen.If(jen.Id("d").Op("==").Nil()).Block(dispatch(obsValueName, valueArgs), ret),
		jen.If(lenD).Block(jen.Panic(jen.Lit(g.pkg + ": Observe: derivative slice length mismatch"))),
	}
	body = append(body, clears...)
	body = append(body, dispatch(obsDerivName, concat(valueArgs, []jen.Code{jen.Id("d")})), ret)
	return doc("Observe returns h_k and sigma_k at (t, x, p, u) and, when d is not nil, writes their derivatives with respect to x, p and u into d: every slice whole, zeros included (only the structurally non-zero entries are computed).").
		Func().Params(jen.Id("Model")).Id("Observe").
		Params(jen.Id("k").Int(), jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p"), jen.Id("u")).Index().Float64(), jen.Id("d").Op("*").Qual(modelPkg, "ObsDeriv")).
		Params(jen.Id("y"), jen.Id("sigma").Float64()).Block(body...)
}
