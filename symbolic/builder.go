package symbolic

import (
	"encoding/binary"
	"math"
)

// Builder creates and interns nodes. A Builder is not safe for concurrent
// use; the nodes it returns are immutable and may be shared freely.
type Builder struct {
	table map[string]*Node
	nodes []*Node
	key   []byte
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
	b.table[string(k)] = n
	b.nodes = append(b.nodes, n)
	return n
}

// Len is the number of distinct nodes created so far.
func (b *Builder) Len() int { return len(b.nodes) }
