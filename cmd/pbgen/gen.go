package main

import (
	"bytes"
	"fmt"
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
	var lf lowerFlags
	lf.register(fs)
	if err := parseFlags(fs, args, 1); err != nil {
		return err
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
	if !isGoIdent(name) {
		return fmt.Errorf("%s: package name %q is not a Go identifier (use -pkg)", path, name)
	}
	dir := *out
	if dir == "" {
		dir = name
	}
	files, err := codegen.Generate(sys, &codegen.Options{Package: name, Source: sourceName(path)})
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for fn := range files {
		names = append(names, fn)
	}
	sort.Strings(names)
	for _, fn := range names {
		if err := writeIfChanged(filepath.Join(dir, fn), files[fn]); err != nil {
			return err
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
// letters and digits only, not starting with a digit.
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
	return s
}

func isGoIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(unicode.IsLetter(r) || r == '_' || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}
