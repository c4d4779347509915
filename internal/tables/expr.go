package tables

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Op is the kind of an expression node.
type Op uint8

// Expression node kinds. Binary operators keep the tree the source text
// spelled (left-associative + - * /, right-associative ^), so that the MathML
// written from it is a faithful transcription.
const (
	OpNum  Op = iota // a number literal, Expr.Num
	OpName           // a state, parameter, constant or expression, Expr.Name
	OpTime           // the model time, spelled t
	OpNeg            // unary minus, one argument
	OpAdd            // a + b
	OpSub            // a - b
	OpMul            // a * b
	OpDiv            // a / b
	OpPow            // a ^ b
	OpExp            // exp(a)
)

var opNames = [...]string{"num", "name", "time", "neg", "add", "sub", "mul", "div", "pow", "exp"}

// String returns a short lower-case name of the operator.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Expr is a node of a parsed infix formula. It is a plain tree: the package
// keeps no sharing or simplification, because it is meant as an independent,
// obviously correct reference for the symbolic pipeline.
type Expr struct {
	Op   Op
	Num  float64 // value of an OpNum
	Name string  // id of an OpName
	Args []*Expr // operands: one for OpNeg and OpExp, two for binary operators

	slot int // index into the value vector, set by resolve (OpName only)
}

// ParseError is a syntax error in a formula; Col is the 1-based byte column.
type ParseError struct {
	Col int
	Msg string
}

func (e *ParseError) Error() string { return fmt.Sprintf("col %d: %s", e.Col, e.Msg) }

// Parse parses an infix formula: numbers (1, 2.5, 3.3E+01), names
// ([A-Za-z_][A-Za-z0-9_]*), t (time), + - * / ^, unary minus and plus,
// parentheses and exp(...). ^ binds tighter than unary minus (-x^2 is
// -(x^2)) and is right-associative; its exponent may itself start with a
// unary minus (2^-1). Unary minus directly on a number literal is folded into
// the literal. The returned error is a *ParseError.
func Parse(src string) (*Expr, error) {
	p := &exprParser{src: src}
	p.next()
	e, err := p.sum()
	if err != nil {
		return nil, err
	}
	if p.tok != tokEOF {
		return nil, p.errorf("unexpected %s", p.describe())
	}
	return e, nil
}

type token uint8

const (
	tokEOF token = iota
	tokNum
	tokName
	tokOp // one of + - * / ^ ( ) ,
)

type exprParser struct {
	src  string
	pos  int // byte offset after the current token
	tok  token
	text string // text of the current token
	at   int    // byte offset of the current token
	num  float64
	err  *ParseError // a lexical error, reported at the next parser step
}

func (p *exprParser) errorf(format string, args ...any) *ParseError {
	return &ParseError{Col: p.at + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *exprParser) describe() string {
	switch p.tok {
	case tokEOF:
		return "end of formula"
	case tokNum:
		return "number " + p.text
	case tokName:
		return "name " + strconv.Quote(p.text)
	}
	return strconv.Quote(p.text)
}

func isLetter(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// next scans the next token.
func (p *exprParser) next() {
	s := p.src
	for p.pos < len(s) && (s[p.pos] == ' ' || s[p.pos] == '\t') {
		p.pos++
	}
	p.at = p.pos
	if p.pos >= len(s) {
		p.tok, p.text = tokEOF, ""
		return
	}
	c := s[p.pos]
	switch {
	case isLetter(c):
		i := p.pos + 1
		for i < len(s) && (isLetter(s[i]) || isDigit(s[i])) {
			i++
		}
		p.tok, p.text, p.pos = tokName, s[p.pos:i], i
	case isDigit(c) || c == '.':
		i := p.pos
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i < len(s) && s[i] == '.' {
			i++
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		}
		if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
			j := i + 1
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				j++
			}
			if j < len(s) && isDigit(s[j]) {
				for j < len(s) && isDigit(s[j]) {
					j++
				}
				i = j
			}
		}
		p.tok, p.text, p.pos = tokNum, s[p.pos:i], i
		v, err := strconv.ParseFloat(p.text, 64)
		if err != nil || math.IsInf(v, 0) {
			p.err = p.errorf("bad number %q", p.text)
		}
		p.num = v
	case strings.IndexByte("+-*/^(),", c) >= 0:
		p.tok, p.text, p.pos = tokOp, s[p.pos:p.pos+1], p.pos+1
	default:
		p.tok, p.text = tokOp, s[p.pos:p.pos+1]
		p.err = p.errorf("unexpected character %q", c)
		p.pos++
	}
}

func (p *exprParser) isOp(op string) bool { return p.tok == tokOp && p.text == op }

// sum := product (('+' | '-') product)*
func (p *exprParser) sum() (*Expr, error) {
	left, err := p.product()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		op := OpAdd
		if p.text == "-" {
			op = OpSub
		}
		p.next()
		right, err := p.product()
		if err != nil {
			return nil, err
		}
		left = &Expr{Op: op, Args: []*Expr{left, right}}
	}
	return left, nil
}

// product := unary (('*' | '/') unary)*
func (p *exprParser) product() (*Expr, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.isOp("*") || p.isOp("/") {
		op := OpMul
		if p.text == "/" {
			op = OpDiv
		}
		p.next()
		right, err := p.unary()
		if err != nil {
			return nil, err
		}
		left = &Expr{Op: op, Args: []*Expr{left, right}}
	}
	return left, nil
}

