package petab

import (
	"math"

	"github.com/pbgen/pbgen/parser"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/symbolic"
)

// checkTargets checks that every condition target is something a
// condition can set: a state, a model parameter, or a symbol the SBML
// lowering overrode (overrideTargets), and not in the parameter table.
func (l *lowering) checkTargets() {
	rule := make(map[string]int)
	for _, r := range l.p.SBML.Rules {
		if r.Kind == parser.AssignmentRule {
			rule[r.Variable] = r.Line
		}
	}
	// Species, compartments and parameters that no condition in use sets
	// are not overridden; a condition no experiment uses may name them.
	entity := make(map[string]bool)
	for _, s := range l.p.SBML.Species {
		entity[s.ID] = true
	}
	for _, c := range l.p.SBML.Compartments {
		entity[c.ID] = true
	}
	for _, q := range l.p.SBML.Parameters {
		entity[q.ID] = true
	}
	for _, c := range l.p.Conditions {
		for _, t := range c.Targets {
			line := c.Line
			if c.Lines != nil {
				line = c.Lines[t]
			}
			id := l.resolve(t)
			_, isState := l.stateIdx[id]
			_, isParam := l.paramIdx[id]
			_, isOver := l.overValue[id]
			if _, inTable := l.petabIdx[t]; inTable {
				l.e.add(c.File, line, t, "condition target %q is also in the parameter table", t)
				continue
			}
			if i, ok := l.stateIdx[id]; ok && l.isAlgebraic(i) && l.ode.States[i].Meta["fast"] == "" {
				l.e.add(c.File, line, t, "condition target %q is an algebraic variable of the model (%s), which a condition cannot set: its value is determined, the declared one only a first guess", t, l.algebraicOrigin(i))
				continue
			}
			if isState || isParam || isOver {
				continue
			}
			if at, ok := rule[id]; ok {
				l.e.add(c.File, line, t, "condition target %q is set by an assignment rule of the model (%s:%d) at every time, which a condition cannot set (PEtab allows only constant or differential entities as targets)", t, l.p.SBML.File, at)
				continue
			}
			if entity[id] {
				continue
			}
			if _, ok := l.outputs[id]; ok {
				l.e.add(c.File, line, t, "condition target %q is not a species, compartment or parameter of the model, which a condition cannot set", t)
			} else {
				l.e.add(c.File, line, t, "condition target %q is not in the model", t)
			}
		}
	}
}

// initParams gives every state that a condition in use sets an
// initial-value parameter (and, where some condition leaves it alone, a
// 0/1 flag choosing between it and the model's own initial value), so that
// a condition is a parameter vector.
func (l *lowering) initParams() {
	set := make(map[string]bool)   // state id set by some condition
	unset := make(map[string]bool) // state id left alone by some condition in use
	var order []string
	var conds []*Condition
	for _, d := range l.exps {
		conds = append(conds, d.sim)
		if d.preeq != nil {
			conds = append(conds, d.preeq)
		}
	}
	for _, c := range conds {
		for _, t := range c.Targets {
			id := l.resolve(t)
			if _, ok := l.stateIdx[id]; !ok {
				continue
			}
			if !set[id] {
				set[id] = true
				order = append(order, id)
			}
		}
	}
	for _, c := range conds {
		for _, id := range order {
			if !l.setsState(c, id) {
				unset[id] = true
			}
		}
	}
	for _, id := range order {
		i := l.stateIdx[id]
		st := &l.ode.States[i]
		init := l.addParam("petab_init_"+id, 0, paramRole{kind: roleInit, target: id})
		// PEtab gives a species' value as a concentration unless it has
		// only substance units; the state may be its amount (a
		// compartment whose size changes), so convert with the size at t0.
		if size := l.concToAmount(id, st); size != nil {
			init = l.b.Mul(init, size)
		}
		var flag *symbolic.Node
		if unset[id] {
			flag = l.addParam("petab_set_"+id, 0, paramRole{kind: roleFlag, target: id})
		}
		if l.isAlgebraic(i) {
			// A fast species (checkTargets refuses the other algebraic
			// variables): its value moves the conserved pools.
			l.fastInit(i, init, flag)
			continue
		}
		if flag != nil {
			b := l.b
			st.Init = b.Add(b.Mul(flag, init), b.Mul(b.Sub(b.Const(1), flag), st.Init))
		} else {
			st.Init = init
		}
	}
}

