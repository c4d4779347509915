package symbolic

import (
	"math"
	"strconv"
	"strings"
)

var opNames = [numOps]string{
	OpInvalid: "invalid", OpConst: "const", OpSym: "sym", OpAdd: "add", OpMul: "mul", OpPow: "pow",
	OpExp: "exp", OpLn: "ln", OpAbs: "abs", OpFloor: "floor", OpCeil: "ceil", OpFactorial: "factorial",
	OpSin: "sin", OpCos: "cos", OpTan: "tan", OpSec: "sec", OpCsc: "csc", OpCot: "cot",
	OpSinh: "sinh", OpCosh: "cosh", OpTanh: "tanh", OpSech: "sech", OpCsch: "csch", OpCoth: "coth",
	OpAsin: "asin", OpAcos: "acos", OpAtan: "atan", OpAsec: "asec", OpAcsc: "acsc", OpAcot: "acot",
	OpAsinh: "asinh", OpAcosh: "acosh", OpAtanh: "atanh", OpAsech: "asech", OpAcsch: "acsch", OpAcoth: "acoth",
	OpPiecewise: "piecewise", OpEq: "==", OpNeq: "!=", OpLt: "<", OpGt: ">", OpLeq: "<=", OpGeq: ">=",
	OpAnd: "&&", OpOr: "||", OpXor: "xor", OpNot: "!",
}

// String is the operator's name: the function name for unary functions
// (as accepted by ParseInfix), the infix symbol for relations and logic.
func (op Op) String() string {
	if op < numOps {
		return opNames[op]
	}
	return "op(" + strconv.Itoa(int(op)) + ")"
}

// Precedence levels of the infix syntax, loosest first.
const (
	precOr = iota + 1
	precAnd
	precRel
	precAdd
	precMul
	precUnary
	precPow
	precAtom
)

// String prints n in the infix syntax that ParseInfix reads: sums with
// subtraction, products with division by negative powers, ^ for powers,
// function calls, piecewise(v1, c1, ..., otherwise), relations, && || !
// and xor(...). Constants use the shortest representation that round-trips
// (NaN and Inf print as such). The output is deterministic. Expressions
// higher than MaxDepth print as a placeholder.
func (n *Node) String() string {
	if n == nil {
		return "<nil>"
	}
	if n.Height() > MaxDepth {
		return "<expression of height " + strconv.Itoa(n.Height()) + ">"
	}
	var sb strings.Builder
	p := printer{&sb}
	ok := func() (ok bool) {
		defer func() {
			if r := recover(); r != nil {
				if _, long := r.(printTooLong); !long {
					panic(r)
				}
			}
		}()
		p.node(n, 0)
		return true
	}()
	if !ok {
		return "<expression longer than " + strconv.Itoa(MaxStringLen) + " bytes>"
	}
	return sb.String()
}

// MaxStringLen bounds what String prints. A DAG prints as a tree, and a
// tree can be exponentially larger than its DAG (a sum nested by repeated
// composition, x1 = sin(x0) + x0, x2 = sin(x1) + x1, ...), so past this
// many bytes String returns a placeholder instead.
const MaxStringLen = 1 << 20

// printTooLong is the panic value by which the printer stops at
// MaxStringLen; String recovers it.
type printTooLong struct{}

type printer struct{ sb *strings.Builder }

// node prints n, in parentheses if its precedence is below min.
func (p printer) node(n *Node, min int) {
	if p.sb.Len() > MaxStringLen {
		panic(printTooLong{})
	}
	if prec(n) < min {
		p.sb.WriteByte('(')
		p.bare(n)
		p.sb.WriteByte(')')
		return
	}
	p.bare(n)
}

func prec(n *Node) int {
	switch {
	case n.Op == OpConst:
		if n.Val < 0 || math.Signbit(n.Val) {
			return precUnary
		}
		return precAtom
	case n.Op == OpAdd:
		return precAdd
	case n.Op == OpMul:
		return precMul
	case n.Op == OpPow:
		if isNegConst(n.Args[1]) {
			return precMul // printed as 1/x
		}
		return precPow
	case n.Op == OpNot:
		return precUnary
	case isRel(n.Op):
		return precRel
	case n.Op == OpAnd:
		return precAnd
	case n.Op == OpOr:
		return precOr
	}
	return precAtom
}

func isNegConst(n *Node) bool { return n.Op == OpConst && n.Val < 0 }

