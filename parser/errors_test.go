package parser

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// lineOf is the 1-based line of the first occurrence of marker in doc.
func lineOf(t *testing.T, doc, marker string) int {
	t.Helper()
	i := strings.Index(doc, marker)
	if i < 0 {
		t.Fatalf("marker %q not in document", marker)
	}
	return strings.Count(doc[:i], "\n") + 1
}

const (
	comp1   = `<listOfCompartments><compartment id="C" size="1" constant="true"/></listOfCompartments>`
	spS     = `<listOfSpecies><species id="S" compartment="C" initialAmount="1" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/></listOfSpecies>`
	paramK  = `<listOfParameters><parameter id="k" value="1" constant="true"/></listOfParameters>`
	basics  = comp1 + "\n" + spS + "\n" + paramK + "\n"
	rxnOpen = `<listOfReactions><reaction id="R" reversible="false">
<listOfReactants><speciesReference species="S" stoichiometry="1" constant="true"/></listOfReactants>
`
)

func law(m string) string {
	return rxnOpen + `<kineticLaw>` + ma(m) + "</kineticLaw>\n</reaction></listOfReactions>"
}

// TestErrors checks the full text of the first error (file, line, element,
// id, message) for each refused construct and each kind of bad input.
func TestErrors(t *testing.T) {
	csym := func(name string) string {
		return `<csymbol definitionURL="http://www.sbml.org/sbml/symbols/` + name + `">` + name + `</csymbol>`
	}
	cases := []struct {
		name, doc, marker, want string
		lower                   bool // the error appears in ODE, not Read
	}{
		{name: "event assigns a constant", doc: l3(basics + `<listOfEvents><event id="E1" useValuesFromTriggerTime="true">
<trigger initialValue="true" persistent="true">` + ma(`<true/>`) + `</trigger><listOfEventAssignments>
<eventAssignment variable="k">` + ma(`<cn>2</cn>`) + `</eventAssignment></listOfEventAssignments></event></listOfEvents>`),
			marker: `<eventAssignment`, want: `eventAssignment "E1": assignment to the constant parameter "k"`},
		{name: "event assigns an unknown id", doc: l3(basics + `<listOfEvents><event useValuesFromTriggerTime="true">
<trigger initialValue="true" persistent="true">` + ma(`<true/>`) + `</trigger><listOfEventAssignments>
<eventAssignment variable="Q">` + ma(`<cn>2</cn>`) + `</eventAssignment></listOfEventAssignments></event></listOfEvents>`),
			marker: `<eventAssignment`, want: `eventAssignment "event#1": variable "Q" does not exist`},
		{name: "trigger flags", doc: l3(basics + `<listOfEvents><event id="E1" useValuesFromTriggerTime="true">
<trigger persistent="true">` + ma(`<true/>`) + `</trigger></event></listOfEvents>`),
			marker: `<trigger`, want: `event "E1": trigger has no initialValue (required in Level 3)`},
		{name: "trigger math", doc: l3(basics + `<listOfEvents><event id="E1" useValuesFromTriggerTime="true">
<trigger initialValue="true" persistent="true">` + ma("\n<apply><gt/><ci>Q</ci><cn>1</cn></apply>") + `</trigger></event></listOfEvents>`),
			marker: `<apply><gt/><ci>Q`, want: `event "E1": unknown identifier "Q"`},
		{name: "event id as a value", doc: l3(basics + law("\n<ci>E1</ci>") + `<listOfEvents><event id="E1" useValuesFromTriggerTime="true">
<trigger initialValue="true" persistent="true">` + ma(`<true/>`) + `</trigger></event></listOfEvents>`),
			marker: `<ci>E1`, want: `reaction "R": event "E1" used as a value`},
		{name: "delay of one argument", doc: l3(basics + law("\n<apply>"+csym("delay")+"<ci>S</ci></apply>")), marker: `<apply><csymbol`,
			want: `reaction "R": csymbol delay takes two arguments (the expression and the delay), not 1`},
		{name: "algebraic rule", doc: l3(basics + `<listOfRules>
<algebraicRule>` + ma(`<ci>k</ci>`) + `</algebraicRule></listOfRules>`), lower: true, marker: `<algebraicRule`,
			want: `algebraicRule: algebraic rule that determines no variable (no variable in it is left undetermined by other rules, reactions, events or constant declarations) is not supported`},
		{name: "fast reaction", doc: l3(basics + `<listOfReactions>
<reaction id="R" reversible="false" fast="true">
<listOfReactants><speciesReference species="S" stoichiometry="1" constant="true"/></listOfReactants>
<kineticLaw>` + ma(`<apply><times/><ci>k</ci><ci>S</ci></apply>`) + `</kineticLaw></reaction>
<reaction id="R2" reversible="false" fast="true">
<listOfReactants><speciesReference species="S" stoichiometry="2" constant="true"/></listOfReactants>
<kineticLaw>` + ma(`<apply><times/><ci>k</ci><ci>S</ci><ci>S</ci></apply>`) + `</kineticLaw></reaction></listOfReactions>`), lower: true, marker: `<reaction id="R"`,
			want: `reaction "R": linearly dependent fast reactions (2 reactions of rank 1) are not supported`},
		{name: "stoichiometryMath in L3", doc: l3(basics + `<listOfReactions><reaction id="R" reversible="false">
<listOfReactants><speciesReference species="S" constant="true">
<stoichiometryMath>` + ma(`<cn>2</cn>`) + `</stoichiometryMath></speciesReference></listOfReactants>
<kineticLaw>` + ma(`<ci>k</ci>`) + `</kineticLaw></reaction></listOfReactions>`), marker: `<stoichiometryMath`,
			want: `speciesReference: stoichiometryMath is not part of SBML Level 3 (use an assignment rule to the species reference's id)`},
		{name: "stoichiometry and stoichiometryMath", doc: l2(basics + `<listOfReactions><reaction id="R">
<listOfReactants><speciesReference species="S" stoichiometry="2">
<stoichiometryMath>` + ma(`<cn>2</cn>`) + `</stoichiometryMath></speciesReference></listOfReactants>
<kineticLaw>` + ma(`<ci>k</ci>`) + `</kineticLaw></reaction></listOfReactions>`), marker: `<speciesReference species="S" stoichiometry="2">`,
			want: `speciesReference: both a stoichiometry attribute and stoichiometryMath`},
		{name: "delay not applied", doc: l3(basics + law("\n"+csym("delay"))), marker: `<csymbol`, want: `reaction "R": csymbol delay is a function: it must be the first child of <apply>`},
		{name: "rateOf of an expression", doc: l3(basics + law("\n<apply>"+csym("rateOf")+"<apply><plus/><ci>S</ci><ci>k</ci></apply></apply>")), marker: `<apply><csymbol`,
			want: `reaction "R": csymbol rateOf takes one argument, a <ci>`},
		{name: "rateOf not applied", doc: l3(basics + law("\n"+csym("rateOf"))), marker: `<csymbol`,
			want: `reaction "R": csymbol rateOf is a function: it must be the first child of <apply>`},
		{name: "rateOf cycle", doc: l3(`<listOfParameters><parameter id="p" value="1" constant="false"/></listOfParameters>
<listOfRules><rateRule variable="p">` + ma("\n<apply>"+csym("rateOf")+"<ci>p</ci></apply>") + `</rateRule></listOfRules>`), lower: true,
			marker: `<apply><csymbol`, want: `parameter "rateOf(p)": cyclic dependency of rates through csymbol rateOf: rateOf(p) -> rateOf(p)`},
		{name: "rateOf of an assigned variable", doc: l3(`<listOfParameters><parameter id="p" constant="false"/><parameter id="q" constant="false"/></listOfParameters>
<listOfRules><assignmentRule variable="p">` + ma(`<csymbol definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol>`) + `</assignmentRule>
<assignmentRule variable="q">` + ma("\n<apply>"+csym("rateOf")+"<ci>p</ci></apply>") + `</assignmentRule></listOfRules>`), lower: true,
			marker: `<apply><csymbol`, want: `parameter "rateOf(p)": csymbol rateOf of "p", which an assignment rule sets`},
		{name: "unknown MathML", doc: l3(basics + law("\n<apply><gcd/><ci>S</ci><cn>2</cn></apply>")), marker: `<gcd`, want: `reaction "R": MathML operator <gcd> is not supported`},
		{name: "unknown MathML element", doc: l3(basics + law("\n<vector><ci>S</ci></vector>")), marker: `<vector`, want: `reaction "R": MathML element <vector> is not supported`},
		{name: "required package", doc: strings.Replace(l3(basics), `level="3" version="2"`,
			`xmlns:fbc="http://www.sbml.org/sbml/level3/version1/fbc/version2" fbc:required="true" level="3" version="2"`, 1),
			marker: `<sbml`, want: `sbml: required SBML package "fbc" is not supported`},
		{name: "required package beside comp", doc: strings.Replace(l3(basics), `level="3" version="2"`,
			`xmlns:comp="http://www.sbml.org/sbml/level3/version1/comp/version1" comp:required="true" xmlns:fbc="http://www.sbml.org/sbml/level3/version1/fbc/version2" fbc:required="true" level="3" version="2"`, 1),
			marker: `<sbml`, want: `sbml: required SBML package "fbc" is not supported`},
		{name: "package element", doc: l3(basics + `<fbc:listOfObjectives xmlns:fbc="http://www.sbml.org/sbml/level3/version1/fbc/version2"/>`),
			marker: `<fbc:`, want: `fbc:listOfObjectives: SBML package "fbc" is not supported`},
		{name: "level 1", doc: `<sbml xmlns="http://www.sbml.org/sbml/level1" level="1" version="2"><model/></sbml>`,
			marker: `<sbml`, want: `sbml: SBML Level 1 is not supported`},
		{name: "malformed", doc: l3(basics + "\n<listOfRules></listOfReactions>"), marker: `</listOfReactions>`,
			want: "sbml: malformed XML: element <listOfRules> closed by </listOfReactions>"},
		{name: "unknown id", doc: l3(basics + law("\n<ci> Q </ci>")), marker: `<ci> Q`, want: `reaction "R": unknown identifier "Q"`},
		{name: "undefined function", doc: l3(basics + law("\n<apply><ci>f</ci><ci>S</ci></apply>")), marker: `<apply><ci>f`, want: `reaction "R": undefined function "f"`},
		{name: "argument count", doc: l3(`<listOfFunctionDefinitions><functionDefinition id="f">` + ma(`<lambda><bvar><ci>x</ci></bvar><ci>x</ci></lambda>`) + `</functionDefinition></listOfFunctionDefinitions>
` + basics + law("\n<apply><ci>f</ci><ci>S</ci><ci>k</ci></apply>")), marker: `<apply><ci>f`, want: `reaction "R": function "f" takes 1 arguments, got 2`},
		{name: "recursion", doc: l3(`<listOfFunctionDefinitions>
<functionDefinition id="f">` + ma(`<lambda><bvar><ci>x</ci></bvar><apply><ci>f</ci><ci>x</ci></apply></lambda>`) + `</functionDefinition></listOfFunctionDefinitions>
` + basics), marker: `<functionDefinition id="f">`, want: `functionDefinition "f": recursive call of function "f"`},
		{name: "wrong arity", doc: l3(basics + law("\n<apply><divide/><ci>S</ci></apply>")), marker: `<apply><divide`, want: `reaction "R": <divide/> with 1 arguments`},
		{name: "bad number", doc: l3(basics + law("\n<cn> 1.2.3 </cn>")), marker: `<cn> 1.2.3`, want: `reaction "R": invalid number in <cn>: "1.2.3" is not a number (XML Schema double)`},
		{name: "duplicate id", doc: l3(comp1 + "\n" + `<listOfParameters>
<parameter id="C" value="1" constant="true"/></listOfParameters>`), marker: `<parameter id="C"`, want: `parameter "C": duplicate id (already used by the compartment on line 4)`},
		{name: "empty model", doc: l3(""), marker: `<model`, want: `model "m": model is empty`},
		{name: "missing compartment", doc: l3(`<listOfSpecies>
<species id="S" compartment="X" initialAmount="1" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/></listOfSpecies>`),
			marker: `<species id="S"`, want: `species "S": compartment "X" does not exist`},
		{name: "cyclic rules", doc: l3(`<listOfParameters><parameter id="a" constant="false"/><parameter id="b" constant="false"/></listOfParameters>
<listOfRules><assignmentRule variable="a">` + ma(`<ci>b</ci>`) + `</assignmentRule>
<assignmentRule variable="b">` + ma(`<ci>a</ci>`) + `</assignmentRule></listOfRules>`), lower: true,
			marker: `<assignmentRule variable="a"`, want: `parameter "a": cyclic dependency of assignment rules: a -> b -> a`},
		{name: "division by zero", doc: l3(`<listOfCompartments><compartment id="C" size="0" constant="true"/></listOfCompartments>
` + spS + "\n" + paramK + "\n" + law(`<ci>k</ci>`)), lower: true, marker: `<species id="S"`,
			want: `species "S": initial value is +Inf (division by zero or undefined math?)`},
		{name: "no initial value", doc: l3(comp1 + `
<listOfSpecies><species id="S" compartment="C" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/></listOfSpecies>
` + paramK + "\n" + law(`<ci>k</ci>`)), lower: true, marker: `<species id="S"`, want: `species "S": initial value: no value given`},
		{name: "rule on constant", doc: l3(basics + `<listOfRules>
<assignmentRule variable="k">` + ma(`<cn>1</cn>`) + `</assignmentRule></listOfRules>`), marker: `<assignmentRule`, want: `assignmentRule "k": rule changes a constant parameter`},
		{name: "depth limit", doc: l3(basics + law(strings.Repeat("<apply><minus/>", MaxDepth)+"<ci>k</ci>"+strings.Repeat("</apply>", MaxDepth))),
			marker: strings.Repeat("<apply><minus/>", MaxDepth-8), want: fmt.Sprintf("minus: elements nested deeper than %d", MaxDepth)},
	}
	for _, c := range cases {
		m, err := Read(strings.NewReader(c.doc), "bad.xml")
		if c.lower {
			if err != nil {
				t.Errorf("%s: Read: %v", c.name, err)
				continue
			}
			_, err = m.ODE(nil)
		}
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

// TestErrorList checks sorting and the "(and N more errors)" summary.
func TestErrorList(t *testing.T) {
	doc := l3(basics + `<listOfRules>
<assignmentRule variable="nope">` + ma(`<ci>x1</ci>`) + `</assignmentRule>
<assignmentRule variable="k">` + ma(`<ci>x2</ci>`) + `</assignmentRule>
</listOfRules>`)
	_, err := Read(strings.NewReader(doc), "e.xml")
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("got %v", err)
	}
	if len(list) != 4 {
		t.Fatalf("got %d errors: %v", len(list), strings.Join(func() []string {
			var s []string
			for _, e := range list {
				s = append(s, e.Error())
			}
			return s
		}(), "\n"))
	}
	for i := 1; i < len(list); i++ {
		if list[i-1].Line > list[i].Line {
			t.Errorf("not sorted: %v before %v", list[i-1], list[i])
		}
	}
	if !strings.HasSuffix(err.Error(), "(and 3 more errors)") || !strings.HasPrefix(err.Error(), "e.xml:8: ") {
		t.Errorf("got %q", err.Error())
	}
}

// endless yields an SBML start tag followed by spaces forever.
type endless struct{ head string }

func (e *endless) Read(p []byte) (int, error) {
	if e.head != "" {
		n := copy(p, e.head)
		e.head = e.head[n:]
		return n, nil
	}
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

var _ io.Reader = (*endless)(nil)

// TestSizeLimit: an endless document stops at MaxBytes with an error.
func TestSizeLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("reads MaxBytes")
	}
	_, err := Read(&endless{head: `<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2"><model id="m">`}, "big.xml")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("document larger than %d bytes", MaxBytes)) {
		t.Errorf("got %v", err)
	}
}

