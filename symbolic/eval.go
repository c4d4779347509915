package symbolic

import "math"

// Numerical semantics, shared by constant folding, Eval and Compiled. They
// follow SBML MathML as evaluated with the math package: truth values are
// 1 and 0, any non-zero value (including NaN) is true, factorial(x) is
// Gamma(x+1), sec = 1/cos, asec(x) = acos(1/x) and so on for the
// reciprocal functions and their inverses.

func truth(v float64) bool { return v != 0 }

func b2f(c bool) float64 {
	if c {
		return 1
	}
	return 0
}

// evalUnary evaluates a unary operator (OpExp .. OpAcoth, OpNot). ok is
// false for any other operator.
func evalUnary(op Op, x float64) (v float64, ok bool) {
	switch op {
	case OpExp:
		return math.Exp(x), true
	case OpLn:
		return math.Log(x), true
	case OpAbs:
		return math.Abs(x), true
	case OpFloor:
		return math.Floor(x), true
	case OpCeil:
		return math.Ceil(x), true
	case OpFactorial:
		return math.Gamma(x + 1), true
	case OpSin:
		return math.Sin(x), true
	case OpCos:
		return math.Cos(x), true
	case OpTan:
		return math.Tan(x), true
	case OpSec:
		return 1 / math.Cos(x), true
	case OpCsc:
		return 1 / math.Sin(x), true
	case OpCot:
		return 1 / math.Tan(x), true
	case OpSinh:
		return math.Sinh(x), true
	case OpCosh:
		return math.Cosh(x), true
	case OpTanh:
		return math.Tanh(x), true
	case OpSech:
		return 1 / math.Cosh(x), true
	case OpCsch:
		return 1 / math.Sinh(x), true
	case OpCoth:
		return 1 / math.Tanh(x), true
	case OpAsin:
		return math.Asin(x), true
	case OpAcos:
		return math.Acos(x), true
	case OpAtan:
		return math.Atan(x), true
	case OpAsec:
		return math.Acos(1 / x), true
	case OpAcsc:
		return math.Asin(1 / x), true
	case OpAcot:
		return math.Atan(1 / x), true
	case OpAsinh:
		return math.Asinh(x), true
	case OpAcosh:
		return math.Acosh(x), true
	case OpAtanh:
		return math.Atanh(x), true
	case OpAsech:
		return math.Acosh(1 / x), true
	case OpAcsch:
		return math.Asinh(1 / x), true
	case OpAcoth:
		return math.Atanh(1 / x), true
	case OpNot:
		return b2f(!truth(x)), true
	}
	return 0, false
}

// isUnary reports whether op takes exactly one argument.
func isUnary(op Op) bool { return op >= OpExp && op <= OpAcoth || op == OpNot }

// isRel reports whether op is a binary relation.
func isRel(op Op) bool { return op >= OpEq && op <= OpGeq }

func evalRel(op Op, a, c float64) float64 {
	switch op {
	case OpEq:
		return b2f(a == c)
	case OpNeq:
		return b2f(a != c)
	case OpLt:
		return b2f(a < c)
	case OpGt:
		return b2f(a > c)
	case OpLeq:
		return b2f(a <= c)
	case OpGeq:
		return b2f(a >= c)
	}
	panic("symbolic: not a relational operator")
}

// evalOp evaluates a non-leaf operator on argument values.
func evalOp(op Op, v []float64) float64 {
	switch op {
	case OpAdd:
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s
	case OpMul:
		s := 1.0
		for _, x := range v {
			s *= x
		}
		return s
	case OpPow:
		return math.Pow(v[0], v[1])
	case OpPiecewise:
		n := len(v) - 1
		for i := 0; i < n; i += 2 {
			if truth(v[i+1]) {
				return v[i]
			}
		}
		return v[n]
	case OpAnd:
		for _, x := range v {
			if !truth(x) {
				return 0
			}
		}
		return 1
	case OpOr:
		for _, x := range v {
			if truth(x) {
				return 1
			}
		}
		return 0
	case OpXor:
		odd := false
		for _, x := range v {
			odd = odd != truth(x)
		}
		return b2f(odd)
	}
	if isRel(op) {
		return evalRel(op, v[0], v[1])
	}
	if r, ok := evalUnary(op, v[0]); ok {
		return r
	}
	panic("symbolic: cannot evaluate operator " + op.String())
}

// Eval evaluates n numerically, taking the value of every symbol from env
// (called once per distinct symbol). It does not recurse, so any height is
// accepted; shared subexpressions are evaluated once. For repeated
// evaluation use Compiled.
func Eval(n *Node, env func(sym *Node) float64) float64 {
	if n.Op == OpConst {
		return n.Val
	}
	if n.Op == OpSym {
		return env(n)
	}
	prog := NewProgram([]*Node{n})
	val := make(map[*Node]float64, len(prog.Steps))
	var buf []float64
	for _, s := range prog.Steps {
		buf = buf[:0]
		for _, a := range s.Args {
			switch a.Op {
			case OpConst:
				buf = append(buf, a.Val)
			case OpSym:
				v, ok := val[a]
				if !ok {
					v = env(a)
					val[a] = v
				}
				buf = append(buf, v)
			default:
				buf = append(buf, val[a])
			}
		}
		val[s] = evalOp(s.Op, buf)
	}
	return val[n]
}
