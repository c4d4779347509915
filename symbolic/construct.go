package symbolic

import "math"

// Constructors. Each returns an interned node; they simplify as they build
// (see the package documentation for the rules and their exceptions), so
// callers never see an unsimplified node. Add and Mul live in arith.go,
// the logical and conditional constructors in logic.go.

// Const returns the constant v. -0 becomes +0 and every NaN the same NaN, so
// that equal-looking constants are one node.
func (b *Builder) Const(v float64) *Node {
	if v == 0 {
		v = 0
	}
	if math.IsNaN(v) {
		v = math.NaN()
	}
	return b.intern(OpConst, nil, v, "", 0)
}

// Sym returns the symbol name of the given kind.
func (b *Builder) Sym(name string, kind SymKind) *Node { return b.intern(OpSym, nil, 0, name, kind) }

// Time returns the time symbol t.
func (b *Builder) Time() *Node { return b.Sym("t", KindTime) }

// Sub returns a - c.
func (b *Builder) Sub(a, c *Node) *Node { return b.Add(a, b.Neg(c)) }

// Neg returns -a.
func (b *Builder) Neg(a *Node) *Node { return b.Mul(b.Const(-1), a) }

// Div returns a / c, represented as a * c^-1 (two constants fold to a/c,
// correctly rounded).
func (b *Builder) Div(a, c *Node) *Node {
	if a.Op == OpConst && c.Op == OpConst {
		return b.Const(a.Val / c.Val)
	}
	return b.Mul(a, b.Pow(c, b.Const(-1)))
}

// Pow returns a^e.
func (b *Builder) Pow(a, e *Node) *Node {
	switch {
	case a.Op == OpConst && e.Op == OpConst:
		return b.Const(math.Pow(a.Val, e.Val))
	case e.IsConst(1):
		return a
	case e.IsConst(0), a.IsConst(1): // as math.Pow, even for NaN
		return b.Const(1)
	case a.Op == OpPow && e.Op == OpConst && (isInt(e.Val) || isOddInt(a.Args[1])):
		// (x^k)^n = x^(k*n) for integer n, and for odd integer k.
		return b.Pow(a.Args[0], b.Mul(a.Args[1], e))
	case a.Op == OpMul && e.Op == OpConst && isInt(e.Val):
		// (x*y)^n = x^n * y^n for integer n, so that quotients cancel.
		fs := make([]*Node, len(a.Args))
		for i, f := range a.Args {
			fs[i] = b.Pow(f, e)
		}
		return b.Mul(fs...)
	}
	return b.intern(OpPow, []*Node{a, e}, 0, "", 0)
}

func isInt(v float64) bool { return v == math.Trunc(v) && !math.IsInf(v, 0) }

func isOddInt(n *Node) bool {
	return n.Op == OpConst && isInt(n.Val) && math.Abs(math.Mod(n.Val, 2)) == 1
}

// Root returns the degree-th root of x, x^(1/degree).
func (b *Builder) Root(degree, x *Node) *Node { return b.Pow(x, b.Pow(degree, b.Const(-1))) }

// Log returns the logarithm of x to the given base, ln(x)/ln(base).
func (b *Builder) Log(base, x *Node) *Node { return b.Div(b.Func(OpLn, x), b.Func(OpLn, base)) }

// Func applies the unary function op (OpExp .. OpAcoth, OpNot) to a. Any
// other op panics.
func (b *Builder) Func(op Op, a *Node) *Node {
	if !isUnary(op) {
		panic("symbolic: Func: not a unary operator: " + op.String())
	}
	if a.Op == OpConst {
		v, _ := evalUnary(op, a.Val)
		return b.Const(v)
	}
	switch op {
	case OpAbs:
		if a.Op == OpAbs {
			return a
		}
		if a.Op == OpMul && len(a.Args) == 2 && a.Args[0].IsConst(-1) {
			return b.Func(OpAbs, a.Args[1]) // |-u| = |u|
		}
	case OpFloor, OpCeil:
		if a.Op == OpFloor || a.Op == OpCeil {
			return a // already integral
		}
	case OpNot:
		if a.Op == OpNot && isBool(a.Args[0]) {
			return a.Args[0]
		}
	}
	return b.intern(op, []*Node{a}, 0, "", 0)
}
