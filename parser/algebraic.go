package parser

import (
	"fmt"
	"strings"

	"github.com/pbgen/pbgen/symbolic"
)

// Algebraic rules (0 = math) are lowered to algebraic variables of a
// semi-explicit DAE (symbolic.ODE.Algebraic, solved by runtime/dae).
//
// SBML does not say which variable a rule determines: a model is valid
// when its equations are neither over- nor underdetermined (L3v2 core,
// section 4.11.5), that is when the rules, together with the variables
// not otherwise determined, have a perfect matching. We compute one: the
// candidates of a rule are the symbols in its math (through assignment
// rules and reaction rates) that nothing else determines (not constant,
// no assignment or rate rule, not set by events, not a species that
// reactions change), and rules are matched to candidates by augmenting
// paths, in document order. A rule with no candidate left is refused by
// name and line ("algebraic rule ... is not supported": an
// overdetermined model, or one whose variable would be set by an event,
// which the elimination cannot handle).
//
// The matched variable becomes a state of the DAE in the units of its
// symbol in math (for a species, like a species set by a rate rule), the
// rule's math (rules substituted, as for rates) its residual, and its
// declared or initially assigned value the first guess that runtime/dae
// refines into the consistent initial value. An initial value of another
// state that depends on an algebraic variable would need the solved value
// at t0 before it is known, so it is refused by name.

// matchAlgebraic decides which variable each algebraic rule determines
// and marks it (v.alg, v.isState).
func (l *lowering) matchAlgebraic() {
	rules := l.m.AlgebraicRules
	if len(rules) == 0 {
		return
	}
	candidate := func(v *variable) bool {
		if v == nil || v.ar != nil || v.rr != nil || v.evTarget || v.kind == vReaction || v.rateOf != nil {
			return false
		}
		switch v.kind {
		case vSpecies:
			s := v.sp
			return !s.Constant && !(v.reacting && !s.BoundaryCondition)
		case vCompartment:
			for _, c := range l.m.Compartments {
				if c.ID == v.id {
					return !c.Constant
				}
			}
		case vParameter:
			for _, p := range l.m.Parameters {
				if p.ID == v.id {
					return !p.Constant
				}
			}
		case vSpeciesRef:
			for _, rx := range l.m.Reactions {
				for _, list := range [][]*SpeciesReference{rx.Reactants, rx.Products} {
					for _, sr := range list {
						if sr.ID == v.id {
							return !sr.Constant
						}
					}
				}
			}
		}
		return false
	}
	cands := make([][]*variable, len(rules))
	for i, ru := range rules {
		if ru.Math == nil {
			continue
		}
		for _, v := range l.ruleVars(ru.Math) {
			if candidate(v) {
				cands[i] = append(cands[i], v)
			}
		}
	}
	owner := make(map[*variable]int)
	var try func(i int, seen map[*variable]bool) bool
	try = func(i int, seen map[*variable]bool) bool {
		for _, v := range cands[i] {
			if seen[v] {
				continue
			}
			seen[v] = true
			if j, taken := owner[v]; !taken || try(j, seen) {
				owner[v] = i
				return true
			}
		}
		return false
	}
	for i, ru := range rules {
		if ru.Math == nil {
			continue
		}
		if !try(i, make(map[*variable]bool)) {
			var ids []string
			for _, v := range cands[i] {
				ids = append(ids, v.id)
			}
			why := "no variable in it is left undetermined by other rules, reactions, events or constant declarations"
			if len(ids) > 0 {
				why = fmt.Sprintf("its candidates (%s) are all determined by other algebraic rules", strings.Join(ids, ", "))
			}
			l.errs.add(l.m.File, ru.Line, "algebraicRule", "", "algebraic rule that determines no variable (%s) is not supported", why)
		}
	}
	for v, i := range owner {
		v.alg = rules[i]
		v.isState = true
	}
}

