// Package dae solves semi-explicit index-1 differential-algebraic models
// (model.Algebraic: SBML algebraic rules, fast reactions at rapid
// equilibrium)
//
//	dx/dt = f(t, x, z, p),   0 = g(t, x, z, p),   g_z nonsingular,
//
// by elimination: New wraps such a model into a model.Model over the
// differential states x alone, the reduced ODE dx/dt = f(t, x, z(t, x, p), p)
// where z(t, x, p) solves g = 0. Every integrator and sensitivity method of
// the runtime (BDF, DOPRI5, FS, PBS, PBSR, Exp, runtime/events) then works
// on it unchanged, which is why the algebraic part is eliminated here
// rather than taught to each solver.
//
// # What the reduced model computes
//
//   - F solves g(t, x, z, p) = 0 for z by Newton's method (dense LU of g_z,
//     backtracking on the residual), warm-started from the z of the last
//     call that used the same scratch space, to a tolerance far below any
//     integrator's (a relative step of 1e-13), then evaluates f. Where g_z
//     is singular away from a solution (a first guess at which a product
//     of variables vanishes) the iterate is moved off the point, at most
//     three times, before Newton goes on.
//   - Jx = f_x - f_z g_z^{-1} g_x and Jp = f_p - f_z g_z^{-1} g_p, the
//     implicit function theorem; their patterns are formed once from the
//     structure: g_z^{-1} is taken as full within each connected block of
//     g_z's structure (block diagonal after permutation), so the pattern
//     is a superset of the structural non-zeros and never misses one.
//   - InitialState is the consistent initial state: x0(p) from the wrapped
//     model and z0 solved at t = 0 from its first guess. InitialSens is
//     dx0/dp. Algebraic variables do not appear in the reduced state, so
//     the sensitivities S = dx/dp of every method need nothing else;
//     AlgebraicSens gives dz/dp = -g_z^{-1} (g_x S + g_p) when asked.
//   - Outputs (model.Observer) are the wrapped model's outputs followed
//     by the algebraic variables not already among them, evaluated with
//     z solved.
//   - Events (model.Events, model.EventDerivs) are forwarded with z
//     solved at each call, so that a state an event sets is followed by a
//     re-solved z; their derivatives are reduced like the Jacobians (a
//     root function r(t, x, z, p) has dr/dx = r_x - r_z g_z^{-1} g_x, and
//     dr/dt = r_t - r_z g_z^{-1} g_t with g_t from ResidualT). An event that
//     assigns an algebraic variable is refused by New.
//   - Delays (model.Delays: SBML csymbol delay): the reduced model is a
//     delay model over x, z solved with the delayed values each method
//     is given (delay.go), for runtime/dde; at the start with the
//     history's values. Its events are forwarded in the Delayed variants
//     too (model.DelayEvents), z solved with the delayed values.
//
// # Failures
//
// New refuses a model whose g_z is structurally singular (no assignment of
// the algebraic variables to residual rows exists), naming the variables
// left undetermined. A g_z that is numerically singular, or a Newton
// iteration that does not converge, at some (t, x, p) makes F write NaN,
// which the integrators report as an error at that time; Consistent
// checks the start up front and returns an error naming the variables.
//
// # Concurrency and allocation
//
// A *Model is immutable after New and safe for concurrent use. The Newton
// iteration's workspaces (and the last z, for warm starts) live in a
// sync.Pool, so F, Jx, Jp and the event functions allocate nothing in
// steady state; the event derivatives allocate (they serve sensitivities
// at events, not an integrator's inner loop).
package dae

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/model"
)

// Newton iteration: at most maxNewton iterations, converged when every
// step component is below newtonRTol relative to the iterate, or below
// the rounding level of the largest variable (newtonATol when all are 0).
const (
	maxNewton  = 50
	newtonRTol = 1e-13
	newtonATol = 1e-300
	maxBack    = 30 // step halvings of one Newton step
	maxKicks   = 3  // moves off a singular g_z away from a solution
)

