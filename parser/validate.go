package parser

// validate checks the references between components once all are read.
func (r *reader) validate() {
	m := r.m
	if len(m.Compartments)+len(m.Species)+len(m.Parameters)+len(m.Reactions)+len(m.Events) == 0 {
		r.errorf(m.Line, "model", m.ID, "model is empty")
	}
	isKind := func(id, kind string) bool { return r.ids[id].kind == kind && id != "" }
	if m.ConversionFactor != "" && !isKind(m.ConversionFactor, "parameter") {
		r.errorf(m.Line, "model", m.ID, "conversionFactor %q is not a parameter", m.ConversionFactor)
	}
	constant := make(map[string]bool)
	for _, c := range m.Compartments {
		constant[c.ID] = c.Constant
	}
	for _, p := range m.Parameters {
		constant[p.ID] = p.Constant
	}
	for _, s := range m.Species {
		constant[s.ID] = s.Constant
		if s.Compartment != "" && !isKind(s.Compartment, "compartment") {
			r.errorf(s.Line, "species", s.ID, "compartment %q does not exist", s.Compartment)
		}
		if s.ConversionFactor != "" && !isKind(s.ConversionFactor, "parameter") {
			r.errorf(s.Line, "species", s.ID, "conversionFactor %q is not a parameter", s.ConversionFactor)
		}
	}
	reacting := make(map[string]bool) // species changed by some reaction
	for _, rx := range m.Reactions {
		for _, list := range [][]*SpeciesReference{rx.Reactants, rx.Products} {
			for _, sr := range list {
				if sr.ID != "" {
					constant[sr.ID] = sr.Constant
				}
				if sr.Species == "" {
					continue
				}
				if !isKind(sr.Species, "species") {
					r.errorf(sr.Line, "reaction", rx.ID, "species %q does not exist", sr.Species)
					continue
				}
				reacting[sr.Species] = true
			}
		}
		for _, mod := range rx.Modifiers {
			if mod != "" && !isKind(mod, "species") {
				r.errorf(rx.Line, "reaction", rx.ID, "modifier species %q does not exist", mod)
			}
		}
		if rx.Rate == nil {
			r.errorf(rx.Line, "reaction", rx.ID, "no kinetic law math")
		}
	}
	for _, s := range m.Species {
		if s.BoundaryCondition || s.Constant {
			reacting[s.ID] = false
		}
	}
	target := func(line int, el, id string) bool {
		switch r.ids[id].kind {
		case "compartment", "species", "parameter", "speciesReference":
			return true
		case "":
			r.errorf(line, el, id, "%q does not exist", id)
		default:
			r.errorf(line, el, id, "cannot assign to the %s %q", r.ids[id].kind, id)
		}
		return false
	}
	hasIA := make(map[string]int)
	for _, ia := range m.InitialAssignments {
		if !target(ia.Line, "initialAssignment", ia.Symbol) {
			continue
		}
		if prev, dup := hasIA[ia.Symbol]; dup {
			r.errorf(ia.Line, "initialAssignment", ia.Symbol, "second initial assignment (first on line %d)", prev)
		}
		if ia.Math != nil {
			hasIA[ia.Symbol] = ia.Line
		}
	}
	ruled := make(map[string]int)
	for _, ru := range m.Rules {
		el := ru.Kind.String()
		if !target(ru.Line, el, ru.Variable) {
			continue
		}
		if prev, dup := ruled[ru.Variable]; dup {
			r.errorf(ru.Line, el, ru.Variable, "second rule for the same variable (first on line %d)", prev)
		}
		ruled[ru.Variable] = ru.Line
		if constant[ru.Variable] {
			r.errorf(ru.Line, el, ru.Variable, "rule changes a constant %s", r.ids[ru.Variable].kind)
		}
		if ru.Kind == AssignmentRule && ru.Math != nil {
			if l, ok := hasIA[ru.Variable]; ok {
				r.errorf(ru.Line, el, ru.Variable, "variable also has an initial assignment (line %d)", l)
			}
		}
		if reacting[ru.Variable] {
			r.errorf(ru.Line, el, ru.Variable, "species is changed by reactions and by a rule")
		}
	}
	byRule := make(map[string]bool)
	for _, ru := range m.Rules {
		if ru.Kind == AssignmentRule {
			byRule[ru.Variable] = true
		}
	}
	r.validateEvents(constant, byRule)
}
