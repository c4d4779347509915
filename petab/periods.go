package petab

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/symbolic"
)

// periodDef is a v2 experiment period after the first: the conditions
// applied at time t (merged), the condition whose parameter vector holds
// from t on, and the model's assignment set for the states set at t.
type periodDef struct {
	t      float64
	set    *Condition // the conditions applied at t
	cond   *Condition // the parameters from t on (periodConditions)
	assign int        // index into lowering.assigns, -1 for none
	pos    Pos        // the experiment table row
}

// periodConditions gives each later period of a v2 experiment the
// condition whose parameter vector holds from its start. PEtab v2
// conditions are changes: a parameter keeps the value an earlier period
// gave it until another changes it, so the vector of period k collects the
// parameter targets of the first period and of periods 1..k (the latest
// wins). States set at a later period are assignments instead
// (periodAssignments). A period that changes no parameter reuses the
// previous period's condition, so its parameter vector (and column group
// in the objective) is shared.
//
// An expression value of a later period's parameter is evaluated by the
// same indicator construction as a first-period one (exprConditions), that
// is with the parameters' values before any condition: one referring to a
// parameter that a condition of the experiment sets would need that
// parameter's value at the period's start, which is not supported.
//
// The same holds after pre-equilibration in v2: the simulation condition's
// vector starts from the pre-equilibration condition's parameter targets
// (v1 conditions are complete vectors instead).
func (l *lowering) periodConditions() {
	made := make(map[[2]*Condition]*Condition)
	comps := make(map[string]bool)
	for _, x := range l.p.SBML.Compartments {
		comps[x.ID] = true
	}
	for di := range l.exps {
		d := &l.exps[di]
		if d.preeq != nil {
			l.overridesAfterPreeq(d, made)
		}
		if l.p.Version == 2 && d.preeq != nil {
			l.stateValuesAfterPreeq(d)
			l.carryOver(d)
		}
		if d.preeq != nil {
			l.fastAfterPreeq(d)
		}
		if len(d.periods) == 0 {
			continue
		}
		var targets []string // as written, one per resolved id
		vals := make(map[string]string)
		lines := make(map[string]int)
		at := make(map[string]int) // resolved id -> index in targets
		add := func(c *Condition) bool {
			changed := false
			for _, t := range c.Targets {
				id := l.resolve(t)
				if _, isState := l.stateIdx[id]; isState {
					continue
				}
				if k, ok := at[id]; ok {
					delete(vals, targets[k])
					delete(lines, targets[k])
					targets[k] = t
				} else {
					at[id] = len(targets)
					targets = append(targets, t)
				}
				vals[t] = c.Values[t]
				lines[t] = c.Line
				if c.Lines != nil {
					lines[t] = c.Lines[t]
				}
				changed = true
			}
			return changed
		}
		add(d.sim)
		cur := d.sim
		for k := range d.periods {
			q := &d.periods[k]
			q.assign = -1
			l.checkPeriodResize(q.set, comps)
			if add(q.set) {
				l.checkPeriodExprs(q.set, at)
				cur = &Condition{Pos: q.pos, ID: fmt.Sprintf("%s_period%d", d.id, k+1),
					Targets: slices.Clone(targets), Values: maps.Clone(vals), Lines: maps.Clone(lines)}
			}
			q.cond = cur
		}
	}
}

