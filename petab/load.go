package petab

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/parser"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/symbolic"
)

// Problem is a loaded PEtab problem: the tables as read, and the problem
// lowered for the runtime (Model and Objective).
type Problem struct {
	Path    string // the YAML file
	Version int    // PEtab format version, 1 or 2
	SBML    *parser.Model

	Parameters   []Parameter
	Conditions   []Condition
	Observables  []Observable
	Measurements []Measurement
	Periods      []Period // v2 experiment table
	// Warnings are accepted oddities (an estimated parameter's nominal
	// value outside its bounds), sorted like errors.
	Warnings ErrorList

	// Model is the SBML model lowered together with the observables, with
	// the parameters the lowering adds (see the package doc).
	Model *interp.Observed
	// Objective is the estimation problem in the runtime's terms.
	Objective *objective.Problem
	// Rows[e][d] is the index in Measurements of
	// Objective.Experiments[e].Data[d]: the order of objective.Result.Sim.
	Rows [][]int
	// ExperimentIDs[e] names Objective.Experiments[e]: the v2 experiment
	// id, or v1 "preeq:sim" ("sim" without pre-equilibration).
	ExperimentIDs []string
}

// Load reads the PEtab problem described by the YAML file at path, checks
// it and lowers it. Every data-dependent failure is an ErrorList (at most
// MaxErrors entries) naming file, line and column; Load never panics on
// bad input.
func Load(path string) (prob *Problem, err error) {
	e := &errs{}
	// A panic below is a bug in pbgen, not in the input; the user still
	// gets a message with the file instead of a stack trace. FuzzLoad
	// fails on it.
	defer func() {
		if r := recover(); r != nil {
			prob, err = nil, ErrorList{{File: path, Msg: fmt.Sprintf("internal error (please report): %v", r)}}
		}
	}()
	f := readYAML(path, e)
	if f == nil {
		return nil, e.err()
	}
	read := func(paths []string) []*table {
		var ts []*table
		for _, p := range paths {
			if t := readTable(p, e); t != nil {
				ts = append(ts, t)
			}
		}
		return ts
	}
	p := &Problem{Path: path, Version: f.version}
	p.Parameters = readParameters(read(f.parameters), f.version, e)
	if f.version == 2 {
		defaultPriorsV2(p.Parameters)
	}
	if f.version == 1 {
		p.Conditions = readConditionsV1(read(f.conditions), e)
	} else {
		p.Conditions = readConditionsV2(read(f.conditions), e)
	}
	p.Observables = readObservables(read(f.observables), f.version, e)
	p.Measurements = readMeasurements(read(f.measurements), f.version, e)
	p.Periods = readExperiments(read(f.experiments), e)
	alias := readMappings(read(f.mappings), e)
	sb, err := parser.ReadFile(f.sbml)
	if err != nil {
		e.add(f.sbml, 0, "", "SBML model: %v", err)
	}
	if len(e.list) > 0 {
		return nil, e.err()
	}
	p.SBML = sb
	l := &lowering{p: p, e: e, alias: alias}
	l.lower()
	if len(e.list) > 0 {
		return nil, e.err()
	}
	e.warn.Sort()
	p.Warnings = e.warn
	return p, nil
}

// lowering holds the state of turning the tables into Model and Objective.
type lowering struct {
	p     *Problem
	e     *errs
	alias map[string]string // v2 mapping table

	ode      *symbolic.ODE
	b        *symbolic.Builder
	stateIdx map[string]int
	paramIdx map[string]int // model parameters (after additions)
	outputs  map[string]*symbolic.Node
	petabIdx map[string]int // parameter table
	theta    map[string]int // estimated parameter id -> index in theta
	condIdx  map[string]int

	// per model parameter: what it stands for
	role []paramRole
	// expr marks the (condition, target) cells holding an expression
	// (v2), which enter the model through a roleCond indicator.
	expr map[*Condition]map[string]bool
	// effective maps a parameter that expression values set to its value
	// in every condition (exprConditions), for the observables.
	effective map[*symbolic.Node]*symbolic.Node

	exps []expDef
}

// paramRole says how a model parameter gets its value in a condition.
type paramRole struct {
	kind   int        // roleModel, roleInit, roleFlag, rolePEtab, roleCond
	target string     // the state (roleInit, roleFlag) or parameter id
	cond   *Condition // roleCond
}

