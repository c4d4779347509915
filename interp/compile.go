package interp

import (
	"fmt"
	"math"

	"github.com/pbgen/pbgen/symbolic"
)

// opcode is one instruction of the compiled form. Every instruction reads
// slots a (and b, c) and writes slot dst; slots hold t, x, p, constants and
// temporaries in one flat []float64, so evaluation is a switch over a dense
// byte with no maps and no interface calls.
type opcode uint8

const (
	opAdd opcode = iota
	opMul
	opDiv
	opNeg
	opRecip
	opSqrt
	opPow
	opExp
	opLog
	opAbs
	opFloor
	opCeil
	opGamma1 // Gamma(a+1), the factorial
	opSin
	opCos
	opTan
	opSinh
	opCosh
	opTanh
	opAsin
	opAcos
	opAtan
	opAsinh
	opAcosh
	opAtanh
	opEq
	opNeq
	opLt
	opGt
	opLeq
	opGeq
	opAnd // truth(a) && truth(b) -> 1/0
	opOr
	opXor
	opNot
	opSel // truth(a) ? b : c
)

type instr struct {
	op      opcode
	dst     int32
	a, b, c int32
}

// prog is one compiled function: straight-line code and the slots of its
// roots.
type prog struct {
	code  []instr
	roots []int32
}

// layout of the slot array shared by all programs of a Model:
//
//	[0]                  t
//	[1, 1+nx)            x
//	[1+nx, 1+nx+np)      p
//	[1+nx+np, base)      constants (written once per scratch buffer)
//	[base, base+ntemp)   temporaries
type compiler struct {
	nx, np  int
	stateIx map[string]int
	paramIx map[string]int
	consts  []float64
	constIx map[uint64]int32
	nodes   map[*symbolic.Node]int32 // per program: node -> slot
	code    []instr
	ntemp   int32 // per program
	maxTemp int32
	allowX  bool // states and t allowed (false for initial values)
}

func newCompiler(sys *symbolic.System) (*compiler, error) {
	c := &compiler{
		nx:      len(sys.ODE.States),
		np:      len(sys.ODE.Params),
		stateIx: make(map[string]int),
		paramIx: make(map[string]int),
		constIx: make(map[uint64]int32),
	}
	for i, s := range sys.ODE.States {
		if _, dup := c.stateIx[s.Name]; dup {
			return nil, fmt.Errorf("interp: duplicate state %q", s.Name)
		}
		c.stateIx[s.Name] = i
	}
	for i, p := range sys.ODE.Params {
		if _, dup := c.paramIx[p.Name]; dup {
			return nil, fmt.Errorf("interp: duplicate parameter %q", p.Name)
		}
		c.paramIx[p.Name] = i
	}
	return c, nil
}

// constBase is the first constant slot.
func (c *compiler) constBase() int32 { return int32(1 + c.nx + c.np) }

// tempBase is the first temporary slot; known only after all programs are
// compiled, so temporaries are numbered from 0 and relocated by finish.
const tempFlag = int32(1) << 30

func (c *compiler) konst(v float64) int32 {
	k := math.Float64bits(v)
	if s, ok := c.constIx[k]; ok {
		return s
	}
	s := c.constBase() + int32(len(c.consts))
	c.consts = append(c.consts, v)
	c.constIx[k] = s
	return s
}

func (c *compiler) temp() int32 {
	s := tempFlag | c.ntemp
	c.ntemp++
	return s
}

func (c *compiler) emit(op opcode, a, b, cc int32) int32 {
	d := c.temp()
	c.code = append(c.code, instr{op: op, dst: d, a: a, b: b, c: cc})
	return d
}

// compile compiles the roots into a program. allowX says whether states
// and time may appear (false for initial values, which depend on p only).
func (c *compiler) compile(roots []*symbolic.Node, allowX bool, what string) (*prog, error) {
	c.nodes = make(map[*symbolic.Node]int32)
	c.code = nil
	c.ntemp = 0
	c.allowX = allowX
	pr := &prog{roots: make([]int32, len(roots))}
	// Roots are compiled in order, arguments depth first, memoised on the
	// interned node: the order of symbolic.NewProgram, with each shared
	// subexpression computed once. Compiling from the roots (rather than
	// walking Program.Steps) skips steps that the lowering bypasses, such
	// as c^-1 inside a product, which becomes a division by c.
	for i, r := range roots {
		s, err := c.node(r)
		if err != nil {
			return nil, fmt.Errorf("interp: %s: %w", what, err)
		}
		pr.roots[i] = s
	}
	pr.code = c.code
	if c.ntemp > c.maxTemp {
		c.maxTemp = c.ntemp
	}
	return pr, nil
}