// Model is the reduced model of a model.Algebraic (see the package doc).
// It implements model.Model, model.Observer, model.Events and
// model.EventDerivs (with no events when the wrapped model has none).
type Model struct {
	in         model.Algebraic
	ev         model.EventDerivs // nil without events
	obs        model.Observer    // nil when the wrapped model has no outputs
	n, nx, nz  int
	np         int
	names      []string // differential states
	zNames     []string
	outNames   []string // wrapped outputs, then the extra z names
	nInOut     int      // number of wrapped outputs
	zOut       []int    // algebraic variables appended to the outputs
	jxIn, jpIn *model.Pattern
	jx, jp     *model.Pattern
	blk        jacBlocks
	jxPlan     reducePlan
	jpPlan     reducePlan
	gxCols     []int // columns of x that g_x has
	gpCols     []int // columns of p that g_p has
	pool       sync.Pool
	nwork      int
	dl         model.Delays // the wrapped model's delays, nil without (delay.go)
}

// jacBlocks locates the blocks of the wrapped Jx and Jp values: each
// entry's kind and position.
type jacBlocks struct {
	// Jx entries: f_x (row < nx, col < nx) at reduced position fxPos
	// (through the plan), f_z, g_x, g_z.
	fzRow, fzCol, fzIdx []int // f_z entries: row i, algebraic column k, index into Jx values
	gxRow, gxCol, gxIdx []int
	gzRow, gzCol, gzIdx []int
	fpRow, fpCol, fpIdx []int // Jp entries of f rows
	gpRow, gpCol, gpIdx []int
	fxRow, fxCol, fxIdx []int
}

// reducePlan says how to form a reduced Jacobian's values: entry e of the
// reduced pattern is direct[e] (an index into the wrapped values, or -1)
// minus the sum over the f_z entries of its row of f_z(i,k) * W(k, col).
type reducePlan struct {
	direct []int
	row    []int // row of each reduced entry
	col    []int
}

// work is one evaluation's scratch space.
type work struct {
	full   []float64 // (x, z)
	fz     []float64 // F of the wrapped model
	ztry   []float64
	dz     []float64
	jxv    []float64 // wrapped Jx values
	jpv    []float64 // wrapped Jp values
	gz     []float64 // nz x nz, factored in place
	piv    []int
	w      []float64 // nz x max(nx, np): g_z^{-1} g_x or g_z^{-1} g_p, row-major
	zValid bool      // full[nx:] holds the last solution
	// withD: the wrapped model is evaluated with the delayed values d
	// (its FDelayed and JxDelayed; delay.go), else with its F and Jx.
	withD bool
	d     []float64
	// cached: full, gz and jxv are those of the solve at (ct, cx, cp),
	// bit for bit the arguments of this call, which then returns at once.
	// An integrator asks for F, Jx and Jp (and the objective for
	// observables) at the same point in turn; each would otherwise
	// repeat Newton's method there (two evaluations of F and of Jx at
	// least).
	cached bool
	ct     float64
	cx, cp []float64
	// degenerate: the last solve failed at a point that satisfies the
	// equations but where g_z is singular (not index 1 there).
	degenerate bool
}

// ErrNotIndex1 is wrapped by Consistent's error when the equations hold
// at the start but g_z is singular there: the variables are not
// determined (a fast reaction whose rate constant is a parameter equal
// to 0, say: one that only events change is lowered to an index-1 form,
// parser/fast.go), a DAE of higher index or a degenerate equilibrium,
// which elimination cannot solve.
var ErrNotIndex1 = errors.New("a DAE that is not index 1 (g_z singular where the equations hold) is not supported")

// ErrStructure is wrapped by New's error for a structurally singular g_z.
var ErrStructure = errors.New("dae: the algebraic equations do not determine every algebraic variable")

