package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
)

// TestAKAP79Compiles generates a package from testdata/models/AKAP79.xml
// (SBML written by another tool) in a temporary module and builds, vets and
// runs a program that uses it.
func TestAKAP79Compiles(t *testing.T) {
	src := suites.Testdata(t, "models/AKAP79.xml")
	if testing.Short() {
		t.Skip("builds a module")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code, _, stderr := pbgen(t, "-o", filepath.Join(dir, "akap79"), src); code != 0 {
		t.Fatalf("pbgen: %s", stderr)
	}
	sum, _ := os.ReadFile(filepath.Join(root, "go.sum"))
	files := map[string]string{
		"go.mod": "module akaptest\n\ngo 1.24\n\nrequire github.com/pbgen/pbgen v0.0.0\n\nreplace github.com/pbgen/pbgen => " + root + "\n",
		"go.sum": string(sum),
		"main.go": `package main

import (
	"fmt"
	"math"
	"os"

	"akaptest/akap79"
	"github.com/pbgen/pbgen/runtime/sens"
)

func main() {
	m := akap79.New()
	p := make([]float64, akap79.NumParams)
	m.DefaultParams(p)
	res, err := sens.Solve(m, p, []float64{0, 10, 100}, nil)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	for _, v := range res.S {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			fmt.Println("non-finite sensitivity")
			os.Exit(1)
		}
	}
	fmt.Println("ok", akap79.NumStates, akap79.NumParams)
}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"vet", "-mod=mod", "./..."}, {"run", "-mod=mod", "."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOPROXY=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
		if args[0] == "run" {
			t.Logf("%s", out)
		}
	}
}
