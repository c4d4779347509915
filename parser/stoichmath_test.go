package parser

import "testing"

// TestStoichiometryMath: a reaction whose reactant's stoichiometryMath is
// 2 behaves exactly like one with stoichiometry 2, and math that depends
// on time and on a parameter is evaluated at every time.
func TestStoichiometryMath(t *testing.T) {
	model := func(ref string) string {
		return l2(`<listOfCompartments><compartment id="C" size="2"/></listOfCompartments>
<listOfSpecies><species id="A" compartment="C" initialAmount="3"/><species id="B" compartment="C" initialAmount="1"/></listOfSpecies>
<listOfParameters><parameter id="k" value="0.3"/><parameter id="q" value="1.5"/></listOfParameters>
<listOfReactions><reaction id="R" reversible="false">
<listOfReactants>` + ref + `</listOfReactants>
<listOfProducts><speciesReference species="B"/></listOfProducts>
<kineticLaw>` + ma(ap("times", "<ci>k</ci>", "<ci>A</ci>")) + `</kineticLaw></reaction></listOfReactions>`)
	}
	plain := lowerDoc(t, model(`<speciesReference species="A" stoichiometry="2"/>`), nil)
	viaMath := lowerDoc(t, model(`<speciesReference species="A"><stoichiometryMath>`+ma(cn("2"))+`</stoichiometryMath></speciesReference>`), nil)
	x := []float64{0.9, 0.4}
	a, b := evalAt(plain, 0.5, x), evalAt(viaMath, 0.5, x)
	for i := range x {
		if !near(a.f[i], b.f[i]) {
			t.Errorf("state %d: rate %v with stoichiometryMath 2, %v with stoichiometry 2", i, b.f[i], a.f[i])
		}
	}
	if !near(b.f[0], -2*0.3*0.9/2) { // k*A is amount per time; C = 2
		t.Errorf("d[A]/dt = %v, want -2*k*A/C", b.f[0])
	}
	if got := b.out["stoichiometry(R:A)"]; !near(got, 2) {
		t.Errorf("output stoichiometry(R:A) = %v, want 2", got)
	}

	timed := lowerDoc(t, model(`<speciesReference species="A"><stoichiometryMath>`+
		ma(ap("times", "<ci>q</ci>", `<csymbol definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol>`))+
		`</stoichiometryMath></speciesReference>`), nil)
	for _, tm := range []float64{0, 1, 2.5} {
		c := evalAt(timed, tm, x)
		if want := -1.5 * tm * 0.3 * 0.9 / 2; !near(c.f[0], want) {
			t.Errorf("t=%v: d[A]/dt = %v, want %v", tm, c.f[0], want)
		}
	}
}