// New wraps m. It returns an error if m has no algebraic variables or more
// than its states, if g_z is structurally singular (wrapping ErrStructure,
// naming the variables no residual determines), if an event assigns an
// algebraic variable, or if m has events without their derivatives.
func New(m model.Algebraic) (*Model, error) {
	r := &Model{in: m, nz: m.NumAlgebraic()}
	names := m.StateNames()
	r.n, r.np = len(names), model.NumParams(m)
	r.nx = r.n - r.nz
	if r.nz <= 0 || r.nx < 0 {
		return nil, fmt.Errorf("dae: model %q: %d algebraic variables among %d states", m.Name(), r.nz, r.n)
	}
	r.names = names[:r.nx:r.nx]
	r.zNames = names[r.nx:]
	r.jxIn, r.jpIn = m.JxPattern(), m.JpPattern()
	if err := r.jxIn.Validate(); err != nil {
		return nil, fmt.Errorf("dae: model %q: Jx: %w", m.Name(), err)
	}
	if err := r.jpIn.Validate(); err != nil {
		return nil, fmt.Errorf("dae: model %q: Jp: %w", m.Name(), err)
	}
	if r.jxIn.Rows != r.n || r.jxIn.Cols != r.n || r.jpIn.Rows != r.n || r.jpIn.Cols != r.np {
		return nil, fmt.Errorf("dae: model %q: Jacobian patterns have the wrong shape", m.Name())
	}
	r.classify()
	if err := r.checkStructure(); err != nil {
		return nil, err
	}
	comp := r.components()
	r.jx, r.jxPlan = r.reduce(r.nx, r.blk.fxRow, r.blk.fxCol, r.blk.fxIdx, r.blk.gxRow, r.blk.gxCol, comp)
	r.jp, r.jpPlan = r.reduce(r.np, r.blk.fpRow, r.blk.fpCol, r.blk.fpIdx, r.blk.gpRow, r.blk.gpCol, comp)
	r.gxCols = uniqueSorted(r.blk.gxCol)
	r.gpCols = uniqueSorted(r.blk.gpCol)

	if obs, ok := m.(model.Observer); ok {
		r.obs = obs
		r.outNames = obs.Outputs()
		r.nInOut = len(r.outNames)
	}
	for k, z := range r.zNames {
		if !slices.Contains(r.outNames[:r.nInOut], z) {
			r.outNames = append(r.outNames, z)
			r.zOut = append(r.zOut, k)
		}
	}
	if ev, ok := m.(model.Events); ok && ev.NumEvents() > 0 {
		evd, ok := m.(model.EventDerivs)
		if !ok {
			return nil, fmt.Errorf("dae: model %q has events but not their derivatives (model.EventDerivs)", m.Name())
		}
		for k := 0; k < ev.NumEvents(); k++ {
			for _, i := range ev.EventTargets(k) {
				if i >= r.nx {
					return nil, fmt.Errorf("dae: model %q: event %q assigns %q, which an algebraic equation determines: not supported", m.Name(), ev.EventInfo(k).Name, names[i])
				}
			}
		}
		r.ev = evd
	}
	if dl, ok := m.(model.Delays); ok && dl.NumDelays() > 0 {
		r.dl = dl
	}
	r.nwork = max(r.nx, r.np)
	r.pool.New = func() any {
		return &work{
			full: make([]float64, r.n), fz: make([]float64, r.n), ztry: make([]float64, r.nz), dz: make([]float64, r.nz),
			jxv: make([]float64, r.jxIn.NNZ()), jpv: make([]float64, r.jpIn.NNZ()),
			gz: make([]float64, r.nz*r.nz), piv: make([]int, r.nz), w: make([]float64, r.nz*r.nwork),
			d:  make([]float64, r.NumDelays()),
			cx: make([]float64, r.nx), cp: make([]float64, r.np),
		}
	}
	return r, nil
}

// classify sorts the wrapped Jacobians' entries into their blocks.
func (r *Model) classify() {
	b := &r.blk
	for i := 0; i < r.n; i++ {
		for k := r.jxIn.RowPtr[i]; k < r.jxIn.RowPtr[i+1]; k++ {
			c := r.jxIn.ColIdx[k]
			switch {
			case i < r.nx && c < r.nx:
				b.fxRow, b.fxCol, b.fxIdx = append(b.fxRow, i), append(b.fxCol, c), append(b.fxIdx, k)
			case i < r.nx:
				b.fzRow, b.fzCol, b.fzIdx = append(b.fzRow, i), append(b.fzCol, c-r.nx), append(b.fzIdx, k)
			case c < r.nx:
				b.gxRow, b.gxCol, b.gxIdx = append(b.gxRow, i-r.nx), append(b.gxCol, c), append(b.gxIdx, k)
			default:
				b.gzRow, b.gzCol, b.gzIdx = append(b.gzRow, i-r.nx), append(b.gzCol, c-r.nx), append(b.gzIdx, k)
			}
		}
		for k := r.jpIn.RowPtr[i]; k < r.jpIn.RowPtr[i+1]; k++ {
			c := r.jpIn.ColIdx[k]
			if i < r.nx {
				b.fpRow, b.fpCol, b.fpIdx = append(b.fpRow, i), append(b.fpCol, c), append(b.fpIdx, k)
			} else {
				b.gpRow, b.gpCol, b.gpIdx = append(b.gpRow, i-r.nx), append(b.gpCol, c), append(b.gpIdx, k)
			}
		}
	}
}

