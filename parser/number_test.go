package parser

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestParseDouble: exactly the xsd:double lexical space is accepted.
func TestParseDouble(t *testing.T) {
	ok := []struct {
		in   string
		want float64
	}{
		{"1", 1}, {"-1", -1}, {"+1.5", 1.5}, {".5", 0.5}, {"5.", 5}, {"1e3", 1000}, {"1E-3", 1e-3},
		{"-0", 0}, {"1.5e+2", 150}, {" \t\n2.5\r\n", 2.5}, {"00012", 12}, {"1e-400", 0},
		{"INF", math.Inf(1)}, {"+INF", math.Inf(1)}, {"-INF", math.Inf(-1)}, {"NaN", math.NaN()},
		{"1.7976931348623157e308", math.MaxFloat64},
	}
	for _, c := range ok {
		got, err := ParseDouble(c.in)
		if err != nil {
			t.Errorf("ParseDouble(%q): %v", c.in, err)
			continue
		}
		if got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("ParseDouble(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	bad := []struct{ in, why string }{
		{"", "not a number"}, {" ", "not a number"}, {"0_5", "not a number"}, {"1_000", "not a number"},
		{"0x1p-1", "not a number"}, {"0x10", "not a number"}, {"infinity", "not a number"},
		{"Infinity", "not a number"}, {"inf", "not a number"}, {"+Inf", "not a number"},
		{"nan", "not a number"}, {"-NaN", "not a number"}, {"+NaN", "not a number"}, {"1e", "not a number"},
		{"e5", "not a number"}, {".", "not a number"}, {"+", "not a number"}, {"1.2.3", "not a number"},
		{"1 2", "not a number"}, {"--1", "not a number"}, {"1e+-2", "not a number"}, {"0b101", "not a number"},
		{"0o7", "not a number"}, {"1\u00a0", "not a number"}, {"١", "not a number"},
		{"1e999", "overflows"}, {"-1e400", "overflows"}, {"1.8e308", "overflows"},
	}
	for _, c := range bad {
		if v, err := ParseDouble(c.in); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("ParseDouble(%q) = %v, %v; want an error saying %q", c.in, v, err, c.why)
		}
	}
}

