package parser

// csymbol rateOf (SBML L3v2): rateOf(x) is the rate of change of x's
// value in math at the same time. The reader turns each use into a
// KindOther symbol named rateOfName(x); lowering gives that symbol a
// value like any other variable: the time derivative of x's value,
// formed by the chain rule over the states,
//
//	d value(x)/dt = sum_j (d value(x)/d x_j) * f_j + d value(x)/dt (explicit t),
//
// where f_j is the rate of state j. So a state's rate is its right-hand
// side; a species whose state is an amount but whose value in math is a
// concentration (a compartment that changes) gets d(n/V)/dt; a constant,
// or a parameter no rule changes, gets 0. Initial assignments see the
// derivative at t = 0 with the initial values. rateOf of a variable set
// by an assignment rule, and of a concentration in a compartment set by
// an assignment rule, is invalid SBML (validation rules 10224 and 10225)
// and an error here. A rate that depends on itself through rateOf (x' =
// rateOf(x), or through rules) is a cycle and an error naming the ids.

import (
	"sort"

	"github.com/pbgen/pbgen/symbolic"
)

// rateOfName names the symbol standing for rateOf(id). It is not a valid
// SId, so it cannot collide with an id of the model.
func rateOfName(id string) string { return "rateOf(" + id + ")" }

// rateOfApply parses <apply><csymbol rateOf/> <ci>x</ci></apply>: one
// argument, which must be a <ci> (SBML validation rule 10223).
func (p *mathParser) rateOfApply(e, head *elem, args []*elem) *mnode {
	if len(head.kids) > 0 {
		p.errorf(head.line, "operator <csymbol> must be empty")
		return nil
	}
	if len(args) != 1 || args[0].space != mathNS || args[0].local != "ci" {
		p.errorf(e.line, "csymbol rateOf takes one argument, a <ci>")
		return nil
	}
	a := p.expr(args[0])
	if a == nil {
		return nil
	}
	return &mnode{kind: mRateOf, args: []*mnode{a}, line: e.line}
}

// rateOf converts a use of rateOf. Its argument, once resolved, is a
// global id (a symbol), or a constant: a reaction-local parameter, which
// cannot change, so its rate is 0 (SBML Test Suite case 01459). Inside a
// function definition the argument is the call's argument, which must
// then be an identifier too.
func (r *reader) rateOf(n *mnode, sc *scope) *symbolic.Node {
	b := r.m.B
	a := n.args[0]
	if sc.el == "functionDefinition" && sc.bvars != nil {
		if _, bound := sc.bvars[a.name]; bound {
			// Checking the body of a definition: the argument is not known
			// yet (each call is checked when expanded).
			return b.Sym(rateOfName(a.name), symbolic.KindOther)
		}
	}
	x := r.conv(a, sc)
	switch {
	case x.Op == symbolic.OpConst:
		if _, local := sc.locals[a.name]; local && sc.bvars == nil {
			return b.Const(0)
		}
		if _, bound := sc.bvars[a.name]; bound {
			r.errorf(n.line, sc.el, sc.id, "csymbol rateOf of a function argument that is not an identifier")
		}
		return r.nan() // an unknown identifier, already reported
	case x.Op != symbolic.OpSym || x.Kind != symbolic.KindOther:
		r.errorf(n.line, sc.el, sc.id, "csymbol rateOf of a function argument that is not an identifier")
		return r.nan()
	}
	switch r.ids[x.Name].kind {
	case "compartment", "species", "parameter", "speciesReference":
	case "reaction":
		r.refuse(n.line, sc.el, sc.id, "csymbol rateOf of reaction "+x.Name)
		return r.nan()
	default:
		r.errorf(n.line, sc.el, sc.id, "csymbol rateOf of %q, which is not a variable", x.Name)
		return r.nan()
	}
	if r.m.rateOfLine == nil {
		r.m.rateOfLine = make(map[string]int)
	}
	if _, seen := r.m.rateOfLine[x.Name]; !seen {
		r.m.rateOfLine[x.Name] = n.line
	}
	return b.Sym(rateOfName(x.Name), symbolic.KindOther)
}

// collectRateOf adds a variable for each rateOf target. They are not in
// l.list: they are neither states nor outputs.
func (l *lowering) collectRateOf() {
	ids := make([]string, 0, len(l.m.rateOfLine))
	for id := range l.m.rateOfLine {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t := l.vars[id]
		if t == nil {
			continue
		}
		line := l.m.rateOfLine[id]
		l.vars[rateOfName(id)] = &variable{id: rateOfName(id), kind: t.kind, line: line, rule: line, rateOf: t}
	}
}