// stateValuesAfterPreeq moves the state targets of a v2 experiment's
// simulation condition whose values depend on the state or time (A + 5
// applied to the pre-equilibrated A) into a period starting at the
// simulation's start, whose assignment sees the pre-equilibrated state;
// the simulation condition keeps its other targets (a new condition, as
// conditions are shared between experiments).
func (l *lowering) stateValuesAfterPreeq(d *expDef) {
	sim := d.sim
	var moved []string
	for _, t := range sim.Targets {
		if _, isState := l.stateIdx[l.resolve(t)]; isState && l.dependsOnState(sim.Values[t]) {
			moved = append(moved, t)
		}
	}
	if len(moved) == 0 {
		return
	}
	keep := &Condition{Pos: sim.Pos, ID: sim.ID, Values: make(map[string]string), Lines: make(map[string]int)}
	set := &Condition{Pos: sim.Pos, ID: sim.ID, Values: make(map[string]string), Lines: make(map[string]int)}
	splitTargets(sim, moved, keep, set)
	d.sim = keep
	d.periods = append([]periodDef{{t: d.t0, set: set, pos: sim.Pos}}, d.periods...)
}

// splitTargets copies each target of sim, with its value and line, into
// set when it is one of moved and into keep otherwise: the two halves of
// a simulation condition that a period takes part of.
func splitTargets(sim *Condition, moved []string, keep, set *Condition) {
	for _, t := range sim.Targets {
		c := keep
		if slices.Contains(moved, t) {
			c = set
		}
		c.Targets = append(c.Targets, t)
		c.Values[t] = sim.Values[t]
		c.Lines[t] = sim.Line
		if sim.Lines != nil {
			c.Lines[t] = sim.Lines[t]
		}
	}
}

// dependsOnState reports whether a condition value is an expression with
// an id that is neither a model parameter nor in the parameter table, or
// with time.
func (l *lowering) dependsOnState(s string) bool {
	if _, ok := l.value(s); ok {
		return false
	}
	n, err := l.b.ParsePEtab(s, nil)
	if err != nil {
		return false // reported where the value is lowered
	}
	for _, sym := range symbolic.FreeSymbols(n) {
		if sym.Kind == symbolic.KindTime {
			return true
		}
		if sym.Kind != symbolic.KindOther {
			continue
		}
		_, isParam := l.paramIdx[l.resolve(sym.Name)]
		_, inTable := l.petabIdx[sym.Name]
		if !isParam && !inTable {
			return true
		}
	}
	return false
}

// carryOver makes a v2 experiment's simulation condition a change on top
// of its pre-equilibration condition: the pre-equilibration's parameter
// targets that the simulation condition does not set are added to it (a
// new condition; the simulation condition's own state targets stay and
// are still re-initialised).
func (l *lowering) carryOver(d *expDef) {
	sim := d.sim
	sets := make(map[string]bool)
	for _, t := range sim.Targets {
		sets[l.resolve(t)] = true
	}
	var add []string
	for _, t := range d.preeq.Targets {
		id := l.resolve(t)
		if _, isState := l.stateIdx[id]; !isState && !sets[id] {
			add = append(add, t)
		}
	}
	if len(add) == 0 {
		return
	}
	c := &Condition{Pos: sim.Pos, ID: d.id + "_period0", Values: make(map[string]string), Lines: make(map[string]int)}
	for _, src := range []struct {
		c  *Condition
		ts []string
	}{{d.preeq, add}, {sim, sim.Targets}} {
		for _, t := range src.ts {
			c.Targets = append(c.Targets, t)
			c.Values[t] = src.c.Values[t]
			c.Lines[t] = src.c.Line
			if src.c.Lines != nil {
				c.Lines[t] = src.c.Lines[t]
			}
		}
	}
	if c.Pos.File == "" {
		c.Pos = d.preeq.Pos // an empty simulation condition
	}
	d.sim = c
}

// checkPeriodExprs reports parameter targets of a later period whose
// value is an expression referring to a parameter that a condition of the
// experiment sets (set: the resolved ids set so far).
func (l *lowering) checkPeriodExprs(c *Condition, set map[string]int) {
	for _, t := range c.Targets {
		if _, isState := l.stateIdx[l.resolve(t)]; isState {
			continue
		}
		s := c.Values[t]
		if _, ok := l.value(s); ok {
			continue
		}
		n, err := l.b.ParsePEtab(s, nil)
		if err != nil {
			continue // exprConditions reports it
		}
		for _, sym := range symbolic.FreeSymbols(n) {
			if _, ok := set[l.resolve(sym.Name)]; ok && sym.Kind == symbolic.KindOther {
				l.e.add(c.File, c.Lines[t], t, "condition %q: %q refers to %q, which a condition of the experiment sets; a parameter value depending on another parameter's value at a later period's start is not supported", c.ID, s, sym.Name)
			}
		}
	}
}

