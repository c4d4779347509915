package parser

// stoichiometryMath (SBML Level 2): a species reference whose
// stoichiometry is given by math, which may depend on time, parameters
// and species and is evaluated at every time. It is read as what it
// means in Level 3 terms: the species reference gets an id (its own, or
// a synthetic one, see stoichMathID) and an assignment rule with the
// math, so that lowering uses the value of that id as the stoichiometry,
// as it does for an L3 species reference set by a rule. The synthetic id
// is also an output of the ODE, the stoichiometry over time.

import (
	"fmt"
	"strconv"
)

// stoichiometryMath gives each species reference of rx (read from the
// reaction element e) that has a <stoichiometryMath> an id and an
// assignment rule with its math.
func (r *reader) stoichiometryMath(e *elem, rx *Reaction) {
	for _, l := range e.kids {
		if l.space != r.ns {
			continue
		}
		var refs []*SpeciesReference
		switch l.local {
		case "listOfReactants":
			refs = rx.Reactants
		case "listOfProducts":
			refs = rx.Products
		default:
			continue
		}
		i := 0
		for _, s := range l.kids {
			if s.space != r.ns || s.local != "speciesReference" {
				continue
			}
			if i >= len(refs) {
				return
			}
			sr := refs[i]
			i++
			for _, sm := range s.kids {
				if sm.space == r.ns && sm.local == "stoichiometryMath" {
					r.stoichMath(s, sm, rx, sr)
					break
				}
			}
		}
	}
}

func (r *reader) stoichMath(s, sm *elem, rx *Reaction, sr *SpeciesReference) {
	if r.m.Level > 2 {
		r.errorf(sm.line, "speciesReference", sr.ID, "stoichiometryMath is not part of SBML Level 3 (use an assignment rule to the species reference's id)")
		return
	}
	if _, ok := s.attr("stoichiometry"); ok {
		r.errorf(s.line, "speciesReference", sr.ID, "both a stoichiometry attribute and stoichiometryMath")
		return
	}
	r.checkKids(sm, sr.ID, "math")
	if r.mathOf(sm) == nil {
		r.errorf(sm.line, "speciesReference", sr.ID, "stoichiometryMath has no math")
		return
	}
	if sr.ID == "" {
		sr.ID = r.stoichMathID(rx.ID, sr.Species)
		r.declare(sr.ID, "speciesReference", s.line)
	}
	sr.Constant = false
	ru := &Rule{Kind: AssignmentRule, Variable: sr.ID, Line: sm.line}
	r.queue(sm, &ru.Math, nil, "stoichiometryMath", sr.ID)
	r.m.Rules = append(r.m.Rules, ru)
}

// stoichMathID is the synthetic id of a species reference with
// stoichiometryMath and no id of its own: "stoichiometry(R:S)" for
// species S in reaction R, with "#2", "#3" appended when S appears more
// than once. It is not a valid SId, so it cannot collide with the
// model's ids.
func (r *reader) stoichMathID(rx, species string) string {
	base := fmt.Sprintf("stoichiometry(%s:%s)", rx, species)
	id := base
	for n := 2; ; n++ {
		if _, taken := r.ids[id]; !taken {
			return id
		}
		id = base + "#" + strconv.Itoa(n)
	}
}
