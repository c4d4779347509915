package parser

import (
	"math"
	"strconv"
	"strings"

	"github.com/pbgen/pbgen/symbolic"
)

// Options select what ODE lowers. A nil *Options means the defaults
// (every candidate parameter, no compartments, no initial values).
type Options struct {
	// Params selects the sensitivity parameters by name, in this order.
	// Nil means all candidates in the default order (global parameters,
	// then compartments if SensCompartments, then initial values if
	// SensInitials). Names that are not candidates are an error.
	// Candidates left out are folded to their values.
	Params []string
	// SensCompartments makes each constant compartment size (one no rule
	// or initial assignment sets) a sensitivity parameter named by its id.
	SensCompartments bool
	// SensInitials makes the initial value of each state species that the
	// document gives as a number (not by an initial assignment) a
	// sensitivity parameter named "init_<id>", in the species' units in
	// math (concentration unless hasOnlySubstanceUnits). x0 then depends
	// on p.
	SensInitials bool
	// Events lowers the model's events into ODE.Events. Without it a
	// model with events is refused ("event is not supported", at each
	// event's line): a caller that integrates with runtime/ode or
	// runtime/sens alone would step over them and simulate another
	// model. Callers that simulate with runtime/events set it.
	//
	// It also lowers floor and ceiling of a moving argument in the rates
	// (quotient and rem too) into states that events set at the integers
	// of the argument (symbolic.LowerSteps), so that their jumps are
	// located and S jumps there. Without it they stay in the rates, for a
	// caller that integrates the rates alone: the states are right where
	// the integrator's error control steps over the jumps, but S misses
	// the jumps whose times move with the parameters.
	Events bool
}

// Variable kinds, in the order their states are listed.
type varKind uint8

const (
	vSpecies varKind = iota
	vCompartment
	vParameter
	vSpeciesRef
	vReaction
)

var kindElem = [...]string{"species", "compartment", "parameter", "speciesReference", "reaction"}

// variable is an SBML symbol with a value during lowering.
type variable struct {
	id   string
	kind varKind
	line int

	decl   *symbolic.Node // declared value (a constant) or nil when undefined
	ia     *symbolic.Node // initial assignment math
	ar, rr *symbolic.Node // assignment rule, rate rule math
	rule   int            // line of the rule, for messages
	law    *symbolic.Node // reactions: kinetic law

	sp            *Species
	rx            *Reaction // reactions
	comp          *variable // species: its compartment
	valueIsAmount bool      // species: symbol means amount (hasOnlySubstanceUnits or 0-D)
	reacting      bool      // species: changed by reactions
	compVarying   bool      // species: compartment has a rule
	isState       bool
	evTarget      bool           // an event assignment sets it: a state (rate 0 unless reactions or a rate rule change it)
	stateIsAmount bool           // species state: amount (else the value in math)
	param         *symbolic.Node // sensitivity parameter standing for the value, or nil
	initParam     *symbolic.Node // sensitivity parameter standing for the initial value

	alg      *AlgebraicRule // the algebraic rule that determines it (algebraic.go), or nil
	fast     bool           // species: changed by fast reactions (fast.go)
	rateOf   *variable      // stands for csymbol rateOf of this variable (rateof.go)
	delay    *delayUse      // stands for a csymbol delay (delay.go)
	rate     *symbolic.Node // states: memoised rate, for rateOf
	rateDone bool
}

const (
	unvisited uint8 = iota
	visiting
	done
)

type lowering struct {
	m    *Model
	b    *symbolic.Builder
	errs ErrorList
	vars map[string]*variable
	list []*variable // document order within each kind: species, compartments, parameters, species references, reactions

	initMemo, valMemo   map[*variable]*symbolic.Node
	initState, valState map[*variable]uint8
	undef               map[*variable]string // why a value is undefined: the root id ("" after a reported cycle)
	stack               []*variable
	paramValue          map[string]float64
	uses                map[*variable][]speciesUse // species: their references, in document order
	cur                 *variable                  // the variable being lowered, for messages
	inStates            bool                       // cur is a state whose rate and initial value are being formed
	nonFiniteSeen       map[string]bool            // element+id of non-finite values already reported
	flagged             map[*variable]bool         // states with a non-finite value reported
	dl                  *delayLowering             // csymbol delay (delay.go)
	algGuess            bool                       // forming an algebraic variable's first guess
	algRefused          map[*variable]bool         // algebraic variables whose initial value was refused
	fast                *fastSystem                // the fast reactions' subsystem (fast.go), or nil
}

