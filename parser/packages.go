package parser

import "strings"

// noteOptional records the packages the root declares required="false".
// SBML says such a package does not change the mathematical meaning of
// the core model, so its elements can be ignored for simulation, as
// those of layout and render always are. A package declared
// required="true" is refused by name (except comp, which is flattened).
func (r *reader) noteOptional(root *elem) {
	for _, a := range root.attrs {
		if a.Name.Local == "required" && a.Name.Space != "" && a.Name.Space != "xmlns" && strings.TrimSpace(a.Value) == "false" {
			if r.optional == nil {
				r.optional = make(map[string]bool)
			}
			r.optional[a.Name.Space] = true
		}
	}
}

// ignorable reports whether elements of the namespace space are ignored:
// layout and render, and packages declared required="false".
func (r *reader) ignorable(space string) bool {
	return harmlessPackage(space) || r.optional[space]
}
