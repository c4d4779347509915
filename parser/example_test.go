package parser_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/pbgen/pbgen/parser"
)

// A one-reaction network A -> B with rate k*A*V in a compartment of
// size V = 2: the states are concentrations, the global parameter k is
// the one sensitivity parameter.
func Example() {
	const doc = `<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2">
  <model id="decay">
    <listOfCompartments>
      <compartment id="V" size="2" constant="true"/>
    </listOfCompartments>
    <listOfSpecies>
      <species id="A" compartment="V" initialConcentration="1" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
      <species id="B" compartment="V" initialConcentration="0" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
    </listOfSpecies>
    <listOfParameters>
      <parameter id="k" value="0.5" constant="true"/>
    </listOfParameters>
    <listOfReactions>
      <reaction id="R1" reversible="false">
        <listOfReactants><speciesReference species="A" stoichiometry="1" constant="true"/></listOfReactants>
        <listOfProducts><speciesReference species="B" stoichiometry="1" constant="true"/></listOfProducts>
        <kineticLaw>
          <math xmlns="http://www.w3.org/1998/Math/MathML">
            <apply><times/><ci>k</ci><ci>A</ci><ci>V</ci></apply>
          </math>
        </kineticLaw>
      </reaction>
    </listOfReactions>
  </model>
</sbml>`
	m, err := parser.Read(strings.NewReader(doc), "decay.xml")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", m.Summary())
	ode, err := m.ODE(nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range ode.States {
		fmt.Println("state", s.Name, s.Meta["units"])
	}
	for _, p := range ode.Params {
		fmt.Println("param", p.Name, p.Value)
	}

	// A refused construct is reported with file, line, element and id:
	// here an algebraic rule 0 = k, which determines nothing (k is
	// constant).
	bad, err := parser.Read(strings.NewReader(strings.Replace(doc, "<listOfReactions>",
		`<listOfRules><algebraicRule><math xmlns="http://www.w3.org/1998/Math/MathML"><ci>k</ci></math></algebraicRule></listOfRules><listOfReactions>`, 1)), "decay.xml")
	if err == nil {
		_, err = bad.ODE(nil)
	}
	fmt.Println(err)
	// Output:
	// {Species:2 Parameters:1 Compartments:1 Reactions:1 AssignmentRules:0 RateRules:0 InitialAssignments:0 AlgebraicRules:0 FastReactions:0 FunctionDefinitions:0 LocalParameters:0 Events:0}
	// state A concentration
	// state B concentration
	// param k 0.5
	// decay.xml:14: algebraicRule: algebraic rule that determines no variable (no variable in it is left undetermined by other rules, reactions, events or constant declarations) is not supported
}
