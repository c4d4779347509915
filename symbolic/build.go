package symbolic

import (
	"cmp"
	"fmt"
	"slices"
)

// Build checks ode and derives its System: F (the rates), X0 (the initial
// values), and the sparse Jacobians Jx = dF/dx, Jp = dF/dp and
// X0p = dX0/dp, each sorted by (Row, Col) without structural zeros (an
// entry whose simplified derivative is the constant 0 is left out).
//
// Events are checked like outputs (time, states and parameters only;
// assignment targets are states, once per event) and passed on in
// sys.ODE.Events; their derivatives are not formed here.
//
// It returns an error, naming the offending state or parameter, if ode
// has no Builder, a name is empty or used twice (states and parameters share one
// namespace; outputs have their own), a Rate, Init or output Expr is nil or comes
// from another Builder, an expression is higher than MaxDepth, a symbol is
// neither time nor a declared state or parameter, an Init depends on a state
// or on t, or a derivative cannot be formed (factorial of a variable), and
// an error wrapping ErrTooLarge if the Jacobians would have more than
// MaxNonzeros entries or forming them would add more than MaxBuildSize
// plus the Builder's size to the Builder.
//
// Only the symbols that occur in f_i are differentiated against, one memo
// per variable is shared by all rows, and subexpressions without the
// variable are skipped (free-symbol sets are cached), so the cost is
// roughly the size of the parts of the DAG that contain each variable.
func Build(ode *ODE) (*System, error) {
	if ode == nil {
		panic("symbolic: Build: nil ODE")
	}
	b := ode.B
	if b == nil {
		return nil, fmt.Errorf("symbolic: model %q: ODE has no Builder", ode.Name)
	}
	stateIdx := make(map[string]int, len(ode.States))
	paramIdx := make(map[string]int, len(ode.Params))
	seen := make(map[string]string)
	declare := func(what, name string) error {
		if name == "" {
			return fmt.Errorf("symbolic: model %q: %s with an empty name", ode.Name, what)
		}
		if prev, ok := seen[name]; ok {
			return fmt.Errorf("symbolic: model %q: %s %q has the name of a %s", ode.Name, what, name, prev)
		}
		seen[name] = what
		return nil
	}
	for i, s := range ode.States {
		if err := declare("state", s.Name); err != nil {
			return nil, err
		}
		stateIdx[s.Name] = i
	}
	for j, p := range ode.Params {
		if err := declare("parameter", p.Name); err != nil {
			return nil, err
		}
		paramIdx[p.Name] = j
	}
	// Outputs have a namespace of their own: an observable may carry the
	// name of a state or parameter (the SBML reader reports every id as the
	// value math sees, which for an amount state is its concentration).
	outSeen := make(map[string]bool, len(ode.Outputs))
	for _, o := range ode.Outputs {
		if o.Name == "" {
			return nil, fmt.Errorf("symbolic: model %q: output with an empty name", ode.Name)
		}
		if outSeen[o.Name] {
			return nil, fmt.Errorf("symbolic: model %q: output %q is defined twice", ode.Name, o.Name)
		}
		outSeen[o.Name] = true
	}

	delayIdx := ode.DelayIndex()
	if len(delayIdx) != len(ode.Delays) {
		return nil, fmt.Errorf("symbolic: model %q: a delayed value's name is used twice", ode.Name)
	}
	deps := newDepIndex()
	// allowed checks the symbols of one root, sorted by kind then name (as
	// FreeSymbols sorts them), and returns its states and parameters, each
	// sorted by index.
	allowed := func(what, name string, syms []*Node, initial bool) (xs, ps []*Node, err error) {
		slices.SortFunc(syms, func(a, c *Node) int {
			if r := cmp.Compare(a.Kind, c.Kind); r != 0 {
				return r
			}
			return cmp.Compare(a.Name, c.Name)
		})
		for _, s := range syms {
			var ok bool
			switch s.Kind {
			case KindTime:
				ok = !initial
			case KindState:
				_, ok = stateIdx[s.Name]
				ok = ok && !initial
				xs = append(xs, s)
			case KindParam:
				_, ok = paramIdx[s.Name]
				ps = append(ps, s)
			case KindDelay:
				_, ok = delayIdx[s.Name]
				ok = ok && !initial
			}
			if !ok {
				return nil, nil, fmt.Errorf("symbolic: model %q: %s of %q uses %s %q, which is not allowed there", ode.Name, what, name, s.Kind, s.Name)
			}
		}
		xi := make([]int, len(xs))
		for k, x := range xs {
			xi[k] = stateIdx[x.Name]
		}
		sortBy(xs, xi)
		pi := make([]int, len(ps))
		for k, p := range ps {
			pi[k] = paramIdx[p.Name]
		}
		sortBy(ps, pi)
		return xs, ps, nil
	}
	// check validates one root and returns its state and parameter
	// symbols; seen, if not nil, is shared with earlier roots whose
	// symbols need no second look.
	check := func(what, name string, n *Node, initial bool, seen map[*Node]bool) (xs, ps []*Node, err error) {
		switch {
		case n == nil:
			return nil, nil, fmt.Errorf("symbolic: model %q: %s of %q is nil", ode.Name, what, name)
		case !b.Owns(n):
			return nil, nil, fmt.Errorf("symbolic: model %q: %s of %q comes from another Builder", ode.Name, what, name)
		case n.Height() > MaxDepth:
			return nil, nil, fmt.Errorf("symbolic: model %q: %s of %q: %w (height %d)", ode.Name, what, name, ErrTooDeep, n.Height())
		}
		if seen == nil {
			seen = make(map[*Node]bool)
		}
		return allowed(what, name, deps.symbols(b, n, seen), initial)
	}

	sys := &System{ODE: ode, B: b, F: make([]*Node, len(ode.States)), X0: make([]*Node, len(ode.States))}
	fx := make([][]*Node, len(ode.States))
	fp := make([][]*Node, len(ode.States))
	ip := make([][]*Node, len(ode.States))
	nnz := 0
	held := slices.ContainsFunc(ode.States, func(s State) bool { return s.Held })
	for i, s := range ode.States {
		var err error
		if fx[i], fp[i], err = check("rate", s.Name, s.Rate, false, nil); err != nil {
			return nil, err
		}
		if _, ip[i], err = check("initial value", s.Name, s.Init, true, nil); err != nil {
			return nil, err
		}
		if s.Held && !s.Rate.IsConst(0) {
			return nil, fmt.Errorf("symbolic: model %q: state %q is held between events but has a rate", ode.Name, s.Name)
		}
		if held {
			fx[i] = slices.DeleteFunc(fx[i], func(x *Node) bool { return ode.States[stateIdx[x.Name]].Held })
		}
		// The structural nonzeros bound the work and the output of the
		// differentiation below; a dense Jacobian of a large system is
		// refused before it is formed.
		if nnz += len(fx[i]) + len(fp[i]) + len(ip[i]); nnz > MaxNonzeros {
			return nil, fmt.Errorf("symbolic: model %q: %w: the Jacobians would have more than %d nonzeros (the rate of %q alone depends on %d states and %d parameters)",
				ode.Name, ErrTooLarge, MaxNonzeros, s.Name, len(fx[i]), len(fp[i]))
		}
		sys.F[i], sys.X0[i] = s.Rate, s.Init
	}
	// Outputs are only checked, so one walk over all of them suffices.
	outNodes := make(map[*Node]bool)
	for _, o := range ode.Outputs {
		if _, _, err := check("expression", o.Name, o.Expr, false, outNodes); err != nil {
			return nil, err
		}
	}

	if err := checkDelays(ode, delayIdx, func(what, name string, n *Node, initial bool) error {
		_, _, err := check(what, name, n, initial, nil)
		return err
	}); err != nil {
		return nil, err
	}

	evNodes := make(map[*Node]bool)
	if err := checkEvents(ode, func(what, name string, n *Node) error {
		_, _, err := check(what, name, n, false, evNodes)
		return err
	}); err != nil {
		return nil, err
	}

	var err error
	// Derivatives of a large expression can be much larger still; bound
	// what Build adds so that hostile input ends in an error naming the
	// state, not in exhausted memory.
	row, what := -1, ""
	limit := MaxBuildSize + b.Size()
	if lerr := b.Bounded(limit, func() {
		what = "rate"
		if sys.Jx, err = jacobian(b, deps, sys.F, fx, stateIdx, &row); err != nil {
			return
		}
		if sys.Jp, err = jacobian(b, deps, sys.F, fp, paramIdx, &row); err != nil {
			return
		}
		what = "initial value"
		sys.X0p, err = jacobian(b, deps, sys.X0, ip, paramIdx, &row)
	}); lerr != nil {
		name := "?"
		if row >= 0 && row < len(ode.States) {
			name = ode.States[row].Name
		}
		return nil, fmt.Errorf("symbolic: model %q: derivatives of the %s of %q: %w", ode.Name, what, name, lerr)
	}
	if err != nil {
		return nil, err
	}
	if err := buildGt(sys); err != nil {
		return nil, err
	}
	return sys, nil
}