// unary := ('-' | '+') unary | power
func (p *exprParser) unary() (*Expr, error) {
	if p.isOp("-") || p.isOp("+") {
		neg := p.text == "-"
		p.next()
		a, err := p.unary()
		if err != nil {
			return nil, err
		}
		if !neg {
			return a, nil
		}
		if a.Op == OpNum {
			return &Expr{Op: OpNum, Num: -a.Num}, nil
		}
		return &Expr{Op: OpNeg, Args: []*Expr{a}}, nil
	}
	return p.power()
}

// power := primary ('^' unary)?
func (p *exprParser) power() (*Expr, error) {
	base, err := p.primary()
	if err != nil {
		return nil, err
	}
	if !p.isOp("^") {
		return base, nil
	}
	p.next()
	exp, err := p.unary()
	if err != nil {
		return nil, err
	}
	return &Expr{Op: OpPow, Args: []*Expr{base, exp}}, nil
}

// primary := number | 't' | name | 'exp' '(' sum ')' | '(' sum ')'
func (p *exprParser) primary() (*Expr, error) {
	if p.err != nil {
		return nil, p.err
	}
	switch {
	case p.tok == tokNum:
		e := &Expr{Op: OpNum, Num: p.num}
		p.next()
		return e, nil
	case p.tok == tokName:
		name, at := p.text, p.at
		p.next()
		if p.isOp("(") {
			if name != "exp" {
				return nil, &ParseError{Col: at + 1, Msg: fmt.Sprintf("unknown function %q", name)}
			}
			p.next()
			a, err := p.sum()
			if err != nil {
				return nil, err
			}
			if !p.isOp(")") {
				return nil, p.errorf("expected ) after argument of exp, found %s", p.describe())
			}
			p.next()
			return &Expr{Op: OpExp, Args: []*Expr{a}}, nil
		}
		if name == "t" {
			return &Expr{Op: OpTime}, nil
		}
		return &Expr{Op: OpName, Name: name}, nil
	case p.isOp("("):
		p.next()
		a, err := p.sum()
		if err != nil {
			return nil, err
		}
		if !p.isOp(")") {
			return nil, p.errorf("expected ), found %s", p.describe())
		}
		p.next()
		return a, nil
	}
	return nil, p.errorf("expected a number, name or (, found %s", p.describe())
}

// eval evaluates a resolved tree; vals holds the value of every slot.
func (e *Expr) eval(vals []float64, t float64) float64 {
	switch e.Op {
	case OpNum:
		return e.Num
	case OpName:
		return vals[e.slot]
	case OpTime:
		return t
	case OpNeg:
		return -e.Args[0].eval(vals, t)
	case OpAdd:
		return e.Args[0].eval(vals, t) + e.Args[1].eval(vals, t)
	case OpSub:
		return e.Args[0].eval(vals, t) - e.Args[1].eval(vals, t)
	case OpMul:
		return e.Args[0].eval(vals, t) * e.Args[1].eval(vals, t)
	case OpDiv:
		return e.Args[0].eval(vals, t) / e.Args[1].eval(vals, t)
	case OpPow:
		return math.Pow(e.Args[0].eval(vals, t), e.Args[1].eval(vals, t))
	case OpExp:
		return math.Exp(e.Args[0].eval(vals, t))
	}
	panic("tables: unknown expression op " + e.Op.String())
}

// Eval evaluates the tree with the values of names given by env (which is
// not consulted for t). It is meant for tests and small tools; Network.F
// evaluates resolved trees without lookups.
func (e *Expr) Eval(t float64, env func(name string) float64) float64 {
	switch e.Op {
	case OpNum:
		return e.Num
	case OpName:
		return env(e.Name)
	case OpTime:
		return t
	case OpNeg:
		return -e.Args[0].Eval(t, env)
	case OpExp:
		return math.Exp(e.Args[0].Eval(t, env))
	}
	a, b := e.Args[0].Eval(t, env), e.Args[1].Eval(t, env)
	switch e.Op {
	case OpAdd:
		return a + b
	case OpSub:
		return a - b
	case OpMul:
		return a * b
	case OpDiv:
		return a / b
	case OpPow:
		return math.Pow(a, b)
	}
	panic("tables: unknown expression op " + e.Op.String())
}

// String prints the tree fully parenthesised, for messages and tests.
func (e *Expr) String() string {
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e *Expr) write(b *strings.Builder) {
	switch e.Op {
	case OpNum:
		b.WriteString(strconv.FormatFloat(e.Num, 'g', -1, 64))
	case OpName:
		b.WriteString(e.Name)
	case OpTime:
		b.WriteString("t")
	case OpNeg:
		b.WriteString("(-")
		e.Args[0].write(b)
		b.WriteString(")")
	case OpExp:
		b.WriteString("exp(")
		e.Args[0].write(b)
		b.WriteString(")")
	default:
		sym := map[Op]string{OpAdd: " + ", OpSub: " - ", OpMul: " * ", OpDiv: " / ", OpPow: "^"}[e.Op]
		b.WriteString("(")
		e.Args[0].write(b)
		b.WriteString(sym)
		e.Args[1].write(b)
		b.WriteString(")")
	}
}

// names calls fn for every OpName node in the tree, left to right.
func (e *Expr) names(fn func(*Expr)) {
	if e.Op == OpName {
		fn(e)
	}
	for _, a := range e.Args {
		a.names(fn)
	}
}
