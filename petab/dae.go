package petab

import (
	"math"
	"strconv"
	"strings"

	"github.com/pbgen/pbgen/parser"
	"github.com/pbgen/pbgen/symbolic"
)

// Models with algebraic rules, fast reactions or csymbol delay.
//
// Algebraic rules and fast reactions lower to a DAE whose algebraic
// variables are the last states (symbolic.ODE.Algebraic);
// runtime/objective solves it through runtime/dae, z being re-solved
// wherever the model is evaluated, so conditions need nothing special
// except for the algebraic variables themselves: one an algebraic rule
// determines cannot be set (its declared value is only a first guess),
// and a fast species set by a condition moves the conserved pools: their
// initial values at an experiment's start (fastInit), an assignment of
// them after pre-equilibration and at later periods (fastAfterPreeq,
// periodAssignments).
//
// A model with csymbol delay is a DDE, evaluated by runtime/objective
// through runtime/dde (the gradient and FIM by dde.SolveSens). What that
// path does not do is refused here with the file and row, so that pbgen
// petab check says it before any evaluation: pre-equilibration, data at
// steady state and periods (objective.ErrDelaySens covers a gradient or
// FIM request runtime/dde cannot differentiate, which only an evaluation
// makes), and observables that read a delayed value.

// fastInit lowers a condition's initial value of fast species i (init, in
// the state's units; flag nil when every condition in use sets it, else
// the 0/1 parameter saying whether this one does). The species is
// algebraic: its value at t0 is the fast reactions' equilibrium at the
// conserved pools y_k(0) = sum_j c_kj a_j n_j(0) over the fast species'
// initial amounts (parser/fast.go), which the declared values entered.
// The condition replaces n_i(0), so each pool's initial value moves by
// c_ki a_i (init - declared), c_ki a_i being the derivative of the pool's
// residual c_k a z - y_k in z_i; the species' first guess stays the
// lowering's (the equilibrium the fast reactions reach from the declared
// values, which picks the branch Newton's method should find).
func (l *lowering) fastInit(i int, init, flag *symbolic.Node) {
	st := &l.ode.States[i]
	b := l.b
	decl := l.declaredInit(st)
	if decl == nil {
		c, line := l.firstSetter(st.Name)
		l.e.add(c.File, line, st.Name, "condition sets fast species %q, whose declared initial value is not a number in the model (an initial assignment sets it): not supported", st.Name)
		return
	}
	delta := b.Sub(init, decl)
	if flag != nil {
		delta = b.Mul(flag, delta)
	}
	for k, coef := range l.poolCoefs(i) {
		for _, sym := range symbolic.FreeSymbols(coef) {
			if sym.Kind == symbolic.KindState {
				// A stoichiometry that events set (parser/fast.go):
				// the coefficient is a state's, not a value at t0.
				c, line := l.firstSetter(st.Name)
				l.e.add(c.File, line, st.Name, "condition sets fast species %q, whose conserved amounts depend on %q, a stoichiometry that events set: not supported", st.Name, sym.Name)
				return
			}
		}
		pool := &l.ode.States[k]
		pool.Init = b.Add(pool.Init, b.Mul(coef, delta))
	}
}

// poolCoefs returns, for each conserved pool of the fast reactions (by
// state index) that fast species i enters, its coefficient c_ki a_i: the
// derivative in z_i of the pool's residual c_k a z - y_k, the one
// algebraic row that reads y_k (parser/fast.go).
func (l *lowering) poolCoefs(i int) map[int]*symbolic.Node {
	b := l.b
	zi := b.Sym(l.ode.States[i].Name, symbolic.KindState)
	nAlg := len(l.ode.States) - l.ode.Algebraic
	out := make(map[int]*symbolic.Node)
	for k := range l.ode.States[:nAlg] {
		pool := &l.ode.States[k]
		if pool.Meta["sbml"] != "fast" {
			continue
		}
		y := b.Sym(pool.Name, symbolic.KindState)
		for r := nAlg; r < len(l.ode.States); r++ {
			res := l.ode.States[r].Rate
			if dy, err := b.Diff(res, y); err != nil || dy.IsConst(0) {
				continue
			}
			if coef, err := b.Diff(res, zi); err == nil && !coef.IsConst(0) {
				out[k] = coef
			}
			break
		}
	}
	return out
}

