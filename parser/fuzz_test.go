package parser

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
)

// FuzzRead feeds arbitrary documents to Read and ODE: they must return an
// ErrorList or succeed, never panic.
func FuzzRead(f *testing.F) {
	suiteDir, _ := suites.SBMLCases(f)
	for _, id := range []string{"00001", "00026", "00068", "00102", "00950", "01273", "01468"} {
		files, _ := filepath.Glob(filepath.Join(suiteDir, id, id+"-sbml-l*.xml"))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(l3(basics + law(`<apply><times/><ci>k</ci><ci>S</ci></apply>`))))
	f.Add([]byte(l2(basics + law(`<piecewise><piece><cn>1</cn><apply><lt/><ci>S</ci><cn>2</cn></apply></piece></piecewise>`))))
	f.Fuzz(func(t *testing.T, doc []byte) {
		m, err := Read(bytes.NewReader(doc), "fuzz.xml")
		if err == nil {
			_, err = m.ODE(&Options{SensCompartments: true, SensInitials: true})
		}
		var list ErrorList
		if err != nil && !errors.As(err, &list) {
			t.Fatalf("error is not an ErrorList: %v", err)
		}
	})
}
