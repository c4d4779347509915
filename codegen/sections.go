package codegen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/pbgen/pbgen/symbolic"
)

// A section is one evaluation method of Model: straight-line code writing
// the value of each of its roots into dst. F, Jx, Jp, InitialState,
// InitialSens and OutputsTo are sections; body turns a section into code.
//
// To add one (as the observables' h and sigma and the assignment sets'
// values, each with their derivatives, and the events' triggers, root
// functions, values and derivatives were added): write a constructor
// like fSection, list it in (*generator).sections, and have check
// validate the symbols its roots may use. Nothing else in the generator knows the sections by name.
type section struct {
	method string // method name on Model, e.g. "Jx"
	helper string // prefix of chunk helpers, e.g. "jx"
	file   string // file of a split output, e.g. "jac.go"; "" is model.go
	doc    string // doc comment of the method

	params   []jen.Code // parameters, e.g. dst []float64, t float64, x, p []float64
	args     []jen.Code // the parameters as call arguments, for chunk calls
	prologue []jen.Code // argument checks, clear(dst), ...

	// function makes the section a package-level function named method
	// rather than a method of Model (the per-observable functions that
	// Observe dispatches to).
	function bool
	// u maps the placeholder symbols the roots may use (observables'
	// KindParam symbols named in Observable.U) to their index in the
	// argument u; nil for sections without placeholders.
	u map[string]int

	roots    []*symbolic.Node
	dst      []int      // dst index of each root
	lhs      []jen.Code // where each root is written, if not dst[dst[i]]
	comments []string   // comment of each root
}

// add appends root, written to dst[k] after the comment.
func (s *section) add(root *symbolic.Node, k int, comment string) {
	s.addTo(root, k, nil, comment)
}

// addTo appends root, written to lhs (dst[k] if lhs is nil) after the
// comment.
func (s *section) addTo(root *symbolic.Node, k int, lhs jen.Code, comment string) {
	s.roots = append(s.roots, root)
	s.dst = append(s.dst, k)
	s.lhs = append(s.lhs, lhs)
	s.comments = append(s.comments, comment)
}

// sections lists the evaluation methods in output order: those of
// model.Model, then, for a measurement model, two functions per
// observable (its value, and its value with derivatives), then two per
// assignment set (likewise).
func (g *generator) sections() []*section {
	secs := []*section{g.fSection(), g.jxSection(), g.jpSection(), g.x0Section(), g.x0pSection(), g.outputSection()}
	if g.hasJpColumns() {
		secs = append(secs, g.jpColumnSections()...)
	}
	for k := range g.obs {
		secs = append(secs, g.obsValueSection(k), g.obsDerivSection(k))
	}
	for k := range g.asg {
		secs = append(secs, g.asgValueSection(k), g.asgDerivSection(k))
	}
	if g.hasEvents() {
		secs = append(secs, g.eventSections()...)
	}
	if g.delayed() {
		secs = g.delaySections(secs)
	}
	if g.sys.ODE.Algebraic > 0 {
		secs = append(secs, g.gtSection())
	}
	return secs
}