// ruleVars returns the variables an algebraic rule's math depends on, in
// the deterministic order of lowering's list: its symbols, and through
// assignment rules and reaction rates theirs.
func (l *lowering) ruleVars(n *symbolic.Node) []*variable {
	seen := make(map[*variable]bool)
	var visit func(n *symbolic.Node)
	visit = func(n *symbolic.Node) {
		for _, v := range l.deps(n) {
			if v == nil || seen[v] {
				continue
			}
			seen[v] = true
			switch {
			case v.ar != nil:
				visit(v.ar)
			case v.kind == vReaction && v.law != nil:
				visit(v.law)
			}
		}
	}
	visit(n)
	var out []*variable
	for _, v := range l.list {
		if seen[v] {
			out = append(out, v)
		}
	}
	return out
}

// algebraicStates appends the algebraic variables' states, after every
// differential state, and sets ode.Algebraic.
func (l *lowering) algebraicStates(ode *symbolic.ODE) {
	b := l.b
	for _, v := range l.list {
		if v.alg == nil {
			continue
		}
		l.cur = v
		st := symbolic.State{Name: v.id, Meta: map[string]string{"sbml": kindElem[v.kind], "algebraicRule": fmt.Sprint(v.alg.Line)}}
		if v.kind == vSpecies {
			st.Meta["compartment"] = v.comp.id
			st.Meta["units"] = "concentration"
			if v.stateIsAmount {
				st.Meta["units"] = "amount"
			}
		}
		// The guess: declared or initially assigned value, else 0 (Newton
		// needs some start; the residual decides the value).
		l.algGuess = true
		guess := l.init(v)
		l.algGuess = false
		if l.algDependence(guess) != nil {
			guess = nil // a guess only: start from 0
		}
		if guess == nil {
			delete(l.undef, v)
			guess = b.Const(0)
		}
		if x := l.evalDefault(guess); x != x || x-x != 0 {
			guess = b.Const(0)
		}
		st.Init = guess
		st.Rate = l.subst(v, v.alg.Math, l.value, false)
		if st.Rate == nil {
			l.reportUndef(v, fmt.Sprintf("algebraic rule (line %d)", v.alg.Line), v)
			continue
		}
		ode.States = append(ode.States, st)
		ode.Algebraic++
	}
}

// algInitPrefix starts the name of the placeholder symbol that stands
// for an algebraic variable's initial value in other initial values:
// that value is only known once runtime/dae has solved the rule at t0, so
// an initial value that still depends on it after simplification (a
// concentration's amount/size*size cancels) is refused by name.
const algInitPrefix = "\x00initial value of algebraic "

// algInit is the placeholder of v's initial value.
func (l *lowering) algInit(v *variable) *symbolic.Node {
	return l.b.Sym(algInitPrefix+v.id, symbolic.KindOther)
}

// algDependence returns the algebraic variable whose initial value n
// still depends on, or nil.
func (l *lowering) algDependence(n *symbolic.Node) *variable {
	if n == nil {
		return nil
	}
	for _, s := range symbolic.FreeSymbols(n) {
		if s.Kind == symbolic.KindOther && strings.HasPrefix(s.Name, algInitPrefix) {
			return l.vars[strings.TrimPrefix(s.Name, algInitPrefix)]
		}
	}
	return nil
}

// algInitUse refuses what (an initial value, or an output) of l.cur for
// depending on the initial value of the algebraic variable v.
func (l *lowering) algInitUse(v *variable, what string) {
	if l.algRefused == nil {
		l.algRefused = make(map[*variable]bool)
	}
	if l.algRefused[v] {
		return
	}
	l.algRefused[v] = true
	who := what
	if l.cur != nil {
		who = fmt.Sprintf("the %s of %q", what, l.cur.id)
	}
	l.errs.add(l.m.File, v.alg.Line, "algebraicRule", "", "%s depends on the initial value of %q, which this algebraic rule determines: solving both at t0 is not supported", who, v.id)
}
