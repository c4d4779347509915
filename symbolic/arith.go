package symbolic

import (
	"encoding/binary"
	"math"
	"slices"
)

// Add returns the sum of args (0 for none): nested sums flattened (a
// numeric multiple of a sum is expanded: 2*(x + y) + z -> 2*x + 2*y + z),
// constants folded into one leading constant, like terms collected
// (x + 2*x -> 3*x, terms whose coefficient becomes 0 dropped), terms in
// canonical order.
func (b *Builder) Add(args ...*Node) *Node {
	if r, key := b.memoGet(OpAdd, args); r != nil {
		return r
	} else if key != "" {
		r := b.add(args)
		b.memo[key] = r
		return r
	}
	return b.add(args)
}

// memoGet looks up a sum or product of these arguments built before.
// Flattening makes Add and Mul cost the size of nested sums and products,
// not their own argument count, so the same call repeated (the rows of a
// Jacobian each negating one shared total, say) would cost that size every
// time; the memo makes repeats cost their argument count. The result is a
// pure function of the interned arguments, so the memo changes no node
// and no creation order. Calls with one or two leaf arguments are not
// memoised (they are cheap). key is "" when the call is not memoised.
func (b *Builder) memoGet(op Op, args []*Node) (*Node, string) {
	wide := false
	for _, a := range args {
		if len(a.Args) > 0 {
			wide = true
			break
		}
	}
	if !wide {
		return nil, ""
	}
	k := b.key[:0]
	k = append(k, byte(op))
	for _, a := range args {
		k = binary.LittleEndian.AppendUint32(k, uint32(a.id))
	}
	b.key = k
	if r, ok := b.memo[string(k)]; ok {
		return r, ""
	}
	if b.memo == nil {
		b.memo = make(map[string]*Node)
	}
	return nil, string(k)
}

func (b *Builder) add(args []*Node) *Node {
	c := 0.0
	terms := make([]term, 0, len(args))
	var push func(a *Node, k float64)
	push = func(a *Node, k float64) {
		switch {
		case a.Op == OpConst:
			c += k * a.Val
		case a.Op == OpAdd:
			for _, t := range a.Args {
				push(t, k)
			}
		default:
			t := b.splitTerm(a)
			t.coef *= k
			if t.rest.Op == OpAdd { // c*(x + y) -> c*x + c*y
				push(t.rest, t.coef)
			} else {
				terms = append(terms, t)
			}
		}
	}
	for _, a := range args {
		push(a, 1)
	}
	if math.IsNaN(c) {
		return b.Const(c) // NaN + anything is NaN
	}
	slices.SortStableFunc(terms, func(x, y term) int { return compareNodes(x.rest, y.rest) })
	out := make([]*Node, 1, len(terms)+1)
	for i := 0; i < len(terms); {
		t := terms[i]
		j := i + 1
		for ; j < len(terms) && terms[j].rest == t.rest; j++ {
			t.coef += terms[j].coef
		}
		i = j
		if t.coef == 0 {
			continue // x - x -> 0 (documented: also for Inf and NaN x)
		}
		if math.IsNaN(t.coef) { // Inf*x - Inf*x
			return b.Const(t.coef)
		}
		out = append(out, b.scaled(t.coef, t.rest))
	}
	if c != 0 {
		out[0] = b.Const(c)
	} else {
		out = out[1:]
	}
	switch len(out) {
	case 0:
		return b.Const(0)
	case 1:
		return out[0]
	}
	return b.intern(OpAdd, out, 0, "", 0)
}

// term is coef*rest, rest a non-constant node that is not a Mul with a
// constant coefficient.
type term struct {
	coef float64
	rest *Node
}

// splitTerm splits a canonical non-constant, non-Add node into its numeric
// coefficient and the rest.
func (b *Builder) splitTerm(a *Node) term {
	if a.Op != OpMul || a.Args[0].Op != OpConst {
		return term{1, a}
	}
	if len(a.Args) == 2 {
		return term{a.Args[0].Val, a.Args[1]}
	}
	return term{a.Args[0].Val, b.intern(OpMul, a.Args[1:], 0, "", 0)}
}

// scaled returns c*rest for a rest as produced by splitTerm, in canonical
// Mul form without re-simplifying.
func (b *Builder) scaled(c float64, rest *Node) *Node {
	if c == 1 {
		return rest
	}
	if rest.Op == OpMul {
		args := make([]*Node, 0, len(rest.Args)+1)
		args = append(args, b.Const(c))
		return b.intern(OpMul, append(args, rest.Args...), 0, "", 0)
	}
	return b.intern(OpMul, []*Node{b.Const(c), rest}, 0, "", 0)
}

// Mul returns the product of args (1 for none): nested products
// flattened, constants folded into one leading coefficient (0 absorbs
// everything, documented), powers of the same base combined
// (x*x -> x^2, x^a*x^b -> x^(a+b)), factors in canonical order of their
// bases. Sums are not expanded here (Add expands a numeric multiple of a
// sum).
func (b *Builder) Mul(args ...*Node) *Node {
	if r, key := b.memoGet(OpMul, args); r != nil {
		return r
	} else if key != "" {
		r := b.mul(args)
		b.memo[key] = r
		return r
	}
	return b.mul(args)
}

func (b *Builder) mul(args []*Node) *Node {
	c := 1.0
	fs := make([]factor, 0, len(args))
	push := func(a *Node) {
		switch a.Op {
		case OpConst:
			c *= a.Val
		case OpPow:
			fs = append(fs, factor{a.Args[0], a.Args[1]})
		default:
			fs = append(fs, factor{a, nil})
		}
	}
	for _, a := range args {
		if a.Op == OpMul {
			for _, f := range a.Args {
				push(f)
			}
		} else {
			push(a)
		}
	}
	if c == 0 || math.IsNaN(c) {
		return b.Const(c) // x*0 -> 0 (documented); NaN*x is NaN
	}
	slices.SortStableFunc(fs, func(x, y factor) int { return compareNodes(x.base, y.base) })
	out := make([]*Node, 1, len(fs)+1)
	renorm := false
	for i := 0; i < len(fs); {
		f := fs[i]
		j := i + 1
		if j < len(fs) && fs[j].base == f.base {
			exps := []*Node{f.exp1(b)}
			for ; j < len(fs) && fs[j].base == f.base; j++ {
				exps = append(exps, fs[j].exp1(b))
			}
			f.exp = b.Add(exps...)
		}
		i = j
		var g *Node
		if f.exp == nil {
			g = f.base
		} else {
			g = b.Pow(f.base, f.exp)
		}
		if g.Op == OpConst { // x^0, or constant bases folded
			c *= g.Val
			continue
		}
		out = append(out, g)
		renorm = renorm || g.Op == OpMul // (x*y)^2 * (x*y)^-1
	}
	if c == 0 || math.IsNaN(c) {
		return b.Const(c)
	}
	if renorm {
		out[0] = b.Const(c)
		return b.Mul(out...)
	}
	if c != 1 {
		out[0] = b.Const(c)
	} else {
		out = out[1:]
	}
	switch len(out) {
	case 0:
		return b.Const(c)
	case 1:
		return out[0]
	}
	return b.intern(OpMul, out, 0, "", 0)
}

// factor is base^exp; exp is nil for an exponent of 1.
type factor struct {
	base, exp *Node
}

func (f factor) exp1(b *Builder) *Node {
	if f.exp == nil {
		return b.Const(1)
	}
	return f.exp
}
