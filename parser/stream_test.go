package parser

import (
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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

// peakHeap runs f and returns the largest heap it saw in use (sampled).
func peakHeap(f func()) uint64 {
	runtime.GC()
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-sampled
	return peak.Load()
}

// TestFloodInsideComponent: a million invalid elements inside a component
// (species, a list of a reaction, MathML; in the SBML namespace or a
// foreign one) are reported once and not built: the heap stays far below
// what the element tree took (over 300 MB here), and one error names the
// first of them.
func TestFloodInsideComponent(t *testing.T) {
	n := 1 << 20
	flood := func(elem string) string { return strings.Repeat(elem, n) }
	cases := []struct {
		name string
		doc  func() string
		want string
	}{
		{"species", func() string { return l3(comp1 + "\n" + strings.Replace(spS, `/>`, `>`+flood("<a/>")+`</species>`, 1)) }, `species "S": unexpected element <a>`},
		{"reactants", func() string {
			return l3(basics + strings.Replace(law(`<ci>k</ci>`), `</listOfReactants>`, flood("<a/>")+`</listOfReactants>`, 1))
		}, `a: unexpected element in <listOfReactants>`},
		{"math", func() string { return l3(basics + law(`<apply><plus/>`+flood("<a/>")+`</apply>`)) }, `reaction "R": MathML element <a> is not supported`},
		{"math twice", func() string {
			return strings.Replace(l3(basics+law(`<ci>k</ci>`)), `</kineticLaw>`, flood(`<m:math xmlns:m="http://www.w3.org/1998/Math/MathML"/>`)+`</kineticLaw>`, 1)
		}, `kineticLaw "R": more than one <math> (first on line 9)`},
		{"list twice", func() string {
			return strings.Replace(l3(basics+law(`<ci>k</ci>`)), `<kineticLaw>`, flood(`<listOfProducts/>`)+`<kineticLaw>`, 1)
		}, `reaction "R": more than one <listOfProducts> (first on line 9)`},
		{"foreign", func() string {
			return strings.Replace(l3(comp1+"\n"+strings.Replace(spS, `/>`, `>`+flood("<x:a/>")+`</species>`, 1)), `level="3"`, `xmlns:x="urn:x" level="3"`, 1)
		}, `SBML package "urn:x" is not supported`},
	}
	for _, c := range cases {
		doc := c.doc()
		var err error
		peak := peakHeap(func() { _, err = Read(strings.NewReader(doc), "f.xml") })
		var list ErrorList
		if !errors.As(err, &list) || len(list) != 1 || !strings.Contains(list[0].Error(), c.want) {
			t.Errorf("%s: got %v, want one error with %q", c.name, err, c.want)
		}
		if limit := uint64(len(doc)) + 64<<20; peak > limit {
			t.Errorf("%s: heap reached %d MB reading a %d MB document", c.name, peak>>20, len(doc)>>20)
		}
	}
}