// checkPeriodResize refuses a later period that sets a compartment
// size that is a parameter of the model while a species that is no state
// has a value depending on it (declared by amount in a
// concentration-based species, by concentration in an amount-based one,
// or through an initial assignment): PEtab v2 keeps the species' value
// when a period resizes its compartment, but such a value is an
// expression of the size and would follow it. comps are the SBML
// compartment ids.
func (l *lowering) checkPeriodResize(c *Condition, comps map[string]bool) {
	for _, t := range c.Targets {
		id := l.resolve(t)
		if _, isState := l.stateIdx[id]; isState || !comps[id] {
			continue
		}
		name := id
		if v, ok := l.overValue[id]; ok {
			name = v
		}
		for _, sp := range l.p.SBML.Species {
			if _, isState := l.stateIdx[sp.ID]; isState {
				continue
			}
			for _, sym := range symbolic.FreeSymbols(l.outputs[sp.ID]) {
				if sym.Kind == symbolic.KindParam && sym.Name == name {
					line := c.Line
					if c.Lines != nil {
						line = c.Lines[t]
					}
					l.e.add(c.File, line, t, "condition %q resizes compartment %q at a later period, and species %q, which nothing changes in time, has a value depending on its size; PEtab keeps the species' value there, which is not supported", c.ID, id, sp.ID)
					return
				}
			}
		}
	}
}

