package symbolic

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// tree is an unsimplified expression used as an oracle: it is evaluated
// directly with the math package, independently of the simplifier, and
// built through the constructors.
type tree struct {
	op   string // "c", "x", "y", "z", "t", "+", "-", "*", "/", "^", "neg", "pw", or a function name
	val  float64
	args []*tree
}

type gen struct{ rng *rand.Rand }

func newGen(seed uint64) *gen { return &gen{rand.New(rand.NewPCG(seed, 1))} }

var genFuncs = []string{"exp", "ln", "sin", "cos", "abs", "tanh", "atan", "sqrt", "sinh", "floor"}

func (g *gen) tree(depth int) *tree {
	if depth == 0 || g.rng.IntN(4) == 0 {
		switch g.rng.IntN(6) {
		case 0:
			return &tree{op: "c", val: float64(g.rng.IntN(9)-4) / 2}
		case 1:
			return &tree{op: "y"}
		case 2:
			return &tree{op: "z"}
		case 3:
			return &tree{op: "t"}
		}
		return &tree{op: "x"}
	}
	switch k := g.rng.IntN(11); {
	case k < 5:
		op := []string{"+", "-", "*", "/", "*"}[k]
		return &tree{op: op, args: []*tree{g.tree(depth - 1), g.tree(depth - 1)}}
	case k == 5:
		if g.rng.IntN(2) == 0 {
			return &tree{op: "^", args: []*tree{g.tree(depth - 1), {op: "c", val: float64(g.rng.IntN(7) - 3)}}}
		}
		return &tree{op: "^", args: []*tree{g.tree(depth - 1), g.tree(depth - 1)}}
	case k == 6:
		return &tree{op: "neg", args: []*tree{g.tree(depth - 1)}}
	case k == 7:
		return &tree{op: "pw", args: []*tree{g.tree(depth - 1), g.tree(depth - 1), g.tree(depth - 1), g.tree(depth - 1)}}
	}
	return &tree{op: genFuncs[g.rng.IntN(len(genFuncs))], args: []*tree{g.tree(depth - 1)}}
}

// String prints the tree in the infix syntax, fully parenthesised.
func (tr *tree) String() string {
	a := func(i int) string { return tr.args[i].String() }
	switch tr.op {
	case "c":
		return fmt.Sprintf("(%g)", tr.val)
	case "x", "y", "z", "t":
		return tr.op
	case "+", "-", "*", "/", "^":
		return "(" + a(0) + " " + tr.op + " " + a(1) + ")"
	case "neg":
		return "(-" + a(0) + ")"
	case "pw":
		return "piecewise(" + a(0) + ", " + a(1) + " < " + a(2) + ", " + a(3) + ")"
	}
	return tr.op + "(" + a(0) + ")"
}

func (tr *tree) build(b *Builder) *Node {
	var as []*Node
	for _, a := range tr.args {
		as = append(as, a.build(b))
	}
	switch tr.op {
	case "c":
		return b.Const(tr.val)
	case "x", "y", "z":
		return b.Sym(tr.op, KindParam)
	case "t":
		return b.Time()
	case "+":
		return b.Add(as...)
	case "-":
		return b.Sub(as[0], as[1])
	case "*":
		return b.Mul(as...)
	case "/":
		return b.Div(as[0], as[1])
	case "^":
		return b.Pow(as[0], as[1])
	case "neg":
		return b.Neg(as[0])
	case "pw":
		return b.Piecewise(as[0], b.Rel(OpLt, as[1], as[2]), as[3])
	case "sqrt":
		return b.Pow(as[0], b.Const(0.5))
	}
	for op := OpExp; op <= OpAcoth; op++ {
		if op.String() == tr.op {
			return b.Func(op, as[0])
		}
	}
	panic("test: unknown tree op " + tr.op)
}

// eval evaluates the tree directly. If noise is not nil, every
// intermediate result is perturbed by a relative 1e-13, which reveals
// ill-conditioned expressions.
func (tr *tree) eval(vals map[string]float64, noise *rand.Rand) float64 {
	var v []float64
	for _, a := range tr.args {
		v = append(v, a.eval(vals, noise))
	}
	var r float64
	switch tr.op {
	case "c":
		return tr.val
	case "x", "y", "z", "t":
		return vals[tr.op]
	case "+":
		r = v[0] + v[1]
	case "-":
		r = v[0] - v[1]
	case "*":
		r = v[0] * v[1]
	case "/":
		r = v[0] / v[1]
	case "^":
		r = math.Pow(v[0], v[1])
	case "neg":
		r = -v[0]
	case "pw":
		r = v[3]
		if v[1] < v[2] {
			r = v[0]
		}
	case "exp":
		r = math.Exp(v[0])
	case "ln":
		r = math.Log(v[0])
	case "sin":
		r = math.Sin(v[0])
	case "cos":
		r = math.Cos(v[0])
	case "abs":
		r = math.Abs(v[0])
	case "tanh":
		r = math.Tanh(v[0])
	case "atan":
		r = math.Atan(v[0])
	case "sqrt":
		r = math.Sqrt(v[0])
	case "sinh":
		r = math.Sinh(v[0])
	case "floor":
		r = math.Floor(v[0])
	default:
		panic("test: unknown tree op " + tr.op)
	}
	if noise != nil {
		r *= 1 + 1e-13*(2*noise.Float64()-1)
	}
	return r
}
