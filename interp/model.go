// Package interp evaluates a symbolic.System behind the runtime's model
// contract (model.Model) without generating code. It serves tools that read
// a network at run time (pbgen sim, the SBML test-suite harness) and is the
// reference that generated packages are checked against.
//
// # Evaluation
//
// New compiles each function (F, Jx, Jp, the initial state and its
// parameter derivative, the outputs) once with symbolic.Compile into
// straight-line, slice-indexed code in which each shared subexpression (an
// interned node) is computed once. The numerical semantics of every
// operator are symbolic's (see symbolic.Eval), which generated code follows:
// truth values are 1 and 0, any non-zero value (NaN included) is true, a
// piecewise takes the value of its first true condition, factorial(x) is
// math.Gamma(x+1), sec(x) is 1/cos(x), asec(x) is acos(1/x).
//
// # Events
//
// New refuses a system with events: the integrators and sensitivity
// solvers that take a model.Model do not know them and would simulate
// another model. NewWithEvents compiles them too (triggers, their root
// functions, delays, priorities and assigned values) into a Model that
// implements model.Events, for runtime/events.Solve, and
// model.EventDerivs (their first derivatives, formed symbolically once).
// A derivative that cannot be formed (a factorial of a variable) makes
// NewWithEvents fail, as symbolic.Build fails for such a rate.
//
// # Observables
//
// NewObserved compiles a System together with observables h(t, x, p, u)
// and noise scales sigma(t, x, p, u) (a PEtab measurement model, u the
// placeholders) into an *Observed, which is a *Model that also implements
// model.Observables, with the derivatives in x, p and u formed
// symbolically, and the events as NewWithEvents (runtime/objective solves
// a model with events through runtime/events). NewObservedAssign adds state assignment sets
// (model.Assigner: a PEtab experiment's condition changes after its first
// period), their derivatives in x and p formed symbolically too.
//
// # Concurrency and allocation
//
// A *Model is immutable after New and safe for concurrent use. Each call
// borrows a scratch slot array from a sync.Pool, so evaluation allocates
// nothing in steady state.
package interp

