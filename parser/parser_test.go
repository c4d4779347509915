package parser

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/symbolic"
	"gonum.org/v1/gonum/floats/scalar"
)

const mathOpen = `<math xmlns="http://www.w3.org/1998/Math/MathML">`

// l3 wraps model content in an SBML L3v2 document.
func l3(body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2">
<model id="m">
` + body + `
</model>
</sbml>
`
}

// l2 wraps model content in an SBML L2v4 document.
func l2(body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level2/version4" level="2" version="4">
<model id="m">
` + body + `
</model>
</sbml>
`
}

func lowerDoc(t *testing.T, doc string, opt *Options) *symbolic.ODE {
	t.Helper()
	m, err := Read(strings.NewReader(doc), "test.xml")
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	ode, err := m.ODE(opt)
	if err != nil {
		t.Fatalf("ODE: %v", err)
	}
	return ode
}

// at evaluates the rates, initial values and outputs of ode at (t, x) with
// default parameters (x nil = initial state).
type point struct {
	x0, x, f []float64
	out      map[string]float64
	state    map[string]int
}

func evalAt(ode *symbolic.ODE, t float64, x []float64) point {
	c := compile(ode)
	p := point{x0: c.init(), out: map[string]float64{}, state: map[string]int{}}
	if x == nil {
		x = p.x0
	}
	p.x = x
	p.f = make([]float64, len(x))
	c.rhs(p.f, t, x)
	outs := c.vals[2*len(x):]
	for i, o := range ode.Outputs {
		p.out[o.Name] = outs[i]
	}
	for i, s := range ode.States {
		p.state[s.Name] = i
	}
	return p
}

func near(a, b float64) bool { return scalar.EqualWithinAbsOrRel(a, b, 1e-12, 1e-12) }

func names[T any](xs []T, name func(T) string) string {
	var s []string
	for _, x := range xs {
		s = append(s, name(x))
	}
	return strings.Join(s, ",")
}

func stateNames(ode *symbolic.ODE) string {
	return names(ode.States, func(s symbolic.State) string { return s.Name })
}

func paramNames(ode *symbolic.ODE) string {
	return names(ode.Params, func(p symbolic.Param) string { return p.Name })
}

func ma(body string) string { return mathOpen + body + `</math>` }

// TestMassAction: a concentration species in a compartment of size 2;
// the kinetic law k*S1*C is in amount per time, so d[S1]/dt = -k*S1.
func TestMassAction(t *testing.T) {
	doc := l3(`<listOfCompartments><compartment id="C" size="2" constant="true"/></listOfCompartments>
<listOfSpecies>
<species id="S1" compartment="C" initialAmount="1" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="S2" compartment="C" initialConcentration="0.25" hasOnlySubstanceUnits="true" boundaryCondition="false" constant="false"/>
</listOfSpecies>
<listOfParameters><parameter id="k" value="3" constant="true"/></listOfParameters>
<listOfReactions><reaction id="R" reversible="false">
<listOfReactants><speciesReference species="S1" stoichiometry="2" constant="true"/></listOfReactants>
<listOfProducts><speciesReference species="S2" constant="true"/></listOfProducts>
<kineticLaw>` + ma(`<apply><times/><ci>k</ci><ci>S1</ci><ci>C</ci></apply>`) + `</kineticLaw>
</reaction></listOfReactions>`)
	ode := lowerDoc(t, doc, nil)
	if got := stateNames(ode); got != "S1,S2" {
		t.Fatalf("states %s", got)
	}
	if got := paramNames(ode); got != "k" {
		t.Fatalf("params %s", got)
	}
	if ode.Name != "m" || ode.Source != "test.xml" || ode.B == nil {
		t.Errorf("name %q source %q builder %v", ode.Name, ode.Source, ode.B)
	}
	p := evalAt(ode, 0, nil)
	// S1: concentration state 1/2; S2: amount state 0.25*2.
	want0 := []float64{0.5, 0.5}
	rate := 3 * 0.5 * 2 // amount per time
	wantF := []float64{-2 * rate / 2, rate}
	for i := range want0 {
		if !near(p.x0[i], want0[i]) || !near(p.f[i], wantF[i]) {
			t.Errorf("state %d: x0 %v f %v, want %v %v", i, p.x0[i], p.f[i], want0[i], wantF[i])
		}
	}
	for name, want := range map[string]float64{"S1": 0.5, "amount:S1": 1, "conc:S1": 0.5,
		"S2": 0.5, "amount:S2": 0.5, "conc:S2": 0.25, "C": 2, "k": 3, "R": rate} {
		if !near(p.out[name], want) {
			t.Errorf("output %s = %v, want %v", name, p.out[name], want)
		}
	}
	if ode.States[0].Meta["units"] != "concentration" || ode.States[1].Meta["units"] != "amount" {
		t.Errorf("meta %v %v", ode.States[0].Meta, ode.States[1].Meta)
	}
}

