package symbolic

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseInfix parses an expression in the infix syntax that Node.String
// prints, building it with b (so it is simplified and interned). It is for
// tests and tools; models come from SBML.
//
// Syntax, loosest binding first: || ; && ; == != < > <= >= (not chained);
// + - ; * / ; unary - + ! ; ^ (right-associative, so -x^2 is -(x^2) and
// 2^-x is allowed); numbers (1, 2.5, 1e-3, .5), NaN and Inf; names; calls
// name(args); parentheses. The name t is time; every other name becomes
// Sym(name, kind(name)), with KindOther when kind is nil.
//
// Functions: the unary operators by their Op.String name (exp, ln, abs,
// floor, ceil, factorial, sin, ..., acoth; arcsin etc. are accepted too),
// sqrt(x), root(n, x), pow(a, b), log(x) (base 10, as in MathML),
// log(base, x), piecewise(v1, c1, ..., [otherwise]) and xor(a, ...),
// and(a, ...), or(a, ...), not(a). Nesting deeper than MaxDepth is an error.
func (b *Builder) ParseInfix(s string, kind func(name string) SymKind) (*Node, error) {
	return b.parse(s, kind, false)
}

// ParsePEtab parses a PEtab math expression (observable and noise
// formulas, v2 condition values), following the PEtab v2 math syntax that
// v1 formulas also satisfy. It differs from ParseInfix where PEtab says so,
// so that a formula means what the PEtab tools it was written for compute:
//
//   - time is the symbol time; t is an ordinary name;
//   - log(x) is the natural logarithm and log(x, b) the logarithm of x to
//     the base b (argument first); ln, log2 and log10 are accepted;
//   - && and || share one precedence level and associate to the left, and
//     relations associate to the left (a < b < c is (a < b) < c);
//   - true and false are 1 and 0; inf (any case) is +Inf, nan (any case)
//     is NaN;
//   - sign(x), min(a, b) and max(a, b) are piecewise expressions.
//
// The functions are those of the PEtab list (pow, exp, sqrt, the
// logarithms, the trigonometric and hyperbolic functions and their arc
// versions, piecewise, abs, sign, min, max), plus the unary functions that
// ParseInfix knows. kind gives each other name's symbol kind, as in
// ParseInfix.
func (b *Builder) ParsePEtab(s string, kind func(name string) SymKind) (*Node, error) {
	return b.parse(s, kind, true)
}

func (b *Builder) parse(s string, kind func(name string) SymKind, petab bool) (*Node, error) {
	p := &parser{b: b, src: s, kind: kind, petab: petab}
	p.next()
	n := p.expr()
	if p.err == nil && p.tok != tEOF {
		p.fail("unexpected %s", p.desc())
	}
	if p.err != nil {
		return nil, p.err
	}
	return n, nil
}

type tokKind int

const (
	tEOF tokKind = iota
	tNum
	tName
	tOp // operator or punctuation, in lit
)

type parser struct {
	b     *Builder
	src   string
	kind  func(string) SymKind
	pos   int // offset after the current token
	start int // offset of the current token
	tok   tokKind
	lit   string
	num   float64
	depth int
	petab bool // PEtab dialect (ParsePEtab)
	err   error
}

func (p *parser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("symbolic: parse %q at offset %d: %s", p.src, p.start, fmt.Sprintf(format, args...))
	}
	p.tok = tEOF // stop parsing
}

func (p *parser) desc() string {
	switch p.tok {
	case tEOF:
		return "end of input"
	case tNum:
		return "number " + p.lit
	case tName:
		return "name " + p.lit
	}
	return "'" + p.lit + "'"
}

