package tables

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// State is a dynamic variable of the network (a row of State.tsv).
type State struct {
	ID   string
	Init float64 // initial value (a concentration)
}

// Param is a sensitivity parameter (a row of Parameter.tsv).
type Param struct {
	ID      string
	Default float64
}

// Constant is a named number that is not a sensitivity parameter (a row of
// Constant.tsv).
type Constant struct {
	ID    string
	Value float64
}

// Expression is a named formula (a row of Expression.tsv).
type Expression struct {
	ID      string
	Formula string // the source text
	Expr    *Expr
	// Species reports that the expression is the concentration of a species
	// eliminated through a conservation law (see the package documentation
	// for the rule), rather than a derived rate constant or observable.
	Species bool
}

// Term is one entry of a reaction's stoichiometry column.
type Term struct {
	State int     // index into Network.States
	Coef  float64 // N[State][reaction]; never zero
}

// Reaction is a row of Reaction.tsv.
type Reaction struct {
	ID    string
	Flux  string // the source text
	Expr  *Expr
	Stoch []Term // in the order listed
}

// Network is a reaction network read from tables. Its ODE is
//
//	dx_i/dt = sum over reactions r of N[i][r] * flux_r(x, p, t).
//
// A Network is read-only after Load and safe for concurrent use.
type Network struct {
	Name        string // the base name of the folder
	States      []State
	Params      []Param
	Constants   []Constant
	Expressions []Expression
	Reactions   []Reaction

	nslots  int       // states, params, constants, t, expressions
	scratch sync.Pool // *[]float64 of length nslots
	byName  map[string]int
}

// Slot layout of the value vector used by the evaluator.
func (n *Network) constBase() int { return len(n.States) + len(n.Params) }
func (n *Network) timeSlot() int  { return n.constBase() + len(n.Constants) }
func (n *Network) exprBase() int  { return n.timeSlot() + 1 }

// Table file names inside a network folder. State, Parameter and Reaction
// are required; Constant and Expression may be absent (no rows).
const (
	StateFile      = "State.tsv"
	ParameterFile  = "Parameter.tsv"
	ConstantFile   = "Constant.tsv"
	ExpressionFile = "Expression.tsv"
	ReactionFile   = "Reaction.tsv"
)

// row is one non-blank data line of a table.
type row struct {
	file string
	line int
	cols []string
}

func (r row) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", r.file, r.line, fmt.Sprintf(format, args...))
}