const (
	roleModel = iota // an SBML parameter (or compartment size)
	roleInit         // the initial value of a state a condition sets
	roleFlag         // 1 when the condition sets the state, else 0
	rolePEtab        // a parameter-table parameter the model does not have
	roleCond         // 1 in one condition with expression values, else 0
)

// expDef is an experiment before lowering to objective.Experiment.
type expDef struct {
	id         string
	preeq, sim *Condition // preeq nil for none; sim never nil
	t0         float64
	rows       []int // measurement indices
}

func (l *lowering) resolve(id string) string {
	if m, ok := l.alias[id]; ok {
		return m
	}
	return id
}

func (l *lowering) lower() {
	p, e := l.p, l.e
	l.petabIdx = make(map[string]int)
	l.theta = make(map[string]int)
	ob := &objective.Problem{}
	for i, q := range p.Parameters {
		l.petabIdx[q.ID] = i
		pr := objective.Param{ID: q.ID, Scale: q.Scale, Lower: q.Lower, Upper: q.Upper, Nominal: q.Nominal, Estimate: q.Estimate, Prior: q.Prior, InitPrior: q.InitPrior}
		ob.Params = append(ob.Params, pr)
		if q.Estimate {
			l.theta[q.ID] = len(ob.Estimated)
			ob.Estimated = append(ob.Estimated, i)
		}
	}
	l.condIdx = make(map[string]int)
	for i, c := range p.Conditions {
		l.condIdx[c.ID] = i
	}
	l.experiments()
	if len(p.Measurements) == 0 {
		e.add(p.Path, 0, "", "the measurement tables have no rows")
	}
	if len(e.list) > 0 {
		return
	}

	// Targets of the conditions in use, and whether one needs the
	// compartments as parameters.
	sbCompartments := make(map[string]bool)
	for _, c := range p.SBML.Compartments {
		sbCompartments[c.ID] = true
	}
	needComp := false
	for _, c := range p.Conditions {
		for _, t := range c.Targets {
			if sbCompartments[l.resolve(t)] {
				needComp = true
			}
		}
	}
	l.constParams()
	ode, err := p.SBML.ODE(&parser.Options{SensCompartments: needComp})
	if err != nil {
		e.add(p.SBML.File, 0, "", "SBML model: %v", err)
		return
	}
	l.ode, l.b = ode, ode.B
	l.stateIdx = make(map[string]int)
	for i, s := range ode.States {
		l.stateIdx[s.Name] = i
	}
	l.paramIdx = make(map[string]int)
	for j, q := range ode.Params {
		l.paramIdx[q.Name] = j
		l.role = append(l.role, paramRole{kind: roleModel, target: q.Name})
	}
	l.outputs = make(map[string]*symbolic.Node)
	for _, o := range ode.Outputs {
		l.outputs[o.Name] = o.Expr
	}
	l.checkTargets()
	if len(e.list) > 0 {
		return
	}
	l.initParams()
	l.exprConditions()
	if len(e.list) > 0 {
		return
	}
	obsModels := l.observables()
	if len(e.list) > 0 {
		return
	}
	sys, err := symbolic.Build(ode)
	if err != nil {
		e.add(p.SBML.File, 0, "", "lowering: %v", err)
		return
	}
	m, err := interp.NewObserved(sys, obsModels)
	if err != nil {
		e.add(p.SBML.File, 0, "", "lowering: %v", err)
		return
	}
	p.Model = m
	for _, o := range p.Observables {
		ob.Observables = append(ob.Observables, objective.Observable{ID: o.ID, Transform: o.Transform, Noise: o.Distribution})
	}
	l.problem(ob)
	p.Objective = ob
}

