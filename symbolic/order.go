package symbolic

import (
	"cmp"
	"math"
	"strings"
)

// compareNodes is the canonical order of the arguments of Add, Mul, And, Or
// and Xor: constants first (by value), then symbols (by name, then kind),
// then compound nodes by height, operator, their arguments compared
// shallowly, and structural hash. The creation
// index breaks hash collisions, so the order is deterministic for a
// deterministic construction sequence and never depends on addresses or map
// iteration. It does not recurse.
func compareNodes(a, b *Node) int {
	if a == b {
		return 0
	}
	if c := shallow(a, b); c != 0 {
		return c
	}
	// Same height and operator: compare the arguments shallowly, so that
	// A*B*k1 sorts before C*k2, then fall back to the hash.
	for i := 0; i < len(a.Args) && i < len(b.Args); i++ {
		if c := shallow(a.Args[i], b.Args[i]); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(len(a.Args), len(b.Args)); c != 0 {
		return c
	}
	if c := cmp.Compare(a.hash, b.hash); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// shallow compares two nodes by rank and by their own fields: value,
// name and kind for leaves, height and operator otherwise.
func shallow(a, b *Node) int {
	if a == b {
		return 0
	}
	if c := cmp.Compare(rank(a), rank(b)); c != 0 {
		return c
	}
	switch a.Op {
	case OpConst:
		if c := cmp.Compare(a.Val, b.Val); c != 0 {
			return c
		}
		return cmp.Compare(math.Float64bits(a.Val), math.Float64bits(b.Val))
	case OpSym:
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return cmp.Compare(a.Kind, b.Kind)
	}
	if c := cmp.Compare(a.ht, b.ht); c != 0 {
		return c
	}
	return cmp.Compare(a.Op, b.Op)
}

func rank(n *Node) int {
	switch n.Op {
	case OpConst:
		return 0
	case OpSym:
		return 1
	}
	return 2
}
