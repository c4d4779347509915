package parser

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const compRoot = `<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" xmlns:comp="http://www.sbml.org/sbml/level3/version1/comp/version1" level="3" version="2" comp:required="true">
`

// decayDef is a model definition: S in C decays at rate k*S (amount per
// time k*S*C), k = 9 (replaced below), and an assignment rule y = 2*t.
const decayDef = `<comp:modelDefinition id="decay">
<listOfCompartments><compartment id="C" size="2" constant="true"/></listOfCompartments>
<listOfSpecies><species id="S" compartment="C" initialConcentration="3" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/></listOfSpecies>
<listOfParameters><parameter id="k" value="9" constant="true"/><parameter id="y" constant="false"/><parameter id="gone" value="1" constant="true"/></listOfParameters>
<listOfRules><assignmentRule variable="y">` + mathOpen + `<apply><times/><cn>2</cn><csymbol definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol></apply></math></assignmentRule></listOfRules>
<listOfReactions><reaction id="R" reversible="false">
<listOfReactants><speciesReference species="S" stoichiometry="1" constant="true"/></listOfReactants>
<kineticLaw>` + mathOpen + `<apply><times/><ci>k</ci><ci>S</ci><ci>C</ci></apply></math></kineticLaw></reaction></listOfReactions>
<comp:listOfPorts><comp:port comp:id="k_port" comp:idRef="k"/></comp:listOfPorts>
</comp:modelDefinition>
`

// TestCompTwoLevels: the main model holds submodel B of "outer", which
// holds submodel in of "decay". The main model's k replaces B's in's k
// through a port, B has a time conversion factor tc and an extent
// conversion factor xf, and a deletion removes the parameter gone. The
// flat model must equal the hand-flattened one, with libSBML's names.
func TestCompTwoLevels(t *testing.T) {
	doc := compRoot + `<model id="top">
<listOfParameters>
<parameter id="k" value="0.5" constant="true"><comp:listOfReplacedElements>
<comp:replacedElement comp:submodelRef="B" comp:idRef="in"><comp:sBaseRef comp:portRef="k_port"/></comp:replacedElement>
</comp:listOfReplacedElements></parameter>
<parameter id="tc" value="4" constant="true"/><parameter id="xf" value="3" constant="true"/>
</listOfParameters>
<comp:listOfSubmodels><comp:submodel comp:id="B" comp:modelRef="outer" comp:timeConversionFactor="tc" comp:extentConversionFactor="xf">
<comp:listOfDeletions><comp:deletion comp:idRef="in"><comp:sBaseRef comp:idRef="gone"/></comp:deletion></comp:listOfDeletions>
</comp:submodel></comp:listOfSubmodels>
</model>
<comp:listOfModelDefinitions>
<comp:modelDefinition id="outer"><comp:listOfSubmodels><comp:submodel comp:id="in" comp:modelRef="decay"/></comp:listOfSubmodels></comp:modelDefinition>
` + decayDef + `</comp:listOfModelDefinitions>
</sbml>
`
	hand := l3(`<listOfCompartments><compartment id="B__in__C" size="2" constant="true"/></listOfCompartments>
<listOfSpecies><species id="B__in__S" compartment="B__in__C" initialConcentration="3" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/></listOfSpecies>
<listOfParameters><parameter id="k" value="0.5" constant="true"/><parameter id="tc" value="4" constant="true"/><parameter id="xf" value="3" constant="true"/>
<parameter id="B__in__y" constant="false"/></listOfParameters>
<listOfRules><assignmentRule variable="B__in__y">` + ma(ap("times", cn("2"), ap("divide", `<csymbol definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol>`, "<ci>tc</ci>"))) + `</assignmentRule></listOfRules>
<listOfReactions><reaction id="B__in__R" reversible="false">
<listOfReactants><speciesReference species="B__in__S" stoichiometry="1" constant="true"/></listOfReactants>
<kineticLaw>` + ma(ap("divide", ap("times", ap("times", "<ci>k</ci>", "<ci>B__in__S</ci>", "<ci>B__in__C</ci>"), "<ci>xf</ci>"), "<ci>tc</ci>")) + `</kineticLaw></reaction></listOfReactions>`)
	flat, want := lowerDoc(t, doc, nil), lowerDoc(t, hand, nil)
	if got, w := stateNames(flat), stateNames(want); got != w {
		t.Fatalf("states %s, want %s", got, w)
	}
	if got, w := paramNames(flat), paramNames(want); got != w {
		t.Fatalf("params %s, want %s", got, w)
	}
	x := []float64{1.25}
	a, b := evalAt(flat, 3, x), evalAt(want, 3, x)
	if !near(a.x0[0], b.x0[0]) || !near(a.f[0], b.f[0]) {
		t.Errorf("x0 %v f %v, want %v %v", a.x0, a.f, b.x0, b.f)
	}
	if w := -0.5 * 1.25 * 2 * 3 / 4 / 2; !near(a.f[0], w) {
		t.Errorf("rate %v, want %v", a.f[0], w)
	}
	for name, w := range b.out {
		if got, ok := a.out[name]; !ok || !near(got, w) {
			t.Errorf("output %s = %v (present %v), want %v", name, got, ok, w)
		}
	}
	if _, ok := a.out["B__in__gone"]; ok {
		t.Errorf("deleted parameter B__in__gone is in the flat model")
	}
	if !near(a.out["B__in__y"], 2*3.0/4) {
		t.Errorf("B__in__y = %v, want 2*t/tc", a.out["B__in__y"])
	}
}