// experiments groups the measurements into experiments: v1 by
// (pre-equilibration, simulation) condition pair, v2 by experiment id, in
// order of first appearance.
func (l *lowering) experiments() {
	p, e := l.p, l.e
	cond := func(id string, m *Measurement, col string) *Condition {
		k, ok := l.condIdx[id]
		if !ok {
			e.add(m.File, m.Line, col, "unknown condition %q", id)
			return nil
		}
		return &p.Conditions[k]
	}
	idx := make(map[string]int)
	empty := &Condition{ID: ""}
	var v2 map[string]*expDef
	if p.Version == 2 {
		v2 = l.experimentsV2()
	}
	for i := range p.Measurements {
		m := &p.Measurements[i]
		var key string
		var d expDef
		if p.Version == 1 {
			key = m.Preeq + ":" + m.Sim
			if m.Preeq == "" {
				key = m.Sim
			}
			if _, ok := idx[key]; !ok {
				d = expDef{id: key, sim: cond(m.Sim, m, "simulationConditionId")}
				if m.Preeq != "" {
					d.preeq = cond(m.Preeq, m, "preequilibrationConditionId")
				}
				if d.sim == nil || m.Preeq != "" && d.preeq == nil {
					continue
				}
			}
		} else {
			key = m.Experiment
			if _, ok := idx[key]; !ok {
				if key == "" {
					d = expDef{sim: empty}
				} else if x, ok := v2[key]; ok {
					d = *x
				} else {
					e.add(m.File, m.Line, "experimentId", "unknown experiment %q", key)
					continue
				}
			}
		}
		k, ok := idx[key]
		if !ok {
			k = len(l.exps)
			idx[key] = k
			l.exps = append(l.exps, d)
		}
		if m.Time < l.exps[k].t0 {
			e.add(m.File, m.Line, "time", "time %g is before the experiment's start %g", m.Time, l.exps[k].t0)
			continue
		}
		l.exps[k].rows = append(l.exps[k].rows, i)
	}
}

// experimentsV2 turns the experiment table into (pre-equilibration,
// simulation, start time) triples. Conditions applied at the same time are
// merged; an experiment with more than one finite period is not supported
// (objective.Experiment has one simulation period).
func (l *lowering) experimentsV2() map[string]*expDef {
	p, e := l.p, l.e
	byExp := make(map[string][]Period)
	var order []string
	for _, q := range p.Periods {
		if _, ok := byExp[q.Experiment]; !ok {
			order = append(order, q.Experiment)
		}
		byExp[q.Experiment] = append(byExp[q.Experiment], q)
	}
	out := make(map[string]*expDef)
	for _, id := range order {
		ps := byExp[id]
		slices.SortStableFunc(ps, func(a, b Period) int { return cmp.Compare(a.Time, b.Time) })
		d := &expDef{id: id}
		var times []float64
		groups := make(map[float64][]Period)
		for _, q := range ps {
			if _, ok := groups[q.Time]; !ok {
				times = append(times, q.Time)
			}
			groups[q.Time] = append(groups[q.Time], q)
		}
		ok := true
		for _, t := range times {
			c := l.merge(groups[t])
			if c == nil {
				ok = false
				break
			}
			switch {
			case math.IsInf(t, -1):
				d.preeq = c
			case d.sim != nil:
				q := groups[t][0]
				e.add(q.File, q.Line, "time", "experiment %q has more than one period after pre-equilibration, which is not supported", id)
				ok = false
			default:
				d.sim, d.t0 = c, t
			}
		}
		if !ok {
			continue
		}
		if d.sim == nil {
			d.sim = &Condition{}
		}
		out[id] = d
	}
	return out
}

// merge is the union of the conditions applied at one time.
func (l *lowering) merge(ps []Period) *Condition {
	var cs []*Condition
	for _, q := range ps {
		if q.Condition == "" {
			continue
		}
		k, ok := l.condIdx[q.Condition]
		if !ok {
			l.e.add(q.File, q.Line, "conditionId", "unknown condition %q", q.Condition)
			return nil
		}
		cs = append(cs, &l.p.Conditions[k])
	}
	switch len(cs) {
	case 0:
		return &Condition{}
	case 1:
		return cs[0]
	}
	m := &Condition{Pos: cs[0].Pos, Values: make(map[string]string), Lines: make(map[string]int)}
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
		for _, t := range c.Targets {
			if _, dup := m.Values[t]; dup {
				l.e.add(c.File, c.Lines[t], "targetId", "conditions applied together both set %q", t)
				return nil
			}
			m.Targets = append(m.Targets, t)
			m.Values[t] = c.Values[t]
			m.Lines[t] = c.Lines[t]
		}
	}
	m.ID = strings.Join(ids, "+")
	return m
}