// checkStructure finds a perfect matching of residual rows to algebraic
// variables in g_z's structure (augmenting paths), and names the
// variables left unmatched when there is none.
func (r *Model) checkStructure() error {
	adj := make([][]int, r.nz) // variable -> rows
	for e := range r.blk.gzRow {
		adj[r.blk.gzCol[e]] = append(adj[r.blk.gzCol[e]], r.blk.gzRow[e])
	}
	rowOf := make([]int, r.nz) // row -> variable
	for i := range rowOf {
		rowOf[i] = -1
	}
	var try func(v int, seen []bool) bool
	try = func(v int, seen []bool) bool {
		for _, row := range adj[v] {
			if seen[row] {
				continue
			}
			seen[row] = true
			if rowOf[row] < 0 || try(rowOf[row], seen) {
				rowOf[row] = v
				return true
			}
		}
		return false
	}
	var bad []string
	for v := 0; v < r.nz; v++ {
		if !try(v, make([]bool, r.nz)) {
			bad = append(bad, fmt.Sprintf("%q", r.zNames[v]))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("dae: model %q: %w: %s (the derivatives of the algebraic equations in these variables are structurally singular)", r.in.Name(), ErrStructure, strings.Join(bad, ", "))
	}
	return nil
}

// components labels the connected blocks of g_z's structure, by
// algebraic variable (column) and residual (row): g_z is block diagonal
// after permuting rows and columns by block, so g_z^{-1}(k, l) can be
// non-zero only when variable k and residual l are in the same block.
func (r *Model) components() (comp []int) {
	parent := make([]int, 2*r.nz) // rows 0..nz-1, columns nz..2nz-1
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for e := range r.blk.gzRow {
		a, b := find(r.blk.gzRow[e]), find(r.nz+r.blk.gzCol[e])
		if a != b {
			parent[a] = b
		}
	}
	comp = make([]int, 2*r.nz)
	for i := range comp {
		comp[i] = find(i)
	}
	return comp
}

// reduce forms the pattern of f_v - f_z g_z^{-1} g_v (v the states or the
// parameters, ncols columns) and the plan to compute its values.
func (r *Model) reduce(ncols int, dRow, dCol, dIdx, gRow, gCol []int, comp []int) (*model.Pattern, reducePlan) {
	// Columns each residual row has in g_v, by block.
	blockCols := make(map[int]map[int]bool)
	for e := range gRow {
		c := comp[gRow[e]]
		if blockCols[c] == nil {
			blockCols[c] = make(map[int]bool)
		}
		blockCols[c][gCol[e]] = true
	}
	rows := make([]map[int]int, r.nx) // column -> direct index (or -1)
	for i := range rows {
		rows[i] = make(map[int]int)
	}
	for e := range dRow {
		rows[dRow[e]][dCol[e]] = dIdx[e]
	}
	for e := range r.blk.fzRow {
		i, k := r.blk.fzRow[e], r.blk.fzCol[e]
		for c := range blockCols[comp[r.nz+k]] {
			if _, ok := rows[i][c]; !ok {
				rows[i][c] = -1
			}
		}
	}
	p := &model.Pattern{Rows: r.nx, Cols: ncols, RowPtr: make([]int, r.nx+1)}
	var plan reducePlan
	for i, row := range rows {
		cols := make([]int, 0, len(row))
		for c := range row {
			cols = append(cols, c)
		}
		slices.Sort(cols)
		for _, c := range cols {
			p.ColIdx = append(p.ColIdx, c)
			plan.direct = append(plan.direct, row[c])
			plan.row = append(plan.row, i)
			plan.col = append(plan.col, c)
		}
		p.RowPtr[i+1] = len(p.ColIdx)
	}
	return p, plan
}

func uniqueSorted(xs []int) []int {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

func (r *Model) get() *work  { w := r.pool.Get().(*work); w.withD = false; return w }
func (r *Model) put(w *work) { r.pool.Put(w) }
func nanFill(dst []float64)  { fillValue(dst, math.NaN()) }
func fillValue(d []float64, v float64) {
	for i := range d {
		d[i] = v
	}
}

// solve sets w.full to (x, z) with g(t, x, z, p) = 0 and leaves w.gz
// factored at the solution (w.jxv holds the wrapped Jx there). It reports
// false when g_z is singular, a value is not finite, or Newton does not
// converge.
func (r *Model) solve(w *work, t float64, x, p []float64) bool {
	// A solve with delayed values (withD) also depends on w.d, which the
	// key does not hold: such solves neither use nor fill the cache.
	if !w.withD && w.cached && w.zValid && math.Float64bits(t) == math.Float64bits(w.ct) && sameBits(x, w.cx) && sameBits(p, w.cp) {
		return true
	}
	w.cached = false
	if !r.newton(w, t, x, p) {
		return false
	}
	w.cached, w.ct = !w.withD, t
	copy(w.cx, x)
	copy(w.cp, p)
	return true
}

// sameBits reports whether a and b hold the same bits (NaNs included, -0
// and 0 told apart: the cache must return what a solve would).
func sameBits(a, b []float64) bool {
	for i, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// newton is solve without the cache.
func (r *Model) newton(w *work, t float64, x, p []float64) bool {
	nx, nz := r.nx, r.nz
	copy(w.full[:nx], x)
	w.degenerate = false
	z := w.full[nx:]
	if !w.zValid || !finite(z) {
		// No earlier solution in this scratch space: start from the
		// wrapped model's guess.
		r.in.InitialState(w.full, p)
		copy(w.full[:nx], x)
		if !finite(z) {
			clear(z)
		}
	}
	w.zValid = true
	r.inF(w, t, p)
	res := norm2(w.fz[nx:])
	kicks := 0
	for it := 0; it < maxNewton; it++ {
		if !(res <= math.MaxFloat64) {
			w.zValid = false
			return false
		}
		if !r.factor(w, t, p) {
			w.degenerate = res == 0
			if res == 0 || kicks == maxKicks {
				w.zValid = false
				return false
			}
			// g_z singular away from a solution (typically at a first
			// guess where a product of variables vanishes, or two are
			// equal): move off it, by different amounts per variable
			// so that a symmetry is broken too, and go on.
			kicks++
			for k := range z {
				z[k] += 1e-3 * (1 + math.Abs(z[k])) * (1 + 0.37*float64(k))
			}
			r.inF(w, t, p)
			res = norm2(w.fz[nx:])
			continue
		}
		if res == 0 {
			return true
		}
		copy(w.dz, w.fz[nx:])
		dense.Solve(w.gz, nz, w.piv, w.dz)
		// The absolute floor is the rounding level of the largest
		// variable: a variable converging to 0 (a species used up by a
		// fast reaction) has steps as large as itself all the way down.
		floor := newtonATol
		for _, v := range z {
			floor = math.Max(floor, 1e-16*math.Abs(v))
		}
		small := true
		for k := range z {
			if math.Abs(w.dz[k]) > newtonRTol*math.Abs(z[k])+floor {
				small = false
				break
			}
		}
		if small {
			// Converged: the full step is at the level of rounding,
			// where the residual is noise and no test of its decrease
			// means anything.
			for k := range z {
				z[k] -= w.dz[k]
			}
			return r.factor(w, t, p)
		}
		copy(w.ztry, z)
		lambda := 1.0
		for back := 0; ; back++ {
			for k := range z {
				z[k] = w.ztry[k] - lambda*w.dz[k]
			}
			r.inF(w, t, p)
			resNew := norm2(w.fz[nx:])
			if resNew < res || back == maxBack {
				res = resNew
				break
			}
			lambda /= 2
		}
	}
	w.zValid = false
	return false
}

// factor evaluates the wrapped Jx at w.full and factors g_z into w.gz.
func (r *Model) factor(w *work, t float64, p []float64) bool {
	r.inJx(w, t, p)
	clear(w.gz)
	for e, k := range r.blk.gzIdx {
		w.gz[r.blk.gzRow[e]*r.nz+r.blk.gzCol[e]] = w.jxv[k]
	}
	return dense.Factor(w.gz, r.nz, w.piv)
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func norm2(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// Name is the wrapped model's name.
func (r *Model) Name() string { return r.in.Name() }

// StateNames returns the differential states' names.
func (r *Model) StateNames() []string { return slices.Clone(r.names) }

// AlgebraicNames returns the algebraic variables' names, in order.
func (r *Model) AlgebraicNames() []string { return slices.Clone(r.zNames) }

// ParamNames returns the parameters' names.
func (r *Model) ParamNames() []string { return r.in.ParamNames() }

// DefaultParams writes the default parameters into dst.
func (r *Model) DefaultParams(dst []float64) { r.in.DefaultParams(dst) }

// Wrapped returns the wrapped model.
func (r *Model) Wrapped() model.Algebraic { return r.in }

// InitialState writes x(t0) into dst; it is NaN when the algebraic
// variables cannot be solved at t = 0 (Consistent says why).
func (r *Model) InitialState(dst []float64, p []float64) {
	w := r.get()
	defer r.put(w)
	r.in.InitialState(w.full, p)
	copy(dst, w.full[:r.nx])
	r.initialDelayed(w, p)
	w.zValid = false // start from the guess, not from another solve
	if !r.solve(w, 0, dst, p) {
		nanFill(dst)
	}
}

// InitialSens writes dx(t0)/dp (nx x np) into dst.
func (r *Model) InitialSens(dst []float64, p []float64) {
	full := make([]float64, r.n*r.np)
	r.in.InitialSens(full, p)
	copy(dst, full[:r.nx*r.np])
}

// Consistent solves the algebraic variables at t = 0 for p from the
// wrapped model's first guess, writes them into z (length NumAlgebraic;
// nil to discard) and returns an error naming the variables when that
// fails.
func (r *Model) Consistent(z, p []float64) error {
	w := r.get()
	defer r.put(w)
	r.in.InitialState(w.full, p)
	x := slices.Clone(w.full[:r.nx])
	r.initialDelayed(w, p)
	w.zValid = false
	if !r.solve(w, 0, x, p) {
		if w.degenerate {
			return fmt.Errorf("dae: model %q: %w: the algebraic equations for %s hold at t = 0 but their derivative in these variables is singular there", r.Name(), ErrNotIndex1, r.zList())
		}
		return fmt.Errorf("dae: model %q: the algebraic equations for %s have no solution found at t = 0 (singular derivative in these variables, a value that is not finite, or no convergence from the initial values)", r.Name(), r.zList())
	}
	if z != nil {
		copy(z, w.full[r.nx:])
	}
	return nil
}

func (r *Model) zList() string {
	q := make([]string, len(r.zNames))
	for i, s := range r.zNames {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// F writes the reduced f(t, x, p) = f(t, x, z(t, x, p), p) into dst (NaN
// when z cannot be solved).
func (r *Model) F(dst []float64, t float64, x, p []float64) {
	w := r.get()
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		nanFill(dst)
		return
	}
	r.inF(w, t, p)
	copy(dst, w.fz[:r.nx])
}

// Algebraic writes z(t, x, p) into dst (length NumAlgebraic), NaN when it
// cannot be solved.
func (r *Model) Algebraic(dst []float64, t float64, x, p []float64) {
	w := r.get()
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		nanFill(dst)
		return
	}
	copy(dst, w.full[r.nx:])
}

// JxPattern returns a copy of the reduced Jx's pattern.
func (r *Model) JxPattern() *model.Pattern { return clonePattern(r.jx) }

// JpPattern returns a copy of the reduced Jp's pattern.
func (r *Model) JpPattern() *model.Pattern { return clonePattern(r.jp) }

func clonePattern(p *model.Pattern) *model.Pattern {
	return &model.Pattern{Rows: p.Rows, Cols: p.Cols, RowPtr: slices.Clone(p.RowPtr), ColIdx: slices.Clone(p.ColIdx)}
}

// gInvTo writes W = g_z^{-1} g_v (row-major nz x ncols) into w.w from the
// factored g_z, for g_v's entries (rows, cols, indices into vals).
func (r *Model) gInvTo(w *work, ncols int, gRow, gCol, gIdx []int, vals []float64) []float64 {
	W := w.w[:r.nz*ncols]
	clear(W)
	for e, k := range gIdx {
		W[gRow[e]*ncols+gCol[e]] = vals[k]
	}
	dense.SolveMulti(w.gz, r.nz, w.piv, W, ncols)
	return W
}

// apply writes the reduced values of plan into dst: direct values from
// vals, minus f_z W.
func (r *Model) apply(dst []float64, plan *reducePlan, vals []float64, W []float64, ncols int, jxv []float64) {
	b := &r.blk
	// f_z entries by row: they are sorted by row (classify walks rows).
	e := 0
	for q := range dst {
		v := 0.0
		if k := plan.direct[q]; k >= 0 {
			v = vals[k]
		}
		i, c := plan.row[q], plan.col[q]
		for e < len(b.fzRow) && b.fzRow[e] < i {
			e++
		}
		for f := e; f < len(b.fzRow) && b.fzRow[f] == i; f++ {
			v -= jxv[b.fzIdx[f]] * W[b.fzCol[f]*ncols+c]
		}
		dst[q] = v
	}
}

// Jx writes the reduced df/dx in JxPattern order.
func (r *Model) Jx(dst []float64, t float64, x, p []float64) {
	w := r.get()
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		nanFill(dst)
		return
	}
	W := r.gInvTo(w, r.nx, r.blk.gxRow, r.blk.gxCol, r.blk.gxIdx, w.jxv)
	r.apply(dst, &r.jxPlan, w.jxv, W, r.nx, w.jxv)
}

// Jp writes the reduced df/dp in JpPattern order.
func (r *Model) Jp(dst []float64, t float64, x, p []float64) {
	w := r.get()
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		nanFill(dst)
		return
	}
	r.in.Jp(w.jpv, t, w.full, p)
	W := r.gInvTo(w, r.np, r.blk.gpRow, r.blk.gpCol, r.blk.gpIdx, w.jpv)
	r.apply(dst, &r.jpPlan, w.jpv, W, r.np, w.jxv)
}

// AlgebraicSens writes dz/dp = -g_z^{-1} (g_x S + g_p) at (t, x, p) into
// dst (row-major nz x np), S = dx/dp being row-major nx x np. It
// allocates.
func (r *Model) AlgebraicSens(dst []float64, t float64, x, S, p []float64) error {
	w := r.get()
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		return fmt.Errorf("dae: model %q: no solution of the algebraic equations at t = %g", r.Name(), t)
	}
	r.in.Jp(w.jpv, t, w.full, p)
	rhs := make([]float64, r.nz*r.np)
	for e, k := range r.blk.gpIdx {
		rhs[r.blk.gpRow[e]*r.np+r.blk.gpCol[e]] += w.jpv[k]
	}
	for e, k := range r.blk.gxIdx {
		row, c, v := r.blk.gxRow[e], r.blk.gxCol[e], w.jxv[k]
		for j := 0; j < r.np; j++ {
			rhs[row*r.np+j] += v * S[c*r.np+j]
		}
	}
	dense.SolveMulti(w.gz, r.nz, w.piv, rhs, r.np)
	for i, v := range rhs {
		dst[i] = -v
	}
	return nil
}

// Outputs returns the wrapped model's outputs and then the algebraic
// variables not among them.
func (r *Model) Outputs() []string { return slices.Clone(r.outNames) }

// OutputsTo writes the outputs at (t, x, p) into dst.
func (r *Model) OutputsTo(dst []float64, t float64, x, p []float64) {
	w := r.get()
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		nanFill(dst)
		return
	}
	if r.obs != nil {
		r.obs.OutputsTo(dst[:r.nInOut], t, w.full, p)
	}
	for q, k := range r.zOut {
		dst[r.nInOut+q] = w.full[r.nx+k]
	}
}
