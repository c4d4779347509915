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
	hadBad       bool // a child that cannot be valid here was kept (tree drops the others)
}

// kidVerdict is what tree does with a child element: keep it, drop it
// unread (content nothing interprets), or treat it as bad: a child that
// cannot be valid where it is. The first bad child of an element is kept,
// so that reading reports it with the usual message; later ones are
// dropped unbuilt, so that a flood of them costs neither memory nor time
// (the document has an error already).
type kidVerdict uint8

const (
	kidKeep kidVerdict = iota
	kidDrop
	kidBad
)

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

// xmlStream reads a document element by element. The outer levels of an
// SBML document (<sbml>, <model>, the listOf elements) are streamed: next
// returns one child start tag at a time, and the caller either descends
// into it with next, reads it whole with tree (a component such as a
// species or a reaction, with its math), or discards it with skip. So
// memory holds one component's element tree at a time, not the whole
// document's: a file of millions of elements costs the model it
// describes, and reading stops at the first malformed token or when the
// error list is full (MaxErrors).
//
// Every element that next returns must be finished with exactly one of:
// tree, skip, or calls of next until it returns nil (its end tag).
type xmlStream struct {
	d     *xml.Decoder
	lr    *io.LimitedReader
	file  string
	errs  *ErrorList
	depth int  // open elements
	stop  bool // malformed XML, a limit hit, or too many errors: read no more
	bad   bool // the document is not well-formed (or too large)

	// judge, if set, rules on each child element tree is about to build.
	judge func(parent, child *elem) kidVerdict
}

func newStream(r io.Reader, file string, errs *ErrorList) *xmlStream {
	lr := &io.LimitedReader{R: r, N: MaxBytes + 1}
	return &xmlStream{d: xml.NewDecoder(lr), lr: lr, file: file, errs: errs}
}

// fail records a decoding error and stops reading.
func (s *xmlStream) fail(line int, err error) {
	s.stop, s.bad = true, true
	if s.lr.N <= 0 {
		s.errs.add(s.file, line, "sbml", "", "document larger than %d bytes", MaxBytes)
		return
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		s.errs.add(s.file, se.Line, "sbml", "", "malformed XML: %s", se.Msg)
		return
	}
	s.errs.add(s.file, line, "sbml", "", "malformed XML: %v", err)
}

// token returns the next token and the line it starts on; ok is false at
// the end of input (eof) or after an error.
func (s *xmlStream) token() (tok xml.Token, line int, eof, ok bool) {
	line, _ = s.d.InputPos()
	tok, err := s.d.Token()
	if err == io.EOF {
		if s.lr.N <= 0 {
			s.fail(line, err)
			return nil, line, false, false
		}
		return nil, line, true, false
	}
	if err != nil {
		s.fail(line, err)
		return nil, line, false, false
	}
	return tok, line, false, true
}

// open makes an element of a start tag, checking the depth limit.
func (s *xmlStream) open(t xml.StartElement, line int) *elem {
	if s.depth >= MaxDepth {
		s.errs.add(s.file, line, t.Name.Local, "", "elements nested deeper than %d", MaxDepth)
		s.stop, s.bad = true, true
		return nil
	}
	s.depth++
	return &elem{space: t.Name.Space, local: t.Name.Local, attrs: t.Attr, line: line}
}

// next returns the next child element (start tag and attributes only) of
// the innermost open element, or of the document when none is open. It
// returns nil at that element's end tag, which it consumes, at the end of
// the document, and when reading has stopped. Annotations and notes are
// skipped; character data at these levels is ignored.
func (s *xmlStream) next() *elem {
	for !s.stop {
		if s.errs.full() {
			s.stop = true
			return nil
		}
		tok, line, _, ok := s.token()
		if !ok {
			if s.depth > 0 && !s.stop {
				s.fail(line, io.ErrUnexpectedEOF)
			}
			return nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if skipped(t.Name.Local) && s.depth > 0 {
				if err := s.d.Skip(); err != nil {
					s.fail(line, err)
					return nil
				}
				continue
			}
			return s.open(t, line)
		case xml.EndElement:
			s.depth--
			return nil
		}
	}
	return nil
}

// skip discards the rest of the element next returned last.
func (s *xmlStream) skip() {
	if s.stop {
		return
	}
	line, _ := s.d.InputPos()
	if err := s.d.Skip(); err != nil {
		s.fail(line, err)
		return
	}
	s.depth--
}

// tree reads the content of e, which next returned last, into its kids
// and segs (annotations and notes left out), consuming its end tag. It
// reports whether the element was read completely.
func (s *xmlStream) tree(e *elem) bool {
	stack := []*elem{e}
	cur := []strings.Builder{{}} // pending character data per open element
	for len(stack) > 0 {
		if s.stop {
			return false
		}
		tok, line, _, ok := s.token()
		if !ok {
			if !s.stop {
				s.fail(line, io.ErrUnexpectedEOF)
			}
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if skipped(t.Name.Local) {
				if err := s.d.Skip(); err != nil {
					s.fail(line, err)
					return false
				}
				continue
			}
			k := s.open(t, line)
			if k == nil {
				return false
			}
			p := stack[len(stack)-1]
			if s.judge != nil {
				switch s.judge(p, k) {
				case kidDrop:
					s.skip()
					continue
				case kidBad:
					if p.hadBad {
						s.skip()
						continue
					}
					p.hadBad = true
				}
			}
			p.segs = append(p.segs, cur[len(cur)-1].String())
			cur[len(cur)-1].Reset()
			p.kids = append(p.kids, k)
			stack = append(stack, k)
			cur = append(cur, strings.Builder{})
		case xml.EndElement:
			top := stack[len(stack)-1]
			top.segs = append(top.segs, cur[len(cur)-1].String())
			stack = stack[:len(stack)-1]
			cur = cur[:len(cur)-1]
			s.depth--
		case xml.CharData:
			cur[len(cur)-1].Write(t)
		}
	}
	return true
}

// root returns the document element (nil, with an error, if there is
// none).
func (s *xmlStream) root() *elem {
	e := s.next()
	if e == nil && !s.stop {
		s.errs.add(s.file, 1, "sbml", "", "malformed XML: no root element")
	}
	return e
}

// finish reads the rest of the document after the root element, so that
// trailing garbage (a second root, a syntax error, excess size) is
// reported as before.
func (s *xmlStream) finish() {
	for !s.stop {
		tok, line, eof, ok := s.token()
		if eof || !ok {
			return
		}
		if t, isStart := tok.(xml.StartElement); isStart {
			s.errs.add(s.file, line, t.Name.Local, "", "malformed XML: more than one root element")
			s.stop, s.bad = true, true
		}
	}
}
