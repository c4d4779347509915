// Package interp evaluates a symbolic.System behind the runtime's model
// contract (model.Model) without generating code. It serves tools that read
// a network at run time (pbgen sim, the SBML test-suite harness) and is the
// reference that generated packages are checked against.
//
// # Compiled form
//
// New compiles each function (F, Jx, Jp, the initial state and its
// parameter derivative, the outputs) once into straight-line code over a
// flat slot array: t, x, p, constants, then one slot per intermediate
// value. Evaluation is a loop over a byte opcode; there are no maps or
// interface calls per node, and each shared subexpression (an interned
// node) is computed once.
//
// # Same rounding as generated code
//
// The lowering of each operator is the one codegen emits, so interpreted and
// generated models agree to the last bit on platforms that do not fuse
// multiply-adds:
//
//   - sums are added left to right; products multiply a leading constant
//     (-1 becomes a final negation) and the other factors left to right,
//     then divide by the product of the factors with a negative constant
//     exponent (c^-1 becomes a division by c, never a multiplication by 1/c);
//   - x^0.5 is math.Sqrt, x^-0.5 is 1/math.Sqrt, x^n for n = 2, 3, 4 is
//     repeated multiplication, x^-n is 1/(x*...*x), other powers math.Pow;
//   - sec, csc, cot and their hyperbolic forms are 1/cos etc.; asec, acsc,
//     acot and their hyperbolic forms are acos(1/x) etc.; factorial(x) is
//     math.Gamma(x+1);
//   - relational operators give 1 or 0; logical operators treat any
//     non-zero value (NaN included) as true and give 1 or 0; a piecewise
//     takes the value of the first true condition, else its otherwise.
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
	x0pRows    []int // dense index row*np+col of each X0p entry
	consts     []float64
	nslots     int
	f, fjx     *prog
	fjp, x0    *prog
	x0p, out   *prog
	pool       sync.Pool // *[]float64 of length nslots, constants filled
}

var _ model.Model = (*Model)(nil)

// New compiles sys. It returns an error if sys refers to symbols that are
// not its states, parameters or time, if the initial values depend on
// states or time, if an operator is unsupported, or if the Jacobian entries
// are not sorted and in range.
func New(sys *symbolic.System) (*Model, error) {
	if sys == nil || sys.ODE == nil {
		return nil, fmt.Errorf("interp: nil system")
	}
	nx, np := len(sys.ODE.States), len(sys.ODE.Params)
	if len(sys.F) != nx || len(sys.X0) != nx {
		return nil, fmt.Errorf("interp: system has %d states but %d rates and %d initial values", nx, len(sys.F), len(sys.X0))
	}
	m := &Model{sys: sys, nx: nx, np: np}
	for _, s := range sys.ODE.States {
		m.stateNames = append(m.stateNames, s.Name)
	}
	for _, p := range sys.ODE.Params {
		m.paramNames = append(m.paramNames, p.Name)
		m.defaults = append(m.defaults, p.Value)
	}
	for _, o := range sys.ODE.Outputs {
		m.outNames = append(m.outNames, o.Name)
	}
	var err error
	if m.jx, err = pattern(sys.Jx, nx, nx, "Jx"); err != nil {
		return nil, err
	}
	if m.jp, err = pattern(sys.Jp, nx, np, "Jp"); err != nil {
		return nil, err
	}
	if _, err = pattern(sys.X0p, nx, np, "X0p"); err != nil {
		return nil, err
	}
	for _, e := range sys.X0p {
		m.x0pRows = append(m.x0pRows, e.Row*np+e.Col)
	}
	c, err := newCompiler(sys)
	if err != nil {
		return nil, err
	}
	outs := make([]*symbolic.Node, len(sys.ODE.Outputs))
	for i, o := range sys.ODE.Outputs {
		outs[i] = o.Expr
	}
	if m.f, err = c.compile(sys.F, true, "f"); err != nil {
		return nil, err
	}
	if m.fjx, err = c.compile(exprs(sys.Jx), true, "Jx"); err != nil {
		return nil, err
	}
	if m.fjp, err = c.compile(exprs(sys.Jp), true, "Jp"); err != nil {
		return nil, err
	}
	if m.x0, err = c.compile(sys.X0, false, "initial state"); err != nil {
		return nil, err
	}
	if m.x0p, err = c.compile(exprs(sys.X0p), false, "initial sensitivity"); err != nil {
		return nil, err
	}
	if m.out, err = c.compile(outs, true, "outputs"); err != nil {
		return nil, err
	}
	m.nslots = c.finish(m.f, m.fjx, m.fjp, m.x0, m.x0p, m.out)
	m.consts = c.consts
	base := 1 + nx + np
	m.pool.New = func() any {
		s := make([]float64, m.nslots)
		copy(s[base:], m.consts)
		return &s
	}
	return m, nil
}

