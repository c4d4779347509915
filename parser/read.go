package parser

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pbgen/pbgen/symbolic"
)

// ReadFile reads the SBML document at path; see Read.
func ReadFile(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read parses an SBML document (Level 2 versions 1-5, Level 3 versions 1-2,
// core only) from r. filename is used in error messages and as
// Model.File. The error, if any, is an ErrorList naming every problem
// found, each with its line, element and id.
func Read(r io.Reader, filename string) (*Model, error) {
	rd := &reader{
		file:  filename,
		ids:   make(map[string]idEntry),
		funcs: make(map[string]*funcDef),
	}
	s := newStream(r, filename, &rd.errs)
	s.judge = rd.judge
	m := rd.document(s)
	if err := rd.errs.Err(); err != nil {
		return nil, err
	}
	return m, nil
}

// idEntry records what a global SBML id names.
type idEntry struct {
	kind string // "compartment", "species", "parameter", "speciesReference", "reaction", "functionDefinition"
	line int
}

// funcDef is a function definition during reading.
type funcDef struct {
	fd     *FunctionDefinition
	bvars  []string
	body   *mnode
	bad    bool // errors already reported; calls yield NaN silently
	active bool // being expanded: a call now is recursion
	memo   map[string]*symbolic.Node
}

// pending is math parsed during the first pass, resolved when all ids are
// known.
type pending struct {
	dst    **symbolic.Node
	ast    *mnode
	locals map[string]*symbolic.Node
	el, id string
}

type reader struct {
	file    string
	errs    ErrorList
	m       *Model
	ns      string // SBML namespace of the document
	ids     map[string]idEntry
	funcs   map[string]*funcDef
	pending []pending
	calls   []*mnode // function calls being expanded, outermost first
	rxByID  map[string]*Reaction
	depth   int  // conv recursion depth
	tooDeep bool // the depth error was reported

	optional map[string]bool // namespaces of packages declared required="false" (packages.go)
}

func (r *reader) errorf(line int, el, id, format string, args ...any) {
	r.errs.add(r.file, line, el, id, format, args...)
}

func (r *reader) refuse(line int, el, id, what string) {
	r.errorf(line, el, id, "%s is not supported", what)
}

var sbmlNamespaces = map[string][2]int{
	"http://www.sbml.org/sbml/level2":               {2, 1},
	"http://www.sbml.org/sbml/level2/version2":      {2, 2},
	"http://www.sbml.org/sbml/level2/version3":      {2, 3},
	"http://www.sbml.org/sbml/level2/version4":      {2, 4},
	"http://www.sbml.org/sbml/level2/version5":      {2, 5},
	"http://www.sbml.org/sbml/level3/version1/core": {3, 1},
	"http://www.sbml.org/sbml/level3/version2/core": {3, 2},
}

// pkgName names an SBML package by its namespace URI
// (http://www.sbml.org/sbml/level3/version1/comp/version1 -> "comp").
func pkgName(uri string) string {
	const pre = "http://www.sbml.org/sbml/level3/version"
	if s, ok := strings.CutPrefix(uri, pre); ok {
		parts := strings.Split(s, "/")
		if len(parts) >= 2 && parts[1] != "" {
			return parts[1]
		}
	}
	return uri
}

// harmlessPackage reports whether elements of a package namespace can be
// ignored for simulation: layout and render only describe drawings.
func harmlessPackage(uri string) bool {
	switch pkgName(uri) {
	case "layout", "render":
		return true
	}
	return false
}

// core reports whether e is an SBML core element. Elements of harmless
// packages are silently ignored; those of any other package are refused.
func (r *reader) core(e *elem) bool {
	if e.space == r.ns {
		return true
	}
	if r.ignorable(e.space) {
		return false
	}
	id, _ := e.attr("id")
	if e.space == "" || e.space == mathNS {
		r.errorf(e.line, e.local, id, "element is not in the SBML namespace")
		return false
	}
	r.refuse(e.line, pkgName(e.space)+":"+e.local, id, "SBML package "+strconv.Quote(pkgName(e.space)))
	return false
}

// document reads the <sbml> element and its <model> from the stream.
func (r *reader) document(s *xmlStream) *Model {
	root := s.root()
	if root == nil {
		return nil
	}
	if root.local != "sbml" {
		r.errorf(root.line, root.local, "", "root element is not <sbml>")
		return nil
	}
	lv, ok := sbmlNamespaces[root.space]
	lvs, _ := root.attr("level")
	vs, _ := root.attr("version")
	level, err1 := strconv.Atoi(strings.TrimSpace(lvs))
	version, err2 := strconv.Atoi(strings.TrimSpace(vs))
	switch {
	case err1 == nil && level == 1:
		r.refuse(root.line, "sbml", "", "SBML Level 1")
		return nil
	case !ok:
		r.errorf(root.line, "sbml", "", "unknown SBML namespace %q", root.space)
		return nil
	case err1 != nil || err2 != nil || level != lv[0] || version != lv[1]:
		r.errorf(root.line, "sbml", "", "level %q version %q do not match namespace %q", lvs, vs, root.space)
		return nil
	}
	r.ns = root.space
	if usesComp(root) {
		return r.compDocument(s, root, level, version) // comp.go
	}
	for _, a := range root.attrs {
		if a.Name.Local == "required" && a.Name.Space != "" && strings.TrimSpace(a.Value) == "true" {
			r.refuse(root.line, "sbml", "", "required SBML package "+strconv.Quote(pkgName(a.Name.Space)))
		}
	}
	r.noteOptional(root)
	var m *Model
	for k := s.next(); k != nil; k = s.next() {
		switch {
		case !r.core(k):
		case k.local != "model":
			r.errorf(k.line, k.local, "", "unexpected element in <sbml>")
		case m != nil:
			r.errorf(k.line, "model", "", "more than one <model>")
		default:
			m = &Model{File: r.file, Level: level, Version: version, Line: k.line, B: symbolic.NewBuilder()}
			r.m = m
			m.ID, _ = k.attr("id")
			m.Name, _ = k.attr("name")
			if cf, ok := k.attr("conversionFactor"); ok {
				m.ConversionFactor = strings.TrimSpace(cf)
			}
			r.model(s)
			continue
		}
		s.skip()
	}
	s.finish()
	if s.bad {
		return nil
	}
	if m == nil {
		if !s.stop {
			r.errorf(root.line, "sbml", "", "no <model>")
		}
		return nil
	}
	if len(r.errs) > 0 {
		return m
	}
	r.resolve()
	r.validate()
	return m
}

// model reads the lists of the model in any order, one component at a
// time from the stream.
func (r *reader) model(s *xmlStream) {
	m := r.m
	for l := s.next(); l != nil; l = s.next() {
		if !r.core(l) {
			s.skip()
			continue
		}
		switch l.local {
		case "listOfUnitDefinitions", "listOfCompartmentTypes", "listOfSpeciesTypes", "listOfConstraints":
			// Units are not converted (SBML does not ask simulators to);
			// types and constraints do not change the dynamics.
			s.skip()
		case "listOfFunctionDefinitions":
			r.list(s, l, "functionDefinition", r.functionDefinition)
		case "listOfCompartments":
			r.list(s, l, "compartment", r.compartment)
		case "listOfSpecies":
			r.list(s, l, "species", r.species)
		case "listOfParameters":
			r.list(s, l, "parameter", func(e *elem) {
				if p := r.parameter(e, true); p != nil {
					m.Parameters = append(m.Parameters, p)
				}
			})
		case "listOfInitialAssignments":
			r.list(s, l, "initialAssignment", r.initialAssignment)
		case "listOfRules":
			r.list(s, l, "", r.rule)
		case "listOfReactions":
			r.list(s, l, "reaction", r.reaction)
		case "listOfEvents":
			r.list(s, l, "event", r.event)
		default:
			r.errorf(l.line, l.local, "", "unknown element in <model>")
			s.skip()
		}
	}
}

// list reads the children of the list l from the stream, each whole, and
// applies f to each core child named want (any name if want is "").
func (r *reader) list(s *xmlStream, l *elem, want string, f func(*elem)) {
	for e := s.next(); e != nil; e = s.next() {
		if !r.core(e) {
			s.skip()
			continue
		}
		if want != "" && e.local != want {
			id, _ := e.attr("id")
			r.errorf(e.line, e.local, id, "unexpected element in <%s>", l.local)
			s.skip()
			continue
		}
		if !s.tree(e) {
			return
		}
		f(e)
	}
}

// sbmlKids lists the SBML children of the elements read whole that may
// be valid; listItems the one child name of the lists inside them.
// Elements not listed accept anything.
var (
	sbmlKids = map[string][]string{
		"functionDefinition": nil, "compartment": nil, "species": nil, "parameter": nil, "localParameter": nil,
		"initialAssignment": nil, "assignmentRule": nil, "rateRule": nil, "algebraicRule": nil,
		"reaction":         {"listOfReactants", "listOfProducts", "listOfModifiers", "kineticLaw"},
		"speciesReference": {"stoichiometryMath"}, "modifierSpeciesReference": nil,
		"kineticLaw":        {"listOfParameters", "listOfLocalParameters"},
		"stoichiometryMath": nil,
		"event":             {"trigger", "delay", "priority", "listOfEventAssignments"},
		"trigger":           nil, "delay": nil, "priority": nil, "eventAssignment": nil,
	}
	listItems = map[string]string{
		"listOfReactants": "speciesReference", "listOfProducts": "speciesReference",
		"listOfModifiers": "modifierSpeciesReference", "listOfParameters": "parameter",
		"listOfLocalParameters": "localParameter", "listOfEventAssignments": "eventAssignment",
	}
	takesMath = map[string]bool{
		"functionDefinition": true, "initialAssignment": true, "assignmentRule": true, "rateRule": true,
		"algebraicRule": true, "kineticLaw": true, "stoichiometryMath": true,
		"trigger": true, "delay": true, "priority": true, "eventAssignment": true,
	}
	mathSyntax = map[string]bool{
		"cn": true, "ci": true, "csymbol": true, "apply": true, "piecewise": true, "piece": true,
		"otherwise": true, "lambda": true, "bvar": true, "degree": true, "logbase": true,
		"semantics": true, "sep": true, "math": true,
	}
)

// judge tells the stream which children of an element read whole cannot
// be valid there, so that a flood of them is not built (see kidVerdict):
// SBML elements not allowed in their parent, foreign elements in SBML or
// MathML content, and unknown MathML elements. Elements of ignored
// packages are dropped unread.
func (r *reader) judge(p, k *elem) kidVerdict {
	if k.space != r.ns && k.space != mathNS && r.ignorable(k.space) {
		return kidDrop
	}
	if p.space == mathNS {
		_, op := mathOps[k.local]
		_, fn := unaryFuncs[k.local]
		_, cst := mathConsts[k.local]
		if k.space != mathNS || !(op || fn || cst || mathSyntax[k.local]) {
			return kidBad
		}
		return kidKeep
	}
	if p.space != r.ns {
		return kidKeep
	}
	_, component := sbmlKids[p.local]
	if component {
		// Each child a component takes (its math, its lists) comes once.
		for _, q := range p.kids {
			if q.local == k.local && q.space == k.space {
				return kidBad
			}
		}
	}
	if k.space == mathNS && k.local == "math" {
		if component && !takesMath[p.local] {
			return kidBad
		}
		return kidKeep
	}
	if k.space != r.ns {
		return kidBad
	}
	if item, ok := listItems[p.local]; ok {
		if k.local != item {
			return kidBad
		}
		return kidKeep
	}
	if allowed, ok := sbmlKids[p.local]; ok && !contains(allowed, k.local) {
		return kidBad
	}
	return kidKeep
}

// kidsOf applies f to each core child of l (an element read whole), which
// must be named want.
func (r *reader) kidsOf(l *elem, want string, f func(*elem)) {
	for _, e := range l.kids {
		if !r.core(e) {
			continue
		}
		if e.local != want {
			id, _ := e.attr("id")
			r.errorf(e.line, e.local, id, "unexpected element in <%s>", l.local)
			continue
		}
		f(e)
	}
}

func validSId(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return true
}

// id reads and checks the id attribute of e; required ids must be present.
func (r *reader) id(e *elem, required bool) (string, bool) {
	id, ok := e.attr("id")
	id = strings.TrimSpace(id)
	if !ok {
		if required {
			r.errorf(e.line, e.local, "", "missing id")
			return "", false
		}
		return "", true
	}
	if !validSId(id) {
		r.errorf(e.line, e.local, id, "invalid id")
		return "", false
	}
	return id, true
}

// declare enters a global id.
func (r *reader) declare(id, kind string, line int) bool {
	if prev, ok := r.ids[id]; ok {
		r.errorf(line, kind, id, "duplicate id (already used by the %s on line %d)", prev.kind, prev.line)
		return false
	}
	r.ids[id] = idEntry{kind: kind, line: line}
	return true
}

// boolAttr parses an optional boolean attribute.
func (r *reader) boolAttr(e *elem, id, name string, def bool) bool {
	s, ok := e.attr(name)
	if !ok {
		return def
	}
	switch strings.TrimSpace(s) {
	case "true", "1":
		return true
	case "false", "0":
		return false
	}
	r.errorf(e.line, e.local, id, "attribute %s=%q is not a boolean", name, s)
	return def
}

// floatAttr parses an optional number attribute: an XML Schema double
// (ParseDouble), so INF, -INF and NaN are allowed spellings and a literal
// that overflows float64 is an error.
func (r *reader) floatAttr(e *elem, id, name string) (float64, bool) {
	s, ok := e.attr(name)
	if !ok {
		return 0, false
	}
	v, err := ParseDouble(s)
	if err != nil {
		r.errorf(e.line, e.local, id, "attribute %s: %v", name, err)
		return 0, false
	}
	return v, true
}

// idRef reads an attribute naming another SBML id.
func (r *reader) idRef(e *elem, id, name string) string {
	s, ok := e.attr(name)
	if !ok {
		return ""
	}
	s = strings.TrimSpace(s)
	if !validSId(s) {
		r.errorf(e.line, e.local, id, "attribute %s=%q is not a valid id", name, s)
		return ""
	}
	return s
}

// mathOf finds the <math> child of e (nil if none).
func (r *reader) mathOf(e *elem) *elem {
	var found *elem
	for _, k := range e.kids {
		if k.local == "math" {
			found = k
		}
	}
	return found
}

// queue parses the math child of e and schedules its resolution into dst.
func (r *reader) queue(e *elem, dst **symbolic.Node, locals map[string]*symbolic.Node, el, id string) {
	me := r.mathOf(e)
	if me == nil {
		return
	}
	p := &mathParser{file: r.file, errs: &r.errs, el: el, id: id}
	ast := p.parseMath(me)
	if ast != nil {
		r.pending = append(r.pending, pending{dst: dst, ast: ast, locals: locals, el: el, id: id})
	}
}

// checkKids reports core children of e not in allowed.
func (r *reader) checkKids(e *elem, id string, allowed ...string) {
	seen := make(map[string]int, len(e.kids))
	for _, k := range e.kids {
		if k.space == mathNS && k.local == "math" {
			if !contains(allowed, "math") {
				r.errorf(k.line, e.local, id, "unexpected <math>")
			} else if prev, dup := seen["math"]; dup {
				r.errorf(k.line, e.local, id, "more than one <math> (first on line %d)", prev)
			}
			seen["math"] = k.line
			continue
		}
		if !r.core(k) {
			continue
		}
		if prev, dup := seen[k.local]; dup && contains(allowed, k.local) {
			r.errorf(k.line, e.local, id, "more than one <%s> (first on line %d)", k.local, prev)
		}
		seen[k.local] = k.line
		if !contains(allowed, k.local) {
			r.errorf(k.line, e.local, id, "unexpected element <%s>", k.local)
		}
	}
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func (r *reader) functionDefinition(e *elem) {
	id, ok := r.id(e, true)
	if !ok || !r.declare(id, "functionDefinition", e.line) {
		return
	}
	r.checkKids(e, id, "math")
	fd := &FunctionDefinition{ID: id, Line: e.line}
	f := &funcDef{fd: fd, memo: make(map[string]*symbolic.Node)}
	if me := r.mathOf(e); me != nil {
		p := &mathParser{file: r.file, errs: &r.errs, el: "functionDefinition", id: id}
		bvars, body, ok := p.parseLambda(me)
		f.bvars, f.body, f.bad = bvars, body, !ok
		fd.Args = bvars
	}
	r.funcs[id] = f
	r.m.FunctionDefinitions = append(r.m.FunctionDefinitions, fd)
}

func (r *reader) compartment(e *elem) {
	id, ok := r.id(e, true)
	if !ok || !r.declare(id, "compartment", e.line) {
		return
	}
	r.checkKids(e, id)
	c := &Compartment{ID: id, Line: e.line, SpatialDimensions: 3, Constant: true}
	c.Name, _ = e.attr("name")
	if v, ok := r.floatAttr(e, id, "spatialDimensions"); ok {
		c.SpatialDimensions = v
	}
	c.Size, c.HasSize = r.floatAttr(e, id, "size")
	if !c.HasSize && r.m.Level == 2 && c.SpatialDimensions != 0 {
		// L2 leaves an unset size undefined; we read it like L1's volume default.
		c.Size, c.HasSize = 1, true
	}
	if c.HasSize && (math.IsNaN(c.Size) || math.IsInf(c.Size, 0)) {
		r.errorf(e.line, "compartment", id, "size %v is not finite", c.Size)
	}
	c.Constant = r.boolAttr(e, id, "constant", true)
	r.m.Compartments = append(r.m.Compartments, c)
}

func (r *reader) species(e *elem) {
	id, ok := r.id(e, true)
	if !ok || !r.declare(id, "species", e.line) {
		return
	}
	r.checkKids(e, id)
	s := &Species{ID: id, Line: e.line}
	s.Name, _ = e.attr("name")
	s.Compartment = r.idRef(e, id, "compartment")
	if s.Compartment == "" {
		r.errorf(e.line, "species", id, "missing compartment")
	}
	s.InitialAmount, s.HasInitialAmount = r.floatAttr(e, id, "initialAmount")
	s.InitialConcentration, s.HasInitialConcentration = r.floatAttr(e, id, "initialConcentration")
	if s.HasInitialAmount && s.HasInitialConcentration {
		r.errorf(e.line, "species", id, "both initialAmount and initialConcentration are set")
	}
	s.HasOnlySubstanceUnits = r.boolAttr(e, id, "hasOnlySubstanceUnits", false)
	s.BoundaryCondition = r.boolAttr(e, id, "boundaryCondition", false)
	s.Constant = r.boolAttr(e, id, "constant", false)
	s.ConversionFactor = r.idRef(e, id, "conversionFactor")
	r.m.Species = append(r.m.Species, s)
}

// parameter reads a global or local parameter; global ones enter the id
// table.
func (r *reader) parameter(e *elem, global bool) *Parameter {
	id, ok := r.id(e, true)
	if !ok || global && !r.declare(id, "parameter", e.line) {
		return nil
	}
	r.checkKids(e, id)
	p := &Parameter{ID: id, Line: e.line}
	p.Name, _ = e.attr("name")
	p.Value, p.HasValue = r.floatAttr(e, id, "value")
	p.Constant = r.boolAttr(e, id, "constant", true)
	return p
}

func (r *reader) initialAssignment(e *elem) {
	sym := r.idRef(e, "", "symbol")
	if sym == "" {
		r.errorf(e.line, "initialAssignment", "", "missing symbol")
		return
	}
	r.checkKids(e, sym, "math")
	ia := &InitialAssignment{Symbol: sym, Line: e.line}
	r.queue(e, &ia.Math, nil, "initialAssignment", sym)
	r.m.InitialAssignments = append(r.m.InitialAssignments, ia)
}

func (r *reader) rule(e *elem) {
	var kind RuleKind
	switch e.local {
	case "assignmentRule":
		kind = AssignmentRule
	case "rateRule":
		kind = RateRule
	case "algebraicRule":
		r.checkKids(e, "", "math")
		ar := &AlgebraicRule{Line: e.line}
		r.queue(e, &ar.Math, nil, e.local, "")
		r.m.AlgebraicRules = append(r.m.AlgebraicRules, ar)
		return
	default:
		r.errorf(e.line, e.local, "", "unexpected element in <listOfRules>")
		return
	}
	v := r.idRef(e, "", "variable")
	if v == "" {
		r.errorf(e.line, e.local, "", "missing variable")
		return
	}
	r.checkKids(e, v, "math")
	ru := &Rule{Kind: kind, Variable: v, Line: e.line}
	r.queue(e, &ru.Math, nil, e.local, v)
	r.m.Rules = append(r.m.Rules, ru)
}

func (r *reader) reaction(e *elem) {
	id, ok := r.id(e, true)
	if !ok || !r.declare(id, "reaction", e.line) {
		return
	}
	rx := &Reaction{ID: id, Line: e.line}
	rx.Name, _ = e.attr("name")
	rx.Reversible = r.boolAttr(e, id, "reversible", true)
	rx.Fast = r.boolAttr(e, id, "fast", false)
	r.checkKids(e, id, "listOfReactants", "listOfProducts", "listOfModifiers", "kineticLaw")
	for _, l := range e.kids {
		if l.space != r.ns {
			continue
		}
		switch l.local {
		case "listOfReactants":
			r.kidsOf(l, "speciesReference", func(s *elem) { rx.Reactants = append(rx.Reactants, r.speciesRef(s)) })
		case "listOfProducts":
			r.kidsOf(l, "speciesReference", func(s *elem) { rx.Products = append(rx.Products, r.speciesRef(s)) })
		case "listOfModifiers":
			r.kidsOf(l, "modifierSpeciesReference", func(s *elem) {
				r.checkKids(s, "")
				sp := r.idRef(s, "", "species")
				if sp == "" {
					r.errorf(s.line, "modifierSpeciesReference", "", "missing species")
				}
				rx.Modifiers = append(rx.Modifiers, sp)
			})
		case "kineticLaw":
			r.kineticLaw(l, rx)
		}
	}
	r.stoichiometryMath(e, rx)
	r.m.Reactions = append(r.m.Reactions, rx)
	if r.rxByID == nil {
		r.rxByID = make(map[string]*Reaction)
	}
	r.rxByID[rx.ID] = rx
}

func (r *reader) speciesRef(e *elem) *SpeciesReference {
	id, _ := r.id(e, false)
	sr := &SpeciesReference{ID: id, Line: e.line, Constant: true}
	if id != "" {
		r.declare(id, "speciesReference", e.line)
	}
	r.checkKids(e, id, "stoichiometryMath")
	sr.Species = r.idRef(e, id, "species")
	if sr.Species == "" {
		r.errorf(e.line, "speciesReference", id, "missing species")
	}
	sr.Stoichiometry, sr.HasStoichiometry = r.floatAttr(e, id, "stoichiometry")
	if !sr.HasStoichiometry && r.m.Level == 2 {
		sr.Stoichiometry, sr.HasStoichiometry = 1, true
	}
	if sr.HasStoichiometry && (math.IsNaN(sr.Stoichiometry) || math.IsInf(sr.Stoichiometry, 0)) {
		r.errorf(e.line, "speciesReference", id, "stoichiometry %v is not finite", sr.Stoichiometry)
	}
	if d, ok := r.floatAttr(e, id, "denominator"); ok { // L2v1
		sr.Stoichiometry /= d
	}
	sr.Constant = r.boolAttr(e, id, "constant", true)
	return sr
}

func (r *reader) kineticLaw(e *elem, rx *Reaction) {
	rx.RateLine = e.line
	r.checkKids(e, rx.ID, "math", "listOfParameters", "listOfLocalParameters")
	locals := make(map[string]*symbolic.Node)
	for _, l := range e.kids {
		if l.space != r.ns {
			continue
		}
		want := ""
		switch l.local {
		case "listOfParameters":
			want = "parameter"
		case "listOfLocalParameters":
			want = "localParameter"
		default:
			continue
		}
		r.kidsOf(l, want, func(pe *elem) {
			p := r.parameter(pe, false)
			if p == nil {
				return
			}
			if _, dup := locals[p.ID]; dup {
				r.errorf(pe.line, want, p.ID, "duplicate local parameter in reaction %q", rx.ID)
				return
			}
			if !p.HasValue {
				r.errorf(pe.line, want, p.ID, "local parameter has no value")
				p.Value = math.NaN()
			}
			locals[p.ID] = r.m.B.Const(p.Value)
			rx.LocalParams = append(rx.LocalParams, p)
		})
	}
	r.queue(e, &rx.Rate, locals, "reaction", rx.ID)
}

// scope resolves names while converting MathML: bound variables of the
// function being expanded, else reaction-local parameters, else global
// ids (as KindOther symbols).
type scope struct {
	bvars  map[string]*symbolic.Node
	locals map[string]*symbolic.Node
	el, id string
}

// resolve converts all queued math: function calls expanded, names
// checked. Function definitions whose expansion would be too large are
// refused first (checkExpansions); the conversion itself may create at
// most MaxExprSize of expressions, and past that stops with an error at
// the outermost function call being expanded.
func (r *reader) resolve() {
	r.checkExpansions()
	var line int
	var el, id string
	err := r.m.B.Bounded(MaxExprSize, func() {
		// Check function bodies first so that their errors are reported
		// once, against the definition.
		for _, fd := range r.m.FunctionDefinitions {
			f := r.funcs[fd.ID]
			if f.bad || f.body == nil {
				continue
			}
			line, el, id = fd.Line, "functionDefinition", fd.ID
			before := len(r.errs)
			bv := make(map[string]*symbolic.Node, len(f.bvars))
			for _, v := range f.bvars {
				bv[v] = r.m.B.Sym(v, symbolic.KindOther)
			}
			f.active = true
			r.conv(f.body, &scope{bvars: bv, el: "functionDefinition", id: fd.ID})
			f.active = false
			f.bad = len(r.errs) > before
		}
		for _, p := range r.pending {
			line, el, id = p.ast.line, p.el, p.id
			*p.dst = r.conv(p.ast, &scope{locals: p.locals, el: p.el, id: p.id})
		}
	})
	if err != nil {
		what := ""
		if len(r.calls) > 0 {
			line = r.calls[0].line
			what = fmt.Sprintf(" (expanding the call of function %q)", r.calls[0].name)
		}
		r.errorf(line, el, id, "expressions larger than the limit of %d nodes and arguments%s", MaxExprSize, what)
		for _, p := range r.pending {
			if *p.dst == nil { // not reached: keep validate from calling it missing
				*p.dst = r.nan()
			}
		}
	}
}

// nonFiniteLocal records that the rate of reaction rxID uses the local
// parameter id, whose value is INF or NaN: lowering reports it if a state
// depends on the rate.
func (r *reader) nonFiniteLocal(rxID, id string) {
	rx := r.rxByID[rxID]
	if rx == nil {
		return
	}
	for _, p := range rx.LocalParams {
		if p.ID == id && !slices.Contains(rx.nonFinite, p) {
			rx.nonFinite = append(rx.nonFinite, p)
		}
	}
}

func (r *reader) nan() *symbolic.Node { return r.m.B.Const(math.NaN()) }

// conv converts a MathML node to a symbolic expression. After an error it
// returns NaN (the model is discarded anyway).
func (r *reader) conv(n *mnode, sc *scope) *symbolic.Node {
	// Expanded function bodies nest inside their calls, so a chain of
	// definitions each calling the next recurses as deep as the chain is
	// long; no valid model comes near symbolic.MaxDepth (Build refuses
	// expressions higher than that anyway).
	if r.depth >= symbolic.MaxDepth {
		if !r.tooDeep {
			r.tooDeep = true
			r.errorf(n.line, sc.el, sc.id, "math nested deeper than %d levels (counting expanded function bodies)", symbolic.MaxDepth)
		}
		return r.nan()
	}
	r.depth++
	defer func() { r.depth-- }()
	b := r.m.B
	switch n.kind {
	case mNum:
		return b.Const(n.val)
	case mTime:
		return b.Time()
	case mAvogadro:
		return b.Const(avogadroL3)
	case mIdent:
		if v, ok := sc.bvars[n.name]; ok {
			return v
		}
		if sc.bvars == nil {
			if v, ok := sc.locals[n.name]; ok {
				if math.IsNaN(v.Val) || math.IsInf(v.Val, 0) {
					r.nonFiniteLocal(sc.id, n.name)
				}
				return v
			}
		}
		e, ok := r.ids[n.name]
		switch {
		case !ok:
			r.errorf(n.line, sc.el, sc.id, "unknown identifier %q", n.name)
			return r.nan()
		case e.kind == "functionDefinition":
			r.errorf(n.line, sc.el, sc.id, "function %q used as a value", n.name)
			return r.nan()
		case e.kind == "event":
			r.errorf(n.line, sc.el, sc.id, "event %q used as a value", n.name)
			return r.nan()
		}
		return b.Sym(n.name, symbolic.KindOther)
	case mPiecewise:
		args := make([]*symbolic.Node, 0, len(n.args)+1)
		for _, a := range n.args {
			args = append(args, r.conv(a, sc))
		}
		if n.other != nil {
			args = append(args, r.conv(n.other, sc))
		} else {
			args = append(args, r.nan())
		}
		return b.Piecewise(args...)
	case mCall:
		return r.call(n, sc)
	case mRateOf:
		return r.rateOf(n, sc)
	case mDelay:
		return r.delay(n, sc)
	}
	args := make([]*symbolic.Node, len(n.args))
	for i, a := range n.args {
		args[i] = r.conv(a, sc)
	}
	if op, ok := unaryFuncs[n.op]; ok {
		return b.Func(op, args[0])
	}
	switch n.op {
	case "plus":
		return b.Add(args...)
	case "times":
		return b.Mul(args...)
	case "minus":
		if len(args) == 1 {
			return b.Neg(args[0])
		}
		return b.Sub(args[0], args[1])
	case "divide":
		return b.Div(args[0], args[1])
	case "power":
		return b.Pow(args[0], args[1])
	case "root":
		deg := b.Const(2)
		if n.qual != nil {
			deg = r.conv(n.qual, sc)
		}
		return b.Root(deg, args[0])
	case "log":
		base := b.Const(10)
		if n.qual != nil {
			base = r.conv(n.qual, sc)
		}
		return b.Log(base, args[0])
	case "eq", "lt", "gt", "leq", "geq", "neq":
		op := map[string]symbolic.Op{"eq": symbolic.OpEq, "neq": symbolic.OpNeq, "lt": symbolic.OpLt,
			"gt": symbolic.OpGt, "leq": symbolic.OpLeq, "geq": symbolic.OpGeq}[n.op]
		if len(args) == 1 {
			return b.Const(1)
		}
		rels := make([]*symbolic.Node, len(args)-1)
		for i := range rels {
			rels[i] = b.Rel(op, args[i], args[i+1])
		}
		if len(rels) == 1 {
			return rels[0]
		}
		return b.Logic(symbolic.OpAnd, rels...)
	case "and", "or", "xor":
		op := map[string]symbolic.Op{"and": symbolic.OpAnd, "or": symbolic.OpOr, "xor": symbolic.OpXor}[n.op]
		switch len(args) {
		case 0:
			if op == symbolic.OpAnd {
				return b.Const(1)
			}
			return b.Const(0)
		case 1:
			// The truth value of the argument itself (non-zero = true).
			return b.Rel(symbolic.OpNeq, args[0], b.Const(0))
		}
		return b.Logic(op, args...)
	case "not":
		return b.Logic(symbolic.OpNot, args[0])
	case "implies":
		return b.Logic(symbolic.OpOr, b.Logic(symbolic.OpNot, args[0]), args[1])
	case "max", "min":
		rel := symbolic.OpGeq
		if n.op == "min" {
			rel = symbolic.OpLeq
		}
		acc := args[0]
		for _, a := range args[1:] {
			acc = b.Piecewise(acc, b.Rel(rel, acc, a), a)
		}
		return acc
	case "quotient":
		return trunc(b, b.Div(args[0], args[1]))
	case "rem":
		return b.Sub(args[0], b.Mul(args[1], trunc(b, b.Div(args[0], args[1]))))
	}
	panic(fmt.Sprintf("parser: unhandled MathML operator %q", n.op))
}

// trunc rounds toward zero: MathML quotient is the integer part of the
// quotient, and rem has the sign of the dividend (as C's % and fmod).
func trunc(b *symbolic.Builder, x *symbolic.Node) *symbolic.Node {
	return b.Piecewise(b.Func(symbolic.OpFloor, x), b.Rel(symbolic.OpGeq, x, b.Const(0)), b.Func(symbolic.OpCeil, x))
}

// call expands a call of a function definition. Expansions are memoised on
// the (interned) arguments, so nested calls stay linear in size.
func (r *reader) call(n *mnode, sc *scope) *symbolic.Node {
	f, ok := r.funcs[n.name]
	if !ok {
		if e, isID := r.ids[n.name]; isID {
			r.errorf(n.line, sc.el, sc.id, "%s %q called as a function", e.kind, n.name)
		} else {
			r.errorf(n.line, sc.el, sc.id, "undefined function %q", n.name)
		}
		return r.nan()
	}
	if len(n.args) != len(f.bvars) {
		r.errorf(n.line, sc.el, sc.id, "function %q takes %d arguments, got %d", n.name, len(f.bvars), len(n.args))
		return r.nan()
	}
	if f.body == nil && !f.bad {
		r.errorf(n.line, sc.el, sc.id, "function %q has no math", n.name)
		return r.nan()
	}
	if f.active {
		r.errorf(n.line, sc.el, sc.id, "recursive call of function %q", n.name)
		return r.nan()
	}
	args := make([]*symbolic.Node, len(n.args))
	var key strings.Builder
	key.Grow(8 * len(args))
	for i, a := range n.args {
		args[i] = r.conv(a, sc)
		fmt.Fprintf(&key, "%d,", args[i].ID())
	}
	if f.bad {
		return r.nan()
	}
	if v, ok := f.memo[key.String()]; ok {
		return v
	}
	bv := make(map[string]*symbolic.Node, len(args))
	for i, name := range f.bvars {
		bv[name] = args[i]
	}
	f.active = true
	r.calls = append(r.calls, n)
	v := r.conv(f.body, &scope{bvars: bv, el: sc.el, id: sc.id})
	r.calls = r.calls[:len(r.calls)-1]
	f.active = false
	f.memo[key.String()] = v
	return v
}