// periodAssignments turns the states set at each later period's start
// into an assignment set of the model (interp.Assignment, model.Assigner).
// Values are expressions of the current state, parameters and time (the
// period's start), evaluated before any target changes (PEtab v2:
// simultaneous assignment). A species' value is in its units: where its
// state is the amount of a concentration-based species, the value is
// multiplied by the compartment's size after the change. A compartment
// whose size changes keeps its species' concentrations (not their
// amounts, unlike an SBML event), so such amount states are rescaled.
func (l *lowering) periodAssignments() {
	b := l.b
	comps := make(map[string]bool)
	for _, c := range l.p.SBML.Compartments {
		comps[c.ID] = true
	}
	for di := range l.exps {
		d := &l.exps[di]
		for k := range d.periods {
			q := &d.periods[k]
			c := q.set
			newVal := make(map[string]*symbolic.Node) // resolved id -> value
			var states, fast []string
			for _, t := range c.Targets {
				id := l.resolve(t)
				s := c.Values[t]
				if x, isNum := parseNum(s); isNum && math.IsNaN(x) {
					continue // v1-style "leave alone"
				}
				si, isState := l.stateIdx[id]
				if !isState && !comps[id] {
					continue // a parameter: the period's condition
				}
				n := l.periodValue(c, t, s)
				if n == nil {
					continue
				}
				newVal[id] = n
				if isState && l.isAlgebraic(si) {
					// A fast species (checkTargets refuses the other
					// algebraic variables): its pools move instead.
					fast = append(fast, id)
				} else if isState {
					states = append(states, id)
				}
			}
			size := func(comp string) *symbolic.Node {
				if n, ok := newVal[comp]; ok {
					return n
				}
				return l.symbol(comp, nil, "", nil)
			}
			var a interp.Assignment
			for _, id := range states {
				g := newVal[id]
				if comp, ok := l.concAmountState(id); ok {
					sz := size(comp)
					if sz == nil {
						l.e.add(q.pos.File, q.pos.Line, "conditionId", "species %q: the size of compartment %q is not known", id, comp)
						continue
					}
					g = b.Mul(g, sz)
				}
				a.States = append(a.States, id)
				a.Values = append(a.Values, g)
			}
			// A fast species set to g moves each pool it enters by
			// c_ki a_i (g - z_i), the other fast species kept: the
			// species then take the equilibrium of the new pools.
			inc := make(map[int]*symbolic.Node)
			for _, id := range fast {
				g := newVal[id]
				if comp, ok := l.concAmountState(id); ok {
					if _, resized := newVal[comp]; resized {
						l.e.add(q.pos.File, q.pos.Line, "conditionId", "fast species %q set while its compartment %q is resized: not supported", id, comp)
						continue
					}
					g = b.Mul(g, size(comp))
				}
				d := b.Sub(g, b.Sym(id, symbolic.KindState))
				for k, coef := range l.poolCoefs(l.stateIdx[id]) {
					if inc[k] == nil {
						inc[k] = b.Const(0)
					}
					inc[k] = b.Add(inc[k], b.Mul(coef, d))
				}
			}
			for k := range l.ode.States {
				if inc[k] == nil {
					continue
				}
				name := l.ode.States[k].Name
				if slices.Contains(a.States, name) {
					l.e.add(q.pos.File, q.pos.Line, "conditionId", "condition sets both %q and a fast species in it: not supported", name)
					continue
				}
				a.States = append(a.States, name)
				a.Values = append(a.Values, b.Add(b.Sym(name, symbolic.KindState), inc[k]))
			}
			for i, st := range l.ode.States {
				if _, set := newVal[st.Name]; set || l.isAlgebraic(i) {
					continue
				}
				if comp, ok := l.concAmountState(st.Name); ok {
					if _, resized := newVal[comp]; resized && l.symbol(st.Name, nil, "", nil) != nil {
						// Keep the concentration (amount/old size).
						a.States = append(a.States, st.Name)
						a.Values = append(a.Values, b.Mul(l.symbol(st.Name, nil, "", nil), size(comp)))
					}
				}
			}
			if len(a.States) > 0 {
				q.assign = len(l.assigns)
				l.assigns = append(l.assigns, a)
			}
		}
	}
}

// periodValue parses a later period's target value, its ids resolved as
// in observable formulas (states and species in their units, parameters
// with their value in the period before, parameter-table ids).
func (l *lowering) periodValue(c *Condition, t, s string) *symbolic.Node {
	line := c.Line
	if c.Lines != nil {
		line = c.Lines[t]
	}
	n, err := l.b.ParsePEtab(s, nil)
	if err != nil {
		l.e.add(c.File, line, t, "condition %q: %v", c.ID, err)
		return nil
	}
	repl := make(map[*symbolic.Node]*symbolic.Node)
	for _, sym := range symbolic.FreeSymbols(n) {
		if sym.Kind != symbolic.KindOther {
			continue
		}
		r := l.symbol(sym.Name, nil, "", nil)
		if r == nil {
			l.e.add(c.File, line, t, "condition %q: unknown id %q in %q", c.ID, sym.Name, s)
			return nil
		}
		repl[sym] = r
	}
	return l.b.Substitute(n, repl)
}

// concAmountState reports whether state id is the amount of a
// concentration-based species (its compartment's size changes in time),
// and that compartment.
func (l *lowering) concAmountState(id string) (string, bool) {
	i, ok := l.stateIdx[id]
	if !ok || l.ode.States[i].Meta["units"] != "amount" {
		return "", false
	}
	for _, sp := range l.p.SBML.Species {
		if sp.ID != id {
			continue
		}
		if sp.HasOnlySubstanceUnits {
			return "", false
		}
		for _, c := range l.p.SBML.Compartments {
			if c.ID == sp.Compartment && c.SpatialDimensions == 0 {
				return "", false
			}
		}
		return sp.Compartment, true
	}
	return "", false
}