// rateOfValue is the value of rateOf(target) as an expression of (x, p, t).
func (l *lowering) rateOfValue(v *variable) *symbolic.Node {
	if l.valState[v] == done {
		return l.valMemo[v]
	}
	if !l.enter(v, l.valState, "rates through csymbol rateOf") {
		return nil
	}
	return l.leave(v, l.valState, l.valMemo, l.rateOfExpr(v))
}

func (l *lowering) rateOfExpr(v *variable) *symbolic.Node {
	t := v.rateOf
	if t.ar != nil {
		l.errorf(v, 0, "csymbol rateOf of %q, which an assignment rule sets", t.id)
		l.undef[v] = ""
		return nil
	}
	if t.kind == vSpecies && !t.valueIsAmount && t.comp != nil && t.comp.ar != nil {
		l.errorf(v, 0, "csymbol rateOf of the concentration %q, whose compartment %q an assignment rule sets", t.id, t.comp.id)
		l.undef[v] = ""
		return nil
	}
	val := l.value(t)
	if val == nil {
		l.undef[v] = firstUndef(l, t)
		return nil
	}
	b := l.b
	var terms []*symbolic.Node
	for _, s := range symbolic.FreeSymbols(val) {
		var f *symbolic.Node
		switch s.Kind {
		case symbolic.KindState:
			sv := l.vars[s.Name]
			if f = l.stateRate(sv); f == nil {
				l.undef[v] = firstUndef(l, sv)
				return nil
			}
		case symbolic.KindTime:
			f = b.Const(1)
		default:
			continue // sensitivity parameters are constant
		}
		d, err := b.Diff(val, s)
		if err != nil {
			l.errorf(v, 0, "csymbol rateOf of %q: %v", t.id, err)
			l.undef[v] = ""
			return nil
		}
		terms = append(terms, b.Mul(d, f))
	}
	if len(terms) == 0 {
		return b.Const(0)
	}
	return b.Add(terms...)
}

// stateRate is the rate of the state s, as states forms it, memoised.
func (l *lowering) stateRate(s *variable) *symbolic.Node {
	if s.rateDone {
		return s.rate
	}
	var r *symbolic.Node
	if s.fast {
		l.errs.add(l.m.File, s.line, "species", s.id, "csymbol rateOf of a species that fast reactions change is not supported")
		l.undef[s] = ""
		s.rateDone = true
		return nil
	}
	if s.alg != nil {
		// dz/dt of an algebraic variable is -g_z^{-1} (g_x f + g_t),
		// which lowering does not form.
		l.errs.add(l.m.File, s.alg.Line, "algebraicRule", "", "csymbol rateOf of %q, which this algebraic rule determines, is not supported", s.id)
		l.undef[s] = ""
		s.rateDone = true
		return nil
	}
	if s.rr != nil {
		r = l.subst(s, s.rr, l.value, false)
	} else {
		r = l.reactionRate(s)
		if r == nil {
			l.undef[s] = ""
		}
	}
	s.rate, s.rateDone = r, true
	return r
}

// rateOfInit is rateOf(target) at t = 0: its value with the states
// replaced by their initial values.
func (l *lowering) rateOfInit(v *variable) *symbolic.Node {
	if l.initState[v] == done {
		return l.initMemo[v]
	}
	if !l.enter(v, l.initState, "initial values") {
		return nil
	}
	d := l.rateOfValue(v)
	if d == nil {
		if _, ok := l.undef[v]; !ok {
			l.undef[v] = ""
		}
		return l.leave(v, l.initState, l.initMemo, nil)
	}
	b := l.b
	repl := make(map[*symbolic.Node]*symbolic.Node)
	for _, s := range symbolic.FreeSymbols(d) {
		switch s.Kind {
		case symbolic.KindState:
			sv := l.vars[s.Name]
			x0 := l.init(sv)
			if x0 != nil && sv.kind == vSpecies && sv.stateIsAmount && !sv.valueIsAmount {
				if size := l.init(sv.comp); size != nil {
					x0 = b.Mul(x0, size)
				} else {
					x0 = nil
				}
			}
			if x0 == nil {
				l.undef[v] = firstUndef(l, sv, sv.comp)
				return l.leave(v, l.initState, l.initMemo, nil)
			}
			repl[s] = x0
		case symbolic.KindTime:
			repl[s] = b.Const(0)
		}
	}
	return l.leave(v, l.initState, l.initMemo, b.Substitute(d, repl))
}
