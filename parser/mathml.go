package parser

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pbgen/pbgen/symbolic"
)

const (
	mathNS      = "http://www.w3.org/1998/Math/MathML"
	symbolsURL  = "http://www.sbml.org/sbml/symbols/"
	avogadroL3  = 6.02214179e23 // the 2006 CODATA value fixed by SBML L3v1 and L3v2
	maxFuncArgs = 1 << 10
)

// mkind is the kind of a MathML syntax node.
type mkind uint8

const (
	mNum       mkind = iota // val
	mIdent                  // name
	mTime                   // csymbol time
	mAvogadro               // csymbol avogadro
	mApply                  // op applied to args (qual: logbase or degree)
	mCall                   // call of function definition name
	mPiecewise              // args = v1, c1, v2, c2, ...; other = otherwise or nil
	mRateOf                 // csymbol rateOf applied to args[0], a <ci> (rateof.go)
	mDelay                  // csymbol delay: args[0] at time - args[1] (delay.go)
)

// mnode is MathML parsed but not yet resolved: identifiers are names, and
// function calls are not yet expanded. Resolution (math.go) needs the ids
// of the whole model, which are known only after reading it.
type mnode struct {
	kind  mkind
	op    string
	name  string
	val   float64
	args  []*mnode
	qual  *mnode
	other *mnode
	line  int
}

// arity of the MathML operators we accept: min and max argument counts
// (-1 = unbounded).
var mathOps = map[string][2]int{
	"plus": {0, -1}, "times": {0, -1}, "minus": {1, 2}, "divide": {2, 2},
	"power": {2, 2}, "root": {1, 1}, "log": {1, 1},
	"eq": {1, -1}, "neq": {2, 2}, "lt": {1, -1}, "gt": {1, -1}, "leq": {1, -1}, "geq": {1, -1},
	"and": {0, -1}, "or": {0, -1}, "xor": {0, -1}, "not": {1, 1}, "implies": {2, 2},
	"max": {1, -1}, "min": {1, -1}, "quotient": {2, 2}, "rem": {2, 2},
}

// unaryFuncs maps MathML unary functions to symbolic operators.
var unaryFuncs = map[string]symbolic.Op{
	"exp": symbolic.OpExp, "ln": symbolic.OpLn, "abs": symbolic.OpAbs,
	"floor": symbolic.OpFloor, "ceiling": symbolic.OpCeil, "factorial": symbolic.OpFactorial,
	"sin": symbolic.OpSin, "cos": symbolic.OpCos, "tan": symbolic.OpTan,
	"sec": symbolic.OpSec, "csc": symbolic.OpCsc, "cot": symbolic.OpCot,
	"sinh": symbolic.OpSinh, "cosh": symbolic.OpCosh, "tanh": symbolic.OpTanh,
	"sech": symbolic.OpSech, "csch": symbolic.OpCsch, "coth": symbolic.OpCoth,
	"arcsin": symbolic.OpAsin, "arccos": symbolic.OpAcos, "arctan": symbolic.OpAtan,
	"arcsec": symbolic.OpAsec, "arccsc": symbolic.OpAcsc, "arccot": symbolic.OpAcot,
	"arcsinh": symbolic.OpAsinh, "arccosh": symbolic.OpAcosh, "arctanh": symbolic.OpAtanh,
	"arcsech": symbolic.OpAsech, "arccsch": symbolic.OpAcsch, "arccoth": symbolic.OpAcoth,
}

var mathConsts = map[string]float64{
	"true": 1, "false": 0, "pi": math.Pi, "exponentiale": math.E,
	"infinity": math.Inf(1), "notanumber": math.NaN(),
}

// mathParser turns MathML element trees into mnodes, reporting problems
// against the SBML element (el, id) that holds the math.
type mathParser struct {
	file   string
	errs   *ErrorList
	el, id string
}

func (p *mathParser) errorf(line int, format string, args ...any) {
	p.errs.add(p.file, line, p.el, p.id, format, args...)
}

// parseMath parses a <math> element holding one expression. It returns
// nil without error for an empty <math/> (SBML L3v2 allows missing math).
func (p *mathParser) parseMath(e *elem) *mnode {
	if e.space != mathNS {
		p.errorf(e.line, "<math> is not in the MathML namespace")
		return nil
	}
	k := e.kids
	if len(k) == 0 {
		return nil
	}
	if len(k) > 1 {
		p.errorf(e.line, "<math> holds %d expressions, want one", len(k))
		return nil
	}
	return p.expr(k[0])
}

