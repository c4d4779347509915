package parser

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
	"github.com/pbgen/pbgen/symbolic"
)

// FuzzRead feeds arbitrary documents to Read and ODE: they must return an
// ErrorList or succeed, never panic.
func FuzzRead(f *testing.F) {
	suiteDir, _ := suites.SBMLCases(f)
	for _, id := range []string{"00001", "00026", "00068", "00102", "00950", "01273", "01468", "00978", "01330", "01505", "01601", "01661", "01779",
		"00517", "01462", "01166", "01469", "01183"} { // stoichiometryMath, rateOf, comp
		files, _ := filepath.Glob(filepath.Join(suiteDir, id, id+"-sbml-l*.xml"))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(l3(basics + law(`<apply><times/><ci>k</ci><ci>S</ci></apply>`))))
	f.Add([]byte(l2(basics + law(`<piecewise><piece><cn>1</cn><apply><lt/><ci>S</ci><cn>2</cn></apply></piece></piecewise>`))))
	// Hostile inputs of the kinds of issues #10 and #16: numbers outside
	// the grammars or float64, <apply> heads, non-finite values, expansion
	// blow-ups, floods of bad elements.
	for _, v := range []string{"1e999", "0_5", "0x1p-1", "infinity", "INF", "-INF", "NaN", "+INF", " 1.5e+3 ", ".5", "1."} {
		f.Add([]byte(l3(strings.Replace(basics, `value="1"`, `value="`+v+`"`, 1) + law(`<apply><times/><ci>k</ci><ci>S</ci></apply>`))))
		f.Add([]byte(l3(basics + law(`<apply><times/><cn>`+v+`</cn><ci>S</ci></apply>`))))
	}
	for _, m := range []string{
		`<cn type="integer" base="16">fF</cn>`, `<cn type="e-notation">1<sep/>400</cn>`, `<cn type="rational" base="2">1<sep/>0</cn>`,
		`<apply><apply><plus/><ci>k</ci></apply><ci>S</ci></apply>`, `<apply><apply><apply><times/></apply><ci>k</ci></apply><ci>S</ci></apply>`,
		`<apply><apply/></apply>`, `<apply><cn>1</cn><ci>S</ci></apply>`, `<apply><ci>k</ci></apply>`,
	} {
		f.Add([]byte(l3(basics + law(m))))
	}
	f.Add([]byte(nestedDoc(29)))
	f.Add([]byte(l3(basics + "\n" + strings.Repeat("<a/>", 3*MaxErrors))))
	f.Add([]byte(chainDoc(50, true)))
	f.Fuzz(func(t *testing.T, doc []byte) {
		m, err := Read(bytes.NewReader(doc), "fuzz.xml")
		var ode *symbolic.ODE
		if err == nil {
			ode, err = m.ODE(&Options{SensCompartments: true, SensInitials: true, Events: true})
		}
		if err == nil {
			if _, berr := symbolic.Build(ode); berr != nil && !strings.HasPrefix(berr.Error(), "symbolic: ") {
				t.Fatalf("Build error without the package prefix: %v", berr)
			}
		}
		var list ErrorList
		if err != nil && !errors.As(err, &list) {
			t.Fatalf("error is not an ErrorList: %v", err)
		}
	})
}
