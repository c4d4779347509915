package parser

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestNonFiniteValues: a value INF, -INF or NaN that a state's rate or
// initial value depends on is reported at lowering, at the value's own
// element, id and line; one that nothing in the ODE uses is accepted (as
// SBML Test Suite case 00951 needs).
func TestNonFiniteValues(t *testing.T) {
	params := func(ps string) string {
		return comp1 + "\n" + spS + "\n<listOfParameters>\n<parameter id=\"k\" value=\"1\" constant=\"true\"/>\n" + ps + "</listOfParameters>\n"
	}
	cases := []struct {
		name, doc  string
		opt        *Options
		marker     string
		want       string // "" = lowers without error
		wantErrors int
	}{
		{name: "unused", doc: l3(params(`<parameter id="P" value="INF" constant="true"/>
<parameter id="Q" value="-INF" constant="true"/>
<parameter id="N" value="NaN" constant="true"/>
`) + law(`<apply><times/><ci>k</ci><ci>S</ci></apply>`))},
		{name: "sensitivity parameter in rate", doc: l3(params(`<parameter id="P" value="INF" constant="true"/>
`) + law(`<apply><times/><ci>P</ci><ci>S</ci></apply>`)), marker: `<parameter id="P"`,
			want: `parameter "P": value INF is not finite, and state "S" depends on it`, wantErrors: 1},
		{name: "folded parameter in rate", doc: l3(params(`<parameter id="P" value="NaN" constant="true"/>
`) + law(`<apply><times/><ci>P</ci><ci>S</ci></apply>`)), opt: &Options{Params: []string{"k"}}, marker: `<parameter id="P"`,
			want: `parameter "P": value NaN is not finite, and state "S" depends on it`, wantErrors: 1},
		{name: "through a rule", doc: l3(params(`<parameter id="P" value="-INF" constant="true"/>
<parameter id="A" constant="false"/>
`) + `<listOfRules><assignmentRule variable="A">` + ma(`<apply><plus/><ci>P</ci><cn>1</cn></apply>`) + `</assignmentRule></listOfRules>
` + law(`<apply><times/><ci>A</ci><ci>S</ci></apply>`)), marker: `<parameter id="P"`,
			want: `parameter "P": value -INF is not finite, and state "S" depends on it`, wantErrors: 1},
		{name: "initial assignment", doc: l3(params(`<parameter id="P" value="INF" constant="true"/>
`) + `<listOfInitialAssignments><initialAssignment symbol="S">` + ma(`<ci>P</ci>`) + `</initialAssignment></listOfInitialAssignments>
` + law(`<apply><times/><ci>k</ci><ci>S</ci></apply>`)), marker: `<parameter id="P"`,
			want: `parameter "P": value INF is not finite, and state "S" depends on it`, wantErrors: 1},
		{name: "initial amount", doc: l3(strings.Replace(basics, `initialAmount="1"`, `initialAmount="INF"`, 1) + law(`<apply><times/><ci>k</ci><ci>S</ci></apply>`)),
			marker: `<species id="S"`, want: `species "S": initial value INF is not finite`, wantErrors: 1},
		{name: "local parameter", doc: l3(basics + rxnOpen + "<kineticLaw>" + ma(`<apply><times/><ci>q</ci><ci>S</ci></apply>`) + "\n<listOfLocalParameters><localParameter id=\"q\" value=\"NaN\"/></listOfLocalParameters></kineticLaw></reaction></listOfReactions>"),
			marker: `<localParameter`, want: `localParameter "q": value NaN is not finite, and state "S" depends on it`, wantErrors: 1},
		{name: "unused local parameter", doc: l3(basics + rxnOpen + "<kineticLaw>" + ma(`<apply><times/><ci>k</ci><ci>S</ci></apply>`) + "\n<listOfLocalParameters><localParameter id=\"q\" value=\"NaN\"/></listOfLocalParameters></kineticLaw></reaction></listOfReactions>")},
	}
	for _, c := range cases {
		m, err := Read(strings.NewReader(c.doc), "nf.xml")
		if err != nil {
			t.Fatalf("%s: Read: %v", c.name, err)
		}
		_, err = m.ODE(c.opt)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var list ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("%s: got %v", c.name, err)
		}
		want := "nf.xml:" + strconv.Itoa(lineOf(t, c.doc, c.marker)) + ": " + c.want
		if list[0].Error() != want || len(list) != c.wantErrors {
			t.Errorf("%s:\ngot  %v\nwant %s (%d errors)", c.name, err, want, c.wantErrors)
		}
	}
}