// parseLambda parses the <math> of a function definition: the bvar names
// and the body. ok is false after an error; body is nil for empty math.
func (p *mathParser) parseLambda(e *elem) (bvars []string, body *mnode, ok bool) {
	if e.space != mathNS {
		p.errorf(e.line, "<math> is not in the MathML namespace")
		return nil, nil, false
	}
	k := e.kids
	if len(k) == 0 {
		return nil, nil, true
	}
	l := k[0]
	for l.local == "semantics" && len(l.kids) > 0 {
		l = l.kids[0]
	}
	if len(k) > 1 || l.local != "lambda" {
		p.errorf(e.line, "function definition math must be one <lambda>")
		return nil, nil, false
	}
	ok = true
	for i, c := range l.kids {
		if c.local == "bvar" {
			if len(c.kids) != 1 || c.kids[0].local != "ci" || c.kids[0].text() == "" {
				p.errorf(c.line, "<bvar> must hold one <ci>")
				ok = false
				continue
			}
			name := c.kids[0].text()
			for _, b := range bvars {
				if b == name {
					p.errorf(c.line, "duplicate bound variable %q", name)
					ok = false
				}
			}
			bvars = append(bvars, name)
			continue
		}
		if i != len(l.kids)-1 {
			p.errorf(c.line, "<lambda> body must be its last child")
			return nil, nil, false
		}
		body = p.expr(c)
		if body == nil {
			ok = false
		}
	}
	if body == nil && ok {
		p.errorf(l.line, "<lambda> has no body")
		ok = false
	}
	return bvars, body, ok
}

func (p *mathParser) refuse(line int, what string) {
	p.errorf(line, "%s is not supported", what)
}

// csymbolKind classifies a csymbol by its definitionURL.
func (p *mathParser) csymbol(e *elem) (mkind, bool) {
	url, _ := e.attr("definitionURL")
	url = strings.TrimSpace(url)
	switch url {
	case symbolsURL + "time":
		return mTime, true
	case symbolsURL + "avogadro":
		return mAvogadro, true
	case symbolsURL + "delay":
		return mDelay, true
	case symbolsURL + "rateOf":
		return mRateOf, true
	default:
		p.errorf(e.line, "unknown csymbol %q", url)
	}
	return 0, false
}

// expr parses one MathML expression element; nil after an error.
func (p *mathParser) expr(e *elem) *mnode {
	if e.space != mathNS {
		p.errorf(e.line, "element <%s> is not MathML", e.local)
		return nil
	}
	switch e.local {
	case "cn":
		v, ok := p.number(e)
		if !ok {
			return nil
		}
		return &mnode{kind: mNum, val: v, line: e.line}
	case "ci":
		name := e.text()
		if name == "" || len(e.kids) > 0 {
			p.errorf(e.line, "<ci> must hold an identifier")
			return nil
		}
		return &mnode{kind: mIdent, name: name, line: e.line}
	case "csymbol":
		k, ok := p.csymbol(e)
		if !ok {
			return nil
		}
		if k == mRateOf || k == mDelay {
			p.errorf(e.line, "csymbol %s is a function: it must be the first child of <apply>", map[mkind]string{mRateOf: "rateOf", mDelay: "delay"}[k])
			return nil
		}
		return &mnode{kind: k, line: e.line}
	case "semantics":
		if len(e.kids) == 0 {
			p.errorf(e.line, "empty <semantics>")
			return nil
		}
		return p.expr(e.kids[0])
	case "piecewise":
		return p.piecewise(e)
	case "apply":
		return p.apply(e)
	}
	if v, ok := mathConsts[e.local]; ok {
		if len(e.kids) > 0 {
			p.errorf(e.line, "<%s/> must be empty", e.local)
			return nil
		}
		return &mnode{kind: mNum, val: v, line: e.line}
	}
	if _, ok := mathOps[e.local]; ok {
		p.errorf(e.line, "operator <%s/> outside <apply>", e.local)
		return nil
	}
	if _, ok := unaryFuncs[e.local]; ok {
		p.errorf(e.line, "operator <%s/> outside <apply>", e.local)
		return nil
	}
	p.refuse(e.line, "MathML element <"+e.local+">")
	return nil
}