// finish relocates temporaries after the constants and returns the total
// slot count.
func (c *compiler) finish(progs ...*prog) int {
	base := c.constBase() + int32(len(c.consts))
	fix := func(s int32) int32 {
		if s&tempFlag != 0 {
			return base + s&^tempFlag
		}
		return s
	}
	for _, p := range progs {
		for i := range p.code {
			in := &p.code[i]
			in.dst, in.a, in.b, in.c = fix(in.dst), fix(in.a), fix(in.b), fix(in.c)
		}
		for i := range p.roots {
			p.roots[i] = fix(p.roots[i])
		}
	}
	return int(base + c.maxTemp)
}

var unaryOps = map[symbolic.Op]opcode{
	symbolic.OpExp: opExp, symbolic.OpLn: opLog, symbolic.OpAbs: opAbs,
	symbolic.OpFloor: opFloor, symbolic.OpCeil: opCeil,
	symbolic.OpSin: opSin, symbolic.OpCos: opCos, symbolic.OpTan: opTan,
	symbolic.OpSinh: opSinh, symbolic.OpCosh: opCosh, symbolic.OpTanh: opTanh,
	symbolic.OpAsin: opAsin, symbolic.OpAcos: opAcos, symbolic.OpAtan: opAtan,
	symbolic.OpAsinh: opAsinh, symbolic.OpAcosh: opAcosh, symbolic.OpAtanh: opAtanh,
}

// reciprocal functions: f(x) = 1/g(x).
var recipOf = map[symbolic.Op]opcode{
	symbolic.OpSec: opCos, symbolic.OpCsc: opSin, symbolic.OpCot: opTan,
	symbolic.OpSech: opCosh, symbolic.OpCsch: opSinh, symbolic.OpCoth: opTanh,
}

// inverse reciprocal functions: f(x) = g(1/x).
var ofRecip = map[symbolic.Op]opcode{
	symbolic.OpAsec: opAcos, symbolic.OpAcsc: opAsin, symbolic.OpAcot: opAtan,
	symbolic.OpAsech: opAcosh, symbolic.OpAcsch: opAsinh, symbolic.OpAcoth: opAtanh,
}

var relOps = map[symbolic.Op]opcode{
	symbolic.OpEq: opEq, symbolic.OpNeq: opNeq, symbolic.OpLt: opLt,
	symbolic.OpGt: opGt, symbolic.OpLeq: opLeq, symbolic.OpGeq: opGeq,
}

// node returns the slot holding n's value, compiling it if needed. The
// lowering is the one codegen uses (see the package doc), so interpreted
// and generated models round identically.
func (c *compiler) node(n *symbolic.Node) (int32, error) {
	switch n.Op {
	case symbolic.OpConst:
		return c.konst(n.Val), nil
	case symbolic.OpSym:
		return c.sym(n)
	}
	if s, ok := c.nodes[n]; ok {
		return s, nil
	}
	args := make([]int32, len(n.Args))
	for i, a := range n.Args {
		if n.Op == symbolic.OpMul || (n.Op == symbolic.OpPow && i == 0) {
			continue // lowered below, operands compiled on demand
		}
		s, err := c.node(a)
		if err != nil {
			return 0, err
		}
		args[i] = s
	}
	var s int32
	var err error
	switch op := n.Op; {
	case op == symbolic.OpAdd:
		s = args[0]
		for _, a := range args[1:] {
			s = c.emit(opAdd, s, a, 0)
		}
	case op == symbolic.OpMul:
		s, err = c.mul(n.Args)
	case op == symbolic.OpPow:
		s, err = c.pow(n.Args[0], n.Args[1], args[1])
	case op == symbolic.OpFactorial:
		s = c.emit(opGamma1, c.emit(opAdd, args[0], c.konst(1), 0), 0, 0)
	case op == symbolic.OpPiecewise:
		s = args[len(args)-1]
		for i := len(args) - 3; i >= 0; i -= 2 {
			s = c.emit(opSel, args[i+1], args[i], s)
		}
	case op == symbolic.OpAnd || op == symbolic.OpOr || op == symbolic.OpXor:
		code := map[symbolic.Op]opcode{symbolic.OpAnd: opAnd, symbolic.OpOr: opOr, symbolic.OpXor: opXor}[op]
		if len(args) < 2 {
			return 0, fmt.Errorf("logical operator with %d arguments", len(args))
		}
		s = c.emit(code, args[0], args[1], 0)
		for _, a := range args[2:] {
			s = c.emit(code, s, a, 0)
		}
	case op == symbolic.OpNot:
		s = c.emit(opNot, args[0], 0, 0)
	default:
		if u, ok := unaryOps[op]; ok {
			s = c.emit(u, args[0], 0, 0)
		} else if g, ok := recipOf[op]; ok {
			s = c.emit(opRecip, c.emit(g, args[0], 0, 0), 0, 0)
		} else if g, ok := ofRecip[op]; ok {
			s = c.emit(g, c.emit(opRecip, args[0], 0, 0), 0, 0)
		} else if r, ok := relOps[op]; ok {
			s = c.emit(r, args[0], args[1], 0)
		} else {
			return 0, fmt.Errorf("unsupported operator %d", op)
		}
	}
	if err != nil {
		return 0, err
	}
	c.nodes[n] = s
	return s, nil
}