// TestCompReplacedBy: a main-model parameter replaced by a submodel's
// takes the submodel parameter's definition and keeps its own id; a
// replacedElement with a conversion factor scales the submodel's rule.
func TestCompReplacedBy(t *testing.T) {
	doc := compRoot + `<model id="top">
<listOfParameters>
<parameter id="kk" value="1" constant="true"><comp:replacedBy comp:submodelRef="A" comp:idRef="k"/></parameter>
<parameter id="yy" constant="false"><comp:listOfReplacedElements><comp:replacedElement comp:submodelRef="A" comp:idRef="y" comp:conversionFactor="cf"/></comp:listOfReplacedElements></parameter>
<parameter id="cf" value="10" constant="true"/>
</listOfParameters>
<comp:listOfSubmodels><comp:submodel comp:id="A" comp:modelRef="decay"/></comp:listOfSubmodels>
</model>
<comp:listOfModelDefinitions>` + decayDef + `</comp:listOfModelDefinitions>
</sbml>
`
	ode := lowerDoc(t, doc, nil)
	p := evalAt(ode, 1.5, nil)
	if !near(p.out["kk"], 9) {
		t.Errorf("kk = %v, want the submodel's 9", p.out["kk"])
	}
	if _, ok := p.out["A__k"]; ok {
		t.Errorf("A__k survived its replacedBy")
	}
	if !near(p.out["yy"], 2*1.5*10) {
		t.Errorf("yy = %v, want 2*t*cf", p.out["yy"])
	}
	if !near(p.f[0], -9*3.0) {
		t.Errorf("d[A__S]/dt = %v, want -kk*S", p.f[0])
	}
}

