package parser

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestStopsAtTooManyErrors: a document with a million unknown elements in
// <model> stops after MaxErrors of them, having read a small prefix of the
// file (the whole document was once built as a tree first: 8 million
// elements took 15 s and 2.4 GB).
func TestStopsAtTooManyErrors(t *testing.T) {
	for _, where := range []string{"model", "list", "sbml"} {
		junk := strings.Repeat("<a/>", 1<<20)
		var doc string
		switch where {
		case "model":
			doc = l3(basics + "\n" + junk)
		case "list":
			doc = l3(basics + "\n<listOfSpecies>" + strings.ReplaceAll(junk, "<a/>", `<species id="x"/>`) + "</listOfSpecies>")
		case "sbml":
			doc = strings.Replace(l3(basics), "<model", "\n"+junk+"\n<model", 1)
		}
		cr := &countingReader{r: strings.NewReader(doc)}
		_, err := Read(cr, "junk.xml")
		var list ErrorList
		if !errors.As(err, &list) || !list.Truncated() {
			t.Fatalf("%s: got %v, want a truncated ErrorList", where, err)
		}
		if cr.n > 1<<16 {
			t.Errorf("%s: read %d of %d bytes before stopping", where, cr.n, len(doc))
		}
	}
}

// TestStreamedDocumentShapes: what the streamed outer levels must still
// notice.
func TestStreamedDocumentShapes(t *testing.T) {
	full := l3(basics + law(`<ci>k</ci>`))
	trunc := strings.TrimSuffix(full, "</model>\n</sbml>\n")
	cases := []struct{ name, doc, marker, want string }{
		{"second root", full + "<sbml/>\n", "<sbml/>", `sbml: malformed XML: more than one root element`},
		{"truncated", trunc + "<!--end-->", "<!--end-->", `sbml: malformed XML: unexpected EOF`},
		{"mismatched", strings.Replace(full, "</listOfReactions>", "</listOfReaction>", 1), "</listOfReaction>", `sbml: malformed XML: element <listOfReactions> closed by </listOfReaction>`},
		{"no model", `<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2"><annotation><model/></annotation></sbml>`, "<sbml", `sbml: no <model>`},
		{"two models", strings.Replace(full, "</sbml>", "<model id=\"m2\"><a/></model></sbml>", 1), `"m2"`, `model: more than one <model>`},
	}
	for _, c := range cases {
		_, err := Read(strings.NewReader(c.doc), "s.xml")
		want := "s.xml:" + strconv.Itoa(lineOf(t, c.doc, c.marker)) + ": " + c.want
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s:\ngot  %v\nwant %s", c.name, err, want)
		}
	}
	if _, err := Read(strings.NewReader(""), "s.xml"); err == nil || err.Error() != "s.xml:1: sbml: malformed XML: no root element" {
		t.Errorf("empty document: %v", err)
	}
}
