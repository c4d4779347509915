package symbolic

import (
	"fmt"
	"math"
)

// Compiled is a Program lowered to slice-indexed instructions for fast
// repeated evaluation, the interpreter's hot path. A Compiled value is
// immutable and safe for concurrent use; each goroutine passes its own
// scratch slice.
//
// Scratch layout: slot 0 is t, then x (len NumStates), then p (len
// NumParams), then the constants, then one slot per Program step.
type Compiled struct {
	nx, np int
	nd     int       // delayed values (CompileDelayed), after p in the scratch
	consts []float64 // copied into scratch at constBase on every evaluation
	code   []instr   // one per step; step k writes slot stepBase+k
	args   []int32   // argument slots of all instructions
	roots  []int32   // slots of the roots
	nslots int
}

type instr struct {
	op   Op // an Op, or one of the specialised opcodes below
	a, n int32
}

// Specialised opcodes for powers with common constant exponents.
const (
	opSquare Op = numOps + iota // x^2 = x*x
	opRecip                     // x^-1 = 1/x
	opSqrt                      // x^0.5 = sqrt(x), as math.Pow does
)

// NewCompiled lowers prog. Symbols of kind KindState and KindParam are
// looked up by name in states and params, KindTime is t; any other symbol
// is an error.
func NewCompiled(prog *Program, states, params []string) (*Compiled, error) {
	return newCompiled(prog, states, params, nil)
}

// CompileDelayed is Compile with KindDelay symbols too, looked up by name
// in delays and supplied to EvalDelayedTo (scratch: t, x, p, then the
// delayed values).
func CompileDelayed(roots []*Node, states, params, delays []string) (*Compiled, error) {
	return newCompiled(NewProgram(roots), states, params, delays)
}

func newCompiled(prog *Program, states, params, delays []string) (*Compiled, error) {
	c := &Compiled{nx: len(states), np: len(params), nd: len(delays)}
	sx, sp, sd := index(states), index(params), index(delays)
	constBase := 1 + len(states) + len(params) + len(delays)
	slots := make(map[*Node]int32)
	var consts []*Node
	slot := func(n *Node) (int32, error) {
		if s, ok := slots[n]; ok {
			return s, nil
		}
		var s int
		switch n.Op {
		case OpConst:
			s = constBase + len(consts)
			consts = append(consts, n)
			c.consts = append(c.consts, n.Val)
		case OpSym:
			var ok bool
			switch n.Kind {
			case KindTime:
				s, ok = 0, true
			case KindState:
				s, ok = sx[n.Name]
				s++
			case KindParam:
				s, ok = sp[n.Name]
				s += 1 + len(states)
			case KindDelay:
				s, ok = sd[n.Name]
				s += 1 + len(states) + len(params)
			}
			if !ok {
				return 0, fmt.Errorf("symbolic: compile: unknown %s symbol %q", n.Kind, n.Name)
			}
		default:
			return 0, fmt.Errorf("symbolic: compile: %s used before it is computed", n)
		}
		slots[n] = int32(s)
		return int32(s), nil
	}
	// Constants and symbols first, so that step slots can follow them.
	leaves := func(n *Node) error {
		if n.Op == OpConst || n.Op == OpSym {
			_, err := slot(n)
			return err
		}
		return nil
	}
	for _, s := range prog.Steps {
		for _, a := range s.Args {
			if err := leaves(a); err != nil {
				return nil, err
			}
		}
	}
	for _, r := range prog.Roots {
		if err := leaves(r); err != nil {
			return nil, err
		}
	}
	stepBase := constBase + len(consts)
	for k, s := range prog.Steps {
		in := instr{op: s.Op, a: int32(len(c.args)), n: int32(len(s.Args))}
		if s.Op == OpPow && s.Args[1].Op == OpConst {
			switch s.Args[1].Val {
			case 2:
				in.op, in.n = opSquare, 1
			case -1:
				in.op, in.n = opRecip, 1
			case 0.5:
				in.op, in.n = opSqrt, 1
			}
		}
		for _, a := range s.Args[:in.n] {
			sl, err := slot(a)
			if err != nil {
				return nil, err
			}
			c.args = append(c.args, sl)
		}
		c.code = append(c.code, in)
		slots[s] = int32(stepBase + k)
	}
	for _, r := range prog.Roots {
		sl, err := slot(r)
		if err != nil {
			return nil, err
		}
		c.roots = append(c.roots, sl)
	}
	c.nslots = stepBase + len(prog.Steps)
	return c, nil
}

