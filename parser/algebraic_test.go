package parser

import (
	"strings"
	"testing"
)

func lowerDAE(t *testing.T, doc string) (names []string, algebraic int, err error) {
	t.Helper()
	m, err := Read(strings.NewReader(doc), "dae.xml")
	if err != nil {
		t.Fatal(err)
	}
	ode, err := m.ODE(nil)
	if err != nil {
		return nil, 0, err
	}
	return ode.StateNames(), ode.Algebraic, nil
}

// TestAlgebraicMatching checks which variable an algebraic rule
// determines: not a species reactions change, not a constant, not one a
// rate rule sets; algebraic variables come after the differential states.
func TestAlgebraicMatching(t *testing.T) {
	doc := l3(comp1 + `
<listOfSpecies>
<species id="S1" compartment="C" initialAmount="0.5" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="S2" compartment="C" initialAmount="0.5" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
</listOfSpecies>
<listOfParameters><parameter id="k1" value="1" constant="true"/><parameter id="P" value="0" constant="false"/></listOfParameters>
<listOfRules>
<algebraicRule>` + ma(`<apply><minus/><apply><plus/><ci>S1</ci><ci>S2</ci></apply><ci>k1</ci></apply>`) + `</algebraicRule>
<algebraicRule>` + ma(`<apply><minus/><ci>P</ci><apply><times/><cn>2</cn><ci>S2</ci></apply></apply>`) + `</algebraicRule>
</listOfRules>
<listOfReactions><reaction id="R" reversible="false">
<listOfProducts><speciesReference species="S1" stoichiometry="1" constant="true"/></listOfProducts>
<listOfModifiers><modifierSpeciesReference species="S2"/></listOfModifiers>
<kineticLaw>` + ma(`<apply><times/><ci>k1</ci><ci>S2</ci></apply>`) + `</kineticLaw></reaction></listOfReactions>`)
	names, na, err := lowerDAE(t, doc)
	if err != nil {
		t.Fatal(err)
	}
	// S1 (reactions), then S2 (first rule: S1 is taken by the reaction,
	// k1 is constant) and P (second rule: S2 is taken by the first).
	if want := "S1 S2 P"; strings.Join(names, " ") != want || na != 2 {
		t.Errorf("states %v with %d algebraic, want %s with 2", names, na, want)
	}
}

// TestFastPools checks the lowering of A <-> B (fast) with B -> P: one
// conserved pool (A + B) and the fast species as algebraic variables.
func TestFastPools(t *testing.T) {
	doc := l3(comp1 + `
<listOfSpecies>
<species id="A" compartment="C" initialAmount="1" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="B" compartment="C" initialAmount="2" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="P" compartment="C" initialAmount="0" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
</listOfSpecies>
` + paramK + `
<listOfReactions>
<reaction id="F" reversible="true" fast="true">
<listOfReactants><speciesReference species="A" stoichiometry="1" constant="true"/></listOfReactants>
<listOfProducts><speciesReference species="B" stoichiometry="1" constant="true"/></listOfProducts>
<kineticLaw>` + ma(`<apply><minus/><ci>A</ci><ci>B</ci></apply>`) + `</kineticLaw></reaction>
<reaction id="S" reversible="false">
<listOfReactants><speciesReference species="B" stoichiometry="1" constant="true"/></listOfReactants>
<listOfProducts><speciesReference species="P" stoichiometry="1" constant="true"/></listOfProducts>
<kineticLaw>` + ma(`<apply><times/><ci>k</ci><ci>B</ci></apply>`) + `</kineticLaw></reaction>
</listOfReactions>`)
	names, na, err := lowerDAE(t, doc)
	if err != nil {
		t.Fatal(err)
	}
	if want := "P fast_pool1 A B"; strings.Join(names, " ") != want || na != 2 {
		t.Errorf("states %v with %d algebraic, want %s with 2", names, na, want)
	}
}

// TestAlgebraicInitialValue: an initial value that depends on an
// algebraic variable's (which only runtime/dae solves) is refused by
// name, unless simplification cancels it (a concentration's amount in a
// compartment the rule sizes).
func TestAlgebraicInitialValue(t *testing.T) {
	rule := `<listOfRules><algebraicRule>` + ma(`<apply><minus/><ci>V</ci><cn>2</cn></apply>`) + `</algebraicRule></listOfRules>`
	// S has an initial amount: its amount state does not depend on V.
	cancels := l3(`<listOfCompartments><compartment id="V" size="1" constant="false"/></listOfCompartments>
` + strings.Replace(spS, `compartment="C"`, `compartment="V"`, 1) + "\n" + paramK + "\n" + rule + "\n" + law(`<ci>k</ci>`))
	if _, na, err := lowerDAE(t, cancels); err != nil || na != 1 {
		t.Errorf("amount in an algebraic compartment: %d algebraic, %v", na, err)
	}
	// Q's initial assignment uses V.
	uses := l3(`<listOfCompartments><compartment id="V" size="1" constant="false"/></listOfCompartments>
<listOfParameters><parameter id="Q" constant="false"/></listOfParameters>
<listOfInitialAssignments><initialAssignment symbol="Q">` + ma(`<ci>V</ci>`) + `</initialAssignment></listOfInitialAssignments>
<listOfRules><algebraicRule>` + ma(`<apply><minus/><ci>V</ci><cn>2</cn></apply>`) + `</algebraicRule>
<rateRule variable="Q">` + ma(`<cn>1</cn>`) + `</rateRule></listOfRules>`)
	_, _, err := lowerDAE(t, uses)
	if err == nil || !strings.Contains(err.Error(), `the initial value of "Q" depends on the initial value of "V", which this algebraic rule determines: solving both at t0 is not supported`) {
		t.Errorf("initial value through an algebraic variable: %v", err)
	}
}