// setsState reports whether c sets state id to a value (not NaN).
func (l *lowering) setsState(c *Condition, id string) bool {
	for _, t := range c.Targets {
		if l.resolve(t) == id {
			v, isNum := parseNum(c.Values[t])
			return !isNum || !math.IsNaN(v)
		}
	}
	return false
}

// condition lowers c to the model's parameter vector.
func (l *lowering) condition(c *Condition) objective.Condition {
	oc := objective.Condition{ID: c.ID, P: make([]objective.Value, len(l.ode.Params))}
	cell := func(id string) (string, string, bool) {
		for _, t := range c.Targets {
			if l.resolve(t) == id {
				return c.Values[t], t, true
			}
		}
		return "", "", false
	}
	for j, r := range l.role {
		def := objective.Value{Theta: -1, Const: l.ode.Params[j].Value}
		if r.kind == roleModel || r.kind == roleInit {
			if _, col, ok := cell(r.target); ok && l.expr[c][col] {
				// The model takes the value from the expression
				// through c's indicator; this parameter is unused.
				oc.P[j] = objective.Value{Theta: -1, Const: def.Const}
				continue
			}
		}
		switch r.kind {
		case roleCond:
			oc.P[j] = objective.Value{Theta: -1}
			if r.cond == c {
				oc.P[j].Const = 1
			}
		case roleModel, rolePEtab:
			if s, col, ok := cell(r.target); ok {
				if x, isNum := parseNum(s); !isNum || !math.IsNaN(x) {
					v, ok := l.value(s)
					if !ok {
						l.badCell(c, col, s)
					}
					oc.P[j] = v
					continue
				}
			}
			if v, ok := l.value(r.target); ok && l.hasPEtab(r.target) {
				oc.P[j] = v
				continue
			}
			oc.P[j] = def
		case roleInit:
			oc.P[j] = objective.Value{Theta: -1}
			if s, col, ok := cell(r.target); ok {
				if x, isNum := parseNum(s); !isNum || !math.IsNaN(x) {
					v, ok := l.value(s)
					if !ok {
						l.badCell(c, col, s)
					}
					oc.P[j] = v
				}
			}
		case roleFlag:
			oc.P[j] = objective.Value{Theta: -1}
			if l.setsState(c, r.target) {
				oc.P[j].Const = 1
			}
		}
	}
	return oc
}

func (l *lowering) hasPEtab(id string) bool { _, ok := l.petabIdx[id]; return ok }

func (l *lowering) badCell(c *Condition, col, s string) {
	line := c.Line
	if c.Lines != nil {
		line = c.Lines[col]
	}
	l.e.add(c.File, line, col, "condition %q: %q is neither a number nor a parameter id", c.ID, s)
}