// TestCompExternal reads an external model definition from a file in the
// same folder.
func TestCompExternal(t *testing.T) {
	dir := t.TempDir()
	ext := compRoot + `<model id="lib"/><comp:listOfModelDefinitions>` + decayDef + `</comp:listOfModelDefinitions></sbml>`
	if err := os.WriteFile(filepath.Join(dir, "lib.xml"), []byte(ext), 0o644); err != nil {
		t.Fatal(err)
	}
	main := compRoot + `<model id="top">
<comp:listOfSubmodels><comp:submodel comp:id="A" comp:modelRef="X"/></comp:listOfSubmodels></model>
<comp:listOfExternalModelDefinitions><comp:externalModelDefinition comp:id="X" comp:source="lib.xml" comp:modelRef="decay"/></comp:listOfExternalModelDefinitions>
</sbml>`
	path := filepath.Join(dir, "main.xml")
	if err := os.WriteFile(path, []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ode, err := m.ODE(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := stateNames(ode); got != "A__S" {
		t.Errorf("states %s", got)
	}
	if got := evalAt(ode, 0, nil).f[0]; !near(got, -9*3) {
		t.Errorf("rate %v, want -27", got)
	}
}

// TestCompErrors: bad references are errors naming the file, the line,
// the comp element and what is missing.
func TestCompErrors(t *testing.T) {
	wrap := func(top, defs string) string {
		return compRoot + `<model id="top">` + top + `</model><comp:listOfModelDefinitions>` + defs + `</comp:listOfModelDefinitions></sbml>`
	}
	sub := `<comp:listOfSubmodels><comp:submodel comp:id="A" comp:modelRef="decay"/></comp:listOfSubmodels>`
	cases := []struct{ name, doc, marker, want string }{
		{"replacement pointing nowhere", wrap(`<listOfParameters><parameter id="k" value="1" constant="true"><comp:listOfReplacedElements>
<comp:replacedElement comp:submodelRef="A" comp:idRef="nope"/></comp:listOfReplacedElements></parameter></listOfParameters>`+sub, decayDef),
			`<comp:replacedElement`, `comp:replacedElement: id "nope" does not exist in submodel "A"`},
		{"unknown submodel", wrap(`<listOfParameters><parameter id="k" value="1" constant="true"><comp:listOfReplacedElements>
<comp:replacedElement comp:submodelRef="Z" comp:idRef="k"/></comp:listOfReplacedElements></parameter></listOfParameters>`+sub, decayDef),
			`<comp:replacedElement`, `comp:replacedElement "Z": submodel "Z" does not exist in the model`},
		{"unknown port", wrap(`<listOfParameters><parameter id="k" value="1" constant="true"><comp:listOfReplacedElements>
<comp:replacedElement comp:submodelRef="A" comp:portRef="p9"/></comp:listOfReplacedElements></parameter></listOfParameters>`+sub, decayDef),
			`<comp:replacedElement`, `comp:replacedElement "p9": port "p9" does not exist in submodel "A"`},
		{"unknown model", wrap(`<comp:listOfSubmodels>
<comp:submodel comp:id="A" comp:modelRef="nothing"/></comp:listOfSubmodels>`, decayDef),
			`<comp:submodel comp:id="A"`, `comp:submodel: model "nothing" is not defined`},
		{"cycle", wrap(`<comp:listOfSubmodels><comp:submodel comp:id="A" comp:modelRef="a"/></comp:listOfSubmodels>`, `
<comp:modelDefinition id="a"><comp:listOfSubmodels><comp:submodel comp:id="B" comp:modelRef="a"/></comp:listOfSubmodels></comp:modelDefinition>`),
			`<comp:modelDefinition id="a">`, `comp:modelDefinition "a": model instantiates itself through its submodels`},
		{"whole submodel deleted", wrap(`<comp:listOfSubmodels><comp:submodel comp:id="A" comp:modelRef="outer">
<comp:listOfDeletions><comp:deletion comp:idRef="in"/></comp:listOfDeletions></comp:submodel></comp:listOfSubmodels>`,
			`<comp:modelDefinition id="outer"><comp:listOfSubmodels><comp:submodel comp:id="in" comp:modelRef="decay"/></comp:listOfSubmodels></comp:modelDefinition>`+decayDef),
			`<comp:deletion`, `comp:deletion: comp deletion of a whole submodel or port is not supported`},
	}
	for _, c := range cases {
		_, err := Read(strings.NewReader(c.doc), "bad.xml")
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Errorf("%s: got %v, want an ErrorList", c.name, err)
			continue
		}
		want := fmt.Sprintf("bad.xml:%d: %s", lineOf(t, c.doc, c.marker), c.want)
		if got := list[0].Error(); got != want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.name, got, want)
		}
	}
}

// TestOptionalPackage: elements of a package declared required="false"
// are ignored; undeclared ones are still refused (TestErrors).
func TestOptionalPackage(t *testing.T) {
	doc := strings.Replace(l3(basics+law(`<ci>k</ci>`)+`
<fbc:listOfObjectives xmlns:fbc="http://www.sbml.org/sbml/level3/version1/fbc/version2"/>`), `level="3" version="2"`,
		`xmlns:fbc="http://www.sbml.org/sbml/level3/version1/fbc/version2" fbc:required="false" level="3" version="2"`, 1)
	ode := lowerDoc(t, doc, nil)
	if got := stateNames(ode); got != "S" {
		t.Errorf("states %s", got)
	}
}

