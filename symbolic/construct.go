package symbolic

import "math"

// Constructors. Each returns an interned node; they simplify as they build
// (constant folding, neutral and absorbing elements, canonical argument
// order for Add and Mul), so callers never see an unsimplified node.

// Const returns the constant v.
func (b *Builder) Const(v float64) *Node { return b.intern(OpConst, nil, v, "", 0) }

// Sym returns the symbol name of the given kind.
func (b *Builder) Sym(name string, kind SymKind) *Node { return b.intern(OpSym, nil, 0, name, kind) }

// Time returns the time symbol t.
func (b *Builder) Time() *Node { return b.Sym("t", KindTime) }

// Add returns the sum of args (0 for none).
func (b *Builder) Add(args ...*Node) *Node { return b.nary(OpAdd, args) }

// Mul returns the product of args (1 for none).
func (b *Builder) Mul(args ...*Node) *Node { return b.nary(OpMul, args) }

// Sub returns a - c.
func (b *Builder) Sub(a, c *Node) *Node { return b.Add(a, b.Neg(c)) }

// Neg returns -a.
func (b *Builder) Neg(a *Node) *Node { return b.Mul(b.Const(-1), a) }

// Div returns a / c.
func (b *Builder) Div(a, c *Node) *Node { return b.Mul(a, b.Pow(c, b.Const(-1))) }

// Pow returns a^e.
func (b *Builder) Pow(a, e *Node) *Node {
	if a.Op == OpConst && e.Op == OpConst {
		return b.Const(math.Pow(a.Val, e.Val))
	}
	if e.IsConst(1) {
		return a
	}
	if e.IsConst(0) {
		return b.Const(1)
	}
	return b.intern(OpPow, []*Node{a, e}, 0, "", 0)
}

// Root returns the degree-th root of x.
func (b *Builder) Root(degree, x *Node) *Node { return b.Pow(x, b.Pow(degree, b.Const(-1))) }

// Log returns the logarithm of x to the given base.
func (b *Builder) Log(base, x *Node) *Node { return b.Div(b.Func(OpLn, x), b.Func(OpLn, base)) }

// Func applies the unary function op (OpExp .. OpAcoth, OpNot) to a.
func (b *Builder) Func(op Op, a *Node) *Node {
	if a.Op == OpConst {
		if v, ok := evalUnary(op, a.Val); ok {
			return b.Const(v)
		}
	}
	return b.intern(op, []*Node{a}, 0, "", 0)
}

// Piecewise returns piecewise(v1, c1, v2, c2, ..., otherwise). args must
// have odd length; pass Const(NaN) as otherwise when the SBML has none.
func (b *Builder) Piecewise(args ...*Node) *Node {
	if len(args)%2 != 1 {
		panic("symbolic: Piecewise needs an odd number of arguments")
	}
	return b.intern(OpPiecewise, args, 0, "", 0)
}

// Rel returns the binary relation op (OpEq .. OpGeq) of a and c.
func (b *Builder) Rel(op Op, a, c *Node) *Node { return b.intern(op, []*Node{a, c}, 0, "", 0) }

// Logic returns the logical op (OpAnd, OpOr, OpXor) of args, or OpNot of one.
func (b *Builder) Logic(op Op, args ...*Node) *Node { return b.intern(op, args, 0, "", 0) }

// nary builds a flattened n-ary Add or Mul with constants folded.
func (b *Builder) nary(op Op, args []*Node) *Node {
	neutral := 0.0
	if op == OpMul {
		neutral = 1
	}
	acc := neutral
	var rest []*Node
	var flat func([]*Node)
	flat = func(as []*Node) {
		for _, a := range as {
			switch {
			case a.Op == op:
				flat(a.Args)
			case a.Op == OpConst && op == OpAdd:
				acc += a.Val
			case a.Op == OpConst:
				acc *= a.Val
			default:
				rest = append(rest, a)
			}
		}
	}
	flat(args)
	if op == OpMul && acc == 0 {
		return b.Const(0)
	}
	if acc != neutral {
		rest = append([]*Node{b.Const(acc)}, rest...)
	}
	switch len(rest) {
	case 0:
		return b.Const(neutral)
	case 1:
		return rest[0]
	}
	return b.intern(op, rest, 0, "", 0)
}

func evalUnary(op Op, x float64) (float64, bool) {
	switch op {
	case OpExp:
		return math.Exp(x), true
	case OpLn:
		return math.Log(x), true
	case OpAbs:
		return math.Abs(x), true
	case OpSin:
		return math.Sin(x), true
	case OpCos:
		return math.Cos(x), true
	}
	return 0, false
}