// TestErrorListCap: a list stops at MaxErrors with a "too many errors"
// note that sorts last, and unwraps to its *Error values.
func TestErrorListCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("<listOfParameters>\n")
	for i := range MaxErrors + 10 {
		fmt.Fprintf(&b, "<parameter id=\"p%d\" value=\"x\"/>\n", i)
	}
	b.WriteString("</listOfParameters>\n")
	doc := l3(b.String())
	_, err := Read(strings.NewReader(doc), "cap.xml")
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("got %v", err)
	}
	if len(list) != MaxErrors+1 {
		t.Fatalf("got %d errors, want %d", len(list), MaxErrors+1)
	}
	last := list[len(list)-1]
	if !strings.HasPrefix(last.Msg, "too many errors, stopped here: ") || last.ID != fmt.Sprintf("p%d", MaxErrors) ||
		last.Line != lineOf(t, doc, fmt.Sprintf(`"p%d"`, MaxErrors)) {
		t.Errorf("last error %v", last)
	}
	var first *Error
	if !errors.As(err, &first) || first != list[0] || first.ID != "p0" {
		t.Errorf("errors.As(*Error) = %v, want the first error", first)
	}
	if n := len(list.Unwrap()); n != len(list) {
		t.Errorf("Unwrap has %d errors, want %d", n, len(list))
	}
}
