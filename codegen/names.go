package codegen

import (
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// sanitize maps an SBML id (or any name) to the body of a Go identifier:
// letters, digits and '_' are kept, every other rune becomes '_', a
// leading digit gets a '_' in front, and the empty name becomes "_".
// Distinct names can map to the same result ("a.b", "a-b", "a_b"); the
// namer makes the final identifiers unique.
func sanitize(name string) string {
	var sb strings.Builder
	for i, r := range name {
		switch {
		case r == '_' || unicode.IsLetter(r):
			sb.WriteRune(r)
		case unicode.IsDigit(r):
			if i == 0 {
				sb.WriteByte('_')
			}
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	if sb.Len() == 0 {
		return "_"
	}
	return sb.String()
}

// isReserved reports whether s is a Go keyword or a predeclared identifier
// (int, len, true, nil, ...), which a generated identifier must not be or
// shadow.
func isReserved(s string) bool {
	return token.IsKeyword(s) || types.Universe.Lookup(s) != nil
}

// Ident returns a Go identifier for name that is safe to declare anywhere:
// sanitize(name), with a '_' appended if that is a keyword or a
// predeclared identifier ("type" -> "type_", "len" -> "len_") or the
// blank identifier.
func Ident(name string) string {
	s := sanitize(name)
	if isReserved(s) || s == "_" {
		s += "_"
	}
	return s
}

// exported returns prefix + sanitize(name) with the first rune of the
// name upper-cased where it has an upper case ("k1" -> "ParamK1").
func exported(prefix, name string) string {
	s := sanitize(name)
	r, size := utf8.DecodeRuneInString(s)
	return prefix + string(unicode.ToUpper(r)) + s[size:]
}

// namer hands out identifiers unique within one scope, deterministically:
// the first claimant of a name gets it, later ones get name_2, name_3, ...
type namer struct{ used map[string]bool }

func newNamer(reserved ...string) *namer {
	n := &namer{used: make(map[string]bool)}
	for _, r := range reserved {
		n.used[r] = true
	}
	return n
}

func (n *namer) unique(s string) string {
	if !n.used[s] {
		n.used[s] = true
		return s
	}
	for k := 2; ; k++ {
		c := s + "_" + strconv.Itoa(k)
		if !n.used[c] {
			n.used[c] = true
			return c
		}
	}
}
