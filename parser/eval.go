package parser

import (
	"math"

	"github.com/pbgen/pbgen/symbolic"
)

// eval evaluates n numerically, asking sym for the value of each symbol.
// It is a plain tree walk with memoisation, used for checks at lowering
// time (is x0 finite at the default parameters?), not for simulation.
// Truth values are 1 and 0; any non-zero number counts as true.
func eval(n *symbolic.Node, sym func(*symbolic.Node) float64) float64 {
	memo := make(map[*symbolic.Node]float64)
	var ev func(*symbolic.Node) float64
	ev = func(n *symbolic.Node) float64 {
		if v, ok := memo[n]; ok {
			return v
		}
		v := evalNode(n, sym, ev)
		memo[n] = v
		return v
	}
	return ev(n)
}

func truth(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func evalNode(n *symbolic.Node, sym func(*symbolic.Node) float64, ev func(*symbolic.Node) float64) float64 {
	switch n.Op {
	case symbolic.OpConst:
		return n.Val
	case symbolic.OpSym:
		return sym(n)
	case symbolic.OpAdd:
		s := 0.0
		for _, a := range n.Args {
			s += ev(a)
		}
		return s
	case symbolic.OpMul:
		s := 1.0
		for _, a := range n.Args {
			s *= ev(a)
		}
		return s
	case symbolic.OpPow:
		return math.Pow(ev(n.Args[0]), ev(n.Args[1]))
	case symbolic.OpPiecewise:
		k := len(n.Args) - 1
		for i := 0; i < k; i += 2 {
			if ev(n.Args[i+1]) != 0 {
				return ev(n.Args[i])
			}
		}
		return ev(n.Args[k])
	case symbolic.OpEq, symbolic.OpNeq, symbolic.OpLt, symbolic.OpGt, symbolic.OpLeq, symbolic.OpGeq:
		a, b := ev(n.Args[0]), ev(n.Args[1])
		switch n.Op {
		case symbolic.OpEq:
			return truth(a == b)
		case symbolic.OpNeq:
			return truth(a != b)
		case symbolic.OpLt:
			return truth(a < b)
		case symbolic.OpGt:
			return truth(a > b)
		case symbolic.OpLeq:
			return truth(a <= b)
		}
		return truth(a >= b)
	case symbolic.OpAnd:
		for _, a := range n.Args {
			if ev(a) == 0 {
				return 0
			}
		}
		return 1
	case symbolic.OpOr:
		for _, a := range n.Args {
			if ev(a) != 0 {
				return 1
			}
		}
		return 0
	case symbolic.OpXor:
		c := false
		for _, a := range n.Args {
			c = c != (ev(a) != 0)
		}
		return truth(c)
	case symbolic.OpNot:
		return truth(ev(n.Args[0]) == 0)
	}
	return unary(n.Op, ev(n.Args[0]))
}

func unary(op symbolic.Op, x float64) float64 {
	switch op {
	case symbolic.OpExp:
		return math.Exp(x)
	case symbolic.OpLn:
		return math.Log(x)
	case symbolic.OpAbs:
		return math.Abs(x)
	case symbolic.OpFloor:
		return math.Floor(x)
	case symbolic.OpCeil:
		return math.Ceil(x)
	case symbolic.OpFactorial:
		return math.Gamma(x + 1)
	case symbolic.OpSin:
		return math.Sin(x)
	case symbolic.OpCos:
		return math.Cos(x)
	case symbolic.OpTan:
		return math.Tan(x)
	case symbolic.OpSec:
		return 1 / math.Cos(x)
	case symbolic.OpCsc:
		return 1 / math.Sin(x)
	case symbolic.OpCot:
		return 1 / math.Tan(x)
	case symbolic.OpSinh:
		return math.Sinh(x)
	case symbolic.OpCosh:
		return math.Cosh(x)
	case symbolic.OpTanh:
		return math.Tanh(x)
	case symbolic.OpSech:
		return 1 / math.Cosh(x)
	case symbolic.OpCsch:
		return 1 / math.Sinh(x)
	case symbolic.OpCoth:
		return 1 / math.Tanh(x)
	case symbolic.OpAsin:
		return math.Asin(x)
	case symbolic.OpAcos:
		return math.Acos(x)
	case symbolic.OpAtan:
		return math.Atan(x)
	case symbolic.OpAsec:
		return math.Acos(1 / x)
	case symbolic.OpAcsc:
		return math.Asin(1 / x)
	case symbolic.OpAcot:
		return math.Atan(1 / x)
	case symbolic.OpAsinh:
		return math.Asinh(x)
	case symbolic.OpAcosh:
		return math.Acosh(x)
	case symbolic.OpAtanh:
		return math.Atanh(x)
	case symbolic.OpAsech:
		return math.Acosh(1 / x)
	case symbolic.OpAcsch:
		return math.Asinh(1 / x)
	case symbolic.OpAcoth:
		return math.Atanh(1 / x)
	}
	panic("parser: eval of unknown operator")
}