func (p printer) num(v float64) {
	switch {
	case math.IsInf(v, 1):
		p.sb.WriteString("Inf")
	case math.IsInf(v, -1):
		p.sb.WriteString("-Inf")
	default:
		p.sb.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
}

func (p printer) bare(n *Node) {
	switch op := n.Op; {
	case op == OpConst:
		p.num(n.Val)
	case op == OpSym:
		p.sb.WriteString(n.Name)
	case op == OpAdd:
		// Constant last: x + 1 reads better than 1 + x.
		terms := n.Args
		if terms[0].Op == OpConst {
			terms = append(terms[1:len(terms):len(terms)], terms[0])
		}
		first := true
		for _, t := range terms {
			neg, mag := p.negated(t)
			switch {
			case first && neg:
				p.sb.WriteByte('-')
			case neg:
				p.sb.WriteString(" - ")
			case !first:
				p.sb.WriteString(" + ")
			}
			first = false
			if neg {
				p.product(mag, precMul)
			} else {
				p.node(t, precAdd+1)
			}
		}
	case op == OpMul:
		p.product(n.Args, precMul)
	case op == OpPow:
		if isNegConst(n.Args[1]) {
			p.product([]*Node{n}, precMul)
			return
		}
		p.node(n.Args[0], precAtom)
		p.sb.WriteByte('^')
		p.node(n.Args[1], precUnary)
	case op == OpNot:
		p.sb.WriteByte('!')
		p.node(n.Args[0], precUnary)
	case isRel(op):
		p.node(n.Args[0], precRel+1)
		p.sb.WriteString(" " + op.String() + " ")
		p.node(n.Args[1], precRel+1)
	case op == OpAnd || op == OpOr:
		for i, a := range n.Args {
			if i > 0 {
				p.sb.WriteString(" " + op.String() + " ")
			}
			p.node(a, prec(n)+1)
		}
	default: // function call syntax: unary functions, piecewise, xor
		p.sb.WriteString(op.String())
		p.sb.WriteByte('(')
		for i, a := range n.Args {
			if i > 0 {
				p.sb.WriteString(", ")
			}
			p.node(a, 0)
		}
		p.sb.WriteByte(')')
	}
}

// negated reports whether the term t of a sum is best printed as minus
// something, and returns the factors of that something.
func (p printer) negated(t *Node) (bool, []*Node) {
	switch {
	case t.Op == OpConst && t.Val < 0:
		return true, []*Node{&Node{Op: OpConst, Val: -t.Val}}
	case t.Op == OpMul && isNegConst(t.Args[0]):
		mag := append([]*Node{{Op: OpConst, Val: -t.Args[0].Val}}, t.Args[1:]...)
		return true, mag
	}
	return false, nil
}

// product prints the factors fs of a product: a numeric coefficient
// first (-1 as a sign, 1 omitted), then the numerator, then / and the
// factors with negative constant exponents.
func (p printer) product(fs []*Node, _ int) {
	var num, den []*Node
	coef := 1.0
	for _, f := range fs {
		switch {
		case f.Op == OpConst:
			coef *= f.Val
		case f.Op == OpPow && isNegConst(f.Args[1]):
			den = append(den, f)
		default:
			num = append(num, f)
		}
	}
	if coef < 0 || math.Signbit(coef) {
		p.sb.WriteByte('-')
		coef = -coef
	}
	wrote := false
	if coef != 1 || len(num) == 0 {
		p.num(coef)
		wrote = true
	}
	for _, f := range num {
		if wrote {
			p.sb.WriteByte('*')
		}
		p.node(f, precMul+1)
		wrote = true
	}
	if len(den) == 0 {
		return
	}
	p.sb.WriteByte('/')
	if len(den) > 1 {
		p.sb.WriteByte('(')
	}
	for i, f := range den {
		if i > 0 {
			p.sb.WriteByte('*')
		}
		base, e := f.Args[0], -f.Args[1].Val
		if e == 1 {
			p.node(base, precMul+1)
			continue
		}
		p.node(base, precAtom)
		p.sb.WriteByte('^')
		p.num(e)
	}
	if len(den) > 1 {
		p.sb.WriteByte(')')
	}
}

// String names the kind.
func (k SymKind) String() string {
	switch k {
	case KindState:
		return "state"
	case KindParam:
		return "parameter"
	case KindTime:
		return "time"
	case KindOther:
		return "other"
	case KindDelay:
		return "delayed value"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}