// speciesUse is one species reference in a reaction, indexed by species
// once so that forming each rate does not scan every reaction (which made
// lowering quadratic in the size of the network).
type speciesUse struct {
	rx       *Reaction
	sr       *SpeciesReference
	reactant bool
}

func (l *lowering) errorf(v *variable, line int, format string, args ...any) {
	if line == 0 {
		line = v.line
	}
	l.errs.add(l.m.File, line, kindElem[v.kind], v.id, format, args...)
}

// ODE lowers the model to an ODE system over states, sensitivity
// parameters and time; see the package documentation for the choices of
// states, parameters and outputs. The error, if any, is an ErrorList.
func (m *Model) ODE(opt *Options) (*symbolic.ODE, error) {
	if opt == nil {
		opt = &Options{}
	}
	l := &lowering{
		m: m, b: m.B,
		vars:      make(map[string]*variable),
		initMemo:  make(map[*variable]*symbolic.Node),
		valMemo:   make(map[*variable]*symbolic.Node),
		initState: make(map[*variable]uint8),
		valState:  make(map[*variable]uint8),
		undef:     make(map[*variable]string),
	}
	if !opt.Events {
		for k, ev := range m.Events {
			l.errs.add(m.File, ev.Line, "event", ev.label(k), "event is not supported")
		}
		if err := l.errs.Err(); err != nil {
			return nil, err
		}
	}
	l.collect()
	l.collectDelays()
	params := l.sensParams(opt)
	l.collectFast() // after sensParams: it forms values, which must see the parameters
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	ode := &symbolic.ODE{B: m.B, Name: m.ID, Source: m.File, Params: params}
	// Substituting rules into rates can grow without bound on hostile
	// input (a chain of n rules each using the previous one twice is
	// quadratic once sums flatten): cap it, naming the symbol being formed.
	if err := m.B.Bounded(MaxExprSize, func() {
		l.states(ode)
		l.outputs(ode)
		l.events(ode)
		l.delays(ode)
	}); err != nil {
		l.errorf(l.cur, 0, "its expressions (assignment rules and reaction rates substituted) are larger than the limit of %d nodes and arguments", MaxExprSize)
		return nil, l.errs.Err()
	}
	if opt.Events {
		l.lowerSteps(ode)
	}
	l.checkClosed(ode)
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	return ode, nil
}

func (l *lowering) add(v *variable) {
	l.vars[v.id] = v
	l.list = append(l.list, v)
}

