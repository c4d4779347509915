package interp

import "math"

func truth(v float64) bool { return v != 0 }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// run executes the program on the slot array s, whose t, x, p and constant
// slots are already filled.
func (pr *prog) run(s []float64) {
	for _, in := range pr.code {
		a := s[in.a]
		var v float64
		switch in.op {
		case opAdd:
			v = a + s[in.b]
		case opMul:
			v = a * s[in.b]
		case opDiv:
			v = a / s[in.b]
		case opNeg:
			v = -a
		case opRecip:
			v = 1 / a
		case opSqrt:
			v = math.Sqrt(a)
		case opPow:
			v = math.Pow(a, s[in.b])
		case opExp:
			v = math.Exp(a)
		case opLog:
			v = math.Log(a)
		case opAbs:
			v = math.Abs(a)
		case opFloor:
			v = math.Floor(a)
		case opCeil:
			v = math.Ceil(a)
		case opGamma1:
			v = math.Gamma(a)
		case opSin:
			v = math.Sin(a)
		case opCos:
			v = math.Cos(a)
		case opTan:
			v = math.Tan(a)
		case opSinh:
			v = math.Sinh(a)
		case opCosh:
			v = math.Cosh(a)
		case opTanh:
			v = math.Tanh(a)
		case opAsin:
			v = math.Asin(a)
		case opAcos:
			v = math.Acos(a)
		case opAtan:
			v = math.Atan(a)
		case opAsinh:
			v = math.Asinh(a)
		case opAcosh:
			v = math.Acosh(a)
		case opAtanh:
			v = math.Atanh(a)
		case opEq:
			v = b2f(a == s[in.b])
		case opNeq:
			v = b2f(a != s[in.b])
		case opLt:
			v = b2f(a < s[in.b])
		case opGt:
			v = b2f(a > s[in.b])
		case opLeq:
			v = b2f(a <= s[in.b])
		case opGeq:
			v = b2f(a >= s[in.b])
		case opAnd:
			v = b2f(truth(a) && truth(s[in.b]))
		case opOr:
			v = b2f(truth(a) || truth(s[in.b]))
		case opXor:
			v = b2f(truth(a) != truth(s[in.b]))
		case opNot:
			v = b2f(!truth(a))
		case opSel:
			if truth(a) {
				v = s[in.b]
			} else {
				v = s[in.c]
			}
		}
		s[in.dst] = v
	}
}
