package scalenet

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// WriteSBML writes the network as an SBML Level 3 Version 2 document: one
// compartment of size 1 (so concentrations and amounts coincide), the
// species with their initial concentrations, the rate constants as global
// parameters and one irreversible reaction with a mass-action kinetic law
// per reaction of the network. Parsed by pbgen's parser, it gives the same
// f, Jx and Jp as the Network (the tests check it).
func (net *Network) WriteSBML(w io.Writer) error {
	b := bufio.NewWriter(w)
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	fmt.Fprintf(b, `<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2">
  <model id="%s">
    <listOfCompartments>
      <compartment id="cell" size="1" constant="true"/>
    </listOfCompartments>
    <listOfSpecies>
`, net.name)
	for i, s := range net.species {
		fmt.Fprintf(b, `      <species id="%s" compartment="cell" initialConcentration="%s" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
`, s, num(net.x0[i]))
	}
	b.WriteString("    </listOfSpecies>\n    <listOfParameters>\n")
	for i, p := range net.params {
		fmt.Fprintf(b, "      <parameter id=\"%s\" value=\"%s\" constant=\"true\"/>\n", p, num(net.pdef[i]))
	}
	b.WriteString("    </listOfParameters>\n    <listOfReactions>\n")
	refs := func(tag string, ts []term) {
		if len(ts) == 0 {
			return
		}
		fmt.Fprintf(b, "        <%s>\n", tag)
		for _, t := range ts {
			fmt.Fprintf(b, "          <speciesReference species=\"%s\" stoichiometry=\"%d\" constant=\"true\"/>\n", net.species[t.sp], t.st)
		}
		fmt.Fprintf(b, "        </%s>\n", tag)
	}
	for _, rx := range net.rx {
		fmt.Fprintf(b, "      <reaction id=\"%s\" reversible=\"false\">\n", rx.id)
		refs("listOfReactants", rx.reac)
		refs("listOfProducts", rx.prod)
		b.WriteString("        <kineticLaw>\n          <math xmlns=\"http://www.w3.org/1998/Math/MathML\">\n            <apply><times/>")
		fmt.Fprintf(b, "<ci>%s</ci>", net.params[rx.k])
		for _, t := range rx.reac {
			if t.st == 1 {
				fmt.Fprintf(b, "<ci>%s</ci>", net.species[t.sp])
			} else {
				fmt.Fprintf(b, "<apply><power/><ci>%s</ci><cn type=\"integer\">%d</cn></apply>", net.species[t.sp], t.st)
			}
		}
		b.WriteString("</apply>\n          </math>\n        </kineticLaw>\n      </reaction>\n")
	}
	b.WriteString("    </listOfReactions>\n  </model>\n</sbml>\n")
	return b.Flush()
}
