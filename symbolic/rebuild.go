package symbolic

// Apply rebuilds a node with operator op (and, for leaves, the fields of
// proto) from args through the simplifying constructors. It is the one
// place that maps an Op to its constructor; transformations (substitution,
// differentiation helpers) use it so they simplify as they go.
func (b *Builder) Apply(proto *Node, args []*Node) *Node {
	switch op := proto.Op; op {
	case OpConst, OpSym:
		return proto
	case OpAdd:
		return b.Add(args...)
	case OpMul:
		return b.Mul(args...)
	case OpPow:
		return b.Pow(args[0], args[1])
	case OpPiecewise:
		return b.Piecewise(args...)
	case OpEq, OpNeq, OpLt, OpGt, OpLeq, OpGeq:
		return b.Rel(op, args[0], args[1])
	case OpAnd, OpOr, OpXor:
		return b.Logic(op, args...)
	case OpNot:
		return b.Logic(OpNot, args[0])
	default:
		return b.Func(op, args[0])
	}
}

// Substitute returns n with every node that is a key of repl replaced by
// its value (typically symbols replaced by expressions), simplifying the
// result. Replacement values are not substituted again. Shared
// subexpressions are rebuilt once, and the traversal uses an explicit
// stack, so expressions of any height are accepted.
func (b *Builder) Substitute(n *Node, repl map[*Node]*Node) *Node {
	memo := make(map[*Node]*Node)
	type frame struct {
		n    *Node
		next int
	}
	// done reports whether m's result is known (and records it for leaves
	// and replaced nodes).
	done := func(m *Node) bool {
		if _, ok := memo[m]; ok {
			return true
		}
		if r, ok := repl[m]; ok {
			memo[m] = r
			return true
		}
		if len(m.Args) == 0 {
			memo[m] = m
			return true
		}
		return false
	}
	if done(n) {
		return memo[n]
	}
	stack := []frame{{n, 0}}
	var args []*Node
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.n.Args) {
			a := top.n.Args[top.next]
			top.next++
			if !done(a) {
				stack = append(stack, frame{a, 0})
			}
			continue
		}
		m := top.n
		stack = stack[:len(stack)-1]
		args = args[:0]
		changed := false
		for _, a := range m.Args {
			r := memo[a]
			args = append(args, r)
			changed = changed || r != a
		}
		r := m
		if changed {
			r = b.Apply(m, args)
		}
		memo[m] = r
	}
	return memo[n]
}
