package codegen

import (
	"math"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/pbgen/pbgen/symbolic"
)

const mathPkg = "math"

// Go operator precedences (the spec's five binary levels, plus unary and
// primary expressions on top).
const (
	precOr    = 1
	precAnd   = 2
	precRel   = 3
	precAdd   = 4
	precMul   = 5
	precUnary = 6
)

// code is an emitted Go expression with its precedence; neg is set when it
// starts with a unary minus, so that it is parenthesised as a right operand
// (a * (-b), never a * -b).
type code struct {
	c    jen.Code
	prec int
	neg  bool
}

// operand returns e for use as an operand that needs precedence at least
// min, parenthesised if needed. right says it follows a binary operator.
func (e code) operand(min int, right bool) jen.Code {
	if e.prec < min || (right && e.neg) {
		return jen.Parens(e.c)
	}
	return e.c
}

// binary joins operands left to right with op at precedence prec; left
// operands need prec, right operands prec+1 (all Go binary operators are
// left-associative).
func binary(prec int, op string, es ...code) code {
	out := jen.Null().Add(es[0].operand(prec, false))
	for _, e := range es[1:] {
		out.Op(op).Add(e.operand(prec+1, true))
	}
	return code{c: out, prec: prec, neg: es[0].neg && es[0].prec >= prec}
}

func call(name string, args ...code) code {
	cs := make([]jen.Code, len(args))
	for i, a := range args {
		cs[i] = a.c
	}
	return code{c: jen.Qual(mathPkg, name).Call(cs...), prec: precUnary}
}

func ident(name string) code { return code{c: jen.Id(name), prec: precUnary} }

