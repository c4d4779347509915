package symbolic

import "slices"

// Piecewise returns piecewise(v1, c1, v2, c2, ..., otherwise): the first
// value whose condition is true (non-zero), else otherwise. args must have
// odd length; pass Const(NaN) as otherwise when the SBML has none.
// Pairs with a constant false condition are dropped, a constant true
// condition ends the list, a piecewise otherwise is flattened into the
// list, and a piecewise whose values all equal otherwise is that value. With
// no pair left the result is otherwise (NaN if every condition was false and
// there was no otherwise).
func (b *Builder) Piecewise(args ...*Node) *Node {
	if len(args)%2 != 1 {
		panic("symbolic: Piecewise needs an odd number of arguments")
	}
	out := make([]*Node, 0, len(args))
	otherwise := args[len(args)-1]
	for i := 0; i+1 < len(args); i += 2 {
		v, c := args[i], args[i+1]
		if c.Op == OpConst {
			if truth(c.Val) {
				otherwise = v
				break
			}
			continue
		}
		out = append(out, v, c)
	}
	if otherwise.Op == OpPiecewise && len(out) > 0 {
		out = append(out, otherwise.Args...)
		otherwise = out[len(out)-1]
		out = out[:len(out)-1]
	}
	same := true
	for i := 0; i < len(out); i += 2 {
		same = same && out[i] == otherwise
	}
	if same {
		return otherwise
	}
	return b.intern(OpPiecewise, append(out, otherwise), 0, "", 0)
}

// Rel returns the binary relation op (OpEq .. OpGeq) of a and c, 1 or 0,
// folded when both are constants. Any other op panics.
func (b *Builder) Rel(op Op, a, c *Node) *Node {
	if !isRel(op) {
		panic("symbolic: Rel: not a relational operator: " + op.String())
	}
	if a.Op == OpConst && c.Op == OpConst {
		return b.Const(evalRel(op, a.Val, c.Val))
	}
	return b.intern(op, []*Node{a, c}, 0, "", 0)
}

// Logic returns the logical op (OpAnd, OpOr, OpXor) of args, or OpNot of
// exactly one. Nested uses of the same op are flattened, constant
// arguments folded, duplicates removed (cancelled for Xor) and the rest put
// in canonical order. A single remaining argument a becomes a itself if it
// is already a truth value, else a != 0. And() is 1, Or() and Xor() are 0.
func (b *Builder) Logic(op Op, args ...*Node) *Node {
	if op == OpNot {
		if len(args) != 1 {
			panic("symbolic: Logic: OpNot takes one argument")
		}
		return b.Func(OpNot, args[0])
	}
	if op != OpAnd && op != OpOr && op != OpXor {
		panic("symbolic: Logic: not a logical operator: " + op.String())
	}
	var rest []*Node
	odd := false // Xor: parity of the constant arguments
	for _, a := range args {
		sub := []*Node{a}
		if a.Op == op {
			sub = a.Args
		}
		for _, s := range sub {
			if s.Op != OpConst {
				rest = append(rest, s)
				continue
			}
			t := truth(s.Val)
			switch {
			case op == OpAnd && !t:
				return b.Const(0)
			case op == OpOr && t:
				return b.Const(1)
			case op == OpXor:
				odd = odd != t
			}
		}
	}
	slices.SortFunc(rest, compareNodes)
	uniq := rest[:0]
	for i := 0; i < len(rest); {
		j := i + 1
		for j < len(rest) && rest[j] == rest[i] {
			j++
		}
		if op != OpXor || (j-i)%2 == 1 {
			uniq = append(uniq, rest[i])
		}
		i = j
	}
	var r *Node
	switch len(uniq) {
	case 0:
		r = b.Const(b2f(op == OpAnd))
	case 1:
		r = b.truthOf(uniq[0])
	default:
		r = b.intern(op, uniq, 0, "", 0)
	}
	if odd {
		r = b.Func(OpNot, r)
	}
	return r
}

// truthOf returns a as a 1/0 truth value.
func (b *Builder) truthOf(a *Node) *Node {
	if isBool(a) {
		return a
	}
	return b.Rel(OpNeq, a, b.Const(0))
}

// isBool reports whether n always evaluates to 1 or 0.
func isBool(n *Node) bool {
	switch {
	case n.Op == OpConst:
		return n.Val == 0 || n.Val == 1
	case isRel(n.Op), n.Op == OpAnd, n.Op == OpOr, n.Op == OpXor, n.Op == OpNot:
		return true
	}
	return false
}