// buildGt checks ode.Algebraic and differentiates the algebraic residuals
// in t (runtime/dae needs dg/dt for event sensitivities).
func buildGt(sys *System) error {
	ode := sys.ODE
	if ode.Algebraic < 0 || ode.Algebraic > len(ode.States) {
		return fmt.Errorf("symbolic: model %q: %d algebraic variables among %d states", ode.Name, ode.Algebraic, len(ode.States))
	}
	if ode.Algebraic == 0 {
		return nil
	}
	b := sys.B
	first := len(ode.States) - ode.Algebraic
	for i := first; i < len(ode.States); i++ {
		d, err := b.Diff(sys.F[i], b.Time())
		if err != nil {
			return fmt.Errorf("symbolic: model %q: derivative in time of the algebraic equation of %q: %w", ode.Name, ode.States[i].Name, err)
		}
		sys.Gt = append(sys.Gt, d)
	}
	return nil
}

// MaxBuildSize is what Build may add to the Builder (in units of
// Builder.Size), on top of as much as the Builder already holds.
// Published models' derivatives add less than four times the size of the
// system; past the bound Build returns an error wrapping ErrTooLarge.
const MaxBuildSize = 1 << 21

// MaxNonzeros bounds the structural nonzeros of Jx, Jp and X0p together
// (4 million: a dense Jacobian of 2,000 states). Past it Build returns an
// error wrapping ErrTooLarge before differentiating anything.
const MaxNonzeros = 1 << 22

