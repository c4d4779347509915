package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/parser"
)

// writeDoc writes an SBML L3v2 document with the given model content.
func writeDoc(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bad.xml")
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2">
<model id="m">
` + body + `</model>
</sbml>
`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckListsErrors: check prints every error on its own line with
// file:line, then a count, and stops at parser.MaxErrors.
func TestCheckListsErrors(t *testing.T) {
	for _, n := range []int{3, parser.MaxErrors, parser.MaxErrors + 20} {
		var b strings.Builder
		b.WriteString("<listOfParameters>\n")
		for i := range n {
			fmt.Fprintf(&b, "<parameter id=\"p%d\" value=\"bad%d\"/>\n", i, i)
		}
		b.WriteString("</listOfParameters>\n")
		path := writeDoc(t, b.String())
		code, out, stderr := pbgen(t, "check", path)
		if code != 1 || out != "" {
			t.Fatalf("%d errors: exit %d, stdout %q", n, code, out)
		}
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		shown := min(n, parser.MaxErrors)
		for i := range shown {
			want := fmt.Sprintf("%s:%d: parameter \"p%d\": attribute value: \"bad%d\" is not a number", path, 5+i, i, i)
			if i >= len(lines) || !strings.HasPrefix(lines[i], want) {
				t.Fatalf("%d errors: line %d:\ngot  %q\nwant %q...", n, i, lines[i], want)
			}
		}
		tail := lines[shown:]
		var want []string
		if n > parser.MaxErrors {
			want = []string{fmt.Sprintf("%s:%d: parameter \"p%d\": too many errors, stopped here: attribute value: \"bad%d\" is not a number (XML Schema double)", path, 5+parser.MaxErrors, parser.MaxErrors, parser.MaxErrors), fmt.Sprintf("pbgen: %s: too many errors, stopped reading", path)}
		} else {
			want = []string{fmt.Sprintf("pbgen: %s: %d errors", path, n)}
		}
		if strings.Join(tail, "\n") != strings.Join(want, "\n") {
			t.Errorf("%d errors: tail\n%s\nwant\n%s", n, strings.Join(tail, "\n"), strings.Join(want, "\n"))
		}
	}
}