func isLetter(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// next scans the next token.
func (p *parser) next() {
	if p.err != nil {
		return
	}
	s, i := p.src, p.pos
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	p.start = i
	if i == len(s) {
		p.tok, p.lit, p.pos = tEOF, "", i
		return
	}
	c := s[i]
	switch {
	case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
		j := i
		for j < len(s) && (isDigit(s[j]) || s[j] == '.') {
			j++
		}
		if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
			k := j + 1
			if k < len(s) && (s[k] == '+' || s[k] == '-') {
				k++
			}
			if k < len(s) && isDigit(s[k]) {
				for k < len(s) && isDigit(s[k]) {
					k++
				}
				j = k
			}
		}
		p.tok, p.lit, p.pos = tNum, s[i:j], j
		v, err := strconv.ParseFloat(p.lit, 64)
		if err != nil && !isRangeErr(err) {
			p.fail("bad number %q", p.lit)
			return
		}
		p.num = v
	case isLetter(c):
		j := i
		for j < len(s) && (isLetter(s[j]) || isDigit(s[j])) {
			j++
		}
		p.tok, p.lit, p.pos = tName, s[i:j], j
	default:
		j := i + 1
		if j < len(s) {
			switch two := s[i : i+2]; two {
			case "==", "!=", "<=", ">=", "&&", "||":
				j++
			}
		}
		p.tok, p.lit, p.pos = tOp, s[i:j], j
		switch p.lit {
		case "+", "-", "*", "/", "^", "(", ")", ",", "<", ">", "!", "==", "!=", "<=", ">=", "&&", "||":
		default:
			p.fail("unexpected character %q", p.lit)
		}
	}
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func (p *parser) is(op string) bool { return p.tok == tOp && p.lit == op }

func (p *parser) expect(op string) {
	if !p.is(op) {
		p.fail("expected '%s', found %s", op, p.desc())
		return
	}
	p.next()
}

// bad is the placeholder result after an error.
func (p *parser) bad() *Node { return p.b.Const(math.NaN()) }

func (p *parser) expr() *Node {
	if p.petab {
		n := p.rel()
		for p.is("&&") || p.is("||") {
			op := OpAnd
			if p.is("||") {
				op = OpOr
			}
			p.next()
			n = p.b.Logic(op, n, p.rel())
		}
		return n
	}
	n := p.and()
	if !p.is("||") {
		return n
	}
	args := []*Node{n}
	for p.is("||") {
		p.next()
		args = append(args, p.and())
	}
	return p.b.Logic(OpOr, args...)
}

func (p *parser) and() *Node {
	n := p.rel()
	if !p.is("&&") {
		return n
	}
	args := []*Node{n}
	for p.is("&&") {
		p.next()
		args = append(args, p.rel())
	}
	return p.b.Logic(OpAnd, args...)
}

var relOps = map[string]Op{"==": OpEq, "!=": OpNeq, "<": OpLt, ">": OpGt, "<=": OpLeq, ">=": OpGeq}

func (p *parser) rel() *Node {
	n := p.sum()
	if p.tok != tOp {
		return n
	}
	op, ok := relOps[p.lit]
	if !ok {
		return n
	}
	p.next()
	n = p.b.Rel(op, n, p.sum())
	for p.petab && p.tok == tOp {
		op, ok := relOps[p.lit]
		if !ok {
			break
		}
		p.next()
		n = p.b.Rel(op, n, p.sum())
	}
	return n
}

func (p *parser) sum() *Node {
	terms := []*Node{p.prod()}
	for p.is("+") || p.is("-") {
		neg := p.is("-")
		p.next()
		t := p.prod()
		if neg {
			t = p.b.Neg(t)
		}
		terms = append(terms, t)
	}
	if len(terms) == 1 {
		return terms[0]
	}
	return p.b.Add(terms...)
}

func (p *parser) prod() *Node {
	n := p.unary()
	for p.is("*") || p.is("/") {
		div := p.is("/")
		p.next()
		f := p.unary()
		if div {
			n = p.b.Div(n, f)
		} else {
			n = p.b.Mul(n, f)
		}
	}
	return n
}

// unary is on every recursive path of the grammar, so it bounds the depth.
func (p *parser) unary() *Node {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > MaxDepth {
		p.fail("expression nested deeper than %d", MaxDepth)
		return p.bad()
	}
	switch {
	case p.is("-"):
		p.next()
		return p.b.Neg(p.unary())
	case p.is("+"):
		p.next()
		return p.unary()
	case p.is("!"):
		p.next()
		return p.b.Func(OpNot, p.unary())
	}
	n := p.atom()
	if p.is("^") {
		p.next()
		n = p.b.Pow(n, p.unary())
	}
	return n
}

func (p *parser) atom() *Node {
	switch p.tok {
	case tNum:
		v := p.num
		p.next()
		return p.b.Const(v)
	case tName:
		name := p.lit
		p.next()
		if p.is("(") {
			p.next()
			var args []*Node
			if !p.is(")") {
				args = append(args, p.expr())
				for p.is(",") {
					p.next()
					args = append(args, p.expr())
				}
			}
			p.expect(")")
			if p.err != nil {
				return p.bad()
			}
			return p.call(name, args)
		}
		if p.petab {
			switch strings.ToLower(name) {
			case "inf":
				return p.b.Const(math.Inf(1))
			case "nan":
				return p.b.Const(math.NaN())
			}
			switch name {
			case "time":
				return p.b.Time()
			case "true":
				return p.b.Const(1)
			case "false":
				return p.b.Const(0)
			}
			k := KindOther
			if p.kind != nil {
				k = p.kind(name)
			}
			return p.b.Sym(name, k)
		}
		switch name {
		case "t":
			return p.b.Time()
		case "NaN":
			return p.b.Const(math.NaN())
		case "Inf":
			return p.b.Const(math.Inf(1))
		}
		k := KindOther
		if p.kind != nil {
			k = p.kind(name)
		}
		return p.b.Sym(name, k)
	case tOp:
		if p.is("(") {
			p.next()
			n := p.expr()
			p.expect(")")
			return n
		}
	}
	p.fail("unexpected %s", p.desc())
	return p.bad()
}

var funcNames = func() map[string]Op {
	m := make(map[string]Op)
	for op := OpExp; op <= OpAcoth; op++ {
		m[op.String()] = op
		if op >= OpAsin {
			m["arc"+op.String()[1:]] = op
		}
	}
	return m
}()

func (p *parser) call(name string, args []*Node) *Node {
	b := p.b
	arity := func(n int) bool {
		if len(args) != n {
			p.fail("%s takes %d argument(s), got %d", name, n, len(args))
			return false
		}
		return true
	}
	if op, ok := funcNames[name]; ok {
		if !arity(1) {
			return p.bad()
		}
		return b.Func(op, args[0])
	}
	if p.petab {
		if n, ok := p.petabCall(name, args); ok {
			return n
		}
		if p.err != nil {
			return p.bad()
		}
	}
	switch name {
	case "sqrt":
		if arity(1) {
			return b.Pow(args[0], b.Const(0.5))
		}
	case "root":
		if arity(2) {
			return b.Root(args[0], args[1])
		}
	case "pow":
		if arity(2) {
			return b.Pow(args[0], args[1])
		}
	case "log":
		switch len(args) {
		case 1:
			return b.Log(b.Const(10), args[0])
		case 2:
			return b.Log(args[0], args[1])
		}
		p.fail("log takes 1 or 2 arguments, got %d", len(args))
	case "not":
		if arity(1) {
			return b.Func(OpNot, args[0])
		}
	case "and", "or", "xor":
		op := map[string]Op{"and": OpAnd, "or": OpOr, "xor": OpXor}[name]
		return b.Logic(op, args...)
	case "piecewise":
		if len(args) == 0 {
			p.fail("piecewise needs arguments")
			break
		}
		if len(args)%2 == 0 {
			args = append(args, b.Const(math.NaN()))
		}
		return b.Piecewise(args...)
	default:
		p.fail("unknown function %s", name)
	}
	return p.bad()
}

// petabCall builds the functions whose PEtab meaning differs from
// ParseInfix's or that only PEtab has. ok is false for the other names
// (and after an arity error, with p.err set).
func (p *parser) petabCall(name string, args []*Node) (n *Node, ok bool) {
	b := p.b
	arity := func(k int) bool {
		if len(args) != k {
			p.fail("%s takes %d argument(s), got %d", name, k, len(args))
			return false
		}
		return true
	}
	switch name {
	case "log":
		switch len(args) {
		case 1:
			return b.Func(OpLn, args[0]), true
		case 2:
			return b.Log(args[1], args[0]), true
		}
		p.fail("log takes 1 or 2 arguments, got %d", len(args))
		return nil, false
	case "log2", "log10":
		if !arity(1) {
			return nil, false
		}
		base := 2.0
		if name == "log10" {
			base = 10
		}
		return b.Log(b.Const(base), args[0]), true
	case "sign":
		if !arity(1) {
			return nil, false
		}
		x := args[0]
		zero := b.Const(0)
		return b.Piecewise(b.Const(1), b.Rel(OpGt, x, zero), b.Const(-1), b.Rel(OpLt, x, zero), zero), true
	case "min", "max":
		if !arity(2) {
			return nil, false
		}
		op := OpLeq
		if name == "max" {
			op = OpGeq
		}
		return b.Piecewise(args[0], b.Rel(op, args[0], args[1]), args[1]), true
	}
	return nil, false
}
