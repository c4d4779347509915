//go:build unix

package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPetabGenScript runs scripts/petabgen.sh on a small collection made
// of the shipped problems: Perelson (4 states) is generated, CaMKII (21
// states, a problem.yaml) is left out past PBGEN_PETABGEN_MAX_STATES=10, a
// problem that does not load is listed as not loaded, a folder without a
// problem is ignored. The registry must be gofmt-clean Go with the build
// tag petabgen and say exactly that, and the generated package must
// compile under the import path the registry gives it. Without a
// collection the script writes an empty registry that says why.
func TestPetabGenScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pbgen and a generated package")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip(err)
	}
	shared := t.TempDir()
	bench := filepath.Join(shared, "petab-benchmark")
	copyDir(t, "../../networks/petab/Perelson_Science1996", filepath.Join(bench, "Perelson_Science1996"))
	copyDir(t, "../../networks/petab/CaMKII", filepath.Join(bench, "CaMKII"))
	// The shipped problem.yaml names ../../CaMKII.xml: bring the model in.
	xml, err := os.ReadFile("../../networks/CaMKII.xml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(bench, "CaMKII", "CaMKII.xml"), string(xml))
	y, err := os.ReadFile(filepath.Join(bench, "CaMKII", "problem.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(bench, "CaMKII", "problem.yaml"), strings.ReplaceAll(string(y), "../../CaMKII.xml", "CaMKII.xml"))
	writeFile(t, filepath.Join(bench, "Broken", "Broken.yaml"), "format_version: 1\nparameter_file: nosuch.tsv\nproblems: []\n")
	writeFile(t, filepath.Join(bench, "NoProblem", "README.md"), "no problem here\n")
	writeFile(t, filepath.Join(bench, "LICENSE"), "a file, not a folder\n")
	// The packages' folder is inside the module (the registry imports
	// them by module path), hidden from ./... by its underscore.
	out, err := os.MkdirTemp(".", "_petabgentest")
	if err != nil {
		t.Skipf("cannot write beside the package (a read-only checkout?): %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	reg := filepath.Join(t.TempDir(), "registry.go")
	run := func(shared string) string {
		cmd := exec.Command("bash", "../../scripts/petabgen.sh")
		cmd.Env = append(os.Environ(), "PBGEN_SHARED="+shared, "PBGEN_PETABGEN_MAX_STATES=10",
			"PBGEN_PETABGEN_OUT=cmd/pbbench/"+filepath.Base(out), "PBGEN_PETABGEN_REGISTRY="+reg)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("scripts/petabgen.sh: %v\n%s", err, b)
		}
		return string(b)
	}
	log := run(shared)
	gen, left, missing := parseRegistry(t, reg)
	if len(gen) != 1 || gen["Perelson_Science1996"] != "perelsonscience1996" {
		t.Errorf("generated %v, want Perelson_Science1996 only\n%s", gen, log)
	}
	if len(left) != 2 || !strings.Contains(left["CaMKII"], "21 states > 10") || !strings.Contains(left["Broken"], "not loaded") {
		t.Errorf("left out %q, want CaMKII (21 states > 10) and Broken (not loaded)\n%s", left, log)
	}
	if missing != "" {
		t.Errorf("petabGenMissing %q with a collection", missing)
	}
	build := exec.Command("go", "build", "./"+filepath.Join(filepath.Base(out), "perelsonscience1996"))
	if b, err := build.CombinedOutput(); err != nil {
		t.Errorf("the generated package does not build: %v\n%s", err, b)
	}

	run(filepath.Join(shared, "nosuch"))
	gen, left, missing = parseRegistry(t, reg)
	if len(gen) != 0 || len(left) != 0 || !strings.Contains(missing, "no PEtab benchmark collection") {
		t.Errorf("without a collection: generated %v, left out %v, missing %q", gen, left, missing)
	}
	if _, err := os.Stat(filepath.Join(out, "perelsonscience1996")); err == nil {
		t.Error("a second run left the first one's package behind")
	}
}

// parseRegistry reads a registry written by scripts/petabgen.sh: the
// generated problems (folder name -> package), the left-out ones
// (name -> reason) and petabGenMissing. It fails unless the file is
// gofmt-clean, tagged petabgen and in package main.
func parseRegistry(t *testing.T, path string) (gen, left map[string]string, missing string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "\n//go:build petabgen\n") {
		t.Errorf("%s has no build tag petabgen", path)
	}
	if b, err := exec.Command("gofmt", "-l", path).Output(); err != nil || len(b) > 0 {
		t.Errorf("%s is not gofmt-clean (%v)", path, err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if f.Name.Name != "main" {
		t.Errorf("%s is package %s", path, f.Name.Name)
	}
	unquote := func(e ast.Expr) string {
		l, ok := e.(*ast.BasicLit)
		if !ok || l.Kind != token.STRING {
			t.Fatalf("%s: %T is not a string literal", path, e)
		}
		s, err := strconv.Unquote(l.Value)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	gen, left = map[string]string{}, map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range g.Specs {
			v, ok := s.(*ast.ValueSpec)
			if !ok || len(v.Values) != 1 {
				continue
			}
			switch v.Names[0].Name {
			case "petabGenMissing":
				missing = unquote(v.Values[0])
			case "petabGenerated", "petabGenLeftOut":
				for _, e := range v.Values[0].(*ast.CompositeLit).Elts {
					kv := e.(*ast.KeyValueExpr)
					if v.Names[0].Name == "petabGenLeftOut" {
						left[unquote(kv.Key)] = unquote(kv.Value)
						continue
					}
					for _, f := range kv.Value.(*ast.CompositeLit).Elts {
						if f := f.(*ast.KeyValueExpr); f.Key.(*ast.Ident).Name == "Pkg" {
							gen[unquote(kv.Key)] = unquote(f.Value)
						}
					}
				}
			}
		}
	}
	return gen, left, missing
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	files, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(to, f.Name()), string(b))
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
