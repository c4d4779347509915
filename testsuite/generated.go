package testsuite

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pbgen/pbgen/codegen"
	"github.com/pbgen/pbgen/runtime/dae"
	"github.com/pbgen/pbgen/runtime/model"
)

// GenResult is what the program built from generated packages reports for
// one case (gob-encoded, so NaN and infinities survive).
type GenResult struct {
	ID  string
	Sim *Simulation
	Err string
}

// RunDirGenerated runs the cases through generated code: every case kept
// by f is generated as its own package in one temporary module, one go
// build compiles them all with a driver program, and the driver's
// simulations are compared like the interpreted ones. Models with events
// are generated too (the package implements model.Events) and the driver's
// SimulateModel routes them through runtime/events.Solve, as the
// interpreted path does. Progress goes to log.
func RunDirGenerated(dir string, f *Filter, opt *Options, log io.Writer) ([]Outcome, error) {
	cases, err := Discover(dir)
	if err != nil {
		return nil, err
	}
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "pbgen-testsuite-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	var outs []Outcome
	index := make(map[string]int) // case id -> index in outs
	var pkgs []string
	for _, c := range cases {
		if !f.keep(c) {
			continue
		}
		out, pkg := generateCase(c, tmp)
		outs = append(outs, out)
		if pkg != "" {
			index[c.ID] = len(outs) - 1
			pkgs = append(pkgs, pkg)
		}
	}
	if len(outs) == 0 {
		return nil, errNoCases
	}
	fmt.Fprintf(log, "testsuite: generated %d packages, building\n", len(pkgs))
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	results, err := buildAndRun(tmp, root, absDir, pkgs, opt)
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		i := index[r.ID]
		c := outs[i].Case
		if r.Err != "" {
			st := Failed
			if strings.Contains(r.Err, dae.ErrNotIndex1.Error()) {
				st = Skipped // as Run does
			}
			outs[i] = Outcome{Case: c, Status: st, Reason: r.Err}
			continue
		}
		outs[i] = Compare(c, r.Sim)
	}
	return outs, nil
}

// generateCase writes the package of case c under tmp/cases and returns the
// package name, or an outcome that already says skipped or failed.
func generateCase(c *Case, tmp string) (Outcome, string) {
	path, err := c.ModelFile()
	if err != nil {
		return Outcome{Case: c, Status: Failed, Reason: err.Error()}, ""
	}
	sys, err := Lower(path)
	if err != nil {
		st := Failed
		if unsupported(err) {
			st = Skipped
		}
		return Outcome{Case: c, Status: st, Reason: firstLine(err.Error())}, ""
	}
	pkg := "c" + c.ID
	files, err := codegen.Generate(sys, &codegen.Options{Package: pkg, Source: filepath.Base(path)})
	if err != nil {
		return Outcome{Case: c, Status: Failed, Reason: "codegen: " + firstLine(err.Error())}, ""
	}
	d := filepath.Join(tmp, "cases", pkg)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return Outcome{Case: c, Status: Failed, Reason: err.Error()}, ""
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(d, name), src, 0o644); err != nil {
			return Outcome{Case: c, Status: Failed, Reason: err.Error()}, ""
		}
	}
	// Not yet run: the driver's result replaces this outcome.
	return Outcome{Case: c, Status: Failed, Reason: "not run by the driver"}, pkg
}

// buildAndRun writes the module and its driver, builds it once and decodes
// the driver's results.
func buildAndRun(tmp, root, dir string, pkgs []string, opt *Options) ([]GenResult, error) {
	sum, _ := os.ReadFile(filepath.Join(root, "go.sum"))
	gomod := fmt.Sprintf("module pbgentestsuite\n\ngo 1.24\n\nrequire github.com/pbgen/pbgen v0.0.0\n\nreplace github.com/pbgen/pbgen => %s\n", root)
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte(gomod), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.sum"), sum, 0o644); err != nil {
		return nil, err
	}
	rtol, atol := opt.tolerances()
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"encoding/gob\"\n\t\"os\"\n\n\t\"github.com/pbgen/pbgen/runtime/model\"\n\t\"github.com/pbgen/pbgen/testsuite\"\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "\t%q\n", "pbgentestsuite/cases/"+p)
	}
	b.WriteString(")\n\nvar models = map[string]model.Model{\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "\t%q: %s.New(),\n", p[1:], p)
	}
	fmt.Fprintf(&b, "}\n\nfunc main() {\n\tenc := gob.NewEncoder(os.Stdout)\n\tfor _, id := range os.Args[1:] {\n\t\tr := testsuite.GenResult{ID: id}\n\t\tsim, err := testsuite.RunGenerated(models[id], id, %g, %g)\n\t\tif err != nil {\n\t\t\tr.Err = err.Error()\n\t\t}\n\t\tr.Sim = sim\n\t\tenc.Encode(&r)\n\t}\n}\n", rtol, atol)
	if err := os.WriteFile(filepath.Join(tmp, "main.go"), []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	bin := filepath.Join(tmp, "driver")
	build := exec.Command("go", "build", "-mod=mod", "-o", bin, ".")
	build.Dir = tmp
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("testsuite: building generated packages: %v\n%s", err, out)
	}
	ids := make([]string, len(pkgs))
	for i, p := range pkgs {
		ids[i] = p[1:]
	}
	run := exec.Command(bin, ids...)
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	run.Env = append(os.Environ(), "PBGEN_TESTSUITE_DIR="+dir)
	if err := run.Run(); err != nil {
		return nil, fmt.Errorf("testsuite: driver: %v\n%s", err, stderr.String())
	}
	dec := gob.NewDecoder(&stdout)
	var results []GenResult
	for {
		var r GenResult
		if err := dec.Decode(&r); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("testsuite: reading driver output: %v", err)
		}
		results = append(results, r)
	}
	return results, nil
}

// RunGenerated is called by the driver program for one case: it reads the
// case's settings from the directory recorded at build time and simulates
// the generated model m.
func RunGenerated(m model.Model, id string, rtol, atol float64) (sim *Simulation, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	dir := os.Getenv("PBGEN_TESTSUITE_DIR")
	c, err := ReadCase(filepath.Join(dir, id))
	if err != nil {
		return nil, err
	}
	return SimulateModel(m, c.Settings.Times(), &Options{RTol: rtol, ATol: atol})
}

// moduleRoot finds the pbgen module's root from the working directory.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/pbgen/pbgen").Output()
	if err != nil {
		return "", fmt.Errorf("testsuite: -gen must run inside the pbgen module (go list -m: %v)", err)
	}
	return strings.TrimSpace(string(out)), nil
}