// Parameter lists of the sections: (dst, t, x, p) for functions of the
// state, (dst, p) for initial values.
var (
	txpParams = []jen.Code{jen.Id("dst").Index().Float64(), jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p")).Index().Float64()}
	txpArgs   = []jen.Code{jen.Id("dst"), jen.Id("t"), jen.Id("x"), jen.Id("p")}
	pParams   = []jen.Code{jen.List(jen.Id("dst"), jen.Id("p")).Index().Float64()}
	pArgs     = []jen.Code{jen.Id("dst"), jen.Id("p")}
)

// lengthCheck panics with a package-prefixed message on a length mismatch.
func (g *generator) lengthCheck(method string, dstLen jen.Code, withX bool) jen.Code {
	cond := jen.Len(jen.Id("dst")).Op("!=").Add(dstLen)
	if withX {
		cond = cond.Op("||").Len(jen.Id("x")).Op("!=").Id("NumStates")
	}
	cond = cond.Op("||").Len(jen.Id("p")).Op("!=").Id("NumParams")
	return jen.If(cond).Block(jen.Panic(jen.Lit(g.pkg + ": " + method + ": argument length mismatch")))
}

// infix is " = " and the infix form of n for a root's comment, or "" if
// that would not fit on a line.
func (g *generator) infix(n *symbolic.Node) string {
	if s := oneLine(n.String(), 100); s != "" {
		return " = " + s
	}
	return ""
}

// txpSection starts a section of the form Method(dst, t, x, p).
func (g *generator) txpSection(method, helper, file, doc string, dstLen jen.Code) *section {
	return &section{method: method, helper: helper, file: file, doc: doc, params: txpParams, args: txpArgs,
		prologue: []jen.Code{g.lengthCheck(method, dstLen, true)}}
}

// fSection is F: dst[i] = f_i(t, x, p).
func (g *generator) fSection() *section {
	s := g.txpSection("F", "f", "f.go", "F writes f(t, x, p) = dx/dt into dst.", jen.Id("NumStates"))
	for i, st := range g.sys.ODE.States {
		s.add(g.sys.F[i], i, fmt.Sprintf("f[%d] = d(%s)/dt%s", i, st.Name, g.infix(g.sys.F[i])))
	}
	return s
}

// jxSection is Jx: the values of df/dx in JxPattern order.
func (g *generator) jxSection() *section {
	return g.jacSection("Jx", "df/dx", g.sys.Jx, g.sys.ODE.StateNames())
}

// jpSection is Jp: the values of df/dp in JpPattern order.
func (g *generator) jpSection() *section {
	return g.jacSection("Jp", "df/dp", g.sys.Jp, g.sys.ODE.ParamNames())
}

// jacSection writes the entries es of a Jacobian of f, whose columns are
// named cols.
func (g *generator) jacSection(method, what string, es []symbolic.Entry, cols []string) *section {
	s := g.txpSection(method, strings.ToLower(method), "jac.go",
		fmt.Sprintf("%s writes the values of %s at (t, x, p) into dst, in %sPattern order.", method, what, method),
		jen.Id("NNZ"+method))
	for k, e := range es {
		s.add(e.Expr, k, fmt.Sprintf("%s[%d] = d(d%s/dt)/d(%s)%s", method, k, g.sys.ODE.States[e.Row].Name, cols[e.Col], g.infix(e.Expr)))
	}
	return s
}

// x0Section is InitialState: dst[i] = x_i(t0) for parameters p.
func (g *generator) x0Section() *section {
	s := &section{method: "InitialState", helper: "x0", params: pParams, args: pArgs,
		doc:      "InitialState writes x(t0) for parameters p into dst.",
		prologue: []jen.Code{g.lengthCheck("InitialState", jen.Id("NumStates"), false)}}
	for i, st := range g.sys.ODE.States {
		s.add(g.sys.X0[i], i, fmt.Sprintf("%s(t0)%s", st.Name, g.infix(g.sys.X0[i])))
	}
	return s
}

// x0pSection is InitialSens: dx(t0)/dp, dense row-major, zero where
// sys.X0p has no entry.
func (g *generator) x0pSection() *section {
	s := &section{method: "InitialSens", helper: "x0p", params: pParams, args: pArgs,
		doc: "InitialSens writes dx(t0)/dp, row-major NumStates x NumParams, into dst.",
		prologue: []jen.Code{g.lengthCheck("InitialSens", jen.Id("NumStates").Op("*").Id("NumParams"), false),
			jen.Id("clear").Call(jen.Id("dst"))}}
	for _, e := range g.sys.X0p {
		s.add(e.Expr, e.Row*g.np+e.Col, fmt.Sprintf("d(%s(t0))/d(%s)%s", g.sys.ODE.States[e.Row].Name, g.sys.ODE.Params[e.Col].Name, g.infix(e.Expr)))
	}
	return s
}

// outputSection is OutputsTo: the observers (assignment-rule variables and
// other named outputs) in the order of Outputs.
func (g *generator) outputSection() *section {
	s := g.txpSection("OutputsTo", "out", "", "OutputsTo writes the outputs at (t, x, p) into dst, in the order of Outputs.", jen.Id("NumOutputs"))
	for i, o := range g.sys.ODE.Outputs {
		s.add(o.Expr, i, fmt.Sprintf("%s%s", o.Name, g.infix(o.Expr)))
	}
	return s
}