// number parses <cn>. Types real (the default; "double" is accepted as
// a synonym) and e-notation take decimal numbers: a real is an XML Schema
// double (ParseDouble), as SBML numbers elsewhere; the parts of
// e-notation are a decimal number without exponent and an integer.
// Types integer and rational take integers in the base attribute's base
// (2 to 36, default 10, MathML 2); a real in another base is refused. A
// literal whose value overflows float64 is an error, and so is a rational
// with denominator 0.
func (p *mathParser) number(e *elem) (float64, bool) {
	typ, _ := e.attr("type")
	typ = strings.TrimSpace(typ)
	base := 10
	if bs, ok := e.attr("base"); ok {
		b, err := strconv.Atoi(strings.TrimSpace(bs))
		if err != nil || b < 2 || b > 36 {
			p.errorf(e.line, "<cn> base %q is not an integer from 2 to 36", bs)
			return 0, false
		}
		base = b
	}
	fail := func(err error) (float64, bool) {
		what := "<cn>"
		if typ != "" {
			what = fmt.Sprintf("<cn type=%q>", typ)
		}
		p.errorf(e.line, "invalid number in %s: %v", what, err)
		return 0, false
	}
	switch typ {
	case "", "real", "double", "integer":
		if len(e.kids) > 0 {
			p.errorf(e.line, "<cn type=%q> must hold one number", typ)
			return 0, false
		}
		var v float64
		var err error
		switch {
		case typ == "integer":
			v, err = parseInteger(e.text(), base)
		case base != 10:
			p.refuse(e.line, fmt.Sprintf("<cn type=%q> in base %d", typ, base))
			return 0, false
		default:
			v, err = ParseDouble(e.text())
		}
		if err != nil {
			return fail(err)
		}
		return v, true
	case "e-notation", "rational":
		if len(e.kids) != 1 || e.kids[0].local != "sep" || len(e.segs) != 2 {
			p.errorf(e.line, "<cn type=%q> must hold two numbers separated by <sep/>", typ)
			return 0, false
		}
		if typ == "rational" {
			a, err := parseInteger(e.segs[0], base)
			if err != nil {
				return fail(err)
			}
			c, err := parseInteger(e.segs[1], base)
			if err != nil {
				return fail(err)
			}
			if c == 0 {
				return fail(fmt.Errorf("denominator is 0"))
			}
			return a / c, true
		}
		if base != 10 {
			p.refuse(e.line, fmt.Sprintf("<cn type=%q> in base %d", typ, base))
			return 0, false
		}
		m := strings.Trim(e.segs[0], " \t\r\n")
		if !isDecimal(m, false) {
			return fail(fmt.Errorf("mantissa %q is not a decimal number", m))
		}
		a, err := ParseDouble(m)
		if err != nil {
			return fail(err)
		}
		c, err := parseInteger(e.segs[1], 10)
		if err != nil {
			return fail(err)
		}
		// As libSBML: mantissa times a power of ten.
		v := a * math.Pow(10, c)
		if math.IsInf(v, 0) {
			return fail(fmt.Errorf("%s*10^%s overflows float64 (largest %g)", m, strings.TrimSpace(e.segs[1]), math.MaxFloat64))
		}
		if math.IsNaN(v) { // 0 * 10^400
			v = 0
		}
		return v, true
	}
	p.refuse(e.line, "<cn> type "+strconv.Quote(typ))
	return 0, false
}