// collect builds the variables and classifies species.
func (l *lowering) collect() {
	m, b := l.m, l.b
	for _, s := range m.Species {
		v := &variable{id: s.ID, kind: vSpecies, line: s.Line, sp: s}
		l.add(v)
	}
	for _, c := range m.Compartments {
		v := &variable{id: c.ID, kind: vCompartment, line: c.Line}
		if c.HasSize {
			v.decl = b.Const(c.Size)
		}
		l.add(v)
	}
	for _, p := range m.Parameters {
		v := &variable{id: p.ID, kind: vParameter, line: p.Line}
		if p.HasValue {
			v.decl = b.Const(p.Value)
		}
		l.add(v)
	}
	for _, rx := range m.Reactions {
		for _, list := range [][]*SpeciesReference{rx.Reactants, rx.Products} {
			for _, sr := range list {
				if sr.ID == "" {
					continue
				}
				v := &variable{id: sr.ID, kind: vSpeciesRef, line: sr.Line, decl: b.Const(stoich(sr))}
				l.add(v)
			}
		}
	}
	for _, rx := range m.Reactions {
		l.add(&variable{id: rx.ID, kind: vReaction, line: rx.Line, law: rx.Rate, rx: rx})
	}
	for _, ia := range m.InitialAssignments {
		if ia.Math != nil {
			l.vars[ia.Symbol].ia = ia.Math
		}
	}
	for _, ru := range m.Rules {
		if ru.Math == nil {
			continue
		}
		v := l.vars[ru.Variable]
		v.rule = ru.Line
		if ru.Kind == RateRule {
			v.rr = ru.Math
			v.isState = true
		} else {
			v.ar = ru.Math
		}
	}
	for _, ev := range m.Events {
		for _, a := range ev.Assignments {
			if v := l.vars[a.Variable]; v != nil {
				v.evTarget = true
				v.isState = true
			}
		}
	}
	l.uses = make(map[*variable][]speciesUse)
	for _, rx := range m.Reactions {
		for i, list := range [][]*SpeciesReference{rx.Reactants, rx.Products} {
			for _, sr := range list {
				v := l.vars[sr.Species]
				v.reacting = true
				l.uses[v] = append(l.uses[v], speciesUse{rx: rx, sr: sr, reactant: i == 0})
			}
		}
	}
	l.matchAlgebraic()
	dimsOf := make(map[string]float64, len(m.Compartments))
	for _, c := range m.Compartments {
		dimsOf[c.ID] = c.SpatialDimensions
	}
	for _, s := range m.Species {
		v := l.vars[s.ID]
		v.comp = l.vars[s.Compartment]
		dims, ok := dimsOf[s.Compartment]
		if !ok {
			dims = 3
		}
		v.valueIsAmount = s.HasOnlySubstanceUnits || dims == 0
		// A compartment an event resizes varies too: the amounts of its
		// species are what an event leaves unchanged.
		v.compVarying = v.comp.ar != nil || v.comp.rr != nil || v.comp.evTarget || v.comp.alg != nil
		v.reacting = v.reacting && !s.BoundaryCondition && !s.Constant
		switch {
		case v.rr != nil || v.alg != nil:
			v.stateIsAmount = v.valueIsAmount
		case v.reacting || v.evTarget:
			v.isState = true
			v.stateIsAmount = v.valueIsAmount || v.compVarying
		}
		switch {
		case s.HasInitialAmount && v.valueIsAmount:
			v.decl = b.Const(s.InitialAmount)
		case s.HasInitialConcentration && !v.valueIsAmount:
			v.decl = b.Const(s.InitialConcentration)
		}
	}
	l.collectRateOf()
}

// stoich is the declared stoichiometry of a species reference: SBML L2's
// default is 1, and an unset L3 stoichiometry (with no rule or initial
// assignment setting it) is also read as 1, as common simulators do.
func stoich(sr *SpeciesReference) float64 {
	if sr.HasStoichiometry {
		return sr.Stoichiometry
	}
	return 1
}

// sensParams chooses the sensitivity parameters.
func (l *lowering) sensParams(opt *Options) []symbolic.Param {
	type cand struct {
		v      *variable
		name   string
		value  float64
		isInit bool
	}
	var cands []cand
	fixed := func(v *variable) bool { return v.ia == nil && v.ar == nil && v.rr == nil && v.decl != nil }
	for _, p := range l.m.Parameters {
		if v := l.vars[p.ID]; p.Constant && fixed(v) {
			cands = append(cands, cand{v: v, name: p.ID, value: v.decl.Val})
		}
	}
	if opt.SensCompartments {
		for _, c := range l.m.Compartments {
			if v := l.vars[c.ID]; c.Constant && fixed(v) {
				cands = append(cands, cand{v: v, name: c.ID, value: v.decl.Val})
			}
		}
	}
	if opt.SensInitials {
		for _, s := range l.m.Species {
			v := l.vars[s.ID]
			if !v.isState || v.ia != nil || !(s.HasInitialAmount || s.HasInitialConcentration) {
				continue
			}
			name := "init_" + s.ID
			if _, clash := l.vars[name]; clash {
				l.errorf(v, 0, "sensitivity parameter %q would collide with an SBML id", name)
				continue
			}
			cands = append(cands, cand{v: v, name: name, isInit: true})
		}
	}
	chosen := cands
	if opt.Params != nil {
		byName := make(map[string]int, len(cands))
		for i, c := range cands {
			byName[c.name] = i
		}
		chosen = nil
		seen := make(map[string]bool)
		for _, name := range opt.Params {
			i, ok := byName[name]
			switch {
			case seen[name]:
				l.errs.add(l.m.File, 0, "option Params", name, "listed twice")
			case !ok:
				why := "not a constant parameter of the model"
				if v, isVar := l.vars[name]; isVar {
					why = "the " + kindElem[v.kind] + " is not a sensitivity parameter candidate (constant, with a value, and set by no rule or initial assignment)"
				}
				l.errs.add(l.m.File, 0, "option Params", name, "%s", why)
			default:
				chosen = append(chosen, cands[i])
			}
			seen[name] = true
		}
	}
	// Parameters first, so that init_ values (which may involve compartment
	// parameters) evaluate with the defaults.
	l.paramValue = make(map[string]float64)
	var out []symbolic.Param
	for _, c := range chosen {
		sym := l.b.Sym(c.name, symbolic.KindParam)
		if c.isInit {
			c.v.initParam = sym
			continue
		}
		c.v.param = sym
		l.paramValue[c.name] = c.value
	}
	for _, c := range chosen {
		meta := map[string]string{"sbml": kindElem[c.v.kind], "id": c.v.id}
		if c.isInit {
			meta["sbml"] = "initialValue"
			c.value = l.evalDefault(l.declInit(c.v))
			l.paramValue[c.name] = c.value
		}
		out = append(out, symbolic.Param{Name: c.name, Value: c.value, Meta: meta})
	}
	return out
}