// checkTargets checks that every condition target is a state or a model
// parameter and not in the parameter table.
func (l *lowering) checkTargets() {
	for _, c := range l.p.Conditions {
		for _, t := range c.Targets {
			line := c.Line
			if c.Lines != nil {
				line = c.Lines[t]
			}
			id := l.resolve(t)
			_, isState := l.stateIdx[id]
			_, isParam := l.paramIdx[id]
			if _, inTable := l.petabIdx[t]; inTable {
				l.e.add(c.File, line, t, "condition target %q is also in the parameter table", t)
				continue
			}
			if !isState && !isParam {
				if _, ok := l.outputs[id]; ok {
					l.e.add(c.File, line, t, "condition target %q is not a state or constant parameter of the model (an assignment-rule target, a species no reaction changes, or a folded value), which a condition cannot set", t)
				} else {
					l.e.add(c.File, line, t, "condition target %q is not in the model", t)
				}
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
		if unset[id] {
			flag := l.addParam("petab_set_"+id, 0, paramRole{kind: roleFlag, target: id})
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

// addParam appends a model parameter with a name no other symbol has.
func (l *lowering) addParam(name string, value float64, r paramRole) *symbolic.Node {
	base := name
	for k := 2; ; k++ {
		_, p := l.paramIdx[name]
		_, s := l.stateIdx[name]
		if !p && !s {
			break
		}
		name = base + "_" + strconv.Itoa(k)
	}
	l.paramIdx[name] = len(l.ode.Params)
	l.ode.Params = append(l.ode.Params, symbolic.Param{Name: name, Value: value})
	l.role = append(l.role, r)
	return l.b.Sym(name, symbolic.KindParam)
}

// observables parses the observable and noise formulas and resolves their
// symbols: placeholders become the u symbols, SBML ids their value in math
// (ODE.Outputs), parameter-table ids model parameters (added when the
// model lacks them).
func (l *lowering) observables() []interp.Observable {
	var out []interp.Observable
	b := l.b
	for _, o := range l.p.Observables {
		io := interp.Observable{ID: o.ID, NObs: len(o.ObsPlaceholders)}
		uSym := make(map[string]*symbolic.Node)
		for _, ph := range append(append([]string(nil), o.ObsPlaceholders...), o.NoisePlaceholders...) {
			name := "u:" + ph
			io.U = append(io.U, name)
			uSym[ph] = b.Sym(name, symbolic.KindParam)
		}
		parse := func(src, col string, self *symbolic.Node) *symbolic.Node {
			n, err := b.ParsePEtab(src, nil)
			if err != nil {
				l.e.add(o.File, o.Line, col, "%v", err)
				return nil
			}
			repl := make(map[*symbolic.Node]*symbolic.Node)
			for _, s := range symbolic.FreeSymbols(n) {
				if s.Kind != symbolic.KindOther {
					continue
				}
				r := l.symbol(s.Name, uSym, o.ID, self)
				if r == nil {
					l.e.add(o.File, o.Line, col, "unknown id %q", s.Name)
					continue
				}
				repl[s] = r
			}
			return b.Substitute(n, repl)
		}
		io.H = parse(o.Formula, "observableFormula", nil)
		if io.H == nil {
			continue
		}
		io.Sigma = parse(o.Noise, "noiseFormula", io.H)
		if io.Sigma == nil {
			continue
		}
		out = append(out, io)
	}
	return out
}

// symbol resolves an id in an observable's formula.
func (l *lowering) symbol(id string, u map[string]*symbolic.Node, obsID string, self *symbolic.Node) *symbolic.Node {
	if n, ok := u[id]; ok {
		return n
	}
	if self != nil && id == obsID {
		return self
	}
	mid := l.resolve(id)
	if _, ok := l.paramIdx[mid]; ok {
		k := l.b.Sym(mid, symbolic.KindParam)
		if v, ok := l.effective[k]; ok {
			return v
		}
		return k
	}
	if n, ok := l.outputs[mid]; ok {
		return n
	}
	if k, ok := l.petabIdx[id]; ok {
		return l.addParam(id, l.p.Parameters[k].Nominal, paramRole{kind: rolePEtab, target: id})
	}
	return nil
}

// value turns a condition cell or a placeholder override (a number or a
// parameter id) into an objective.Value. ok is false for an unknown id.
func (l *lowering) value(s string) (v objective.Value, ok bool) {
	if x, isNum := parseNum(s); isNum {
		return objective.Value{Theta: -1, Const: x}, true
	}
	if k, ok := l.theta[s]; ok {
		return objective.Value{Theta: k}, true
	}
	if k, ok := l.petabIdx[s]; ok {
		return objective.Value{Theta: -1, Const: l.p.Parameters[k].Nominal}, true
	}
	if j, ok := l.paramIdx[l.resolve(s)]; ok && l.role[j].kind == roleModel {
		return objective.Value{Theta: -1, Const: l.ode.Params[j].Value}, true
	}
	return objective.Value{}, false
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

// problem fills in conditions, experiments and data.
func (l *lowering) problem(ob *objective.Problem) {
	p := l.p
	obsIdx := make(map[string]int)
	for k, o := range p.Observables {
		obsIdx[o.ID] = k
	}
	condK := make(map[*Condition]int)
	condOf := func(c *Condition) int {
		if k, ok := condK[c]; ok {
			return k
		}
		k := len(ob.Conditions)
		condK[c] = k
		ob.Conditions = append(ob.Conditions, l.condition(c))
		return k
	}
	for _, d := range l.exps {
		x := objective.Experiment{Preeq: -1, Sim: condOf(d.sim), T0: d.t0}
		if d.preeq != nil {
			x.Preeq = condOf(d.preeq)
			for i, s := range l.ode.States {
				if l.setsState(d.sim, s.Name) {
					x.Reinit = append(x.Reinit, i)
				}
			}
		}
		rows := append([]int(nil), d.rows...)
		slices.SortStableFunc(rows, func(a, b int) int { return cmp.Compare(p.Measurements[a].Time, p.Measurements[b].Time) })
		for _, r := range rows {
			m := &p.Measurements[r]
			k, ok := obsIdx[m.ObservableID]
			if !ok {
				l.e.add(m.File, m.Line, "observableId", "unknown observable %q", m.ObservableID)
				continue
			}
			o := &p.Observables[k]
			dt := objective.Datum{Obs: k, T: m.Time, Y: m.Value}
			if o.Transform != objective.TransformLin && !(m.Value > 0) {
				l.e.add(m.File, m.Line, "measurement", "observable %q is log-transformed, but the measurement %g is not positive", o.ID, m.Value)
			}
			for _, g := range []struct {
				col  string
				vals []string
				phs  []string
			}{{"observableParameters", m.ObsParams, o.ObsPlaceholders}, {"noiseParameters", m.NoiseParams, o.NoisePlaceholders}} {
				vals := g.vals
				if len(g.phs) == 0 && len(vals) == 1 {
					if x, isNum := parseNum(vals[0]); isNum && math.IsNaN(x) {
						vals = nil // v1 files write NaN for "no override"
					}
				}
				if len(vals) != len(g.phs) {
					l.e.add(m.File, m.Line, g.col, "observable %q has %d placeholder(s), found %d value(s)", o.ID, len(g.phs), len(vals))
					continue
				}
				for i, s := range vals {
					v, ok := l.value(s)
					if !ok {
						l.e.add(m.File, m.Line, g.col, "%q is neither a number nor a parameter id", s)
						continue
					}
					if v.Theta < 0 && math.IsNaN(v.Const) {
						l.e.add(m.File, m.Line, g.col, "value %d is NaN; a placeholder needs a number or a parameter id", i+1)
						continue
					}
					if g.col == "noiseParameters" && v.Theta < 0 && strings.TrimSpace(o.Noise) == g.phs[i] && !(v.Const > 0) {
						l.e.add(m.File, m.Line, g.col, "noise must be positive, found %s", s)
					}
					dt.U = append(dt.U, v)
				}
			}
			x.Data = append(x.Data, dt)
		}
		ob.Experiments = append(ob.Experiments, x)
		p.Rows = append(p.Rows, rows)
		p.ExperimentIDs = append(p.ExperimentIDs, d.id)
	}
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
		for _, c := range []*Condition{d.preeq, d.sim} {
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