// fastAfterPreeq moves the fast species an experiment's simulation
// condition sets after pre-equilibration into a period of length 0 at
// its start (merged with the one stateValuesAfterPreeq made, if any),
// whose assignment moves the conserved pools from the pre-equilibrated
// state (periodAssignments); re-initialising the species is not possible,
// as they are algebraic. The simulation condition keeps its other
// targets (a new condition: conditions are shared between experiments).
func (l *lowering) fastAfterPreeq(d *expDef) {
	sim := d.sim
	var moved []string
	for _, t := range sim.Targets {
		if i, ok := l.stateIdx[l.resolve(t)]; ok && l.isAlgebraic(i) && l.setsState(sim, l.resolve(t)) {
			moved = append(moved, t)
		}
	}
	if len(moved) == 0 {
		return
	}
	keep := &Condition{Pos: sim.Pos, ID: sim.ID, Values: make(map[string]string), Lines: make(map[string]int)}
	var set *Condition
	if len(d.periods) > 0 && d.periods[0].t == d.t0 {
		set = d.periods[0].set // stateValuesAfterPreeq's, a condition of this experiment's own
	} else {
		set = &Condition{Pos: sim.Pos, ID: sim.ID, Values: make(map[string]string), Lines: make(map[string]int)}
		d.periods = append([]periodDef{{t: d.t0, set: set, pos: sim.Pos}}, d.periods...)
	}
	splitTargets(sim, moved, keep, set)
	d.sim = keep
}

// declaredInit is the initial value of species state st as the SBML
// file declares it, in the state's units, or nil when an initial
// assignment sets it or a size it needs is not a value of parameters.
func (l *lowering) declaredInit(st *symbolic.State) *symbolic.Node {
	b := l.b
	for _, a := range l.p.SBML.InitialAssignments {
		if a.Symbol == st.Name {
			return nil
		}
	}
	var sp *parser.Species
	for _, x := range l.p.SBML.Species {
		if x.ID == st.Name {
			sp = x
		}
	}
	if sp == nil {
		return nil
	}
	size := func() *symbolic.Node {
		n, ok := l.outputs[sp.Compartment]
		if !ok {
			return nil
		}
		for _, s := range symbolic.FreeSymbols(n) {
			if s.Kind != symbolic.KindParam {
				return nil
			}
		}
		return n
	}
	amount := st.Meta["units"] == "amount"
	switch {
	case sp.HasInitialAmount && amount:
		return b.Const(sp.InitialAmount)
	case sp.HasInitialConcentration && !amount:
		return b.Const(sp.InitialConcentration)
	case sp.HasInitialAmount:
		if v := size(); v != nil {
			return b.Div(b.Const(sp.InitialAmount), v)
		}
	case sp.HasInitialConcentration:
		if v := size(); v != nil {
			return b.Mul(b.Const(sp.InitialConcentration), v)
		}
	}
	return nil
}

// firstSetter is a condition in use that sets state id, and the line of
// that cell, for messages.
func (l *lowering) firstSetter(id string) (*Condition, int) {
	for _, d := range l.exps {
		for _, c := range []*Condition{d.sim, d.preeq} {
			if c, line := l.firstSetterIn(c, id); line > 0 {
				return c, line
			}
		}
	}
	return &Condition{Pos: Pos{File: l.p.Path}}, 0
}

// firstSetterIn is c and the line of its cell setting state id (line 0
// when c is nil or does not set it).
func (l *lowering) firstSetterIn(c *Condition, id string) (*Condition, int) {
	if c == nil {
		return &Condition{Pos: Pos{File: l.p.Path}}, 0
	}
	for _, t := range c.Targets {
		if l.resolve(t) == id {
			if c.Lines != nil {
				return c, c.Lines[t]
			}
			return c, c.Line
		}
	}
	return c, 0
}