// TestCompTimeRateOf: in a submodel whose time runs 4 times slower,
// a rate rule p' = 1 becomes p' = 1/4 in model time, and rateOf(p) in
// the submodel still reads 1 (its own time units).
func TestCompTimeRateOf(t *testing.T) {
	doc := compRoot + `<model id="top">
<listOfParameters><parameter id="tc" value="4" constant="true"/></listOfParameters>
<comp:listOfSubmodels><comp:submodel comp:id="A" comp:modelRef="d" comp:timeConversionFactor="tc"/></comp:listOfSubmodels></model>
<comp:listOfModelDefinitions><comp:modelDefinition id="d">
<listOfParameters><parameter id="p" value="0" constant="false"/><parameter id="q" constant="false"/></listOfParameters>
<listOfRules><rateRule variable="p">` + ma(cn("1")) + `</rateRule>
<assignmentRule variable="q">` + ma(rateOfCi("p")) + `</assignmentRule></listOfRules>
</comp:modelDefinition></comp:listOfModelDefinitions></sbml>`
	p := evalAt(lowerDoc(t, doc, nil), 1, nil)
	if !near(p.f[0], 0.25) || !near(p.out["A__q"], 1) {
		t.Errorf("A__p' = %v, A__q = %v; want 0.25, 1", p.f[0], p.out["A__q"])
	}
}

// TestCompBlowUp: definitions that each hold two submodels of the next
// flatten to 2^n copies; past MaxFlatElements that is an error, not a
// run out of memory.
func TestCompBlowUp(t *testing.T) {
	var defs strings.Builder
	const n = 30
	for i := 0; i < n; i++ {
		fmt.Fprintf(&defs, `<comp:modelDefinition id="d%d"><listOfParameters><parameter id="x" value="1" constant="true"/></listOfParameters>
<comp:listOfSubmodels><comp:submodel comp:id="a" comp:modelRef="d%d"/><comp:submodel comp:id="b" comp:modelRef="d%d"/></comp:listOfSubmodels></comp:modelDefinition>
`, i, i+1, i+1)
	}
	fmt.Fprintf(&defs, `<comp:modelDefinition id="d%d"><listOfParameters><parameter id="x" value="1" constant="true"/></listOfParameters></comp:modelDefinition>`, n)
	doc := compRoot + `<model id="top"><comp:listOfSubmodels><comp:submodel comp:id="s" comp:modelRef="d0"/></comp:listOfSubmodels></model>
<comp:listOfModelDefinitions>` + defs.String() + `</comp:listOfModelDefinitions></sbml>`
	_, err := Read(strings.NewReader(doc), "big.xml")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("flattened model larger than %d elements", MaxFlatElements)) {
		t.Errorf("got %v, want the flattened size limit", err)
	}
}

