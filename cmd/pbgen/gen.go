package main

import (
	"bytes"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/pbgen/pbgen/codegen"
)

// cmdGen generates the Go package for one network.
func cmdGen(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("pbgen", stderr, "pbgen [-o DIR] [-pkg NAME] network.xml")
	out := fs.String("o", "", "output `dir` (default ./NAME)")
	pkg := fs.String("pkg", "", "package `name` (default: the model id in lower case)")
	lf := lowerFlags{events: true} // generated packages implement model.Events; sens refuses them, runtime/events solves them
	lf.register(fs)
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	// A bad -pkg is refused before the network is read.
	if *pkg != "" {
		if err := checkPackageName(*pkg); err != nil {
			return &usageError{cmd: fs.Name(), msg: "-pkg " + err.Error()}
		}
	}
	if *out != "" {
		if err := checkOutDir("o", *out); err != nil {
			return &usageError{cmd: fs.Name(), msg: err.Error()}
		}
	}
	path := fs.Arg(0)
	_, sys, err := load(path, &lf)
	if err != nil {
		return err
	}
	name := *pkg
	if name == "" {
		name = packageName(sys.ODE.Name)
	}
	dir := *out
	if dir == "" {
		dir = name
	}
	files, err := codegen.Generate(sys, &codegen.Options{Package: name, Source: sourceName(path)})
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return writePackage(dir, files)
}

// writePackage writes the generated files into dir (created if needed),
// in name order, each only if its bytes changed; an error names the
// directory as -o (the default is the package name).
func writePackage(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-o %s: %v", dir, unwrapPath(err))
	}
	names := make([]string, 0, len(files))
	for fn := range files {
		names = append(names, fn)
	}
	sort.Strings(names)
	for _, fn := range names {
		if err := writeIfChanged(filepath.Join(dir, fn), files[fn]); err != nil {
			return fmt.Errorf("-o %s: %v", dir, err)
		}
	}
	return nil
}

// writeIfChanged writes data to path unless the file already holds exactly
// these bytes, so that go generate does not touch up-to-date files.
func writeIfChanged(path string, data []byte) error {
	old, err := os.ReadFile(path)
	if err == nil && bytes.Equal(old, data) {
		return nil
	}
	return os.WriteFile(path, data, 0o644)
}

// sourceName is the network's path as recorded in the generated header:
// relative to the enclosing Go module's root when there is one (so the
// header does not depend on where the generator ran), else the base name.
// It never contains an absolute path.
func sourceName(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Base(path)
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if rel, err := filepath.Rel(dir, abs); err == nil {
				return filepath.ToSlash(rel)
			}
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	return filepath.Base(path)
}

// packageName derives a Go package name from a model id: lower case,
// letters and digits only, not starting with a digit, and neither a Go
// keyword nor main (model ids such as "func" or "main" are legal SBML).
func packageName(id string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(id) {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || unicode.IsDigit(rune(s[0])) {
		s = "model" + s
	}
	if checkPackageName(s) != nil {
		s += "model"
	}
	return s
}

// checkPackageName refuses names that cannot be the package of a generated
// model: non-identifiers and keywords do not compile, "_" is not a legal
// package name, and a package main cannot be imported, so the generated
// New and its types would be unusable (the model is a library that a main
// package imports).
func checkPackageName(s string) error {
	switch {
	case token.IsKeyword(s):
		return fmt.Errorf("%q is a Go keyword", s)
	case !token.IsIdentifier(s):
		return fmt.Errorf("%q is not a Go identifier", s)
	case s == "_":
		return fmt.Errorf("%q is not a valid package name", s)
	case s == "main":
		return fmt.Errorf("%q: a main package cannot be imported; generate a library package and import it from your main package", s)
	}
	return nil
}