// evalDefault evaluates an expression of p (and t = 0) at the default
// parameter values; NaN if it is undefined.
func (l *lowering) evalDefault(n *symbolic.Node) float64 {
	if n == nil {
		return math.NaN()
	}
	return symbolic.Eval(n, func(s *symbolic.Node) float64 {
		if s.Kind == symbolic.KindParam {
			if v, ok := l.paramValue[s.Name]; ok {
				return v
			}
		}
		if s.Kind == symbolic.KindTime {
			return 0
		}
		return math.NaN()
	})
}

// deps returns the variables of the KindOther symbols in n, in a
// deterministic order (symbolic.FreeSymbols sorts by kind and name).
func (l *lowering) deps(n *symbolic.Node) []*variable {
	var out []*variable
	for _, s := range symbolic.FreeSymbols(n) {
		if s.Kind == symbolic.KindOther {
			out = append(out, l.vars[s.Name])
		}
	}
	return out
}

// subst replaces the variables in n by f of them (and t by 0 when atT0).
// It returns nil, recording the reason in l.undef[owner], when a variable
// is undefined.
func (l *lowering) subst(owner *variable, n *symbolic.Node, f func(*variable) *symbolic.Node, atT0 bool) *symbolic.Node {
	repl := make(map[*symbolic.Node]*symbolic.Node)
	for _, d := range l.deps(n) {
		r := f(d)
		if r == nil {
			if _, ok := l.undef[owner]; !ok {
				l.undef[owner] = l.undef[d]
			}
			return nil
		}
		repl[l.b.Sym(d.id, symbolic.KindOther)] = r
	}
	if atT0 {
		repl[l.b.Time()] = l.b.Const(0)
	}
	return l.b.Substitute(n, repl)
}

// enter and leave implement memoised depth-first evaluation with cycle
// detection; enter returns false when v is already on the stack.
func (l *lowering) enter(v *variable, state map[*variable]uint8, what string) bool {
	if state[v] == visiting {
		var ids []string
		start := 0
		for i, s := range l.stack {
			if s == v {
				start = i
			}
		}
		for _, s := range l.stack[start:] {
			ids = append(ids, s.id)
		}
		ids = append(ids, v.id)
		line := v.rule
		if what == "initial values" && v.ia != nil {
			line = 0
			for _, ia := range l.m.InitialAssignments {
				if ia.Symbol == v.id {
					line = ia.Line
				}
			}
		}
		l.errorf(v, line, "cyclic dependency of %s: %s", what, strings.Join(ids, " -> "))
		l.undef[v] = ""
		return false
	}
	state[v] = visiting
	l.stack = append(l.stack, v)
	return true
}

func (l *lowering) leave(v *variable, state map[*variable]uint8, memo map[*variable]*symbolic.Node, r *symbolic.Node) *symbolic.Node {
	l.stack = l.stack[:len(l.stack)-1]
	state[v] = done
	memo[v] = r
	return r
}

// declInit is the initial value in the units of the symbol in math from
// the declaration alone (converting between amount and concentration
// through the compartment's initial size), or nil.
func (l *lowering) declInit(v *variable) *symbolic.Node {
	if v.decl != nil && v.decl.Op == symbolic.OpConst {
		l.nonFiniteUse(kindElem[v.kind], v.id, v.line, v.decl.Val)
	}
	if v.kind != vSpecies {
		if v.decl == nil {
			l.undef[v] = v.id
		}
		return v.decl
	}
	if v.decl != nil {
		return v.decl
	}
	s, b := v.sp, l.b
	l.nonFiniteUse("species", v.id, v.line, s.InitialAmount)
	l.nonFiniteUse("species", v.id, v.line, s.InitialConcentration)
	if !s.HasInitialAmount && !s.HasInitialConcentration {
		l.undef[v] = v.id
		return nil
	}
	size := l.init(v.comp)
	if size == nil {
		l.undef[v] = l.undef[v.comp]
		return nil
	}
	if s.HasInitialAmount { // value in math is a concentration
		return b.Div(b.Const(s.InitialAmount), size)
	}
	return b.Mul(b.Const(s.InitialConcentration), size)
}

