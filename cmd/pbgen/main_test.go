package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
)

// pbgen runs the command in-process and returns its exit status and output.
func pbgen(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"check"}, {"sim"}, {"-nosuchflag", "x.xml"}, {"check", "a.xml", "b.xml"}} {
		code, _, stderr := pbgen(t, args...)
		if code != 2 {
			t.Errorf("pbgen %q: exit %d, want 2", args, code)
		}
		if !strings.Contains(stderr, "usage") {
			t.Errorf("pbgen %q: no usage on stderr: %q", args, stderr)
		}
	}
	if code, out, _ := pbgen(t, "version"); code != 0 || !strings.HasPrefix(out, "pbgen ") {
		t.Errorf("pbgen version: exit %d, output %q", code, out)
	}
}

// TestGeneratedPackagesAreFresh regenerates every shipped network and
// compares it byte for byte with generated/ (go generate reproduces them).
func TestGeneratedPackagesAreFresh(t *testing.T) {
	for _, n := range []struct{ pkg, file string }{{"pka", "PKA"}, {"camkii", "CaMKII"}, {"chua", "Chua"}} {
		dir := t.TempDir()
		code, _, stderr := pbgen(t, "-o", dir, "-pkg", n.pkg, "../../networks/"+n.file+".xml")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", n.file, code, stderr)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("%s: nothing generated", n.file)
		}
		for _, f := range files {
			got, _ := os.ReadFile(f)
			want, err := os.ReadFile(filepath.Join("../../generated", n.pkg, filepath.Base(f)))
			if err != nil {
				t.Errorf("%s: %v (run go generate ./generated/...)", n.file, err)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: generated/%s/%s is stale (run go generate ./generated/...)", n.file, n.pkg, filepath.Base(f))
			}
		}
	}
}

func TestWriteOnlyOnChange(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := pbgen(t, "-o", dir, "-pkg", "chua", "../../networks/Chua.xml"); code != 0 {
		t.Fatal(stderr)
	}
	f := filepath.Join(dir, "model.go")
	st1, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	old := st1.ModTime().Add(-3600e9)
	if err := os.Chtimes(f, old, old); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := pbgen(t, "-o", dir, "-pkg", "chua", "../../networks/Chua.xml"); code != 0 {
		t.Fatal(stderr)
	}
	st2, _ := os.Stat(f)
	if !st2.ModTime().Equal(old) {
		t.Errorf("an unchanged file was rewritten")
	}
}

func TestCheck(t *testing.T) {
	code, out, stderr := pbgen(t, "check", "../../networks/CaMKII.xml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"states      21", "parameters  59", "reactions   34", "Jx nonzeros", "Jp nonzeros"} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
	code, _, stderr = pbgen(t, "check", suites.Testdata(t, "models/AKAP79.xml"))
	if code != 0 {
		t.Errorf("AKAP79: exit %d: %s", code, stderr)
	}
}

// TestCheckErrors: bad input gives exit status 1 and a message naming the
// file, the line, the element and its id.
func TestCheckErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, body, want string }{
		{"malformed.xml", "<sbml level=\"3\" version=\"2\"><model id=\"m\">", "malformed.xml:"},
		{"unknown.xml", sbml(`<listOfParameters><parameter id="k" value="1" constant="true"/></listOfParameters>
<listOfRules><assignmentRule variable="q"><math xmlns="http://www.w3.org/1998/Math/MathML"><ci>zz</ci></math></assignmentRule></listOfRules>`), `unknown.xml:`},
		// Events are no longer an error to check (it counts them): pbgen
		// gen refusing them is TestGenRefusesEvents.
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := pbgen(t, "check", path)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", c.name, code)
		}
		if !strings.Contains(stderr, c.want) || strings.Contains(stderr, "panic") {
			t.Errorf("%s: stderr %q does not contain %q", c.name, stderr, c.want)
		}
	}
}

func sbml(body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2">
<model id="m">
` + body + `
</model>
</sbml>`
}

// TestPEtab runs pbgen petab on the petab package's fixture: check, the
// evaluation with gradient, FIM, -p, the simulation table and JSON.
func TestPEtab(t *testing.T) {
	const prob = "../../petab/testdata/conv/problem.yaml"
	code, out, stderr := pbgen(t, "petab", "check", prob)
	if code != 0 || !strings.Contains(out, "observables: 2, measurements: 5") {
		t.Fatalf("petab check: exit %d\n%s%s", code, out, stderr)
	}
	dir := t.TempDir()
	sim, js := filepath.Join(dir, "sim.tsv"), filepath.Join(dir, "out.json")
	code, out, stderr = pbgen(t, "petab", "-grad", "-fim", "-o", sim, "-json", js, prob)
	if code != 0 {
		t.Fatalf("petab: exit %d\n%s%s", code, out, stderr)
	}
	for _, w := range []string{"llh: ", "chi2: ", "gradient:", "  k1 ", "fim:"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	data, err := os.ReadFile(sim)
	if err != nil || strings.Count(string(data), "\n") != 6 || !strings.Contains(string(data), "\tinf\t") {
		t.Errorf("simulation table (%v):\n%s", err, data)
	}
	data, err = os.ReadFile(js)
	if err != nil || !strings.Contains(string(data), `"parameters": [`) || !strings.Contains(string(data), `"fim"`) {
		t.Errorf("json (%v):\n%s", err, data)
	}
	// -p changes the value: a different llh.
	_, out2, _ := pbgen(t, "petab", "-p", "scale=3", prob)
	if out2 == "" || strings.SplitN(out2, "\n", 2)[0] == strings.SplitN(out, "\n", 2)[0] {
		t.Errorf("-p scale=3 did not change llh: %q vs %q", out2, out)
	}
	if code, _, stderr := pbgen(t, "petab", "-p", "nosuch=1", prob); code != 1 || !strings.Contains(stderr, "not an estimated parameter") {
		t.Errorf("-p nosuch=1: exit %d, %s", code, stderr)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("format_version: 7\n"), 0o644)
	if code, out, _ := pbgen(t, "petab", "check", bad); code != 1 || !strings.Contains(out, "format_version 7 is not supported") {
		t.Errorf("check of a bad problem: exit %d, %s", code, out)
	}
}
