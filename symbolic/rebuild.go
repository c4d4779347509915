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
// result. Shared subexpressions are rebuilt once.
func (b *Builder) Substitute(n *Node, repl map[*Node]*Node) *Node {
	memo := make(map[*Node]*Node)
	return b.substitute(n, repl, memo)
}

func (b *Builder) substitute(n *Node, repl map[*Node]*Node, memo map[*Node]*Node) *Node {
	if r, ok := repl[n]; ok {
		return r
	}
	if len(n.Args) == 0 {
		return n
	}
	if r, ok := memo[n]; ok {
		return r
	}
	args := make([]*Node, len(n.Args))
	changed := false
	for i, a := range n.Args {
		args[i] = b.substitute(a, repl, memo)
		changed = changed || args[i] != a
	}
	r := n
	if changed {
		r = b.Apply(n, args)
	}
	memo[n] = r
	return r
}
