package parser

import (
	"fmt"
	"sort"
	"strings"
)

// Error is one positioned problem in an SBML document. It prints as
//
//	file:line: element "id": what is wrong
//
// Element is the SBML (or MathML) element the problem belongs to, ID the
// identifier of that element (empty when it has none, e.g. the document
// root); Line is the 1-based line of the element's start tag, or of the
// offending MathML node, and 0 when the problem has no place in the file
// (an option passed to ODE).
type Error struct {
	File    string
	Line    int
	Element string
	ID      string
	Msg     string

	last bool // the "too many errors" note, which sorts last
}

func (e *Error) Error() string {
	var sb strings.Builder
	sb.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&sb, ":%d", e.Line)
	}
	sb.WriteString(": ")
	if e.Element != "" {
		sb.WriteString(e.Element)
		if e.ID != "" {
			fmt.Fprintf(&sb, " %q", e.ID)
		}
		sb.WriteString(": ")
	}
	sb.WriteString(e.Msg)
	return sb.String()
}

// MaxErrors is the most errors an ErrorList collects. Past it the list
// ends with a note "too many errors, stopped here: ..." holding the next
// error, and reading stops there: a hostile document with millions of
// bad elements costs no more than one with MaxErrors, and a person reads
// the first few anyway (as the Go compiler stops after ten).
const MaxErrors = 50

// ErrorList is a list of positioned errors, in the style of
// go/scanner.ErrorList: it is sorted by file and line before it is
// returned, and prints its first error followed by "(and N more errors)".
// Unwrap gives each error, so errors.As finds an *Error and a command
// line can print them one per line, the way go vet does.
type ErrorList []*Error

func (l *ErrorList) add(file string, line int, element, id, format string, args ...any) {
	switch {
	case len(*l) > MaxErrors:
		return
	case len(*l) == MaxErrors:
		// The note keeps the error found where reading stopped, so that a
		// caller classifying errors (every one "... is not supported", say)
		// still sees its kind.
		*l = append(*l, &Error{File: file, Line: line, Element: element, ID: id,
			Msg: "too many errors, stopped here: " + fmt.Sprintf(format, args...), last: true})
		return
	}
	*l = append(*l, &Error{File: file, Line: line, Element: element, ID: id, Msg: fmt.Sprintf(format, args...)})
}

// full reports whether the list is past MaxErrors (it holds the "too many
// errors" note): the caller should stop looking for more.
func (l ErrorList) full() bool { return len(l) > MaxErrors }

// Truncated reports whether the list stopped at MaxErrors: its last entry
// is then the "too many errors, stopped here" note.
func (l ErrorList) Truncated() bool { return len(l) > 0 && l[len(l)-1].last }

// Unwrap returns the errors of the list, for errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

func (l ErrorList) Len() int      { return len(l) }
func (l ErrorList) Swap(i, j int) { l[i], l[j] = l[j], l[i] }
func (l ErrorList) Less(i, j int) bool {
	a, b := l[i], l[j]
	if a.last != b.last {
		return b.last
	}
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	if a.Element != b.Element {
		return a.Element < b.Element
	}
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	return a.Msg < b.Msg
}

// Sort sorts the list by file, line, element, id and message, and removes
// exact duplicates.
func (l *ErrorList) Sort() {
	sort.Stable(*l)
	out := (*l)[:0]
	for i, e := range *l {
		if i > 0 && *e == *(*l)[i-1] {
			continue
		}
		out = append(out, e)
	}
	*l = out
}

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Err returns nil for an empty list and the sorted list otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}