// init is the value of v's symbol at t = 0 as an expression of p, or nil.
func (l *lowering) init(v *variable) *symbolic.Node {
	if v.rateOf != nil {
		return l.rateOfInit(v)
	}
	if v.delay != nil {
		return l.delayInit(v)
	}
	if v.alg != nil && !l.algGuess {
		return l.algInit(v)
	}
	if l.initState[v] == done {
		return l.initMemo[v]
	}
	if !l.enter(v, l.initState, "initial values") {
		return nil
	}
	l.usesOf(v)
	var r *symbolic.Node
	switch {
	case v.param != nil:
		r = v.param
	case v.ia != nil:
		r = l.subst(v, v.ia, l.init, true)
	case v.ar != nil:
		r = l.subst(v, v.ar, l.init, true)
	case v.kind == vReaction:
		r = l.subst(v, v.law, l.init, true)
	case v.initParam != nil:
		r = v.initParam
	default:
		r = l.declInit(v)
	}
	return l.leave(v, l.initState, l.initMemo, r)
}

// value is the value of v's symbol in math as an expression of (x, p, t),
// or nil.
func (l *lowering) value(v *variable) *symbolic.Node {
	if v.rateOf != nil {
		return l.rateOfValue(v)
	}
	if v.delay != nil {
		return l.delayValue(v)
	}
	if l.valState[v] == done {
		return l.valMemo[v]
	}
	if !l.enter(v, l.valState, "assignment rules") {
		return nil
	}
	b := l.b
	l.usesOf(v)
	var r *symbolic.Node
	switch {
	case v.isState:
		r = b.Sym(v.id, symbolic.KindState)
		if v.kind == vSpecies && v.stateIsAmount && !v.valueIsAmount {
			if size := l.value(v.comp); size != nil {
				r = b.Div(r, size)
			} else {
				r, l.undef[v] = nil, l.undef[v.comp]
			}
		}
	case v.param != nil:
		r = v.param
	case v.ar != nil:
		r = l.subst(v, v.ar, l.value, false)
	case v.kind == vReaction:
		r = l.subst(v, v.law, l.value, false)
	case v.kind == vSpecies && !v.valueIsAmount && v.compVarying:
		// Nothing changes the amount, so the concentration follows the
		// compartment size.
		c0, x0, c := l.init(v.comp), l.init(v), l.value(v.comp)
		if c0 != nil && x0 != nil && c != nil {
			r = b.Div(b.Mul(x0, c0), c)
		} else if _, ok := l.undef[v]; !ok {
			l.undef[v] = firstUndef(l, v.comp, v)
		}
	default:
		r = l.init(v)
	}
	return l.leave(v, l.valState, l.valMemo, r)
}

// usesOf notes the non-finite values that v's symbol brings along by
// itself: a sensitivity parameter's default, a reaction's local
// parameters. (Declared values are noted in declInit.)
func (l *lowering) usesOf(v *variable) {
	if v.param != nil {
		l.nonFiniteUse(kindElem[v.kind], v.id, v.line, l.paramValue[v.param.Name])
	}
	if v.rx != nil {
		for _, p := range v.rx.nonFinite {
			el := "localParameter"
			if l.m.Level == 2 {
				el = "parameter"
			}
			l.nonFiniteUse(el, p.ID, p.Line, p.Value)
		}
	}
}