// checkHeld refuses what a model with a fast reaction that events can
// switch off (a "fast_held" state, parser/fast.go) cannot do: its held
// amount is the fast species' combination at the last model event, which
// the model's events take anew, but a condition that sets a fast species
// at the start, pre-equilibration or a later period (which may switch
// the reaction off by a parameter or a state) does not. Refused by the
// reaction's name, with the experiment or condition.
func (l *lowering) checkHeld() {
	var held []string
	for _, st := range l.ode.States {
		if st.Meta["sbml"] == "fast_held" {
			held = append(held, strconv.Quote(st.Meta["reaction"]))
		}
	}
	if len(held) == 0 {
		return
	}
	what := "fast reaction " + strings.Join(held, ", ") + ", which events can switch off (a factor of its rate that events set)"
	for _, c := range l.p.Conditions {
		for _, t := range c.Targets {
			if i, ok := l.stateIdx[l.resolve(t)]; ok && l.ode.States[i].Meta["fast"] != "" {
				line := c.Line
				if c.Lines != nil {
					line = c.Lines[t]
				}
				l.e.add(c.File, line, t, "condition sets fast species %q of a model with %s: not supported", t, what)
			}
		}
	}
	for _, d := range l.exps {
		if d.preeq != nil || len(d.periods) > 0 {
			l.e.add(l.p.Path, 0, "", "experiment %q has pre-equilibration or conditions applied after its start, in a model with %s: not supported (the amount it holds is taken anew only at the model's events)", d.id, what)
		}
	}
}

// checkFastStoich refuses a condition that sets a stoichiometry of the
// fast reactions (a species reference that events set, which the
// conserved pools' residuals read, parser/fast.go): the pools' values
// and initial values are formed with the stoichiometry the model's
// events leave, and a condition would change it without them.
func (l *lowering) checkFastStoich() {
	nAlg := len(l.ode.States) - l.ode.Algebraic
	reads := make(map[string]bool)
	for _, st := range l.ode.States[nAlg:] {
		if st.Meta["fast"] == "" {
			continue
		}
		for _, sym := range symbolic.FreeSymbols(st.Rate) {
			if sym.Kind == symbolic.KindState {
				reads[sym.Name] = true
			}
		}
	}
	for _, c := range l.p.Conditions {
		for _, t := range c.Targets {
			id := l.resolve(t)
			i, ok := l.stateIdx[id]
			if !ok || l.ode.States[i].Meta["sbml"] != "speciesReference" || !reads[id] {
				continue
			}
			line := c.Line
			if c.Lines != nil {
				line = c.Lines[t]
			}
			l.e.add(c.File, line, t, "condition sets %q, a stoichiometry of the fast reactions that events set: not supported (the conserved amounts are formed with the values the model's events leave)", t)
		}
	}
}

// isAlgebraic reports whether state i is an algebraic variable.
func (l *lowering) isAlgebraic(i int) bool {
	return i >= len(l.ode.States)-l.ode.Algebraic
}

// algebraicOrigin says what determines algebraic variable i, for
// messages.
func (l *lowering) algebraicOrigin(i int) string {
	st := &l.ode.States[i]
	switch {
	case st.Meta["algebraicRule"] != "":
		return "determined by the algebraic rule at " + l.p.SBML.File + ":" + st.Meta["algebraicRule"]
	case st.Meta["fast"] != "":
		return "a species of fast reactions, at their equilibrium with the conserved amounts (states fast_pool...)"
	}
	return "determined by an algebraic equation"
}

// delayNames lists the model's delayed values.
func (l *lowering) delayNames() string {
	s := ""
	for k, d := range l.ode.Delays {
		if k > 0 {
			s += ", "
		}
		s += d.Label
	}
	return s
}

// delayIn returns the label of a delayed value n reads, or "".
func (l *lowering) delayIn(n *symbolic.Node) string {
	if n == nil || len(l.ode.Delays) == 0 {
		return ""
	}
	for _, s := range symbolic.FreeSymbols(n) {
		if s.Kind == symbolic.KindDelay {
			for _, d := range l.ode.Delays {
				if d.Name == s.Name {
					return d.Label
				}
			}
			return s.Name
		}
	}
	return ""
}

// checkDelays refuses, in a model with delays, the experiments the delay
// path cannot evaluate (see above).
func (l *lowering) checkDelays() {
	if len(l.ode.Delays) == 0 {
		return
	}
	names := l.delayNames()
	for _, d := range l.exps {
		for _, r := range d.rows {
			m := &l.p.Measurements[r]
			switch {
			case d.preeq != nil:
				l.e.add(m.File, m.Line, "", "pre-equilibration of a model with csymbol delay (%s) is not supported", names)
			case len(d.periods) > 0:
				l.e.add(m.File, m.Line, "", "an experiment with several periods in a model with csymbol delay (%s) is not supported", names)
			case math.IsInf(m.Time, 1):
				l.e.add(m.File, m.Line, "time", "data at steady state (inf) in a model with csymbol delay (%s) are not supported", names)
			default:
				continue
			}
			break // one error per experiment
		}
	}
}
