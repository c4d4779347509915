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
// This package imports nothing else from pbgen.
package symbolic

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
)

// Node is an immutable, interned expression node.
type Node struct {
	Op   Op
	Args []*Node
	Val  float64 // OpConst
	Name string  // OpSym
	Kind SymKind // OpSym
	id   int     // unique per Builder, in creation order (deterministic)
}

// ID is the node's creation index within its Builder; deterministic for a
// deterministic sequence of constructions.
func (n *Node) ID() int { return n.id }

// IsConst reports whether n is the constant v.
func (n *Node) IsConst(v float64) bool { return n.Op == OpConst && n.Val == v }
