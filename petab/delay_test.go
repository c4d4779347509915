package petab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A model with csymbol delay is refused by name: the objective needs S,
// and sensitivities through delays are not supported.
func TestDelayRefused(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "testdata/conv", dir)
	data, err := os.ReadFile(filepath.Join(dir, "model.xml"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), "<ci>k1</ci><ci>A</ci>",
		`<ci>k1</ci><apply><csymbol definitionURL="http://www.sbml.org/sbml/symbols/delay">delay</csymbol><ci>A</ci><cn>1</cn></apply>`, 1)
	if s == string(data) {
		t.Fatal("fixture changed: no k1*A in the kinetic law")
	}
	os.WriteFile(filepath.Join(dir, "model.xml"), []byte(s), 0o644)
	_, err = Load(filepath.Join(dir, "problem.yaml"))
	if err == nil || !strings.Contains(err.Error(), "csymbol delay (delay(A, 1)) is not supported in an estimation problem") {
		t.Fatalf("err = %v", err)
	}
}
