package parser

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// chainDoc is a linear chain A0 -> A1 -> ... -> A(n-1) with mass-action
// rates; with ownCompartments each species sits in a compartment of its
// own.
func chainDoc(n int, ownCompartments bool) string {
	var b strings.Builder
	b.WriteString("<listOfCompartments>\n")
	nc := 1
	if ownCompartments {
		nc = n
	}
	for i := range nc {
		fmt.Fprintf(&b, "<compartment id=\"c%d\" size=\"1\" constant=\"true\"/>\n", i)
	}
	b.WriteString("</listOfCompartments>\n<listOfSpecies>\n")
	for i := range n {
		c := 0
		if ownCompartments {
			c = i
		}
		fmt.Fprintf(&b, "<species id=\"A%d\" compartment=\"c%d\" initialConcentration=\"1\" hasOnlySubstanceUnits=\"false\" boundaryCondition=\"false\" constant=\"false\"/>\n", i, c)
	}
	b.WriteString("</listOfSpecies>\n<listOfParameters><parameter id=\"k\" value=\"1\" constant=\"true\"/></listOfParameters>\n<listOfReactions>\n")
	for i := range n - 1 {
		fmt.Fprintf(&b, `<reaction id="R%d" reversible="false"><listOfReactants><speciesReference species="A%d" stoichiometry="1" constant="true"/></listOfReactants>`+
			`<listOfProducts><speciesReference species="A%d" stoichiometry="1" constant="true"/></listOfProducts><kineticLaw>%s</kineticLaw></reaction>`+"\n",
			i, i, i+1, ma(fmt.Sprintf("<apply><times/><ci>k</ci><ci>A%d</ci></apply>", i)))
	}
	b.WriteString("</listOfReactions>\n")
	return l3(b.String())
}

// TestLoweringScalesLinearly: reading and lowering a chain 16 times longer
// takes well under 256 times as long (the quadratic cost it once had: each
// species scanned every reaction, and every compartment). The best of
// three runs is compared, so a busy machine does not fail the test.
func TestLoweringScalesLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("times lowering of a 8,000-species chain")
	}
	for _, own := range []bool{false, true} {
		cost := func(n int) time.Duration {
			doc := chainDoc(n, own)
			best := time.Duration(1 << 62)
			for range 5 {
				start := cpuTime()
				m, err := Read(strings.NewReader(doc), "chain.xml")
				if err != nil {
					t.Fatal(err)
				}
				ode, err := m.ODE(nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(ode.States) != n {
					t.Fatalf("%d states, want %d", len(ode.States), n)
				}
				best = min(best, cpuTime()-start)
			}
			return best
		}
		small, large := cost(500), cost(8000)
		if ratio := float64(large) / float64(small); ratio > 64 {
			t.Errorf("own compartments %v: 500 species %v, 8000 species %v: ratio %.1f, want about 16 (linear; quadratic is 256)", own, small, large, ratio)
		}
	}
}
