package symbolic

import (
	"errors"
	"fmt"
)

// ErrTooDeep is returned (wrapped) for expressions higher than MaxDepth.
var ErrTooDeep = errors.New("symbolic: expression deeper than MaxDepth")

// Diff returns the exact derivative dn/dx, simplified, x a symbol node
// (any kind). Piecewise expressions are differentiated branch by branch
// with their conditions kept; relations, logic, floor and ceil have
// derivative 0 (almost everywhere); |u|' is sign(u)*u' with sign(0) = 0.
// The derivative of factorial(u) for u depending on x is an error (it needs
// the digamma function, which pbgen does not have). Shared subexpressions
// are differentiated once, so the cost is linear in the size of the DAG.
// Diff panics if x is not a symbol or if n or x belongs to another Builder.
func (b *Builder) Diff(n, x *Node) (*Node, error) {
	if x == nil || x.Op != OpSym {
		panic("symbolic: Diff: x is not a symbol")
	}
	if !b.Owns(n) || !b.Owns(x) {
		panic("symbolic: Diff: node from another Builder")
	}
	return newDiffer(b, x, newDepIndex()).diff(n)
}

// differ differentiates with respect to one symbol, memoising across calls
// so that roots sharing subexpressions (the rows of f) share the work.
type differ struct {
	b    *Builder
	x    *Node
	deps *depIndex // lets rec skip subexpressions without x
	memo map[*Node]*Node
}

func newDiffer(b *Builder, x *Node, deps *depIndex) *differ {
	return &differ{b: b, x: x, deps: deps, memo: make(map[*Node]*Node)}
}

func (d *differ) diff(n *Node) (*Node, error) {
	if n.Height() > MaxDepth {
		return nil, fmt.Errorf("%w: height %d", ErrTooDeep, n.Height())
	}
	return d.rec(n)
}

func (d *differ) rec(n *Node) (*Node, error) {
	switch n.Op {
	case OpConst:
		return d.b.Const(0), nil
	case OpSym:
		return d.b.Const(b2f(n == d.x)), nil
	}
	if !d.deps.mayDepend(n, d.x) {
		return d.b.Const(0), nil
	}
	if r, ok := d.memo[n]; ok {
		return r, nil
	}
	if n.Op == OpAdd { // sums can be wide: keep only the non-zero terms
		var terms []*Node
		args := n.Args
		if len(args) > wideThreshold {
			idx := d.deps.argsWith(n, d.x)
			args = make([]*Node, len(idx))
			for k, i := range idx {
				args[k] = n.Args[i]
			}
		}
		for _, a := range args {
			r, err := d.rec(a)
			if err != nil {
				return nil, err
			}
			if !r.IsConst(0) {
				terms = append(terms, r)
			}
		}
		r := d.b.Add(terms...)
		d.memo[n] = r
		return r, nil
	}
	da := make([]*Node, len(n.Args))
	zero := true
	for i, a := range n.Args {
		if n.Op == OpPiecewise && i%2 == 1 && i != len(n.Args)-1 {
			continue // conditions are kept, not differentiated
		}
		r, err := d.rec(a)
		if err != nil {
			return nil, err
		}
		da[i] = r
		zero = zero && r.IsConst(0)
	}
	var r *Node
	if zero {
		r = d.b.Const(0)
	} else {
		var err error
		if r, err = d.rule(n, da); err != nil {
			return nil, err
		}
	}
	d.memo[n] = r
	return r, nil
}