// TestNumberErrors: numbers outside the grammars, and literals that
// overflow float64, are errors with the line and the element's id, in
// attributes and in every kind of <cn>.
func TestNumberErrors(t *testing.T) {
	param := func(v string) string {
		return comp1 + "\n" + spS + "\n<listOfParameters>\n<parameter id=\"k\" value=\"" + v + "\" constant=\"true\"/></listOfParameters>\n"
	}
	cases := []struct {
		name, doc, marker, want string
	}{
		{"value 1e999", l3(param("1e999") + law(`<ci>k</ci>`)), `<parameter id="k"`, `parameter "k": attribute value: "1e999" overflows float64`},
		{"value 0_5", l3(param("0_5") + law(`<ci>k</ci>`)), `<parameter id="k"`, `parameter "k": attribute value: "0_5" is not a number`},
		{"value hex", l3(param("0x1p-1") + law(`<ci>k</ci>`)), `<parameter id="k"`, `parameter "k": attribute value: "0x1p-1" is not a number`},
		{"value infinity", l3(param("infinity") + law(`<ci>k</ci>`)), `<parameter id="k"`, `parameter "k": attribute value: "infinity" is not a number`},
		{"size", l3(strings.Replace(basics, `size="1"`, `size="1e309"`, 1) + law(`<ci>k</ci>`)), `<compartment`, `compartment "C": attribute size: "1e309" overflows`},
		{"initialAmount", l3(strings.Replace(basics, `initialAmount="1"`, `initialAmount="1_0"`, 1) + law(`<ci>k</ci>`)), `<species`, `species "S": attribute initialAmount: "1_0" is not a number`},
		{"stoichiometry", l3(basics + strings.Replace(law(`<ci>k</ci>`), `stoichiometry="1"`, `stoichiometry="2e999"`, 1)), `<speciesReference`, `speciesReference: attribute stoichiometry: "2e999" overflows`},
		{"local parameter", l3(basics + rxnOpen + "<kineticLaw>" + ma(`<ci>q</ci>`) + "\n<listOfLocalParameters><localParameter id=\"q\" value=\"0x10\"/></listOfLocalParameters></kineticLaw></reaction></listOfReactions>"), `<localParameter`, `localParameter "q": attribute value: "0x10" is not a number`},
		{"cn 1e999", l3(basics + law("\n<cn>1e999</cn>")), `<cn>1e999`, `reaction "R": invalid number in <cn>: "1e999" overflows float64`},
		{"cn real overflow", l3(basics + law("\n<cn type=\"real\"> -9e9999 </cn>")), `<cn type`, `reaction "R": invalid number in <cn type="real">: "-9e9999" overflows`},
		{"cn 0_5", l3(basics + law("\n<cn> 0_5 </cn>")), `<cn> 0_5`, `reaction "R": invalid number in <cn>: "0_5" is not a number`},
		{"cn hex", l3(basics + law("\n<cn>0x1p-1</cn>")), `<cn>0x1p`, `is not a number`},
		{"cn infinity", l3(basics + law("\n<cn>infinity</cn>")), `<cn>inf`, `is not a number`},
		{"integer fraction", l3(basics + law("\n<cn type=\"integer\">1.5</cn>")), `<cn type`, `<cn type="integer">: "1.5" is not an integer in base 10`},
		{"integer exponent", l3(basics + law("\n<cn type=\"integer\">1e3</cn>")), `<cn type`, `"1e3" is not an integer in base 10`},
		{"integer underscore", l3(basics + law("\n<cn type=\"integer\" base=\"16\">F_F</cn>")), `<cn type`, `"F_F" is not an integer in base 16`},
		{"integer bad digit", l3(basics + law("\n<cn type=\"integer\" base=\"2\">102</cn>")), `<cn type`, `"102" is not an integer in base 2`},
		{"integer overflow", l3(basics + law("\n<cn type=\"integer\">1"+strings.Repeat("0", 400)+"</cn>")), `<cn type`, `overflows float64`},
		{"bad base", l3(basics + law("\n<cn type=\"integer\" base=\"37\">1</cn>")), `<cn type`, `<cn> base "37" is not an integer from 2 to 36`},
		{"real in base 2", l3(basics + law("\n<cn base=\"2\">1.1</cn>")), `<cn base`, `<cn type=""> in base 2 is not supported`},
		{"e-notation overflow", l3(basics + law("\n<cn type=\"e-notation\"> 1 <sep/> 400 </cn>")), `<cn type`, `<cn type="e-notation">: 1*10^400 overflows float64`},
		{"e-notation mantissa", l3(basics + law("\n<cn type=\"e-notation\"> 0x1 <sep/> 4 </cn>")), `<cn type`, `mantissa "0x1" is not a decimal number`},
		{"e-notation exponent", l3(basics + law("\n<cn type=\"e-notation\"> 1 <sep/> 4.5 </cn>")), `<cn type`, `"4.5" is not an integer`},
		{"rational zero", l3(basics + law("\n<cn type=\"rational\"> 1 <sep/> 0 </cn>")), `<cn type`, `<cn type="rational">: denominator is 0`},
		{"rational fraction", l3(basics + law("\n<cn type=\"rational\"> 1.5 <sep/> 2 </cn>")), `<cn type`, `"1.5" is not an integer`},
	}
	for _, c := range cases {
		_, err := Read(strings.NewReader(c.doc), "n.xml")
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		prefix := "n.xml:" + strconv.Itoa(lineOf(t, c.doc, c.marker)) + ": "
		if got := err.Error(); !strings.HasPrefix(got, prefix) || !strings.Contains(got, c.want) {
			t.Errorf("%s:\ngot  %s\nwant %s...%s", c.name, got, prefix, c.want)
		}
	}
}

// TestNumberForms: the number forms MathML 2 and XSD allow keep their
// values.
func TestNumberForms(t *testing.T) {
	cases := []struct {
		cn   string
		want float64
	}{
		{`<cn> 2.5 </cn>`, 2.5},
		{`<cn>1e-3</cn>`, 1e-3},
		{`<cn>.5</cn>`, 0.5},
		{`<cn type="real">-INF</cn>`, math.Inf(-1)},
		{`<cn type="integer"> -42 </cn>`, -42},
		{`<cn type="integer" base="16">fF</cn>`, 255},
		{`<cn type="integer" base="2">-101</cn>`, -5},
		{`<cn type="integer" base="36">z</cn>`, 35},
		{`<cn type="e-notation"> 1.5 <sep/> -3 </cn>`, 1.5e-3},
		{`<cn type="e-notation"> 6.02214179 <sep/> 23 </cn>`, 6.02214179 * math.Pow(10, 23)},
		{`<cn type="e-notation"> 0 <sep/> 400 </cn>`, 0},
		{`<cn type="rational"> 1 <sep/> 4 </cn>`, 0.25},
		{`<cn type="rational" base="8"> 10 <sep/> -20 </cn>`, -0.5},
	}
	for _, c := range cases {
		got := assigned(t, c.cn, 0)
		if got != c.want {
			t.Errorf("%s = %v, want %v", c.cn, got, c.want)
		}
	}
}