// readTable reads a tab-separated table, checks its header against want
// (case-insensitive) and returns the data rows, each with exactly len(want)
// columns. Blank lines are skipped; a trailing \r is removed.
func readTable(path string, want []string, optional bool) ([]row, error) {
	f, err := os.Open(path)
	if err != nil {
		if optional && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("tables: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	var rows []row
	header := false
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		cols := strings.Split(text, "\t")
		for i := range cols {
			cols[i] = strings.TrimSpace(cols[i])
		}
		r := row{file: path, line: line, cols: cols}
		if !header {
			header = true
			if err := r.checkHeader(want); err != nil {
				return nil, err
			}
			continue
		}
		if len(cols) != len(want) {
			return nil, r.errorf("%d columns, want %d", len(cols), len(want))
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("tables: %s: %v", path, err)
	}
	if !header {
		return nil, fmt.Errorf("%s:1: empty table, want a header (%s)", path, strings.Join(want, "\t"))
	}
	return rows, nil
}

// checkHeader checks that r, a header, has the columns want, ignoring
// case.
func (r row) checkHeader(want []string) error {
	if len(r.cols) != len(want) {
		return r.errorf("header has %d columns, want %d (%s)", len(r.cols), len(want), strings.Join(want, ", "))
	}
	for i, w := range want {
		if !strings.EqualFold(r.cols[i], w) {
			return r.errorf("header column %d is %q, want %q", i+1, r.cols[i], w)
		}
	}
	return nil
}

func parseNumber(r row, col int) (float64, error) {
	v, err := strconv.ParseFloat(r.cols[col], 64)
	if err != nil {
		return 0, r.errorf("bad number %q", r.cols[col])
	}
	return v, nil
}

// indexed sorts rows of an indexed table (first column "index") by index
// and checks that the indices are exactly 1..len(rows).
func indexed(rows []row) ([]row, error) {
	idx := make([]int, len(rows))
	seen := make(map[int]row, len(rows))
	for i, r := range rows {
		k, err := strconv.Atoi(r.cols[0])
		if err != nil {
			return nil, r.errorf("bad index %q", r.cols[0])
		}
		if k < 1 || k > len(rows) {
			return nil, r.errorf("index %d out of range 1..%d", k, len(rows))
		}
		if prev, ok := seen[k]; ok {
			return nil, r.errorf("index %d already used on line %d", k, prev.line)
		}
		seen[k] = r
		idx[i] = k
	}
	out := make([]row, len(rows))
	for i, r := range rows {
		out[idx[i]-1] = r
	}
	return out, nil
}

// Load reads the tables of a network folder (see the package documentation
// for the format) and resolves every name. Errors name the file and line.
func Load(dir string) (*Network, error) {
	l := &loader{
		dir:      dir,
		n:        &Network{Name: filepath.Base(filepath.Clean(dir)), byName: make(map[string]int)},
		declared: make(map[string]row),
	}
	// In this order: each table may use only the names declared before it
	// (and expressions only earlier expressions).
	for _, step := range []func() error{l.states, l.params, l.constants, l.expressions, l.reactions} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	n := l.n
	n.markSpecies()
	n.scratch.New = func() any { s := make([]float64, n.nslots); return &s }
	return n, nil
}

// loader reads the tables of one folder into n, one method per table.
// declared holds where each id was declared, so that a duplicate can name
// the first declaration.
type loader struct {
	dir      string
	n        *Network
	declared map[string]row
}

// declare records the declaration of id on row r, which must be a valid,
// unreserved and new name.
func (l *loader) declare(r row, id, kind string) error {
	if !validID(id) {
		return r.errorf("%s id %q is not a valid name", kind, id)
	}
	if id == "t" || id == "exp" {
		return r.errorf("%s id %q is reserved", kind, id)
	}
	if prev, ok := l.declared[id]; ok {
		return r.errorf("%s id %q already declared at %s:%d", kind, id, prev.file, prev.line)
	}
	l.declared[id] = r
	return nil
}

// declareNumber declares the id in the second-to-last column of r and
// parses the number in the last, the layout of the state, parameter and
// constant tables.
func (l *loader) declareNumber(r row, kind string) (string, float64, error) {
	idCol := len(r.cols) - 2
	id := r.cols[idCol]
	if err := l.declare(r, id, kind); err != nil {
		return "", 0, err
	}
	v, err := parseNumber(r, idCol+1)
	if err != nil {
		return "", 0, err
	}
	return id, v, nil
}

// readIndexed reads a table with columns index, id and valueCol, in index
// order.
func (l *loader) readIndexed(file, valueCol string) ([]row, error) {
	rows, err := readTable(filepath.Join(l.dir, file), []string{"index", "id", valueCol}, false)
	if err != nil {
		return nil, err
	}
	return indexed(rows)
}

// states reads State.tsv. States take slots 0..nx-1.
func (l *loader) states() error {
	rows, err := l.readIndexed(StateFile, "initial value")
	if err != nil {
		return err
	}
	for _, r := range rows {
		id, v, err := l.declareNumber(r, "state")
		if err != nil {
			return err
		}
		l.n.byName[id] = len(l.n.States)
		l.n.States = append(l.n.States, State{ID: id, Init: v})
	}
	return nil
}

// params reads Parameter.tsv. Parameters take the slots after the states.
func (l *loader) params() error {
	rows, err := l.readIndexed(ParameterFile, "default value")
	if err != nil {
		return err
	}
	for _, r := range rows {
		id, v, err := l.declareNumber(r, "parameter")
		if err != nil {
			return err
		}
		l.n.byName[id] = len(l.n.States) + len(l.n.Params)
		l.n.Params = append(l.n.Params, Param{ID: id, Default: v})
	}
	return nil
}

// constants reads Constant.tsv, if present. Constants take the slots after
// the parameters.
func (l *loader) constants() error {
	rows, err := readTable(filepath.Join(l.dir, ConstantFile), []string{"id", "value"}, true)
	if err != nil {
		return err
	}
	for _, r := range rows {
		id, v, err := l.declareNumber(r, "constant")
		if err != nil {
			return err
		}
		l.n.byName[id] = l.n.constBase() + len(l.n.Constants)
		l.n.Constants = append(l.n.Constants, Constant{ID: id, Value: v})
	}
	return nil
}

// expressions reads Expression.tsv, if present. Expressions take the slots
// after time, in listed order.
func (l *loader) expressions() error {
	rows, err := readTable(filepath.Join(l.dir, ExpressionFile), []string{"id", "formula"}, true)
	if err != nil {
		return err
	}
	// All ids, to tell a use before the definition from an unknown name.
	ids := make(map[string]bool, len(rows))
	for _, r := range rows {
		ids[r.cols[0]] = true
	}
	for _, r := range rows {
		if err := l.expression(r, ids); err != nil {
			return err
		}
	}
	l.n.nslots = l.n.exprBase() + len(l.n.Expressions)
	return nil
}

// expression reads one row of Expression.tsv; it may use only the names
// declared before it.
func (l *loader) expression(r row, ids map[string]bool) error {
	n, id := l.n, r.cols[0]
	if err := l.declare(r, id, "expression"); err != nil {
		return err
	}
	e, err := Parse(r.cols[1])
	if err != nil {
		return r.errorf("expression %q: %v", id, err)
	}
	slot := n.exprBase() + len(n.Expressions)
	if err := n.resolve(e, slot); err != nil {
		if ids[err.Error()] {
			return r.errorf("expression %q uses %q before it is defined", id, err.Error())
		}
		return r.errorf("expression %q: unknown name %q", id, err.Error())
	}
	n.Expressions = append(n.Expressions, Expression{ID: id, Formula: r.cols[1], Expr: e})
	n.byName[id] = slot
	return nil
}

// reactions reads Reaction.tsv.
func (l *loader) reactions() error {
	rows, err := readTable(filepath.Join(l.dir, ReactionFile), []string{"id", "flux", "stoichiometry (state:coefficient)"}, false)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := l.reaction(r); err != nil {
			return err
		}
	}
	return nil
}

// reaction reads one row of Reaction.tsv; its flux may use every name.
func (l *loader) reaction(r row) error {
	n, id := l.n, r.cols[0]
	if err := l.declare(r, id, "reaction"); err != nil {
		return err
	}
	e, err := Parse(r.cols[1])
	if err != nil {
		return r.errorf("reaction %q: flux: %v", id, err)
	}
	if err := n.resolve(e, n.nslots); err != nil {
		return r.errorf("reaction %q: flux: unknown name %q", id, err.Error())
	}
	st, err := n.parseStoich(r)
	if err != nil {
		return err
	}
	n.Reactions = append(n.Reactions, Reaction{ID: id, Flux: r.cols[1], Expr: e, Stoch: st})
	return nil
}

// validID reports whether s is an SBML SId: a letter or underscore, then
// letters, digits and underscores.
func validID(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isLetter(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// nameError carries the unresolved name as its message.
type nameError string

func (e nameError) Error() string { return string(e) }

// resolve sets the slot of every name in e; names must have a slot below
// limit (so expressions see only earlier expressions).
func (n *Network) resolve(e *Expr, limit int) error {
	var err error
	e.names(func(x *Expr) {
		if err != nil {
			return
		}
		s, ok := n.byName[x.Name]
		if !ok || s >= limit {
			err = nameError(x.Name)
			return
		}
		x.slot = s
	})
	return err
}

// parseStoich reads "A:-1 B:+1" into terms.
func (n *Network) parseStoich(r row) ([]Term, error) {
	var out []Term
	seen := make(map[int]bool)
	for _, f := range strings.Fields(r.cols[2]) {
		id, c, ok := strings.Cut(f, ":")
		if !ok {
			return nil, r.errorf("reaction %q: stoichiometry entry %q is not state:coefficient", r.cols[0], f)
		}
		i, isState := -1, false
		if s, ok := n.byName[id]; ok && s < len(n.States) {
			i, isState = s, true
		}
		if !isState {
			return nil, r.errorf("reaction %q: stoichiometry names %q, which is not a state", r.cols[0], id)
		}
		v, err := strconv.ParseFloat(c, 64)
		if err != nil {
			return nil, r.errorf("reaction %q: bad coefficient %q for %q", r.cols[0], c, id)
		}
		if v == 0 {
			return nil, r.errorf("reaction %q: zero coefficient for %q", r.cols[0], id)
		}
		if seen[i] {
			return nil, r.errorf("reaction %q: state %q listed twice", r.cols[0], id)
		}
		seen[i] = true
		out = append(out, Term{State: i, Coef: v})
	}
	return out, nil
}

// markSpecies sets Expression.Species: an expression is an eliminated
// species when its id appears in some flux and its formula is a conservation
// law, a sum of terms +-name or +-number*name over states, parameters,
// constants and earlier eliminated species, with at least one state or
// eliminated species among them.
func (n *Network) markSpecies() {
	inFlux := make(map[string]bool)
	for _, r := range n.Reactions {
		r.Expr.names(func(x *Expr) { inFlux[x.Name] = true })
	}
	species := make(map[string]bool)
	for i := range n.Expressions {
		e := &n.Expressions[i]
		if !inFlux[e.ID] {
			continue
		}
		dynamic := false
		if n.linear(e.Expr, species, &dynamic) && dynamic {
			e.Species = true
			species[e.ID] = true
		}
	}
}

// linear reports whether e is a signed sum of (number times) names that are
// not non-species expressions; dynamic is set when one of them is a state or
// an eliminated species.
func (n *Network) linear(e *Expr, species map[string]bool, dynamic *bool) bool {
	switch e.Op {
	case OpAdd, OpSub:
		return n.linear(e.Args[0], species, dynamic) && n.linear(e.Args[1], species, dynamic)
	case OpNeg:
		return n.linear(e.Args[0], species, dynamic)
	case OpNum:
		return true
	case OpMul:
		if e.Args[0].Op == OpNum {
			return n.linear(e.Args[1], species, dynamic)
		}
		if e.Args[1].Op == OpNum {
			return n.linear(e.Args[0], species, dynamic)
		}
		return false
	case OpName:
		s := n.byName[e.Name]
		switch {
		case s < len(n.States) || species[e.Name]:
			*dynamic = true
			return true
		case s < n.timeSlot():
			return true
		}
	}
	return false
}

// NumStates is the number of states nx (rows of the sensitivity matrix).
func (n *Network) NumStates() int { return len(n.States) }

// NumParams is the number of sensitivity parameters np (its columns).
func (n *Network) NumParams() int { return len(n.Params) }

// NumReactions is the number of reactions (fluxes).
func (n *Network) NumReactions() int { return len(n.Reactions) }

// DefaultParams writes the default parameter values into dst.
func (n *Network) DefaultParams(dst []float64) {
	if len(dst) != len(n.Params) {
		panic("tables: DefaultParams dst length mismatch")
	}
	for i, p := range n.Params {
		dst[i] = p.Default
	}
}

// InitialState writes the initial values of State.tsv into dst.
func (n *Network) InitialState(dst []float64) {
	if len(dst) != len(n.States) {
		panic("tables: InitialState dst length mismatch")
	}
	for i, s := range n.States {
		dst[i] = s.Init
	}
}

// values fills the value vector: states, parameters, constants, t, then the
// expressions in listed order.
func (n *Network) values(vals []float64, t float64, x, p []float64) {
	if len(x) != len(n.States) {
		panic("tables: x length mismatch")
	}
	if len(p) != len(n.Params) {
		panic("tables: p length mismatch")
	}
	copy(vals, x)
	copy(vals[len(x):], p)
	cb := n.constBase()
	for i, c := range n.Constants {
		vals[cb+i] = c.Value
	}
	vals[n.timeSlot()] = t
	eb := n.exprBase()
	for i := range n.Expressions {
		vals[eb+i] = n.Expressions[i].Expr.eval(vals, t)
	}
}

// F writes dx/dt = N * flux(x, p, t) into dst (length NumStates). It does
// not allocate once warm (scratch space comes from a sync.Pool) and is safe
// for concurrent use.
func (n *Network) F(dst []float64, t float64, x, p []float64) {
	if len(dst) != len(n.States) {
		panic("tables: F dst length mismatch")
	}
	sp := n.scratch.Get().(*[]float64)
	vals := *sp
	n.values(vals, t, x, p)
	clear(dst)
	for _, r := range n.Reactions {
		v := r.Expr.eval(vals, t)
		for _, term := range r.Stoch {
			dst[term.State] += term.Coef * v
		}
	}
	n.scratch.Put(sp)
}

// Fluxes writes the reaction fluxes at (t, x, p) into dst (length
// NumReactions).
func (n *Network) Fluxes(dst []float64, t float64, x, p []float64) {
	if len(dst) != len(n.Reactions) {
		panic("tables: Fluxes dst length mismatch")
	}
	sp := n.scratch.Get().(*[]float64)
	vals := *sp
	n.values(vals, t, x, p)
	for i, r := range n.Reactions {
		dst[i] = r.Expr.eval(vals, t)
	}
	n.scratch.Put(sp)
}

// ExpressionValues writes the value of every expression, in
// listed order, into dst (length len(n.Expressions)).
func (n *Network) ExpressionValues(dst []float64, t float64, x, p []float64) {
	if len(dst) != len(n.Expressions) {
		panic("tables: ExpressionValues dst length mismatch")
	}
	sp := n.scratch.Get().(*[]float64)
	vals := *sp
	n.values(vals, t, x, p)
	copy(dst, vals[n.exprBase():])
	n.scratch.Put(sp)
}
