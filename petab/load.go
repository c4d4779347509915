package petab

import (
	"fmt"
	"strconv"

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
	// System and ObservableExprs are Model in symbolic form: the lowered
	// system and the observables' h and sigma over its states, parameters
	// and placeholders, in the order of Objective.Observables. Code
	// generation compiles these (pbgen petab -gen), so that a generated
	// package and Model have the same parameters in the same order and
	// Objective serves both. Their Builder is shared and not safe for
	// concurrent use.
	System          *symbolic.System
	ObservableExprs []interp.Observable
	// AssignExprs are the state assignment sets of Model
	// (model.Assigner) in symbolic form, over System's states, parameters
	// and time: those of v2 experiments' later periods, numbered as
	// objective.Period.Assign refers to them. Empty for a problem without
	// any; pbgen petab -gen compiles them with the rest.
	AssignExprs []interp.Assignment
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
func Load(path string) (prob *Problem, err error) { return LoadWith(path, nil) }

// LoadOptions are the lowering's choices; a nil *LoadOptions means the
// zero value.
type LoadOptions struct {
	// KeepTimeRelations leaves each relation of time against an
	// estimated parameter in the rates (the switching time of a piecewise
	// input, t < t_1) instead of making it a 0/1 state kept by two events
	// (switches.go, the default). Both give the switching time its
	// sensitivity (Oliveira_NatCommun2021's t_1: -5.408e9): the objective
	// solves a model whose rates hold relations through runtime/events,
	// which stops at them as switches of f (model.Switches) and carries S
	// across. Before that, a relation left in the rate was stepped over
	// and its switching time got no sensitivity (0); the option keeps the
	// earlier lowering for comparison.
	KeepTimeRelations bool
}

// LoadWith is Load with options.
func LoadWith(path string, opt *LoadOptions) (prob *Problem, err error) {
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
	if opt != nil {
		l.opt = *opt
	}
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
	opt   LoadOptions

	ode      *symbolic.ODE
	b        *symbolic.Builder
	stateIdx map[string]int
	paramIdx map[string]int // model parameters (after additions)
	outputs  map[string]*symbolic.Node
	petabIdx map[string]int // parameter table
	theta    map[string]int // estimated parameter id -> index in theta
	condIdx  map[string]int
	// overName gives the role of each parameter that overrideTargets
	// asks the SBML lowering for; overValue names the value parameter of
	// each id it overrode.
	overName  map[string]paramRole
	overValue map[string]string
	species   map[string]bool // SBML species ids (isSpecies)

	// per model parameter: what it stands for
	role []paramRole
	// expr marks the (condition, target) cells holding an expression
	// (v2), which enter the model through a roleCond indicator.
	expr map[*Condition]map[string]bool
	// effective maps a parameter that expression values set to its value
	// in every condition (exprConditions), for the observables.
	effective map[*symbolic.Node]*symbolic.Node

	exps []expDef
	// assigns are the state assignments at later periods' starts
	// (periods.go), the model's model.Assigner sets.
	assigns []interp.Assignment
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
	rows       []int       // measurement indices
	periods    []periodDef // v2: the periods after the first
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
	overrides := l.overrideTargets()
	if len(e.list) > 0 {
		return
	}
	ode, err := p.SBML.ODE(&parser.Options{SensCompartments: needComp, Events: true, Overrides: overrides})
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
	l.overValue = make(map[string]string)
	for j, q := range ode.Params {
		l.paramIdx[q.Name] = j
		r, ok := l.overName[q.Name]
		if !ok {
			r = paramRole{kind: roleModel, target: q.Name}
		} else if r.kind == roleInit {
			l.overValue[r.target] = q.Name
		}
		l.role = append(l.role, r)
	}
	l.outputs = make(map[string]*symbolic.Node)
	for _, o := range ode.Outputs {
		l.outputs[o.Name] = o.Expr
	}
	l.checkTargets()
	l.checkDelays()
	l.checkHeld()
	l.checkFastStoich()
	if len(e.list) > 0 {
		return
	}
	l.periodConditions()
	l.initParams()
	l.exprConditions()
	if !l.opt.KeepTimeRelations {
		l.timeSwitches()
	}
	if len(e.list) > 0 {
		return
	}
	obsModels := l.observables()
	l.periodAssignments()
	if len(e.list) > 0 {
		return
	}
	sys, err := symbolic.Build(ode)
	if err != nil {
		e.add(p.SBML.File, 0, "", "lowering: %v", err)
		return
	}
	m, err := interp.NewObservedAssign(sys, obsModels, l.assigns)
	if err != nil {
		e.add(p.SBML.File, 0, "", "lowering: %v", err)
		return
	}
	p.Model, p.System, p.ObservableExprs, p.AssignExprs = m, sys, obsModels, l.assigns
	for _, o := range p.Observables {
		ob.Observables = append(ob.Observables, objective.Observable{ID: o.ID, Transform: o.Transform, Noise: o.Distribution})
	}
	l.problem(ob)
	l.unused(ob)
	p.Objective = ob
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
			n = b.Substitute(n, repl)
			if d := l.delayIn(n); d != "" {
				// Observables are evaluated from (t, x, p) at the
				// output times; the objective has no history there.
				l.e.add(o.File, o.Line, col, "reads a delayed value (csymbol delay: %s), which an observable or noise formula cannot (not supported)", d)
				return nil
			}
			return n
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

// unused warns about estimated parameters that no condition in use and no
// datum refers to: their gradient is zero and the FIM singular, which is
// rarely what the author meant.
func (l *lowering) unused(ob *objective.Problem) {
	used := make([]bool, len(ob.Estimated))
	mark := func(v objective.Value) {
		if v.Theta >= 0 && v.Theta < len(used) {
			used[v.Theta] = true
		}
	}
	for _, c := range ob.Conditions {
		for _, v := range c.P {
			mark(v)
		}
	}
	for _, x := range ob.Experiments {
		for _, d := range x.Data {
			for _, v := range d.U {
				mark(v)
			}
		}
	}
	for k, u := range used {
		if !u {
			q := l.p.Parameters[ob.Estimated[k]]
			l.e.warnf(q.File, q.Line, "parameterId", "estimated parameter %q is used nowhere in the problem (zero gradient)", q.ID)
		}
	}
}