func exprs(es []symbolic.Entry) []*symbolic.Node {
	out := make([]*symbolic.Node, len(es))
	for i, e := range es {
		out[i] = e.Expr
	}
	return out
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

// run evaluates pr at (t, x, p) and writes root i to dst[idx(i)].
func (m *Model) run(pr *prog, t float64, x, p []float64) *[]float64 {
	sp := m.pool.Get().(*[]float64)
	s := *sp
	s[0] = t
	copy(s[1:1+m.nx], x)
	copy(s[1+m.nx:1+m.nx+m.np], p)
	pr.run(s)
	return sp
}

func (m *Model) gather(dst []float64, pr *prog, sp *[]float64) {
	s := *sp
	for i, r := range pr.roots {
		dst[i] = s[r]
	}
	m.pool.Put(sp)
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
	m.gather(dst, m.x0, m.run(m.x0, 0, nil, p))
}

// InitialSens writes dx(t0)/dp, row-major nx x np, into dst.
func (m *Model) InitialSens(dst []float64, p []float64) {
	m.check(dst, m.nx*m.np, nil, p, "InitialSens")
	clear(dst)
	sp := m.run(m.x0p, 0, nil, p)
	s := *sp
	for k, r := range m.x0p.roots {
		dst[m.x0pRows[k]] = s[r]
	}
	m.pool.Put(sp)
}

// F writes f(t, x, p) into dst.
func (m *Model) F(dst []float64, t float64, x, p []float64) {
	m.check(dst, m.nx, x, p, "F")
	m.gather(dst, m.f, m.run(m.f, t, x, p))
}

// JxPattern returns a copy of the sparsity pattern of Jx.
func (m *Model) JxPattern() *model.Pattern { return clonePattern(m.jx) }

// JpPattern returns a copy of the sparsity pattern of Jp.
func (m *Model) JpPattern() *model.Pattern { return clonePattern(m.jp) }

// Jx writes the values of df/dx in JxPattern order into dst.
func (m *Model) Jx(dst []float64, t float64, x, p []float64) {
	m.check(dst, m.jx.NNZ(), x, p, "Jx")
	m.gather(dst, m.fjx, m.run(m.fjx, t, x, p))
}

// Jp writes the values of df/dp in JpPattern order into dst.
func (m *Model) Jp(dst []float64, t float64, x, p []float64) {
	m.check(dst, m.jp.NNZ(), x, p, "Jp")
	m.gather(dst, m.fjp, m.run(m.fjp, t, x, p))
}

// OutputsTo writes the outputs at (t, x, p) into dst, in the order of
// Outputs.
func (m *Model) OutputsTo(dst []float64, t float64, x, p []float64) {
	m.check(dst, len(m.outNames), x, p, "OutputsTo")
	m.gather(dst, m.out, m.run(m.out, t, x, p))
}

func clonePattern(p *model.Pattern) *model.Pattern {
	return &model.Pattern{
		Rows:   p.Rows,
		Cols:   p.Cols,
		RowPtr: append([]int(nil), p.RowPtr...),
		ColIdx: append([]int(nil), p.ColIdx...),
	}
}