func (p *mathParser) piecewise(e *elem) *mnode {
	n := &mnode{kind: mPiecewise, line: e.line}
	ok := true
	for i, c := range e.kids {
		switch c.local {
		case "piece":
			if len(c.kids) != 2 {
				p.errorf(c.line, "<piece> needs a value and a condition")
				ok = false
				continue
			}
			v, cond := p.expr(c.kids[0]), p.expr(c.kids[1])
			if v == nil || cond == nil {
				ok = false
				continue
			}
			n.args = append(n.args, v, cond)
		case "otherwise":
			if i != len(e.kids)-1 || len(c.kids) != 1 {
				p.errorf(c.line, "<otherwise> must be last and hold one value")
				ok = false
				continue
			}
			n.other = p.expr(c.kids[0])
			ok = ok && n.other != nil
		default:
			p.errorf(c.line, "unexpected <%s> in <piecewise>", c.local)
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return n
}

// apply parses <apply>. An <apply> whose first child is itself an <apply>
// is read as libSBML reads it (its MathML reader parses the first child
// into the node being built): the inner apply's operator applied to the
// inner arguments followed by the outer ones, so
// <apply><apply><plus/>a b</apply> c</apply> is a+b+c and an outer apply
// with no further children is just the inner one. Published models
// (Beer_MolBioSystems2014 in the PEtab benchmark collection) use it as
// parentheses.
func (p *mathParser) apply(e *elem) *mnode {
	kids := e.kids
	if len(kids) > 0 && kids[0].local == "apply" && kids[0].space == mathNS {
		// Collect the outer arguments level by level, then append them
		// innermost first: linear in the number of children.
		var tails [][]*elem
		in := e
		for len(in.kids) > 0 && in.kids[0].local == "apply" && in.kids[0].space == mathNS {
			tails = append(tails, in.kids[1:])
			in = in.kids[0]
		}
		kids = append([]*elem(nil), in.kids...)
		for i := len(tails) - 1; i >= 0; i-- {
			kids = append(kids, tails[i]...)
		}
	}
	if len(kids) == 0 {
		p.errorf(e.line, "empty <apply>")
		return nil
	}
	head := kids[0]
	n := &mnode{kind: mApply, line: e.line}
	switch {
	case head.local == "ci":
		n.kind = mCall
		n.name = head.text()
		if n.name == "" {
			p.errorf(head.line, "<ci> must hold an identifier")
			return nil
		}
	case head.local == "csymbol":
		// time and avogadro are values, not functions.
		k, ok := p.csymbol(head)
		if ok && k == mRateOf {
			return p.rateOfApply(e, head, kids[1:])
		}
		if ok && k == mDelay {
			return p.delayApply(e, head, kids[1:])
		}
		if ok {
			name := "time"
			if k == mAvogadro {
				name = "avogadro"
			}
			p.errorf(head.line, "csymbol %s is not a function", name)
		}
		return nil
	default:
		if _, ok := unaryFuncs[head.local]; ok {
			n.op = head.local
			break
		}
		if _, ok := mathOps[head.local]; ok {
			n.op = head.local
			break
		}
		if head.space != mathNS {
			p.errorf(head.line, "element <%s> is not MathML", head.local)
			return nil
		}
		if _, isConst := mathConsts[head.local]; isConst || head.local == "cn" || head.local == "piecewise" ||
			head.local == "semantics" || head.local == "lambda" {
			p.errorf(head.line, "<%s> is not an operator and cannot be the first child of <apply>", head.local)
			return nil
		}
		p.refuse(head.line, "MathML operator <"+head.local+">")
		return nil
	}
	if len(head.kids) > 0 {
		p.errorf(head.line, "operator <%s> must be empty", head.local)
		return nil
	}
	ok := true
	for _, c := range kids[1:] {
		switch c.local {
		case "logbase", "degree":
			want := "log"
			if c.local == "degree" {
				want = "root"
			}
			if n.op != want || n.qual != nil || len(c.kids) != 1 {
				p.errorf(c.line, "unexpected <%s>", c.local)
				ok = false
				continue
			}
			n.qual = p.expr(c.kids[0])
			ok = ok && n.qual != nil
			continue
		case "bvar":
			p.errorf(c.line, "unexpected <bvar> outside <lambda>")
			ok = false
			continue
		}
		a := p.expr(c)
		if a == nil {
			ok = false
			continue
		}
		n.args = append(n.args, a)
	}
	if !ok {
		return nil
	}
	if n.kind == mCall {
		if len(n.args) > maxFuncArgs {
			p.errorf(e.line, "call of %q has more than %d arguments", n.name, maxFuncArgs)
			return nil
		}
		return n
	}
	lo, hi := 1, 1
	if r, ok := mathOps[n.op]; ok {
		lo, hi = r[0], r[1]
	}
	if len(n.args) < lo || hi >= 0 && len(n.args) > hi {
		p.errorf(e.line, "<%s/> with %d arguments", n.op, len(n.args))
		return nil
	}
	return n
}
