// Package symbolic holds pbgen's expression DAG and the ODE system built
// from it: hash-consed expression nodes, simplification at construction,
// exact derivatives, common-subexpression scheduling, and the sparse
// Jacobians Jx = df/dx and Jp = df/dp.
//
// # Nodes are interned
//
// All nodes are created through a Builder, which interns them: two
// structurally equal expressions built by the same Builder are the same
// pointer. Pointer equality is therefore structural equality, and common
// subexpressions are shared for free. Nodes are immutable.
//
// # Hashing is structural, never semantic
//
// a*2 and a+a are different nodes unless simplification rewrites one into
// the other; float64 arithmetic is not a field, so no semantic hashing.
//
// # Simplification
//
// Constructors simplify as they build: constant folding of every operator,
// flattened n-ary Add and Mul in a canonical order, like terms and like
// factors collected, neutral and absorbing elements removed. The rewrites
// preserve every finite value up to floating-point rounding, with these
// documented exceptions, all standard in computer algebra and harmless for
// reaction networks:
//
//   - x*0 -> 0 and x - x -> 0, even where x is Inf or NaN;
//   - x^a * x^b -> x^(a+b) and x*x^-1 -> 1: the result may be a number where
//     the original was NaN (x < 0 with fractional exponents, x = 0 with
//     negative ones); a finite value of the original is never changed;
//   - (x^a)^b -> x^(a*b) only when b is an integer constant or a is an odd
//     integer constant, where the same holds;
//   - (x*y)^n -> x^n * y^n for an integer constant n (so that x*y/(x*z)
//     cancels to y/z), and c*(x + y) -> c*x + c*y inside a sum: equal up to
//     rounding, except where an intermediate result over- or underflows;
//   - constants -0 and NaN payloads are normalised to +0 and math.NaN().
//
// x^0 -> 1 and 1^x -> 1 agree with math.Pow for every x. exp(ln x) and
// ln(exp x) are left alone (they differ at overflow and for x <= 0).
//
// # Limits
//
// Every node records its height (a leaf has height 1). Build, Diff,
// ParseInfix and String refuse expressions higher than MaxDepth (an error,
// or a placeholder for String) instead of recursing without bound on
// hostile input; NewProgram, Eval, Compiled, Substitute and FreeSymbols do
// not recurse. Flattening is not free: a left-nested chain of n binary
// sums or products interns every prefix, O(n^2) work and memory, so
// producers of long sums (the SBML reader) should pass all terms to one
// Add or Mul call. Add and Mul memoise their results by argument list,
// so a repeated call costs its argument count, not the flattened size.
//
// Growth is bounded on request: Builder.Bounded runs a function and
// stops it with an error wrapping ErrTooLarge once the Builder's Size
// (nodes plus argument references) would grow past a limit; readers of
// untrusted input use it around expansion. Build bounds itself: it adds
// at most MaxBuildSize plus the Builder's size, and refuses systems whose
// Jacobians would have more than MaxNonzeros entries before forming them.
// String prints at most MaxStringLen bytes (a DAG prints as a tree, which
// can be exponentially larger).
//
// # Discontinuities of the rates
//
// Diff gives relations, floor and ceil the derivative 0, right wherever
// it exists; their jumps, at times that can move with the parameters,
// are the solvers' to locate. Builder.Switches lists the root functions
// of the relations in f (a solver stops at each); LowerSteps makes each
// floor and ceil of a moving argument a state held between events at the
// integers of its argument (State.Held), since a jump at every integer
// is no finite list of roots.
//
// This package imports nothing else from pbgen.
package symbolic

// MaxDepth is the largest expression height (longest path from a node to a
// leaf, counting both) that the recursive algorithms accept.
const MaxDepth = 10000

// Op is the operator of a node.
type Op uint8

// Operators. Arity is noted; n-ary operators have at least two arguments
// after simplification.
const (
	OpInvalid   Op = iota
	OpConst        // numeric constant, Val
	OpSym          // symbol: Name, Kind
	OpAdd          // n-ary sum
	OpMul          // n-ary product
	OpPow          // binary a^b
	OpExp          // unary
	OpLn           // unary natural log
	OpAbs          // unary
	OpFloor        // unary
	OpCeil         // unary
	OpFactorial    // unary, gamma(x+1)
	OpSin
	OpCos
	OpTan
	OpSec
	OpCsc
	OpCot
	OpSinh
	OpCosh
	OpTanh
	OpSech
	OpCsch
	OpCoth
	OpAsin
	OpAcos
	OpAtan
	OpAsec
	OpAcsc
	OpAcot
	OpAsinh
	OpAcosh
	OpAtanh
	OpAsech
	OpAcsch
	OpAcoth
	OpPiecewise // Args = value1, cond1, value2, cond2, ..., otherwise (always odd count; otherwise may be NaN const)
	OpEq        // binary relational, value 1 (true) or 0 (false)
	OpNeq
	OpLt
	OpGt
	OpLeq
	OpGeq
	OpAnd // n-ary logical on truth values (non-zero = true)
	OpOr
	OpXor
	OpNot // unary
	numOps
)

// SymKind says what a symbol stands for.
type SymKind uint8

const (
	// KindState is a state of the ODE system (index into x).
	KindState SymKind = iota + 1
	// KindParam is a sensitivity parameter (index into p).
	KindParam
	// KindTime is the simulation time t.
	KindTime
	// KindOther is any other named quantity (used while building, before
	// substitution; a System must not contain it).
	KindOther
	// KindDelay is a delayed value, ODE.Delays[k] by Name: the value of
	// its Expr at t - Tau, which a solver with the solution's history
	// supplies (SBML csymbol delay). It is a constant to Diff.
	KindDelay
)

// Node is an immutable, interned expression node.
type Node struct {
	Op   Op
	Args []*Node
	Val  float64 // OpConst
	Name string  // OpSym
	Kind SymKind // OpSym
	id   int     // unique per Builder, in creation order (deterministic)
	hash uint64  // structural hash, independent of creation order
	ht   int32   // height: 1 for leaves, 1 + max over args otherwise
}

// Height is the length of the longest path from n down to a leaf, counting
// both ends (1 for a constant or symbol).
func (n *Node) Height() int { return int(n.ht) }

// ID is the node's creation index within its Builder; deterministic for a
// deterministic sequence of constructions.
func (n *Node) ID() int { return n.id }

// IsConst reports whether n is the constant v.
func (n *Node) IsConst(v float64) bool { return n.Op == OpConst && n.Val == v }
