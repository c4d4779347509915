package symbolic

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Builder creates and interns nodes. A Builder is not safe for concurrent
// use; the nodes it returns are immutable and may be shared freely.
type Builder struct {
	table map[string]*Node
	nodes []*Node
	key   []byte
	memo  map[string]*Node // Add and Mul results by argument list (arith.go)
	size  int              // nodes plus argument references held
	limit int              // size past which intern panics with overLimit (0: none)
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{table: make(map[string]*Node)}
}

// intern returns the unique node with these fields, creating it if needed.
// It does no simplification; constructors simplify before calling it.
func (b *Builder) intern(op Op, args []*Node, val float64, name string, kind SymKind) *Node {
	k := b.key[:0]
	k = append(k, byte(op), byte(kind))
	k = binary.LittleEndian.AppendUint64(k, math.Float64bits(val))
	for _, a := range args {
		k = binary.LittleEndian.AppendUint32(k, uint32(a.id))
	}
	k = append(k, 0xff)
	k = append(k, name...)
	b.key = k
	if n, ok := b.table[string(k)]; ok {
		return n
	}
	n := &Node{Op: op, Args: append([]*Node(nil), args...), Val: val, Name: name, Kind: kind, id: len(b.nodes)}
	n.hash, n.ht = structHash(n)
	b.table[string(k)] = n
	b.nodes = append(b.nodes, n)
	b.size += 1 + len(args)
	if b.limit > 0 && b.size > b.limit {
		panic(overLimit{b})
	}
	return n
}

// Size is the number of nodes plus the number of argument references the
// Builder holds. Its memory is roughly proportional: about 150 bytes per
// node and 12 per argument.
func (b *Builder) Size() int { return b.size }

// ErrTooLarge is wrapped by the error of Bounded when the expressions
// built would pass the size limit.
var ErrTooLarge = errors.New("expressions too large")

// overLimit is the panic value by which intern aborts work past a limit;
// Bounded recovers it.
type overLimit struct{ b *Builder }

// Bounded runs f and returns nil, unless the nodes f creates would make
// the Builder's Size grow by more than max: then the construction that
// passes the limit stops f (by a panic that Bounded recovers), and Bounded
// returns an error wrapping ErrTooLarge. Nodes created before the stop
// stay valid. Bounded calls nest (the tighter limit applies); other
// panics pass through.
//
// Expansion that repeats work (nested function definitions, chains of
// rules, their derivatives) can grow exponentially or quadratically in
// the size of a small input; Bounded lets a reader of untrusted documents
// turn that into an error instead of exhausting memory, without checks in
// every constructor's caller.
func (b *Builder) Bounded(max int, f func()) (err error) {
	if max < 0 {
		panic("symbolic: Bounded: negative limit")
	}
	old := b.limit
	lim := b.size + max
	if old > 0 && old < lim {
		lim = old
	}
	b.limit = lim
	defer func() {
		b.limit = old
		if r := recover(); r != nil {
			if o, ok := r.(overLimit); ok && o.b == b {
				err = fmt.Errorf("%w: more than %d nodes and arguments", ErrTooLarge, max)
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}

// Len is the number of distinct nodes created so far.
func (b *Builder) Len() int { return len(b.nodes) }

// Owns reports whether n was created by b.
func (b *Builder) Owns(n *Node) bool {
	return n != nil && n.id < len(b.nodes) && b.nodes[n.id] == n
}

// structHash computes a node's structural hash and height from its fields
// and its arguments' hashes. The hash does not depend on creation order, so
// the canonical argument order derived from it is the same in every Builder.
func structHash(n *Node) (uint64, int32) {
	h := mix(uint64(n.Op)<<8 | uint64(n.Kind))
	h = mix(h ^ math.Float64bits(n.Val))
	for i := 0; i < len(n.Name); i++ {
		h = mix(h ^ uint64(n.Name[i]))
	}
	ht := int32(1)
	for _, a := range n.Args {
		h = mix(h ^ a.hash)
		if a.ht+1 > ht {
			ht = a.ht + 1
		}
	}
	return h, ht
}

// mix is the splitmix64 finaliser.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