// lit emits a float64 constant that round-trips exactly: the shortest
// decimal that parses back to v, always with a '.' or an exponent so that
// it is an untyped float constant (1.0/3.0, never the integer division
// 1/3); NaN and infinities as math.NaN() and math.Inf(±1).
func lit(v float64) code {
	switch {
	case math.IsNaN(v):
		return call("NaN")
	case math.IsInf(v, 1):
		return code{c: jen.Qual(mathPkg, "Inf").Call(jen.Lit(1)), prec: precUnary}
	case math.IsInf(v, -1):
		return code{c: jen.Qual(mathPkg, "Inf").Call(jen.Lit(-1)), prec: precUnary}
	case v == 0 && math.Signbit(v):
		return code{c: jen.Qual(mathPkg, "Copysign").Call(jen.Lit(0), jen.Lit(-1)), prec: precUnary}
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !containsAny(s, ".eE") {
		s += ".0"
	}
	return code{c: jen.Id(s), prec: precUnary, neg: v < 0}
}

func containsAny(s, chars string) bool {
	for i := 0; i < len(s); i++ {
		for j := 0; j < len(chars); j++ {
			if s[i] == chars[j] {
				return true
			}
		}
	}
	return false
}

// smallIntExp reports whether e is an integer exponent emitted as repeated
// multiplication (|e| in 2..4), returning |e|.
func smallIntExp(e float64) (int, bool) {
	switch e {
	case 2, 3, 4, -2, -3, -4:
		return int(math.Abs(e)), true
	}
	return 0, false
}

// negExp reports whether a is base^e with a constant e < 0 (a denominator
// factor in a product), returning -e.
func negExp(a *symbolic.Node) (float64, bool) {
	if a.Op == symbolic.OpPow && a.Args[1].Op == symbolic.OpConst && a.Args[1].Val < 0 {
		return -a.Args[1].Val, true
	}
	return 0, false
}

// operands lists the nodes that the emitted expression of n refers to, with
// multiplicity: this is the DAG as emitted, in which c^-1 inside a product is
// a division by c and x^3 is x*x*x. Use counts and liveness are computed on
// it, so that a subexpression is bound to a local exactly when the emitted
// code refers to it more than once.
func operands(n *symbolic.Node) []*symbolic.Node {
	switch n.Op {
	case symbolic.OpMul:
		var out []*symbolic.Node
		for _, a := range n.Args {
			if e, ok := negExp(a); ok {
				out = append(out, powOperands(a.Args[0], e, nil)...)
				continue
			}
			out = append(out, a)
		}
		return out
	case symbolic.OpPow:
		if e := n.Args[1]; e.Op == symbolic.OpConst {
			return powOperands(n.Args[0], e.Val, nil)
		}
	}
	return n.Args
}

func powOperands(base *symbolic.Node, e float64, out []*symbolic.Node) []*symbolic.Node {
	if k, ok := smallIntExp(e); ok {
		for range k {
			out = append(out, base)
		}
		return out
	}
	return append(out, base)
}

// symbolNamer names the locals that hold states, parameters and time.
type symbolNamer interface {
	symRef(n *symbolic.Node) code
}

// emitter prints the expressions of one body. Symbols are printed as
// their locals (syms), nodes in locals by their name (e3, w[2]), anything
// else inline. usedB2F records that some expression needs the b2f helper.
type emitter struct {
	syms    symbolNamer
	locals  map[*symbolic.Node]code
	usedB2F bool
}

// ref returns the code of a symbol or of a node bound to a local (ok false
// if n must be printed inline).
func (em *emitter) ref(n *symbolic.Node) (code, bool) {
	if n.Op == symbolic.OpSym {
		return em.syms.symRef(n), true
	}
	c, ok := em.locals[n]
	return c, ok
}

var unaryFuncs = map[symbolic.Op]string{
	symbolic.OpExp: "Exp", symbolic.OpLn: "Log", symbolic.OpAbs: "Abs",
	symbolic.OpFloor: "Floor", symbolic.OpCeil: "Ceil",
	symbolic.OpSin: "Sin", symbolic.OpCos: "Cos", symbolic.OpTan: "Tan",
	symbolic.OpSinh: "Sinh", symbolic.OpCosh: "Cosh", symbolic.OpTanh: "Tanh",
	symbolic.OpAsin: "Asin", symbolic.OpAcos: "Acos", symbolic.OpAtan: "Atan",
	symbolic.OpAsinh: "Asinh", symbolic.OpAcosh: "Acosh", symbolic.OpAtanh: "Atanh",
}

// f(x) = 1/g(x)
var recipFuncs = map[symbolic.Op]string{
	symbolic.OpSec: "Cos", symbolic.OpCsc: "Sin", symbolic.OpCot: "Tan",
	symbolic.OpSech: "Cosh", symbolic.OpCsch: "Sinh", symbolic.OpCoth: "Tanh",
}

// f(x) = g(1/x)
var ofRecipFuncs = map[symbolic.Op]string{
	symbolic.OpAsec: "Acos", symbolic.OpAcsc: "Asin", symbolic.OpAcot: "Atan",
	symbolic.OpAsech: "Acosh", symbolic.OpAcsch: "Asinh", symbolic.OpAcoth: "Atanh",
}

var relOps = map[symbolic.Op]string{
	symbolic.OpEq: "==", symbolic.OpNeq: "!=", symbolic.OpLt: "<",
	symbolic.OpGt: ">", symbolic.OpLeq: "<=", symbolic.OpGeq: ">=",
}

func one() code { return lit(1) }

// expr emits the numeric value of n: its local if it has one.
func (em *emitter) expr(n *symbolic.Node) code {
	if n.Op == symbolic.OpConst {
		return lit(n.Val)
	}
	if c, ok := em.ref(n); ok {
		return c
	}
	return em.inline(n)
}

// inline emits the numeric value of a non-constant n from its operands,
// even if n has a local: this is how the local itself is defined.
func (em *emitter) inline(n *symbolic.Node) code {
	switch op := n.Op; {
	case op == symbolic.OpAdd:
		return em.sum(n)
	case op == symbolic.OpMul:
		return em.product(n, false)
	case op == symbolic.OpPow:
		if e := n.Args[1]; e.Op == symbolic.OpConst {
			return em.pow(n.Args[0], e.Val)
		}
		return call("Pow", em.expr(n.Args[0]), em.expr(n.Args[1]))
	case op == symbolic.OpFactorial:
		return call("Gamma", binary(precAdd, "+", em.expr(n.Args[0]), one()))
	case isLogical(op):
		em.usedB2F = true
		return code{c: jen.Id("b2f").Call(em.condInline(n).c), prec: precUnary}
	}
	a := n.Args[0]
	if f, ok := unaryFuncs[n.Op]; ok {
		return call(f, em.expr(a))
	}
	if f, ok := recipFuncs[n.Op]; ok {
		return binary(precMul, "/", one(), call(f, em.expr(a)))
	}
	if f, ok := ofRecipFuncs[n.Op]; ok {
		return call(f, binary(precMul, "/", one(), em.expr(a)))
	}
	// Piecewise is always bound to a local (see body.isLocal), so it never
	// gets here.
	panic("codegen: cannot emit operator " + n.Op.String() + " inline")
}

// sum emits a1 + a2 - b3 ...: a term c*r with a constant c < 0 that is
// printed inline becomes "- |c|*r", which is bitwise the same value.
func (em *emitter) sum(n *symbolic.Node) code {
	out := jen.Null()
	var first code
	for i, a := range n.Args {
		_, bound := em.ref(a)
		if i > 0 && a.Op == symbolic.OpMul && !bound && a.Args[0].Op == symbolic.OpConst && a.Args[0].Val < 0 {
			out.Op("-").Add(em.product(a, true).operand(precAdd+1, true))
			continue
		}
		if a.Op == symbolic.OpConst && a.Val < 0 && i > 0 {
			out.Op("-").Add(lit(-a.Val).c)
			continue
		}
		e := em.expr(a)
		if i == 0 {
			first = e
			out.Add(e.operand(precAdd, false))
			continue
		}
		out.Op("+").Add(e.operand(precAdd+1, true))
	}
	return code{c: out, prec: precAdd, neg: first.neg && first.prec >= precAdd}
}

// product emits k * n1 * n2 / (d1 * d2): the leading constant k, the other
// factors left to right, divided by the factors with a negative constant
// exponent. k = -1 becomes a unary minus. abs drops the sign of k (for
// sum, which prints the sign as a subtraction).
func (em *emitter) product(n *symbolic.Node, abs bool) code {
	neg, num, den := em.factors(n, abs)
	out := quotient(num, den)
	if neg {
		return code{c: jen.Op("-").Add(out.operand(precUnary, false)), prec: precUnary, neg: true}
	}
	return out
}

// factors splits the product n into numerator and denominator factors;
// neg reports a leading constant -1 (after abs), which is left out.
func (em *emitter) factors(n *symbolic.Node, abs bool) (neg bool, num, den []code) {
	args := n.Args
	if k := args[0]; k.Op == symbolic.OpConst {
		v := k.Val
		if abs {
			v = math.Abs(v)
		}
		switch v {
		case -1:
			neg = true
		case 1:
		default:
			num = append(num, lit(v))
		}
		args = args[1:]
	}
	for _, a := range args {
		if e, ok := negExp(a); ok {
			den = append(den, em.pow(a.Args[0], e))
			continue
		}
		num = append(num, em.expr(a))
	}
	return neg, num, den
}

// quotient emits n1 * n2 / (d1 * d2); an empty numerator is 1.
func quotient(num, den []code) code {
	var nn code
	switch len(num) {
	case 0:
		nn = one()
	case 1:
		nn = num[0]
	default:
		nn = binary(precMul, "*", num...)
	}
	switch len(den) {
	case 0:
		return nn
	case 1:
		return binary(precMul, "/", nn, den[0])
	}
	return binary(precMul, "/", nn, binary(precMul, "*", den...))
}

// pow emits base^e for a constant e: sqrt for 0.5, repeated multiplication
// for integers 2..4, a reciprocal for negative exponents, else math.Pow.
func (em *emitter) pow(base *symbolic.Node, e float64) code {
	b := em.expr(base)
	switch e {
	case 1:
		return b
	case 0:
		return one()
	case 0.5:
		return call("Sqrt", b)
	case -0.5:
		return binary(precMul, "/", one(), call("Sqrt", b))
	case -1:
		return binary(precMul, "/", one(), b)
	}
	if k, ok := smallIntExp(e); ok {
		fs := make([]code, k)
		for i := range fs {
			fs[i] = b
		}
		m := binary(precMul, "*", fs...)
		if e < 0 {
			return binary(precMul, "/", one(), m)
		}
		return m
	}
	return call("Pow", b, lit(e))
}

// cond emits n as a Go bool: relations and logical operators directly,
// any other value v, or a local, as v != 0 (so NaN is true, as in
// symbolic.Eval).
func (em *emitter) cond(n *symbolic.Node) code {
	if n.Op == symbolic.OpConst {
		return code{c: jen.Lit(n.Val != 0), prec: precUnary}
	}
	if _, bound := em.ref(n); !bound && isLogical(n.Op) {
		return em.condInline(n)
	}
	return binary(precRel, "!=", em.expr(n), lit(0))
}

// isLogical reports whether op is a relation or a logical operator, whose
// natural form is a Go bool.
func isLogical(op symbolic.Op) bool {
	return relOps[op] != "" || op == symbolic.OpAnd || op == symbolic.OpOr || op == symbolic.OpXor || op == symbolic.OpNot
}

// condInline emits a relation or logical operator n as a Go bool from its
// operands, even if n has a local.
func (em *emitter) condInline(n *symbolic.Node) code {
	if op, ok := relOps[n.Op]; ok {
		return binary(precRel, op, em.expr(n.Args[0]), em.expr(n.Args[1]))
	}
	switch n.Op {
	case symbolic.OpAnd, symbolic.OpOr:
		op, prec := "&&", precAnd
		if n.Op == symbolic.OpOr {
			op, prec = "||", precOr
		}
		cs := make([]code, len(n.Args))
		for i, a := range n.Args {
			cs[i] = em.cond(a)
		}
		return binary(prec, op, cs...)
	case symbolic.OpXor:
		// (a != b) != c: parity of the true operands.
		acc := em.cond(n.Args[0])
		for _, a := range n.Args[1:] {
			acc = code{c: jen.Add(acc.operand(precRel+1, false)).Op("!=").Add(em.cond(a).operand(precRel+1, true)), prec: precRel}
		}
		return acc
	case symbolic.OpNot:
		return code{c: jen.Op("!").Add(em.cond(n.Args[0]).operand(precUnary, false)), prec: precUnary}
	}
	return binary(precRel, "!=", em.inline(n), lit(0))
}
