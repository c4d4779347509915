package petab

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// MaxErrors is how many errors Load collects before it stops reading: a
// table with a systematic mistake (a wrong column in every row) would
// otherwise bury the first, most useful message under thousands.
const MaxErrors = 50

// Error is one problem in a PEtab file. Line and Column are 0 when they do
// not apply (a missing file, a YAML key).
type Error struct {
	File   string
	Line   int    // 1-based line in File, 0 if unknown
	Column string // table column name, "" if none
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Column != "" {
		fmt.Fprintf(&b, "column %s: ", e.Column)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is every problem found in a PEtab problem, sorted by file and
// line (go/scanner style). It is the error type of Load.
type ErrorList []*Error

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Sort orders the list by file, then line, then column; errors without a
// line (whole-file problems) come first within a file.
func (l ErrorList) Sort() {
	slices.SortStableFunc(l, func(a, b *Error) int {
		if c := cmp.Compare(a.File, b.File); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Line, b.Line); c != 0 {
			return c
		}
		return cmp.Compare(a.Column, b.Column)
	})
}

// errs collects errors up to MaxErrors.
type errs struct {
	list ErrorList
	warn ErrorList // accepted, but worth a look (pbgen petab check prints them)
	full bool
}

func (e *errs) warnf(file string, line int, col string, format string, args ...any) {
	if len(e.warn) < MaxErrors {
		e.warn = append(e.warn, &Error{File: file, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)})
	}
}

func (e *errs) add(file string, line int, col string, format string, args ...any) {
	if len(e.list) >= MaxErrors {
		e.full = true
		return
	}
	e.list = append(e.list, &Error{File: file, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)})
}

// err returns the sorted list, or nil when it is empty.
func (e *errs) err() error {
	if len(e.list) == 0 {
		return nil
	}
	e.list.Sort()
	return e.list
}