// assigned lowers a model with parameter y = math (an assignment rule)
// and x = 2 (a constant, folded unless selected), and returns y's value
// at t.
func assigned(t *testing.T, m string, tm float64) float64 {
	t.Helper()
	doc := l3(`<listOfParameters><parameter id="x" value="2" constant="true"/><parameter id="y" constant="false"/></listOfParameters>
<listOfRules><assignmentRule variable="y">` + ma(m) + `</assignmentRule></listOfRules>`)
	return evalAt(lowerDoc(t, doc, nil), tm, nil).out["y"]
}

func ap(op string, args ...string) string {
	return "<apply><" + op + "/>" + strings.Join(args, "") + "</apply>"
}

func cn(v string) string { return "<cn>" + v + "</cn>" }

const ciX = "<ci> x </ci>"

// TestMathML evaluates every supported MathML construct against Go's math
// package (x = 2, t = 0.5).
func TestMathML(t *testing.T) {
	x, half := 2.0, 0.5
	tm := `<csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol>`
	pw := func(v, c string) string { return "<piece>" + v + c + "</piece>" }
	cases := []struct {
		name, math string
		want       float64
	}{
		{"cn integer", `<cn type="integer"> 7 </cn>`, 7},
		{"cn real", `<cn type="real">-1.5e-3</cn>`, -1.5e-3},
		{"cn e-notation", `<cn type="e-notation">1.5<sep/>3</cn>`, 1500},
		{"cn rational", `<cn type="rational">1<sep/>4</cn>`, 0.25},
		{"time", tm, half},
		{"avogadro", `<csymbol definitionURL="http://www.sbml.org/sbml/symbols/avogadro">N</csymbol>`, 6.02214179e23},
		{"pi", "<pi/>", math.Pi},
		{"e", "<exponentiale/>", math.E},
		{"true", "<true/>", 1},
		{"false", "<false/>", 0},
		{"infinity", "<infinity/>", math.Inf(1)},
		{"plus", ap("plus", ciX, cn("1"), tm), x + 1 + half},
		{"plus none", ap("plus"), 0},
		{"times none", ap("times"), 1},
		{"minus unary", ap("minus", ciX), -x},
		{"minus", ap("minus", ciX, cn("5")), x - 5},
		{"divide", ap("divide", ciX, cn("8")), x / 8},
		{"power", ap("power", ciX, cn("3")), 8},
		{"root", ap("root", ap("times", ciX, cn("8"))), 4},
		{"root degree", "<apply><root/><degree>" + cn("3") + "</degree>" + cn("27") + "</apply>", 3},
		{"exp", ap("exp", ciX), math.Exp(x)},
		{"ln", ap("ln", ciX), math.Log(x)},
		{"log", ap("log", cn("1000")), 3},
		{"log base", "<apply><log/><logbase>" + ciX + "</logbase>" + cn("8") + "</apply>", 3},
		{"abs", ap("abs", cn("-3")), 3},
		{"floor", ap("floor", cn("-2.5")), -3},
		{"ceiling", ap("ceiling", cn("-2.5")), -2},
		{"factorial", ap("factorial", cn("5")), 120},
		{"sin", ap("sin", ciX), math.Sin(x)},
		{"cos", ap("cos", ciX), math.Cos(x)},
		{"tan", ap("tan", ciX), math.Tan(x)},
		{"sec", ap("sec", ciX), 1 / math.Cos(x)},
		{"csc", ap("csc", ciX), 1 / math.Sin(x)},
		{"cot", ap("cot", ciX), 1 / math.Tan(x)},
		{"sinh", ap("sinh", ciX), math.Sinh(x)},
		{"cosh", ap("cosh", ciX), math.Cosh(x)},
		{"tanh", ap("tanh", ciX), math.Tanh(x)},
		{"sech", ap("sech", ciX), 1 / math.Cosh(x)},
		{"csch", ap("csch", ciX), 1 / math.Sinh(x)},
		{"coth", ap("coth", ciX), 1 / math.Tanh(x)},
		{"arcsin", ap("arcsin", tm), math.Asin(half)},
		{"arccos", ap("arccos", tm), math.Acos(half)},
		{"arctan", ap("arctan", ciX), math.Atan(x)},
		{"arcsec", ap("arcsec", ciX), math.Acos(1 / x)},
		{"arccsc", ap("arccsc", ciX), math.Asin(1 / x)},
		{"arccot", ap("arccot", ciX), math.Atan(1 / x)},
		{"arcsinh", ap("arcsinh", ciX), math.Asinh(x)},
		{"arccosh", ap("arccosh", ciX), math.Acosh(x)},
		{"arctanh", ap("arctanh", tm), math.Atanh(half)},
		{"arcsech", ap("arcsech", tm), math.Acosh(1 / half)},
		{"arccsch", ap("arccsch", ciX), math.Asinh(1 / x)},
		{"arccoth", ap("arccoth", ciX), math.Atanh(1 / x)},
		{"eq n-ary", ap("eq", ciX, cn("2"), cn("2.0")), 1},
		{"eq n-ary false", ap("eq", ciX, cn("2"), cn("3")), 0},
		{"neq", ap("neq", ciX, cn("2")), 0},
		{"lt chain", ap("lt", cn("1"), ciX, cn("3")), 1},
		{"lt chain false", ap("lt", cn("1"), ciX, cn("2")), 0},
		{"gt", ap("gt", ciX, tm), 1},
		{"leq", ap("leq", ciX, cn("2")), 1},
		{"geq", ap("geq", tm, ciX), 0},
		{"and", ap("and", "<true/>", ap("gt", ciX, cn("1")), "<true/>"), 1},
		{"and none", ap("and"), 1},
		{"or", ap("or", "<false/>", ap("lt", ciX, cn("1"))), 0},
		{"xor", ap("xor", "<true/>", "<true/>", "<true/>"), 1},
		{"not", ap("not", "<false/>"), 1},
		{"implies", ap("implies", "<true/>", "<false/>"), 0},
		{"max", ap("max", cn("1"), ciX, cn("-4")), 2},
		{"min", ap("min", cn("1"), ciX, cn("-4")), -4},
		{"quotient", ap("quotient", cn("-7"), ciX), -3},
		{"rem", ap("rem", cn("-7"), ciX), -1},
		{"piecewise", "<piecewise>" + pw(cn("1"), ap("lt", ciX, cn("1"))) + pw(cn("2"), ap("lt", ciX, cn("3"))) + "<otherwise>" + cn("3") + "</otherwise></piecewise>", 2},
		{"piecewise otherwise", "<piecewise>" + pw(cn("1"), "<false/>") + "<otherwise>" + ciX + "</otherwise></piecewise>", x},
		{"semantics", "<semantics>" + ciX + "<annotation>anything</annotation></semantics>", x},
	}
	for _, c := range cases {
		got := assigned(t, c.math, half)
		if !(near(got, c.want) || math.IsInf(c.want, 1) && math.IsInf(got, 1)) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	if got := assigned(t, "<notanumber/>", 0); !math.IsNaN(got) {
		t.Errorf("notanumber: got %v", got)
	}
}

// TestFunctionDefinitions: nested calls, a bvar named like a global id,
// and memoised expansion of a call chain that would be exponential as a
// tree (f_k(x) = f_{k-1}(x) + f_{k-1}(x)).
func TestFunctionDefinitions(t *testing.T) {
	lambda := func(id string, bvars []string, body string) string {
		s := `<functionDefinition id="` + id + `">` + mathOpen + `<lambda>`
		for _, b := range bvars {
			s += "<bvar><ci>" + b + "</ci></bvar>"
		}
		return s + body + "</lambda></math></functionDefinition>"
	}
	call := func(f string, args ...string) string {
		return "<apply><ci>" + f + "</ci>" + strings.Join(args, "") + "</apply>"
	}
	fds := lambda("sq", []string{"x"}, ap("times", ciX, ciX)) +
		lambda("hyp", []string{"a", "b"}, ap("root", ap("plus", call("sq", "<ci>a</ci>"), call("sq", "<ci>b</ci>")))) +
		lambda("f0", []string{"x"}, ciX)
	const depth = 60
	for k := 1; k <= depth; k++ {
		prev := fmt.Sprintf("f%d", k-1)
		fds += lambda(fmt.Sprintf("f%d", k), []string{"x"}, ap("plus", call(prev, ciX), call(prev, ciX)))
	}
	doc := l3(`<listOfFunctionDefinitions>` + fds + `</listOfFunctionDefinitions>
<listOfParameters><parameter id="x" value="3" constant="true"/><parameter id="y" constant="false"/><parameter id="z" constant="false"/></listOfParameters>
<listOfRules><assignmentRule variable="y">` + ma(call("hyp", ciX, cn("4"))) + `</assignmentRule>
<assignmentRule variable="z">` + ma(call(fmt.Sprintf("f%d", depth), cn("1"))) + `</assignmentRule></listOfRules>`)
	m, err := Read(strings.NewReader(doc), "f.xml")
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Summary(); s.FunctionDefinitions != depth+3 || s.AssignmentRules != 2 {
		t.Errorf("summary %+v", s)
	}
	if m.B.Len() > 2000 {
		t.Errorf("function expansion built %d nodes; memoisation failed", m.B.Len())
	}
	ode, err := m.ODE(nil)
	if err != nil {
		t.Fatal(err)
	}
	p := evalAt(ode, 0, nil)
	if !near(p.out["y"], 5) {
		t.Errorf("hyp(3, 4) = %v, want 5", p.out["y"])
	}
	if !near(p.out["z"], math.Pow(2, depth)) {
		t.Errorf("f%d(1) = %v, want 2^%d", depth, p.out["z"], depth)
	}
}

// TestRulesAndInitialAssignments: assignment rules in reverse dependency
// order are substituted into rates; an initial assignment depending on a
// parameter keeps x0 a function of p; a rate rule on a parameter makes it
// a state; a speciesReference id is usable in math and as a target.
func TestRulesAndInitialAssignments(t *testing.T) {
	doc := l3(`<listOfCompartments><compartment id="C" size="1" constant="true"/></listOfCompartments>
<listOfSpecies>
<species id="A" compartment="C" initialConcentration="1" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="B" compartment="C" initialConcentration="0" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
</listOfSpecies>
<listOfParameters>
<parameter id="k" value="2" constant="true"/>
<parameter id="k2" constant="false"/>
<parameter id="k3" constant="false"/>
<parameter id="q" value="0" constant="false"/>
</listOfParameters>
<listOfInitialAssignments>
<initialAssignment symbol="A">` + ma(ap("times", cn("3"), "<ci>k</ci>")) + `</initialAssignment>
<initialAssignment symbol="sr">` + ma(cn("2")) + `</initialAssignment>
</listOfInitialAssignments>
<listOfRules>
<assignmentRule variable="k3">` + ma(ap("times", cn("2"), "<ci>k2</ci>")) + `</assignmentRule>
<assignmentRule variable="k2">` + ma(ap("plus", "<ci>k</ci>", "<ci>B</ci>")) + `</assignmentRule>
<rateRule variable="q">` + ma(ap("times", "<ci>k3</ci>", "<ci>sr</ci>")) + `</rateRule>
</listOfRules>
<listOfReactions><reaction id="R" reversible="false">
<listOfReactants><speciesReference id="sr" species="A" constant="true"/></listOfReactants>
<listOfProducts><speciesReference species="B" stoichiometry="1" constant="true"/></listOfProducts>
<kineticLaw>` + ma(ap("times", "<ci>k3</ci>", "<ci>A</ci>")) + `</kineticLaw>
</reaction></listOfReactions>`)
	ode := lowerDoc(t, doc, nil)
	if got := stateNames(ode); got != "A,B,q" {
		t.Fatalf("states %s", got)
	}
	if got := paramNames(ode); got != "k" {
		t.Fatalf("params %s", got)
	}
	if !dependsOn(ode.States[0].Init, "k") {
		t.Errorf("x0 of A does not depend on k")
	}
	x := []float64{0.7, 0.2, 5}
	p := evalAt(ode, 0, x)
	k3 := 2 * (2 + x[1])
	wantF := []float64{-2 * k3 * x[0], k3 * x[0], k3 * 2}
	for i := range wantF {
		if !near(p.f[i], wantF[i]) {
			t.Errorf("f[%d] = %v, want %v", i, p.f[i], wantF[i])
		}
	}
	if !near(p.x0[0], 6) || !near(p.out["sr"], 2) || !near(p.out["k3"], k3) {
		t.Errorf("x0 %v, sr %v, k3 %v", p.x0, p.out["sr"], p.out["k3"])
	}
}

func dependsOn(n *symbolic.Node, name string) bool {
	if n.Op == symbolic.OpSym {
		return n.Name == name
	}
	for _, a := range n.Args {
		if dependsOn(a, name) {
			return true
		}
	}
	return false
}

// TestVaryingCompartment: a compartment with a rate rule makes its
// reacting species amount states whose value in math is amount/size; an
// unreacting species keeps its amount and dilutes; a conversion factor
// scales the reaction's effect.
func TestVaryingCompartment(t *testing.T) {
	doc := l3(`<listOfCompartments><compartment id="V" size="2" constant="false"/></listOfCompartments>
<listOfSpecies>
<species id="S" compartment="V" initialConcentration="3" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false" conversionFactor="cf"/>
<species id="P" compartment="V" initialConcentration="1" hasOnlySubstanceUnits="false" boundaryCondition="true" constant="false"/>
</listOfSpecies>
<listOfParameters><parameter id="k" value="0.5" constant="true"/><parameter id="cf" value="4" constant="true"/></listOfParameters>
<listOfRules><rateRule variable="V">` + ma(cn("0.1")) + `</rateRule></listOfRules>
<listOfReactions><reaction id="R" reversible="false">
<listOfReactants><speciesReference species="S" stoichiometry="1" constant="true"/></listOfReactants>
<kineticLaw>` + ma(ap("times", "<ci>k</ci>", "<ci>S</ci>")) + `</kineticLaw>
</reaction></listOfReactions>`)
	ode := lowerDoc(t, doc, nil)
	if got := stateNames(ode); got != "S,V" {
		t.Fatalf("states %s", got)
	}
	if got := paramNames(ode); got != "k,cf" {
		t.Fatalf("params %s", got)
	}
	x := []float64{6, 3} // amount of S, size V
	p := evalAt(ode, 1, x)
	if !near(p.x0[0], 6) || !near(p.x0[1], 2) {
		t.Errorf("x0 %v, want [6 2]", p.x0)
	}
	if want := -0.5 * (6.0 / 3) * 4; !near(p.f[0], want) || !near(p.f[1], 0.1) {
		t.Errorf("f %v, want [%v 0.1]", p.f, want)
	}
	for name, want := range map[string]float64{"S": 2, "amount:S": 6, "conc:S": 2, "P": 2.0 / 3, "amount:P": 2} {
		if !near(p.out[name], want) {
			t.Errorf("output %s = %v, want %v", name, p.out[name], want)
		}
	}
}

// TestLevel2: L2 defaults (stoichiometry 1, constant parameters,
// reversible reactions) and kinetic-law parameters shadowing globals.
func TestLevel2(t *testing.T) {
	doc := l2(`<listOfCompartments><compartment id="C" size="0.5"/></listOfCompartments>
<listOfSpecies><species id="S" compartment="C" initialAmount="1"/><species id="P" compartment="C" initialAmount="0"/></listOfSpecies>
<listOfParameters><parameter id="k" value="100"/></listOfParameters>
<listOfReactions><reaction id="R">
<listOfReactants><speciesReference species="S"/></listOfReactants>
<listOfProducts><speciesReference species="P" stoichiometry="2"/></listOfProducts>
<kineticLaw>` + ma(ap("times", "<ci>k</ci>", "<ci>S</ci>")) + `
<listOfParameters><parameter id="k" value="3"/></listOfParameters></kineticLaw>
</reaction></listOfReactions>`)
	ode := lowerDoc(t, doc, nil)
	if got := paramNames(ode); got != "k" {
		t.Fatalf("params %s", got)
	}
	p := evalAt(ode, 0, nil)
	// [S]0 = 2; rate = 3 * 2 (local k) in amount/time; d[S]/dt = -6/0.5.
	if !near(p.x0[0], 2) || !near(p.f[0], -12) || !near(p.f[1], 24) {
		t.Errorf("x0 %v f %v", p.x0, p.f)
	}
}

// TestOptions: parameter selection and order, compartments and initial
// values as parameters.
func TestOptions(t *testing.T) {
	doc := l3(`<listOfCompartments><compartment id="C" size="2" constant="true"/></listOfCompartments>
<listOfSpecies><species id="S" compartment="C" initialAmount="3" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/></listOfSpecies>
<listOfParameters><parameter id="a" value="1" constant="true"/><parameter id="b" value="2" constant="true"/><parameter id="c" value="5" constant="false"/></listOfParameters>
<listOfReactions><reaction id="R" reversible="false">
<listOfReactants><speciesReference species="S" stoichiometry="1" constant="true"/></listOfReactants>
<kineticLaw>` + ma(ap("times", "<ci>a</ci>", "<ci>b</ci>", "<ci>c</ci>", "<ci>S</ci>")) + `</kineticLaw>
</reaction></listOfReactions>`)
	ode := lowerDoc(t, doc, &Options{SensCompartments: true, SensInitials: true})
	if got := paramNames(ode); got != "a,b,C,init_S" {
		t.Fatalf("params %s", got)
	}
	if v := ode.Params[3].Value; !near(v, 1.5) {
		t.Errorf("init_S = %v, want 1.5", v)
	}
	if !dependsOn(ode.States[0].Init, "init_S") {
		t.Errorf("x0 does not depend on init_S")
	}
	ode = lowerDoc(t, doc, &Options{Params: []string{"b", "C"}, SensCompartments: true})
	if got := paramNames(ode); got != "b,C" {
		t.Fatalf("params %s", got)
	}
	p := evalAt(ode, 0, nil)
	if !near(p.f[0], -1*2*5*1.5/2) {
		t.Errorf("f = %v", p.f)
	}
	m, _ := Read(strings.NewReader(doc), "o.xml")
	for _, opt := range []Options{{Params: []string{"zz"}}, {Params: []string{"c"}}, {Params: []string{"a", "a"}}, {Params: []string{"C"}}} {
		_, err := m.ODE(&opt)
		if err == nil || !strings.HasPrefix(err.Error(), "o.xml: option Params") {
			t.Errorf("%v: got error %v", opt.Params, err)
		}
	}
}

// TestIgnoredAndZeroD: annotations, notes and layout elements are
// ignored; species in a 0-D compartment count amounts; avogadro works.
func TestIgnoredAndZeroD(t *testing.T) {
	doc := strings.Replace(l3(`<notes><p xmlns="http://www.w3.org/1999/xhtml">free <b>text</b></p></notes>
<annotation><any><deep><xml/></deep></any></annotation>
<layout:listOfLayouts xmlns:layout="http://www.sbml.org/sbml/level3/version1/layout/version1"><layout:layout layout:id="l"/></layout:listOfLayouts>
<listOfCompartments><compartment id="P" spatialDimensions="0" constant="true"/></listOfCompartments>
<listOfSpecies><species id="S" compartment="P" initialAmount="4" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/></listOfSpecies>
<listOfParameters><parameter id="k" value="1e-23" constant="true"/></listOfParameters>
<listOfReactions><reaction id="R" reversible="false">
<listOfReactants><speciesReference species="S" stoichiometry="1" constant="true"/></listOfReactants>
<kineticLaw>`+ma(ap("times", "<ci>k</ci>", "<ci>S</ci>", `<csymbol definitionURL="http://www.sbml.org/sbml/symbols/avogadro">A</csymbol>`))+`</kineticLaw>
</reaction></listOfReactions>`), `level="3"`, `xmlns:layout="http://www.sbml.org/sbml/level3/version1/layout/version1" layout:required="false" level="3"`, 1)
	ode := lowerDoc(t, doc, nil)
	p := evalAt(ode, 0, nil)
	if ode.States[0].Meta["units"] != "amount" || !near(p.x0[0], 4) || !near(p.f[0], -1e-23*4*6.02214179e23) {
		t.Errorf("meta %v x0 %v f %v", ode.States[0].Meta, p.x0, p.f)
	}
}

// TestNonFiniteDeclarations: an infinite compartment size or
// stoichiometry is refused at its element.
func TestNonFiniteDeclarations(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{l3(`<listOfCompartments><compartment id="C" size="INF" constant="true"/></listOfCompartments>`), `x.xml:4: compartment "C": size +Inf is not finite`},
		{l3(comp1 + "\n" + spS + "\n" + paramK + "\n" + strings.Replace(law("<ci>k</ci>"), `stoichiometry="1"`, `stoichiometry="NaN"`, 1)),
			`x.xml:8: speciesReference: stoichiometry NaN is not finite`},
	} {
		_, err := Read(strings.NewReader(c.doc), "x.xml")
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}
