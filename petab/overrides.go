package petab

import (
	"strconv"

	"github.com/pbgen/pbgen/parser"
)

// overrideTargets lists the condition targets that the SBML lowering
// would fold into constants, for parser.Options.Overrides: a species no
// reaction changes (boundary, constant, only a modifier), a compartment
// or parameter with an initial assignment or not declared constant, one
// without a value. PEtab lets a condition set any of them, so each becomes
// a parameter "petab_init_<id>" (its value at t0, as a species in its
// units in math: concentration unless hasOnlySubstanceUnits) with, when
// some condition in use leaves it alone, a 0/1 switch "petab_set_<id>" to
// the model's own value, as initParams does for states. The parser leaves
// alone the ids that turn out to be states (initParams sets those) or
// sensitivity parameters (plain condition parameters); assignment-rule
// targets and ids in the parameter table are not passed (checkTargets
// refuses them by file, row and column). Models whose conditions set none
// of these symbols lower as before: no parameter is added.
func (l *lowering) overrideTargets() []parser.Override {
	sb := l.p.SBML
	entity := make(map[string]bool)
	taken := make(map[string]bool)
	for _, s := range sb.Species {
		entity[s.ID], taken[s.ID] = true, true
	}
	for _, c := range sb.Compartments {
		entity[c.ID], taken[c.ID] = true, true
	}
	for _, q := range sb.Parameters {
		entity[q.ID], taken[q.ID] = true, true
	}
	for _, rx := range sb.Reactions {
		taken[rx.ID] = true
		for _, list := range [][]*parser.SpeciesReference{rx.Reactants, rx.Products} {
			for _, sr := range list {
				if sr.ID != "" {
					taken[sr.ID] = true
				}
			}
		}
	}
	for _, r := range sb.Rules {
		if r.Kind == parser.AssignmentRule {
			delete(entity, r.Variable)
		}
	}
	for _, q := range l.p.Parameters {
		taken[q.ID] = true
		delete(entity, l.resolve(q.ID))
	}
	var order []string
	unset := make(map[string]*Condition) // the first condition leaving id to the model
	seen := make(map[string]bool)
	for _, d := range l.exps {
		conds := []*Condition{d.sim, d.preeq}
		for _, q := range d.periods {
			conds = append(conds, q.set)
		}
		for _, c := range conds {
			if c == nil {
				continue
			}
			for _, t := range c.Targets {
				if id := l.resolve(t); entity[id] && !seen[id] {
					seen[id] = true
					order = append(order, id)
				}
			}
		}
	}
	leaves := func(id string, c *Condition) {
		if unset[id] == nil {
			unset[id] = c
		}
	}
	for i := range l.exps {
		d := &l.exps[i]
		for _, id := range order {
			if d.preeq != nil && !l.setsState(d.preeq, id) {
				leaves(id, d.preeq)
			}
			if !l.setsState(d.sim, id) && !l.carried(d, id) {
				leaves(id, d.sim)
			}
			for _, q := range d.periods {
				if listed(q.set, id, l.resolve) && !l.setsState(q.set, id) {
					leaves(id, q.set)
				}
			}
		}
	}
	l.checkOwnValues(order, unset)
	free := func(base string) string {
		name := base
		for k := 2; taken[name]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
		taken[name] = true
		return name
	}
	out := make([]parser.Override, 0, len(order))
	l.overName = make(map[string]paramRole)
	for _, id := range order {
		o := parser.Override{ID: id, Value: free("petab_init_" + id)}
		l.overName[o.Value] = paramRole{kind: roleInit, target: id}
		if unset[id] != nil {
			o.Switch = free("petab_set_" + id)
			l.overName[o.Switch] = paramRole{kind: roleFlag, target: id}
		}
		out = append(out, o)
	}
	return out
}

// listed reports whether condition c has a column or row for id.
func listed(c *Condition, id string, resolve func(string) string) bool {
	for _, t := range c.Targets {
		if resolve(t) == id {
			return true
		}
	}
	return false
}