// constParams marks as constant the SBML parameters declared
// constant="false" that nothing changes (no rule, no initial assignment;
// events are refused) when a condition or the parameter table names them:
// such a parameter is constant in fact, and PEtab problems set these
// (Alkan_SciSignal2018's Dox_level), so they must be model parameters
// rather than folded values.
func (l *lowering) constParams() {
	changed := make(map[string]bool)
	for _, r := range l.p.SBML.Rules {
		changed[r.Variable] = true
	}
	for _, a := range l.p.SBML.InitialAssignments {
		changed[a.Symbol] = true
	}
	for _, ev := range l.p.SBML.Events {
		for _, a := range ev.Assignments {
			changed[a.Variable] = true
		}
	}
	named := make(map[string]bool)
	for _, c := range l.p.Conditions {
		for _, t := range c.Targets {
			named[l.resolve(t)] = true
		}
	}
	for _, q := range l.p.Parameters {
		named[l.resolve(q.ID)] = true
	}
	for _, q := range l.p.SBML.Parameters {
		if !q.Constant && q.HasValue && !changed[q.ID] && named[q.ID] {
			q.Constant = true
		}
	}
	// PEtab's pre-initialization replaces a model's initial assignment of
	// a parameter it names: one whose value is a number becomes the
	// parameter's value (Liu_IFACPapersOnLine2025's u_2 = 1*1e9, set by
	// its conditions), so that the parameter stays a model parameter
	// rather than a folded value.
	isParam := make(map[string]*parser.Parameter)
	for _, q := range l.p.SBML.Parameters {
		isParam[q.ID] = q
	}
	ias := l.p.SBML.InitialAssignments[:0:0]
	for _, a := range l.p.SBML.InitialAssignments {
		if q := isParam[a.Symbol]; q != nil && q.Constant && named[a.Symbol] && a.Math != nil && a.Math.Op == symbolic.OpConst {
			q.Value, q.HasValue = a.Math.Val, true
			continue
		}
		ias = append(ias, a)
	}
	l.p.SBML.InitialAssignments = ias
}