// rule applies the differentiation rule of n's operator given the
// derivatives da of its arguments (nil for piecewise conditions); at least
// one of them is non-zero.
func (d *differ) rule(n *Node, da []*Node) (*Node, error) {
	b := d.b
	one, two := b.Const(1), b.Const(2)
	switch op := n.Op; {
	case op == OpMul:
		terms := make([]*Node, 0, len(da))
		for i, di := range da {
			if di.IsConst(0) {
				continue
			}
			fs := make([]*Node, 0, len(n.Args))
			fs = append(fs, di)
			fs = append(fs, n.Args[:i]...)
			fs = append(fs, n.Args[i+1:]...)
			terms = append(terms, b.Mul(fs...))
		}
		return b.Add(terms...), nil
	case op == OpPow:
		u, v := n.Args[0], n.Args[1]
		du, dv := da[0], da[1]
		if dv.IsConst(0) { // v u^(v-1) u'
			return b.Mul(v, b.Pow(u, b.Sub(v, one)), du), nil
		}
		if du.IsConst(0) { // u^v ln(u) v'
			return b.Mul(n, b.Func(OpLn, u), dv), nil
		}
		// u^v (v' ln u + v u'/u)
		return b.Mul(n, b.Add(b.Mul(dv, b.Func(OpLn, u)), b.Mul(v, du, b.Pow(u, b.Const(-1))))), nil
	case op == OpPiecewise:
		args := make([]*Node, len(n.Args))
		for i, a := range n.Args {
			if da[i] == nil {
				args[i] = a
			} else if a.Op == OpConst && i == len(n.Args)-1 {
				args[i] = b.Const(0 * a.Val) // keep an undefined otherwise NaN
			} else {
				args[i] = da[i]
			}
		}
		return b.Piecewise(args...), nil
	case isRel(op), op == OpAnd, op == OpOr, op == OpXor, op == OpNot, op == OpFloor, op == OpCeil:
		return b.Const(0), nil
	case op == OpFactorial:
		return nil, fmt.Errorf("symbolic: cannot differentiate %s with respect to %s: derivative of factorial needs digamma", n, d.x.Name)
	}
	u, du := n.Args[0], da[0]
	var g *Node // derivative of the outer function at u
	inv := func(a *Node) *Node { return b.Pow(a, b.Const(-1)) }
	sq := func(a *Node) *Node { return b.Pow(a, two) }
	// sqrt(s*(u^2 - 1)) for the inverse trig/hyperbolic functions
	rt := func(s float64) *Node {
		return b.Pow(b.Mul(b.Const(s), b.Sub(sq(u), one)), b.Const(-0.5))
	}
	f := func(op Op) *Node { return b.Func(op, u) }
	switch n.Op {
	case OpExp:
		g = n
	case OpLn:
		g = inv(u)
	case OpAbs:
		g = b.Piecewise(b.Const(-1), b.Rel(OpLt, u, b.Const(0)), one, b.Rel(OpGt, u, b.Const(0)), b.Const(0))
	case OpSin:
		g = f(OpCos)
	case OpCos:
		g = b.Neg(f(OpSin))
	case OpTan:
		g = sq(f(OpSec))
	case OpSec:
		g = b.Mul(n, f(OpTan))
	case OpCsc:
		g = b.Neg(b.Mul(n, f(OpCot)))
	case OpCot:
		g = b.Neg(sq(f(OpCsc)))
	case OpSinh:
		g = f(OpCosh)
	case OpCosh:
		g = f(OpSinh)
	case OpTanh:
		g = sq(f(OpSech))
	case OpSech:
		g = b.Neg(b.Mul(n, f(OpTanh)))
	case OpCsch:
		g = b.Neg(b.Mul(n, f(OpCoth)))
	case OpCoth:
		g = b.Neg(sq(f(OpCsch)))
	case OpAsin: // 1/sqrt(1-u^2)
		g = rt(-1)
	case OpAcos:
		g = b.Neg(rt(-1))
	case OpAtan: // 1/(1+u^2)
		g = inv(b.Add(one, sq(u)))
	case OpAcot:
		g = b.Neg(inv(b.Add(one, sq(u))))
	case OpAsec: // 1/(|u| sqrt(u^2-1))
		g = b.Mul(inv(f(OpAbs)), rt(1))
	case OpAcsc:
		g = b.Neg(b.Mul(inv(f(OpAbs)), rt(1)))
	case OpAsinh: // 1/sqrt(u^2+1)
		g = b.Pow(b.Add(sq(u), one), b.Const(-0.5))
	case OpAcosh: // 1/sqrt(u^2-1)
		g = rt(1)
	case OpAtanh, OpAcoth: // 1/(1-u^2)
		g = inv(b.Sub(one, sq(u)))
	case OpAsech: // -1/(u sqrt(1-u^2))
		g = b.Neg(b.Mul(inv(u), rt(-1)))
	case OpAcsch: // -1/(|u| sqrt(1+u^2))
		g = b.Neg(b.Mul(inv(f(OpAbs)), b.Pow(b.Add(sq(u), one), b.Const(-0.5))))
	default:
		panic("symbolic: Diff: unknown operator " + n.Op.String())
	}
	return b.Mul(g, du), nil
}