// carried reports whether experiment d's simulation starts with the
// value that its pre-equilibration condition gives the folded symbol id,
// because the simulation condition leaves it alone: a species (PEtab v1
// and v2: NaN means "the result of the preequilibration"), or in v2 any
// symbol the simulation condition does not list (carryOver; conditions
// are changes). A v1 parameter or compartment left at NaN takes the
// model's value, as a plain parameter does.
func (l *lowering) carried(d *expDef, id string) bool {
	if d.preeq == nil || !l.setsState(d.preeq, id) || l.setsState(d.sim, id) {
		return false
	}
	return l.isSpecies(id) || l.p.Version == 2 && !listed(d.sim, id, l.resolve)
}

// isSpecies reports whether id is an SBML species.
func (l *lowering) isSpecies(id string) bool {
	if l.species == nil {
		l.species = make(map[string]bool, len(l.p.SBML.Species))
		for _, s := range l.p.SBML.Species {
			l.species[s.ID] = true
		}
	}
	return l.species[id]
}

// overridesAfterPreeq gives the simulation condition of an experiment
// with pre-equilibration the pre-equilibration condition's value of each
// overridden species (a parameter of the model, see overrideTargets) that
// the simulation condition leaves alone (NaN, or no column): PEtab keeps
// "the result of the pre-equilibration" then, which for a species nothing
// changes in time is the value the pre-equilibration condition set. States
// are re-initialised or kept by the objective instead (Experiment.Reinit),
// and in v2 carryOver carries the symbols the simulation condition does
// not list. Experiments with the same pair of conditions share the new
// condition.
func (l *lowering) overridesAfterPreeq(d *expDef, made map[[2]*Condition]*Condition) {
	if c, ok := made[[2]*Condition{d.preeq, d.sim}]; ok {
		if c != nil {
			d.sim = c
		}
		return
	}
	key := [2]*Condition{d.preeq, d.sim}
	made[key] = nil
	var carry []string // preeq's targets to copy
	for _, t := range d.preeq.Targets {
		id := l.resolve(t)
		if _, ov := l.overValue[id]; ov && l.isSpecies(id) && l.carried(d, id) {
			carry = append(carry, t)
		}
	}
	if len(carry) == 0 {
		return
	}
	sim := d.sim
	c := &Condition{Pos: sim.Pos, ID: sim.ID, Values: make(map[string]string), Lines: make(map[string]int)}
	if c.Pos.File == "" {
		c.Pos = d.preeq.Pos // an empty simulation condition
	}
	add := func(from *Condition, t string) {
		c.Targets = append(c.Targets, t)
		c.Values[t] = from.Values[t]
		c.Lines[t] = from.Line
		if from.Lines != nil {
			c.Lines[t] = from.Lines[t]
		}
	}
	carried := make(map[string]bool, len(carry))
	for _, t := range carry {
		carried[l.resolve(t)] = true
	}
	for _, t := range sim.Targets {
		if !carried[l.resolve(t)] {
			add(sim, t)
		}
	}
	for _, t := range carry {
		add(d.preeq, t)
	}
	made[key] = c
	d.sim = c
}

// checkOwnValues reports a species or parameter that a condition in use
// leaves to the model (unset: the first such condition) when the model
// gives it no value (no declared value, no initial assignment): the
// lowering would only say that a rate depends on it.
func (l *lowering) checkOwnValues(order []string, unset map[string]*Condition) {
	sb := l.p.SBML
	ia := make(map[string]bool)
	for _, a := range sb.InitialAssignments {
		ia[a.Symbol] = true
	}
	none := make(map[string]string)
	for _, s := range sb.Species {
		if !s.HasInitialAmount && !s.HasInitialConcentration && !ia[s.ID] {
			none[s.ID] = "species"
		}
	}
	for _, q := range sb.Parameters {
		if !q.HasValue && !ia[q.ID] {
			none[q.ID] = "parameter"
		}
	}
	for _, id := range order {
		c, kind := unset[id], none[id]
		if c == nil || kind == "" {
			continue
		}
		file, col, line := c.File, id, c.Line
		if file == "" {
			file = l.p.Path // an experiment without a condition
		}
		for _, t := range c.Targets {
			if l.resolve(t) == id {
				col = t
				if c.Lines != nil {
					line = c.Lines[t]
				}
			}
		}
		l.e.add(file, line, col, "condition %q leaves %s %q to the model (NaN or not listed), but the model gives it no value (%s)", c.ID, kind, id, sb.File)
	}
}