// exprConditions brings v2 condition values that are expressions (of
// parameters, e.g. initial_A1 + initial_A2) into the model: each condition
// with such values gets an indicator parameter I_c (1 in that condition,
// else 0), a state S it sets starts at init_S + sum_c I_c*E_c (its own
// initial-value parameter is 0 there), and a parameter k it sets is
// replaced everywhere by k + sum_c I_c*(E_c - k). A condition is then still
// a parameter vector of numbers and estimated parameters, and derivatives
// with respect to the parameters in E_c come out of the model's own.
func (l *lowering) exprConditions() {
	l.expr = make(map[*Condition]map[string]bool)
	if l.p.Version == 1 {
		return // v1 cells are numbers or ids; condition() reports others
	}
	b := l.b
	seen := make(map[*Condition]bool)
	var conds []*Condition
	for _, d := range l.exps {
		cs := []*Condition{d.preeq, d.sim}
		for _, q := range d.periods {
			cs = append(cs, q.cond)
		}
		for _, c := range cs {
			if c != nil && !seen[c] {
				seen[c] = true
				conds = append(conds, c)
			}
		}
	}
	stateAdd := make(map[string][]*symbolic.Node)
	paramRepl := make(map[string][]*symbolic.Node) // terms I_c*(E_c - k)
	var stateOrder, paramOrder []string
	for _, c := range conds {
		var ind *symbolic.Node
		for _, t := range c.Targets {
			s := c.Values[t]
			if _, ok := l.value(s); ok {
				continue
			}
			line := c.Line
			if c.Lines != nil {
				line = c.Lines[t]
			}
			n, err := b.ParsePEtab(s, nil)
			if err != nil {
				l.e.add(c.File, line, t, "condition %q: %v", c.ID, err)
				continue
			}
			repl := make(map[*symbolic.Node]*symbolic.Node)
			ok := true
			for _, sym := range symbolic.FreeSymbols(n) {
				if sym.Kind != symbolic.KindOther {
					continue
				}
				var r *symbolic.Node
				if _, isP := l.paramIdx[l.resolve(sym.Name)]; isP {
					r = b.Sym(l.resolve(sym.Name), symbolic.KindParam)
				} else if k, isT := l.petabIdx[sym.Name]; isT {
					r = l.addParam(sym.Name, l.p.Parameters[k].Nominal, paramRole{kind: rolePEtab, target: sym.Name})
				} else {
					l.e.add(c.File, line, t, "condition %q: %q in %q is not a parameter (only parameters may appear in a condition value here)", c.ID, sym.Name, s)
					ok = false
					continue
				}
				repl[sym] = r
			}
			for _, sym := range symbolic.FreeSymbols(n) {
				if sym.Kind == symbolic.KindTime {
					l.e.add(c.File, line, t, "condition %q: a value depending on time is not supported", c.ID)
					ok = false
				}
			}
			if !ok {
				continue
			}
			val := b.Substitute(n, repl)
			if ind == nil {
				ind = l.addParam("petab_cond_"+c.ID, 0, paramRole{kind: roleCond, cond: c})
			}
			if l.expr[c] == nil {
				l.expr[c] = make(map[string]bool)
			}
			l.expr[c][t] = true
			id := l.resolve(t)
			if _, isState := l.stateIdx[id]; isState {
				if stateAdd[id] == nil {
					stateOrder = append(stateOrder, id)
				}
				stateAdd[id] = append(stateAdd[id], b.Mul(ind, val))
				continue
			}
			if v, ok := l.overValue[id]; ok {
				id = v // a folded symbol: its value parameter
			}
			k := b.Sym(id, symbolic.KindParam)
			if paramRepl[id] == nil {
				paramOrder = append(paramOrder, id)
			}
			paramRepl[id] = append(paramRepl[id], b.Mul(ind, b.Sub(val, k)))
		}
	}
	for _, id := range stateOrder {
		st := &l.ode.States[l.stateIdx[id]]
		st.Init = b.Add(append([]*symbolic.Node{st.Init}, stateAdd[id]...)...)
	}
	if len(paramOrder) == 0 {
		return
	}
	repl := make(map[*symbolic.Node]*symbolic.Node)
	for _, id := range paramOrder {
		k := b.Sym(id, symbolic.KindParam)
		repl[k] = b.Add(append([]*symbolic.Node{k}, paramRepl[id]...)...)
	}
	for i := range l.ode.States {
		st := &l.ode.States[i]
		st.Rate = b.Substitute(st.Rate, repl)
		st.Init = b.Substitute(st.Init, repl)
	}
	for i := range l.ode.Outputs {
		o := &l.ode.Outputs[i]
		o.Expr = b.Substitute(o.Expr, repl)
		l.outputs[o.Name] = o.Expr
	}
	for i := range l.ode.Events {
		ev := &l.ode.Events[i]
		ev.Trigger = b.Substitute(ev.Trigger, repl)
		if ev.Delay != nil {
			ev.Delay = b.Substitute(ev.Delay, repl)
		}
		if ev.Priority != nil {
			ev.Priority = b.Substitute(ev.Priority, repl)
		}
		for j := range ev.Assign {
			ev.Assign[j].Value = b.Substitute(ev.Assign[j].Value, repl)
		}
	}
	// Observables see the effective value too: symbol() maps a model
	// parameter's id to this expression.
	l.effective = repl
}

// concToAmount returns the initial size of species id's compartment when
// its state is an amount but PEtab values are concentrations
// (hasOnlySubstanceUnits false, compartment not 0-dimensional), else nil.
func (l *lowering) concToAmount(id string, st *symbolic.State) *symbolic.Node {
	if st.Meta["units"] != "amount" {
		return nil
	}
	var sp *parser.Species
	for _, x := range l.p.SBML.Species {
		if x.ID == id {
			sp = x
		}
	}
	if sp == nil || sp.HasOnlySubstanceUnits {
		return nil
	}
	for _, c := range l.p.SBML.Compartments {
		if c.ID == sp.Compartment && c.SpatialDimensions == 0 {
			return nil
		}
	}
	if i, ok := l.stateIdx[sp.Compartment]; ok {
		return l.ode.States[i].Init
	}
	if n, ok := l.outputs[sp.Compartment]; ok {
		for _, s := range symbolic.FreeSymbols(n) {
			if s.Kind != symbolic.KindParam {
				return nil // not a value at t0 of parameters alone
			}
		}
		return n
	}
	return nil
}
