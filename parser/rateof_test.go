package parser

import (
	"math"
	"testing"
)

func rateOfCi(id string) string {
	return `<apply><csymbol definitionURL="http://www.sbml.org/sbml/symbols/rateOf">rateOf</csymbol><ci>` + id + `</ci></apply>`
}

// TestRateOf: y = rateOf(x) (an assignment rule) equals x's rate in every
// form x's rate can take: a species decaying by a reaction (-k x, as a
// concentration in a compartment of size 2), a parameter with a rate rule,
// a constant (0), a concentration whose compartment grows
// (d(n/V)/dt = n'/V - n V'/V^2), and at t = 0 through an initial
// assignment.
func TestRateOf(t *testing.T) {
	doc := l3(`<listOfCompartments>
<compartment id="C" size="2" constant="true"/>
<compartment id="V" size="3" constant="false"/></listOfCompartments>
<listOfSpecies>
<species id="X" compartment="C" initialConcentration="5" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="W" compartment="V" initialConcentration="4" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
</listOfSpecies>
<listOfParameters>
<parameter id="k" value="0.7" constant="true"/>
<parameter id="p" value="1" constant="false"/>
<parameter id="yX" constant="false"/><parameter id="yP" constant="false"/>
<parameter id="yK" constant="false"/><parameter id="yW" constant="false"/>
<parameter id="y0" constant="false"/>
</listOfParameters>
<listOfInitialAssignments><initialAssignment symbol="y0">` + ma(rateOfCi("X")) + `</initialAssignment></listOfInitialAssignments>
<listOfRules>
<rateRule variable="p">` + ma(ap("times", cn("3"), "<ci>p</ci>")) + `</rateRule>
<rateRule variable="V">` + ma(cn("0.5")) + `</rateRule>
<assignmentRule variable="yX">` + ma(rateOfCi("X")) + `</assignmentRule>
<assignmentRule variable="yP">` + ma(rateOfCi("p")) + `</assignmentRule>
<assignmentRule variable="yK">` + ma(rateOfCi("k")) + `</assignmentRule>
<assignmentRule variable="yW">` + ma(rateOfCi("W")) + `</assignmentRule>
</listOfRules>
<listOfReactions>
<reaction id="R" reversible="false">
<listOfReactants><speciesReference species="X" stoichiometry="1" constant="true"/></listOfReactants>
<kineticLaw>` + ma(ap("times", "<ci>k</ci>", "<ci>X</ci>", "<ci>C</ci>")) + `</kineticLaw></reaction>
<reaction id="G" reversible="false">
<listOfProducts><speciesReference species="W" stoichiometry="1" constant="true"/></listOfProducts>
<kineticLaw>` + ma(cn("2")) + `</kineticLaw></reaction>
</listOfReactions>`)
	ode := lowerDoc(t, doc, nil)
	pt := evalAt(ode, 0, nil)
	x := []float64{1.5, 8, 0.25, 4} // X (conc), W (amount), V, p
	if got := stateNames(ode); got != "X,W,V,p" {
		t.Fatalf("states %s", got)
	}
	q := evalAt(ode, 1, x)
	const k = 0.7
	wantW := 2/x[2] - x[1]/x[2]*0.5/x[2]
	for name, c := range map[string][2]float64{
		"yX": {q.out["yX"], -k * x[0]},
		"yP": {q.out["yP"], 3 * x[3]},
		"yK": {q.out["yK"], 0},
		"yW": {q.out["yW"], wantW},
		"y0": {pt.out["y0"], -k * 5},
	} {
		if !near(c[0], c[1]) {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	if !near(q.f[0], q.out["yX"]) {
		t.Errorf("rateOf(X) %v differs from X's rate %v", q.out["yX"], q.f[0])
	}
}

// TestRateOfLocal: rateOf of a reaction-local parameter is 0 (it cannot
// change); the species' rate is then 0 and its value stays put.
func TestRateOfLocal(t *testing.T) {
	doc := l3(`<listOfCompartments><compartment id="C" size="1" constant="true"/></listOfCompartments>
<listOfSpecies><species id="S" compartment="C" initialAmount="1" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/></listOfSpecies>
<listOfReactions><reaction id="R" reversible="false">
<listOfProducts><speciesReference species="S" stoichiometry="1" constant="true"/></listOfProducts>
<kineticLaw>` + ma(ap("plus", rateOfCi("k1"), cn("0.5"))) + `<listOfLocalParameters><localParameter id="k1" value="3"/></listOfLocalParameters></kineticLaw></reaction></listOfReactions>`)
	q := evalAt(lowerDoc(t, doc, nil), 0, nil)
	if !near(q.f[0], 0.5) || math.IsNaN(q.f[0]) {
		t.Errorf("rate %v, want 0.5", q.f[0])
	}
}