// Compile is NewCompiled(NewProgram(roots), states, params).
func Compile(roots []*Node, states, params []string) (*Compiled, error) {
	return NewCompiled(NewProgram(roots), states, params)
}

func index(names []string) map[string]int {
	m := make(map[string]int, len(names))
	for i, s := range names {
		m[s] = i
	}
	return m
}

// NumRoots is the length of dst in EvalTo.
func (c *Compiled) NumRoots() int { return len(c.roots) }

// ScratchLen is the minimum length of scratch in EvalTo.
func (c *Compiled) ScratchLen() int { return c.nslots }

// EvalTo evaluates the roots at (t, x, p) into dst, using scratch (at least
// ScratchLen long) as working memory. It allocates nothing. It panics if a
// length is wrong. dst must not overlap scratch; x and p are not modified.
func (c *Compiled) EvalTo(dst, scratch []float64, t float64, x, p []float64) {
	c.EvalDelayedTo(dst, scratch, t, x, p, nil)
}

// EvalDelayedTo is EvalTo with the delayed values d (of CompileDelayed);
// nil d means every delayed value is NaN.
func (c *Compiled) EvalDelayedTo(dst, scratch []float64, t float64, x, p, d []float64) {
	if len(dst) != len(c.roots) {
		panic("symbolic: EvalTo: dst length mismatch")
	}
	if len(scratch) < c.nslots {
		panic("symbolic: EvalTo: scratch too short")
	}
	if len(x) != c.nx || len(p) != c.np {
		panic("symbolic: EvalTo: x or p length mismatch")
	}
	scratch[0] = t
	copy(scratch[1:], x)
	copy(scratch[1+c.nx:], p)
	base := 1 + c.nx + c.np
	if c.nd > 0 {
		sd := scratch[base : base+c.nd]
		if d == nil {
			for i := range sd {
				sd[i] = math.NaN()
			}
		} else {
			if len(d) != c.nd {
				panic("symbolic: EvalDelayedTo: d length mismatch")
			}
			copy(sd, d)
		}
		base += c.nd
	}
	copy(scratch[base:], c.consts)
	base += len(c.consts)
	args := c.args
	for k, in := range c.code {
		a := args[in.a : in.a+in.n]
		var v float64
		switch in.op {
		case OpAdd:
			for _, s := range a {
				v += scratch[s]
			}
		case OpMul:
			v = 1
			for _, s := range a {
				v *= scratch[s]
			}
		case opSquare:
			u := scratch[a[0]]
			v = u * u
		case opRecip:
			v = 1 / scratch[a[0]]
		case opSqrt:
			v = math.Sqrt(scratch[a[0]])
		case OpPow:
			v = math.Pow(scratch[a[0]], scratch[a[1]])
		case OpPiecewise:
			last := len(a) - 1
			v = scratch[a[last]]
			for i := 0; i < last; i += 2 {
				if truth(scratch[a[i+1]]) {
					v = scratch[a[i]]
					break
				}
			}
		case OpAnd:
			v = 1
			for _, s := range a {
				if !truth(scratch[s]) {
					v = 0
					break
				}
			}
		case OpOr:
			for _, s := range a {
				if truth(scratch[s]) {
					v = 1
					break
				}
			}
		case OpXor:
			odd := false
			for _, s := range a {
				odd = odd != truth(scratch[s])
			}
			v = b2f(odd)
		case OpEq, OpNeq, OpLt, OpGt, OpLeq, OpGeq:
			v = evalRel(in.op, scratch[a[0]], scratch[a[1]])
		default:
			v, _ = evalUnary(in.op, scratch[a[0]])
		}
		scratch[base+k] = v
	}
	for i, s := range c.roots {
		dst[i] = scratch[s]
	}
}