import (
	"fmt"
	"sync"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

// Model is an interpreted symbolic.System. It implements model.Model.
type Model struct {
	sys        *symbolic.System
	nx, np     int
	stateNames []string
	paramNames []string
	outNames   []string
	defaults   []float64
	jx, jp     *model.Pattern
	x0pIdx     []int // dense index row*np+col of each X0p entry
	f, fjx     *symbolic.Compiled
	fjp, x0    *symbolic.Compiled
	x0p, out   *symbolic.Compiled
	gt         *symbolic.Compiled // dg/dt of the algebraic residuals, nil without
	nscratch   int
	pool       sync.Pool // *scratch
	ev         *evProg   // events (model.Events), nil when there are none
	dl         *dlProg   // delayed values (model.Delays), nil when there are none
}

// scratch is one evaluation's working memory: the slots of a Compiled
// (long enough for every program of the model) and room for the X0p
// values before they are scattered into the dense dx0/dp.
type scratch struct {
	slots []float64
	x0p   []float64
	one   [1]float64 // the result of a single-value program
}

var _ model.Model = (*Model)(nil)

// New compiles sys. It returns an error if sys refers to symbols that are
// not its states, parameters or time, if the initial values depend on
// states or time, or if the Jacobian entries are not sorted and in range.
// Systems from symbolic.Build satisfy all of this.
//
// A system with events is refused (an error saying events are "not
// supported" here): the integrators and sensitivity solvers that take a
// model.Model would step over the events and simulate another model.
// Callers that handle events use NewWithEvents.
func New(sys *symbolic.System) (*Model, error) {
	if sys != nil && sys.ODE != nil && len(sys.ODE.Events) > 0 {
		e := sys.ODE.Events[0]
		return nil, fmt.Errorf("interp: model %q: event %q: events are not supported by this path (the model has %d; runtime/events.Solve simulates them)", sys.ODE.Name, e.Name, len(sys.ODE.Events))
	}
	return newModel(sys)
}

// NewWithEvents compiles sys as New does, events included: the model
// implements model.Events (with no events when sys has none), for
// runtime/events.Solve, and model.Switches: the relations in its rates
// (symbolic.Builder.Switches) are root functions after the triggers'.
func NewWithEvents(sys *symbolic.System) (*Model, error) {
	m, err := newModel(sys)
	if err != nil {
		return nil, err
	}
	if err := m.compileEvents(); err != nil {
		return nil, err
	}
	return m, nil
}

func newModel(sys *symbolic.System) (*Model, error) {
	if sys == nil || sys.ODE == nil {
		return nil, fmt.Errorf("interp: nil system")
	}
	nx, np := len(sys.ODE.States), len(sys.ODE.Params)
	if len(sys.F) != nx || len(sys.X0) != nx {
		return nil, fmt.Errorf("interp: model %q has %d states but %d rates and %d initial values", sys.ODE.Name, nx, len(sys.F), len(sys.X0))
	}
	m := &Model{sys: sys, nx: nx, np: np}
	m.stateNames = sys.ODE.StateNames()
	m.paramNames = sys.ODE.ParamNames()
	for _, p := range sys.ODE.Params {
		m.defaults = append(m.defaults, p.Value)
	}
	outs := make([]*symbolic.Node, len(sys.ODE.Outputs))
	for i, o := range sys.ODE.Outputs {
		m.outNames = append(m.outNames, o.Name)
		outs[i] = o.Expr
	}
	var err error
	if m.jx, err = pattern(sys.Jx, nx, nx, "Jx"); err != nil {
		return nil, err
	}
	if m.jp, err = pattern(sys.Jp, nx, np, "Jp"); err != nil {
		return nil, err
	}
	if na := sys.ODE.Algebraic; na < 0 || na > nx || len(sys.Gt) != na {
		return nil, fmt.Errorf("interp: model %q has %d algebraic variables among %d states and %d derivatives in t of their equations", sys.ODE.Name, na, nx, len(sys.Gt))
	}
	if _, err = pattern(sys.X0p, nx, np, "X0p"); err != nil {
		return nil, err
	}
	for _, e := range sys.X0p {
		m.x0pIdx = append(m.x0pIdx, e.Row*np+e.Col)
	}
	for i, r := range sys.X0 {
		if hasTime(r) {
			return nil, fmt.Errorf("interp: model %q: initial value of %q depends on time", sys.ODE.Name, m.stateNames[i])
		}
	}
	delayNames := delayNames(sys)
	compile := func(roots []*symbolic.Node, states []string, what string) (*symbolic.Compiled, error) {
		c, err := symbolic.CompileDelayed(roots, states, m.paramNames, delayNames)
		if err != nil {
			return nil, fmt.Errorf("interp: model %q: %s: %w", sys.ODE.Name, what, err)
		}
		m.nscratch = max(m.nscratch, c.ScratchLen())
		return c, nil
	}
	// Initial values are compiled without states, so a state in them is
	// an unknown symbol.
	for _, s := range []struct {
		dst    **symbolic.Compiled
		roots  []*symbolic.Node
		states []string
		what   string
	}{
		{&m.f, sys.F, m.stateNames, "rates"},
		{&m.fjx, symbolic.Exprs(sys.Jx), m.stateNames, "Jx"},
		{&m.fjp, symbolic.Exprs(sys.Jp), m.stateNames, "Jp"},
		{&m.x0, sys.X0, nil, "initial values"},
		{&m.x0p, symbolic.Exprs(sys.X0p), nil, "initial sensitivities"},
		{&m.out, outs, m.stateNames, "outputs"},
		{&m.gt, sys.Gt, m.stateNames, "derivatives in t of the algebraic equations"},
	} {
		if *s.dst, err = compile(s.roots, s.states, s.what); err != nil {
			return nil, err
		}
	}
	if err := m.compileDelays(delayNames); err != nil {
		return nil, err
	}
	m.pool.New = func() any {
		return &scratch{slots: make([]float64, m.nscratch), x0p: make([]float64, len(m.x0pIdx))}
	}
	return m, nil
}

// hasTime reports whether n depends on t.
func hasTime(n *symbolic.Node) bool {
	for _, s := range symbolic.FreeSymbols(n) {
		if s.Kind == symbolic.KindTime {
			return true
		}
	}
	return false
}

// pattern builds the CSR pattern of entries sorted by (Row, Col).
func pattern(es []symbolic.Entry, rows, cols int, what string) (*model.Pattern, error) {
	p := &model.Pattern{Rows: rows, Cols: cols, RowPtr: make([]int, rows+1), ColIdx: make([]int, len(es))}
	for k, e := range es {
		if e.Row < 0 || e.Row >= rows || e.Col < 0 || e.Col >= cols {
			return nil, fmt.Errorf("interp: %s entry %d at (%d,%d) out of range %dx%d", what, k, e.Row, e.Col, rows, cols)
		}
		if k > 0 && (e.Row < es[k-1].Row || e.Row == es[k-1].Row && e.Col <= es[k-1].Col) {
			return nil, fmt.Errorf("interp: %s entries not sorted by (row, column) at entry %d", what, k)
		}
		p.RowPtr[e.Row+1]++
		p.ColIdx[k] = e.Col
	}
	for i := 0; i < rows; i++ {
		p.RowPtr[i+1] += p.RowPtr[i]
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("interp: %s: %w", what, err)
	}
	return p, nil
}

// eval runs c with a pooled scratch buffer.
func (m *Model) eval(c *symbolic.Compiled, dst []float64, t float64, x, p []float64) {
	s := m.pool.Get().(*scratch)
	c.EvalTo(dst, s.slots, t, x, p)
	m.pool.Put(s)
}

func (m *Model) check(dst []float64, n int, x, p []float64, what string) {
	if len(dst) != n {
		panic("interp: " + what + ": dst length mismatch")
	}
	if x != nil && len(x) != m.nx {
		panic("interp: " + what + ": x length mismatch")
	}
	if len(p) != m.np {
		panic("interp: " + what + ": p length mismatch")
	}
}

// Name is the model id.
func (m *Model) Name() string { return m.sys.ODE.Name }

// StateNames returns a copy of the state ids, in state order.
func (m *Model) StateNames() []string { return append([]string(nil), m.stateNames...) }

// ParamNames returns a copy of the parameter ids, in parameter order.
func (m *Model) ParamNames() []string { return append([]string(nil), m.paramNames...) }

// Outputs returns a copy of the output names, in the order of OutputsTo.
func (m *Model) Outputs() []string { return append([]string(nil), m.outNames...) }

// System is the system the model was compiled from; it must not be
// modified.
func (m *Model) System() *symbolic.System { return m.sys }

// DefaultParams writes the default parameter values into dst.
func (m *Model) DefaultParams(dst []float64) {
	if len(dst) != m.np {
		panic("interp: DefaultParams: dst length mismatch")
	}
	copy(dst, m.defaults)
}

// InitialState writes x(t0) for parameters p into dst.
func (m *Model) InitialState(dst []float64, p []float64) {
	m.check(dst, m.nx, nil, p, "InitialState")
	m.eval(m.x0, dst, 0, nil, p)
}

// InitialSens writes dx(t0)/dp, row-major nx x np, into dst.
func (m *Model) InitialSens(dst []float64, p []float64) {
	m.check(dst, m.nx*m.np, nil, p, "InitialSens")
	s := m.pool.Get().(*scratch)
	m.x0p.EvalTo(s.x0p, s.slots, 0, nil, p)
	clear(dst)
	for k, v := range s.x0p {
		dst[m.x0pIdx[k]] = v
	}
	m.pool.Put(s)
}

// F writes f(t, x, p) into dst.
func (m *Model) F(dst []float64, t float64, x, p []float64) {
	m.check(dst, m.nx, x, p, "F")
	m.eval(m.f, dst, t, x, p)
}

// JxPattern returns a copy of the sparsity pattern of Jx.
func (m *Model) JxPattern() *model.Pattern { return clonePattern(m.jx) }

// JpPattern returns a copy of the sparsity pattern of Jp.
func (m *Model) JpPattern() *model.Pattern { return clonePattern(m.jp) }

// Jx writes the values of df/dx in JxPattern order into dst.
func (m *Model) Jx(dst []float64, t float64, x, p []float64) {
	m.check(dst, m.jx.NNZ(), x, p, "Jx")
	m.eval(m.fjx, dst, t, x, p)
}

// Jp writes the values of df/dp in JpPattern order into dst.
func (m *Model) Jp(dst []float64, t float64, x, p []float64) {
	m.check(dst, m.jp.NNZ(), x, p, "Jp")
	m.eval(m.fjp, dst, t, x, p)
}

// OutputsTo writes the outputs at (t, x, p) into dst, in the order of
// Outputs.
func (m *Model) OutputsTo(dst []float64, t float64, x, p []float64) {
	m.check(dst, len(m.outNames), x, p, "OutputsTo")
	m.eval(m.out, dst, t, x, p)
}

func clonePattern(p *model.Pattern) *model.Pattern {
	return &model.Pattern{
		Rows:   p.Rows,
		Cols:   p.Cols,
		RowPtr: append([]int(nil), p.RowPtr...),
		ColIdx: append([]int(nil), p.ColIdx...),
	}
}

// NumAlgebraic returns the number of algebraic variables, the last states
// (symbolic.ODE.Algebraic). A model with some implements
// model.Algebraic and is solved through runtime/dae.
func (m *Model) NumAlgebraic() int { return m.sys.ODE.Algebraic }

// ResidualT writes the partial derivatives in t of the algebraic
// residuals at (t, x, p) into dst (length NumAlgebraic).
func (m *Model) ResidualT(dst []float64, t float64, x, p []float64) {
	m.check(dst, m.sys.ODE.Algebraic, x, p, "ResidualT")
	m.eval(m.gt, dst, t, x, p)
}

var _ model.Algebraic = (*Model)(nil)