func (c *compiler) sym(n *symbolic.Node) (int32, error) {
	switch n.Kind {
	case symbolic.KindParam:
		if i, ok := c.paramIx[n.Name]; ok {
			return int32(1 + c.nx + i), nil
		}
		return 0, fmt.Errorf("unknown parameter %q", n.Name)
	case symbolic.KindState:
		if !c.allowX {
			return 0, fmt.Errorf("depends on state %q", n.Name)
		}
		if i, ok := c.stateIx[n.Name]; ok {
			return int32(1 + i), nil
		}
		return 0, fmt.Errorf("unknown state %q", n.Name)
	case symbolic.KindTime:
		if !c.allowX {
			return 0, fmt.Errorf("depends on time")
		}
		return 0, nil
	}
	return 0, fmt.Errorf("unresolved symbol %q", n.Name)
}

// mul lowers a product: an optional leading constant k (k = -1 becomes a
// final negation), the numerator factors multiplied left to right, the
// factors with a negative constant exponent collected into a denominator
// multiplied left to right, then num/den (or 1/den).
func (c *compiler) mul(args []*symbolic.Node) (int32, error) {
	neg := false
	var num, den []*symbolic.Node
	var denExp []float64
	for i, a := range args {
		if i == 0 && a.Op == symbolic.OpConst && a.Val == -1 {
			neg = true
			continue
		}
		if e, ok := negExp(a); ok {
			den = append(den, a.Args[0])
			denExp = append(denExp, e)
			continue
		}
		num = append(num, a)
	}
	prod := func(ns []*symbolic.Node, exps []float64) (int32, error) {
		var acc int32
		for i, f := range ns {
			var s int32
			var err error
			if exps != nil {
				s, err = c.pow(f, nil, c.konst(exps[i]))
			} else {
				s, err = c.node(f)
			}
			if err != nil {
				return 0, err
			}
			if i == 0 {
				acc = s
			} else {
				acc = c.emit(opMul, acc, s, 0)
			}
		}
		return acc, nil
	}
	var s int32
	switch {
	case len(num) > 0 && len(den) > 0:
		n, err := prod(num, nil)
		if err != nil {
			return 0, err
		}
		d, err := prod(den, denExp)
		if err != nil {
			return 0, err
		}
		s = c.emit(opDiv, n, d, 0)
	case len(den) > 0:
		d, err := prod(den, denExp)
		if err != nil {
			return 0, err
		}
		s = c.emit(opRecip, d, 0, 0)
	case len(num) > 0:
		n, err := prod(num, nil)
		if err != nil {
			return 0, err
		}
		s = n
	default:
		s = c.konst(1)
	}
	if neg {
		s = c.emit(opNeg, s, 0, 0)
	}
	return s, nil
}

// negExp reports whether a is base^e with a constant e < 0, returning -e.
func negExp(a *symbolic.Node) (float64, bool) {
	if a.Op == symbolic.OpPow && a.Args[1].Op == symbolic.OpConst && a.Args[1].Val < 0 {
		return -a.Args[1].Val, true
	}
	return 0, false
}

// pow lowers base^e. With a constant exponent: 0.5 -> sqrt, -0.5 -> 1/sqrt,
// 1 -> base, 0 -> 1, -1 -> 1/base, integers 2..4 -> repeated
// multiplication left to right, -4..-2 -> 1/(that); anything else math.Pow.
// expNode is the exponent node (nil when the exponent is a constant given
// only by its slot eSlot, as for denominator factors).
func (c *compiler) pow(base, expNode *symbolic.Node, eSlot int32) (int32, error) {
	e, isConst := 0.0, expNode == nil
	if expNode != nil && expNode.Op == symbolic.OpConst {
		e, isConst = expNode.Val, true
	} else if expNode == nil {
		e = c.consts[eSlot-c.constBase()]
	}
	b, err := c.node(base)
	if err != nil {
		return 0, err
	}
	if !isConst {
		return c.emit(opPow, b, eSlot, 0), nil
	}
	switch e {
	case 0:
		return c.konst(1), nil
	case 1:
		return b, nil
	case -1:
		return c.emit(opRecip, b, 0, 0), nil
	case 0.5:
		return c.emit(opSqrt, b, 0, 0), nil
	case -0.5:
		return c.emit(opRecip, c.emit(opSqrt, b, 0, 0), 0, 0), nil
	case 2, 3, 4, -2, -3, -4:
		k := int(math.Abs(e))
		s := b
		for i := 1; i < k; i++ {
			s = c.emit(opMul, s, b, 0)
		}
		if e < 0 {
			s = c.emit(opRecip, s, 0, 0)
		}
		return s, nil
	}
	return c.emit(opPow, b, c.konst(e), 0), nil
}