// sortBy sorts ns by the keys ks (parallel slices).
func sortBy(ns []*Node, ks []int) {
	idx := make([]int, len(ns))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, c int) int { return cmp.Compare(ks[a], ks[c]) })
	sorted := make([]*Node, len(ns))
	for i, j := range idx {
		sorted[i] = ns[j]
	}
	copy(ns, sorted)
}

// jacobian differentiates roots[i] with respect to each symbol in vars[i]
// (the symbols that occur in it), with one memo per variable shared by all
// rows, and returns the non-zero entries sorted by (Row, Col).
func jacobian(b *Builder, deps *depIndex, roots []*Node, vars [][]*Node, col map[string]int, row *int) ([]Entry, error) {
	differs := make(map[*Node]*differ)
	var es []Entry
	for i, vs := range vars {
		*row = i
		for _, v := range vs {
			d := differs[v]
			if d == nil {
				d = newDiffer(b, v, deps)
				differs[v] = d
			}
			e, err := d.diff(roots[i])
			if err != nil {
				return nil, err
			}
			if !e.IsConst(0) {
				es = append(es, Entry{Row: i, Col: col[v.Name], Expr: e})
			}
		}
	}
	// Rows are visited in order and vars[i] is sorted by column already.
	return es, nil
}

// FreeSymbols returns the distinct symbols in n, sorted by kind then name.
// It does not recurse.
func FreeSymbols(n *Node) []*Node {
	var syms []*Node
	seen := make(map[*Node]bool)
	stack := []*Node{n}
	for len(stack) > 0 {
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[m] {
			continue
		}
		seen[m] = true
		if m.Op == OpSym {
			syms = append(syms, m)
		}
		stack = append(stack, m.Args...)
	}
	slices.SortFunc(syms, func(a, c *Node) int {
		if r := cmp.Compare(a.Kind, c.Kind); r != 0 {
			return r
		}
		return cmp.Compare(a.Name, c.Name)
	})
	return syms
}

// Exprs returns the expressions of es, in order (for NewProgram or Compile).
func Exprs(es []Entry) []*Node {
	out := make([]*Node, len(es))
	for i, e := range es {
		out[i] = e.Expr
	}
	return out
}

// StateNames returns the names of the states, in order.
func (o *ODE) StateNames() []string {
	out := make([]string, len(o.States))
	for i, s := range o.States {
		out[i] = s.Name
	}
	return out
}

// ParamNames returns the names of the parameters, in order.
func (o *ODE) ParamNames() []string {
	out := make([]string, len(o.Params))
	for i, p := range o.Params {
		out[i] = p.Name
	}
	return out
}

// checkDelays validates the delays: Expr and Tau are expressions of time,
// states, parameters and delayed values of lower index, History of time
// and parameters.
func checkDelays(ode *ODE, index map[string]int, check func(what, name string, n *Node, initial bool) error) error {
	for k, d := range ode.Delays {
		for _, r := range []struct {
			what string
			n    *Node
		}{{"delayed expression", d.Expr}, {"delay", d.Tau}} {
			if err := check(r.what, d.Label, r.n, false); err != nil {
				return err
			}
			for _, s := range FreeSymbols(r.n) {
				if s.Kind == KindDelay && index[s.Name] >= k {
					return fmt.Errorf("symbolic: model %q: %s of %q reads the delayed value %q, which is not listed before it", ode.Name, r.what, d.Label, s.Name)
				}
			}
		}
		if d.History == nil {
			return fmt.Errorf("symbolic: model %q: history of %q is nil", ode.Name, d.Label)
		}
		for _, s := range FreeSymbols(d.History) {
			if s.Kind != KindTime && s.Kind != KindParam {
				return fmt.Errorf("symbolic: model %q: history of %q uses %s %q, which is not allowed there", ode.Name, d.Label, s.Kind, s.Name)
			}
		}
	}
	return nil
}
