package parser

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// Limits on hostile input. A document larger than MaxBytes or nested deeper
// than MaxDepth elements (SBML and MathML together) is refused with a
// positioned error instead of exhausting memory or stack.
const (
	MaxBytes = 64 << 20 // bytes of XML per document
	MaxDepth = 4096     // element nesting depth, counting from <sbml>
)

// elem is one XML element of the document, kept only as long as reading
// takes: its name, attributes, children and text with the 1-based line of
// its start tag. segs[i] is the character data before kids[i];
// segs[len(kids)] the data after the last child (MathML <cn> with <sep/>
// needs the pieces).
type elem struct {
	space, local string
	attrs        []xml.Attr
	kids         []*elem
	segs         []string
	line         int
}

// attr returns the value of the attribute name in no namespace.
func (e *elem) attr(name string) (string, bool) {
	for _, a := range e.attrs {
		if a.Name.Space == "" && a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// text is the element's character data with surrounding space removed.
func (e *elem) text() string { return strings.TrimSpace(strings.Join(e.segs, "")) }

// skipped reports whether an element's content is never interpreted:
// annotations and notes may hold arbitrary XML.
func skipped(local string) bool {
	switch local {
	case "annotation", "notes", "annotation-xml":
		return true
	}
	return false
}

// readTree parses the XML document into an element tree, skipping the
// content of annotations and notes. Errors go to errs; the tree is nil
// when the document is not well-formed.
func readTree(r io.Reader, file string, errs *ErrorList) *elem {
	lr := &io.LimitedReader{R: r, N: MaxBytes + 1}
	d := xml.NewDecoder(lr)
	tooBig := func() bool { return lr.N <= 0 }
	fail := func(line int, err error) {
		if tooBig() {
			errs.add(file, line, "sbml", "", "document larger than %d bytes", MaxBytes)
			return
		}
		var se *xml.SyntaxError
		if errors.As(err, &se) {
			errs.add(file, se.Line, "sbml", "", "malformed XML: %s", se.Msg)
			return
		}
		errs.add(file, line, "sbml", "", "malformed XML: %v", err)
	}
	var root *elem
	var stack []*elem
	var cur []strings.Builder // pending character data per open element
	for {
		line, _ := d.InputPos()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			fail(line, err)
			return nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if skipped(t.Name.Local) && len(stack) > 0 {
				if err := d.Skip(); err != nil {
					fail(line, err)
					return nil
				}
				continue
			}
			if len(stack) >= MaxDepth {
				errs.add(file, line, t.Name.Local, "", "elements nested deeper than %d", MaxDepth)
				return nil
			}
			e := &elem{space: t.Name.Space, local: t.Name.Local, attrs: t.Attr, line: line}
			if len(stack) == 0 {
				if root != nil {
					errs.add(file, line, t.Name.Local, "", "malformed XML: more than one root element")
					return nil
				}
				root = e
			} else {
				p := stack[len(stack)-1]
				p.segs = append(p.segs, cur[len(cur)-1].String())
				cur[len(cur)-1].Reset()
				p.kids = append(p.kids, e)
			}
			stack = append(stack, e)
			cur = append(cur, strings.Builder{})
		case xml.EndElement:
			e := stack[len(stack)-1]
			e.segs = append(e.segs, cur[len(cur)-1].String())
			stack = stack[:len(stack)-1]
			cur = cur[:len(cur)-1]
		case xml.CharData:
			if len(stack) > 0 {
				cur[len(cur)-1].Write(t)
			}
		}
	}
	if tooBig() {
		errs.add(file, 1, "sbml", "", "document larger than %d bytes", MaxBytes)
		return nil
	}
	if root == nil {
		errs.add(file, 1, "sbml", "", "malformed XML: no root element")
	}
	return root
}