// nonFiniteUse reports a declared value that is INF or NaN when the state
// being formed depends on it: SBML allows such values (the test suite has
// parameters INF, -INF and NaN that only appear as outputs), but one that
// reaches the ODE makes integration fail at t = 0, far from its cause.
// The error names the value's own element, id and line.
func (l *lowering) nonFiniteUse(el, id string, line int, val float64) {
	if !l.inStates || l.cur == nil || !(math.IsNaN(val) || math.IsInf(val, 0)) {
		return
	}
	if l.nonFiniteSeen == nil {
		l.nonFiniteSeen = make(map[string]bool)
		l.flagged = make(map[*variable]bool)
	}
	l.flagged[l.cur] = true
	key := el + "\x00" + id
	if l.nonFiniteSeen[key] {
		return
	}
	l.nonFiniteSeen[key] = true
	if l.cur.id == id && kindElem[l.cur.kind] == el {
		l.errs.add(l.m.File, line, el, id, "initial value %s is not finite", sbmlDouble(val))
		return
	}
	l.errs.add(l.m.File, line, el, id, "value %s is not finite, and state %q depends on it", sbmlDouble(val), l.cur.id)
}

// sbmlDouble prints a value in the SBML (xsd:double) spelling.
func sbmlDouble(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "INF"
	case math.IsInf(v, -1):
		return "-INF"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func firstUndef(l *lowering, vs ...*variable) string {
	for _, v := range vs {
		if why, ok := l.undef[v]; ok {
			return why
		}
	}
	return ""
}

// reportUndef reports that what of v could not be formed.
func (l *lowering) reportUndef(v *variable, what string, dep *variable) {
	why, ok := l.undef[dep]
	if !ok || why == "" {
		if ok {
			return // a cycle, already reported
		}
		why = dep.id
	}
	if why == v.id {
		l.errorf(v, 0, "%s: no value given", what)
		return
	}
	l.errorf(v, 0, "%s depends on %q, which has no value", what, why)
}

// states builds the states in order: species, compartments, parameters,
// species references, each in document order.
func (l *lowering) states(ode *symbolic.ODE) {
	b := l.b
	l.inStates = true
	defer func() { l.inStates = false }()
	// Differential states first, then the algebraic variables (the
	// contract of symbolic.ODE.Algebraic).
	defer func() {
		l.fastStates(ode)
		l.algebraicStates(ode)
		l.fastAlgebraic(ode)
	}()
	for _, v := range l.list {
		if !v.isState || v.alg != nil || v.fast {
			continue
		}
		l.cur = v
		st := symbolic.State{Name: v.id, Meta: map[string]string{"sbml": kindElem[v.kind]}}
		init := l.init(v)
		if init == nil {
			l.reportUndef(v, "initial value", v)
			continue
		}
		if v.kind == vSpecies {
			st.Meta["compartment"] = v.comp.id
			st.Meta["units"] = "concentration"
			if v.stateIsAmount {
				st.Meta["units"] = "amount"
			}
			if v.stateIsAmount && !v.valueIsAmount {
				size := l.init(v.comp)
				if size == nil {
					l.reportUndef(v, "initial value", v.comp)
					continue
				}
				init = b.Mul(init, size)
			}
		}
		if a := l.algDependence(init); a != nil {
			l.algInitUse(a, "initial value")
			continue
		}
		if x := l.evalDefault(init); math.IsNaN(x) || math.IsInf(x, 0) {
			if !l.flagged[v] { // else the non-finite value it comes from is reported
				l.errorf(v, 0, "initial value is %v (division by zero or undefined math?)", x)
			}
			continue
		}
		st.Init = init
		if v.rr != nil {
			st.Rate = l.subst(v, v.rr, l.value, false)
			if st.Rate == nil {
				l.reportUndef(v, "rate rule", v)
				continue
			}
		} else if v.kind != vSpecies || !v.reacting {
			st.Rate = b.Const(0) // only events change it (a boundary or unreacting species, a parameter)
		} else {
			st.Rate = l.reactionRate(v)
			if st.Rate == nil {
				continue
			}
		}
		ode.States = append(ode.States, st)
	}
}

// reactionRate is d(state)/dt of a species changed by reactions:
// sum of stoichiometry * rate * conversion factor, divided by the
// compartment size when the state is a concentration.
func (l *lowering) reactionRate(v *variable) *symbolic.Node {
	b := l.b
	var terms []*symbolic.Node
	for _, u := range l.uses[v] {
		rx, sr := u.rx, u.sr
		rv := l.vars[rx.ID]
		st := b.Const(stoich(sr))
		if sr.ID != "" {
			if st = l.value(l.vars[sr.ID]); st == nil {
				l.reportUndef(v, "stoichiometry in reaction "+rx.ID, l.vars[sr.ID])
				return nil
			}
		}
		rate := l.value(rv)
		if rate == nil {
			l.reportUndef(v, "rate of reaction "+rx.ID, rv)
			return nil
		}
		if u.reactant {
			st = b.Neg(st)
		}
		terms = append(terms, b.Mul(st, rate))
	}
	sum := b.Add(terms...)
	cf := v.sp.ConversionFactor
	if cf == "" {
		cf = l.m.ConversionFactor
	}
	if cf != "" {
		f := l.value(l.vars[cf])
		if f == nil {
			l.reportUndef(v, "conversion factor", l.vars[cf])
			return nil
		}
		sum = b.Mul(sum, f)
	}
	if !v.stateIsAmount {
		size := l.value(v.comp)
		if size == nil {
			l.reportUndef(v, "rate", v.comp)
			return nil
		}
		sum = b.Div(sum, size)
	}
	return sum
}

// outputs lists every SBML symbol's value (NaN when undefined), and the
// amount and concentration of every species.
func (l *lowering) outputs(ode *symbolic.ODE) {
	b := l.b
	nan := b.Const(math.NaN())
	val := func(v *variable) *symbolic.Node {
		if r := l.value(v); r != nil {
			return r
		}
		return nan
	}
	for _, v := range l.list {
		l.cur = v
		x := val(v)
		if a := l.algDependence(x); a != nil {
			l.algInitUse(a, "value")
			x = nan
		}
		ode.Outputs = append(ode.Outputs, symbolic.Output{Name: v.id, Expr: x})
		if v.kind != vSpecies {
			continue
		}
		size := val(v.comp)
		amount, conc := x, x
		if v.valueIsAmount {
			conc = b.Div(x, size)
		} else {
			amount = b.Mul(x, size)
		}
		ode.Outputs = append(ode.Outputs,
			symbolic.Output{Name: "amount:" + v.id, Expr: amount},
			symbolic.Output{Name: "conc:" + v.id, Expr: conc})
	}
}

// lowerSteps makes each floor and ceiling in the rates whose argument
// moves during a solve (quotient and rem too: they are read as floor and
// ceil) a state held between events at the integers of its argument
// (symbolic.LowerSteps), so that the solvers locate every jump and carry
// S over it. The states are named floor_<k> and ceil_<k>, with '_'
// appended until the name is no SBML id and no other state's or
// parameter's name, and marked Meta["sbml"] = "step".
func (l *lowering) lowerSteps(ode *symbolic.ODE) {
	taken := make(map[string]bool, len(ode.States)+len(ode.Params))
	for _, s := range ode.States {
		taken[s.Name] = true
	}
	for _, p := range ode.Params {
		taken[p.Name] = true
	}
	first := len(ode.States) - ode.Algebraic
	n := symbolic.LowerSteps(ode, func(kind string, k int) string {
		name := kind + "_" + strconv.Itoa(k)
		for taken[name] || l.vars[name] != nil {
			name += "_"
		}
		taken[name] = true
		return name
	})
	for i := first; i < first+n; i++ {
		ode.States[i].Meta["sbml"] = "step"
	}
}

// checkClosed guards the contract of symbolic.ODE: no KindOther symbol may
// survive lowering.
func (l *lowering) checkClosed(ode *symbolic.ODE) {
	var exprs []*symbolic.Node
	for _, s := range ode.States {
		exprs = append(exprs, s.Rate, s.Init)
	}
	for _, o := range ode.Outputs {
		exprs = append(exprs, o.Expr)
	}
	for _, e := range ode.Events {
		exprs = append(exprs, e.Trigger)
		if e.Delay != nil {
			exprs = append(exprs, e.Delay)
		}
		if e.Priority != nil {
			exprs = append(exprs, e.Priority)
		}
		for _, a := range e.Assign {
			exprs = append(exprs, a.Value)
		}
	}
	seen := make(map[*symbolic.Node]bool)
	var walk func(*symbolic.Node)
	walk = func(n *symbolic.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		if a := l.algDependence(n); a != nil && n.Op == symbolic.OpSym {
			l.algInitUse(a, "event")
			return
		}
		if n.Op == symbolic.OpSym && n.Kind == symbolic.KindOther {
			l.errs.add(l.m.File, l.m.Line, "model", l.m.ID, "internal error: symbol %q left unresolved by lowering", n.Name)
		}
		for _, a := range n.Args {
			walk(a)
		}
	}
	for _, e := range exprs {
		walk(e)
	}
}