// TestCompExternalErrors: an error in an external model definition's
// file names that file; a missing file is an error at the
// externalModelDefinition.
func TestCompExternalErrors(t *testing.T) {
	dir := t.TempDir()
	ext := compRoot + `<model id="lib">
<listOfParameters><parameter id="x" value="1.2.3" constant="true"/></listOfParameters></model></sbml>`
	if err := os.WriteFile(filepath.Join(dir, "lib.xml"), []byte(ext), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ src, want string }{
		{"lib.xml", filepath.Join(dir, "lib.xml") + `:4: parameter "A__x": attribute value: `},
		{"none.xml", filepath.Join(dir, "main.xml") + `:5: comp:externalModelDefinition "X": open `},
		{"../lib.xml", filepath.Join(dir, "main.xml") + `:5: comp:externalModelDefinition "X": source "../lib.xml" is not a file in the document's folder`},
		{"/etc/passwd", filepath.Join(dir, "main.xml") + `:5: comp:externalModelDefinition "X": source "/etc/passwd" is not a file in the document's folder`},
	} {
		main := compRoot + `<model id="top">
<comp:listOfSubmodels><comp:submodel comp:id="A" comp:modelRef="X"/></comp:listOfSubmodels></model>
<comp:listOfExternalModelDefinitions><comp:externalModelDefinition comp:id="X" comp:source="` + c.src + `"/></comp:listOfExternalModelDefinitions>
</sbml>`
		path := filepath.Join(dir, "main.xml")
		if err := os.WriteFile(path, []byte(main), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(path)
		var list ErrorList
		if !errors.As(err, &list) || !strings.HasPrefix(list[0].Error(), c.want) {
			t.Errorf("source %s: got %v, want %s...", c.src, err, c.want)
		}
	}
}

// localDef is a model definition with two reactions whose kinetic laws
// each declare a local parameter k (metaids k1 and k2, values 5 and 7)
// beside a global k = 9: S -> (rate k*S, law R1) and S -> (rate k*S, R2),
// S an amount in C of size 1, S(0) = 3. A port names k1.
const localDef = `<comp:modelDefinition id="twolaws">
<listOfCompartments><compartment id="C" size="1" constant="true"/></listOfCompartments>
<listOfSpecies><species id="S" compartment="C" initialAmount="3" hasOnlySubstanceUnits="true" boundaryCondition="false" constant="false"/></listOfSpecies>
<listOfParameters><parameter id="k" value="9" constant="true"/></listOfParameters>
<listOfReactions>
<reaction id="R1" reversible="false"><listOfReactants><speciesReference species="S" stoichiometry="1" constant="true"/></listOfReactants>
<kineticLaw>` + mathOpen + `<apply><times/><ci>k</ci><ci>S</ci></apply></math>
<listOfLocalParameters><localParameter metaid="k1" id="k" value="5"/></listOfLocalParameters></kineticLaw></reaction>
<reaction id="R2" reversible="false"><listOfReactants><speciesReference species="S" stoichiometry="1" constant="true"/></listOfReactants>
<kineticLaw>` + mathOpen + `<apply><times/><ci>k</ci><ci>S</ci></apply></math>
<listOfLocalParameters><localParameter metaid="k2" id="k" value="7"/></listOfLocalParameters></kineticLaw></reaction>
</listOfReactions>
<comp:listOfPorts><comp:port comp:id="k1_port" comp:metaIdRef="k1"/></comp:listOfPorts>
</comp:modelDefinition>
`

// TestCompLocalParameter: comp replacements that reach a kinetic law's
// local parameter through its metaid (directly, through a port, nested,
// with a conversion factor), and a local parameter that replaces an
// element of the containing model (replacedBy). Only the law that
// declares the parameter reads the replacement; the other law keeps its
// own k, and the submodel's global k is untouched.
func TestCompLocalParameter(t *testing.T) {
	wrap := func(params, submodel, defs string) string {
		return compRoot + `<model id="top"><listOfParameters>` + params + `</listOfParameters>
<comp:listOfSubmodels>` + submodel + `</comp:listOfSubmodels></model>
<comp:listOfModelDefinitions>` + defs + localDef + `</comp:listOfModelDefinitions></sbml>`
	}
	wrapRules := func(params, rules, submodel string) string {
		return compRoot + `<model id="top"><listOfParameters>` + params + `</listOfParameters>` + rules + `
<comp:listOfSubmodels>` + submodel + `</comp:listOfSubmodels></model>
<comp:listOfModelDefinitions>` + localDef + `</comp:listOfModelDefinitions></sbml>`
	}
	sub := `<comp:submodel comp:id="A" comp:modelRef="twolaws"/>`
	repl := func(ref string) string {
		return `<parameter id="kk" value="2" constant="true"><comp:listOfReplacedElements>
<comp:replacedElement comp:submodelRef="A" ` + ref + `/></comp:listOfReplacedElements></parameter>`
	}
	cases := []struct {
		name, doc string
		rate      float64 // dS/dt at S = 3
		param     string  // a sensitivity parameter the rate must depend on
	}{
		{"replacedElement metaIdRef", wrap(repl(`comp:metaIdRef="k1"`), sub, ""), -(2 + 7) * 3, "kk"},
		{"replacedElement portRef", wrap(repl(`comp:portRef="k1_port"`), sub, ""), -(2 + 7) * 3, "kk"},
		{"conversion factor", wrap(`<parameter id="cf" value="4" constant="true"/>`+
			strings.Replace(repl(`comp:metaIdRef="k2"`), `comp:metaIdRef`, `comp:conversionFactor="cf" comp:metaIdRef`, 1), sub, ""),
			-(5 + 2.0/4) * 3, "kk"},
		{"nested", wrap(`<parameter id="kk" value="2" constant="true"><comp:listOfReplacedElements>
<comp:replacedElement comp:submodelRef="B" comp:idRef="km"/></comp:listOfReplacedElements></parameter>`,
			`<comp:submodel comp:id="B" comp:modelRef="mid"/>`, `<comp:modelDefinition id="mid">
<listOfParameters><parameter id="km" value="11" constant="true"><comp:listOfReplacedElements>
<comp:replacedElement comp:submodelRef="A" comp:metaIdRef="k1"/></comp:listOfReplacedElements></parameter></listOfParameters>
<comp:listOfSubmodels>`+sub+`</comp:listOfSubmodels></comp:modelDefinition>`), -(2 + 7) * 3, "kk"},
		{"replacedBy", wrapRules(`<parameter id="kk" value="2" constant="true"><comp:replacedBy comp:submodelRef="A" comp:metaIdRef="k2"/></parameter>
<parameter id="q" constant="false"/>`, `<listOfRules><assignmentRule variable="q">`+ma(ap("times", cn("10"), "<ci>kk</ci>"))+`</assignmentRule></listOfRules>`, sub),
			-(5 + 7) * 3, "kk"},
	}
	for _, c := range cases {
		ode := lowerDoc(t, c.doc, nil)
		p := evalAt(ode, 0, nil)
		if len(ode.States) != 1 || !strings.HasSuffix(ode.States[0].Name, "A__S") {
			t.Errorf("%s: states %s, want the submodel's S alone", c.name, stateNames(ode))
			continue
		}
		if !near(p.f[0], c.rate) {
			t.Errorf("%s: dS/dt = %v, want %v", c.name, p.f[0], c.rate)
		}
		if !strings.Contains(","+paramNames(ode)+",", ","+c.param+",") {
			t.Errorf("%s: parameters %s lack %s", c.name, paramNames(ode), c.param)
		}
	}
	// The promoted local parameter is the main model's kk to its math.
	ode := lowerDoc(t, cases[len(cases)-1].doc, nil)
	if q := evalAt(ode, 0, nil).out["q"]; !near(q, 70) {
		t.Errorf("replacedBy: q = 10*kk = %v, want 70 (kk is the local parameter's 7)", q)
	}
}

// TestCompLocalReplacer: a local parameter of the containing model's
// kinetic law cannot replace a submodel element (the submodel's math
// would read a name scoped to another reaction): refused by name.
func TestCompLocalReplacer(t *testing.T) {
	doc := compRoot + `<model id="top">
<listOfCompartments><compartment id="D" size="1" constant="true"/></listOfCompartments>
<listOfSpecies><species id="T" compartment="D" initialAmount="1" hasOnlySubstanceUnits="true" boundaryCondition="false" constant="false"/></listOfSpecies>
<listOfReactions><reaction id="RT" reversible="false"><listOfReactants><speciesReference species="T" stoichiometry="1" constant="true"/></listOfReactants>
<kineticLaw>` + mathOpen + `<apply><times/><ci>kl</ci><ci>T</ci></apply></math>
<listOfLocalParameters><localParameter id="kl" value="1"><comp:listOfReplacedElements>
<comp:replacedElement comp:submodelRef="A" comp:idRef="k"/></comp:listOfReplacedElements></localParameter></listOfLocalParameters></kineticLaw></reaction></listOfReactions>
<comp:listOfSubmodels><comp:submodel comp:id="A" comp:modelRef="twolaws"/></comp:listOfSubmodels></model>
<comp:listOfModelDefinitions>` + localDef + `</comp:listOfModelDefinitions></sbml>`
	_, err := Read(strings.NewReader(doc), "bad.xml")
	want := fmt.Sprintf(`bad.xml:%d: comp:replacedElement "kl": comp replacement by a local parameter of a kinetic law is not supported`, lineOf(t, doc, `<comp:replacedElement`))
	var list ErrorList
	if !errors.As(err, &list) || len(list) == 0 || list[0].Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
