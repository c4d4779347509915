package parser

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pbgen/pbgen/symbolic"
)

// MaxExprSize bounds the expressions built from one document, in the
// units of symbolic.Builder.Size (nodes plus argument references, about
// 50-150 bytes each): reading may create at most this much, and lowering
// at most this much again. A plain network at the MaxBytes limit (a
// chain of 125,000 mass-action reactions) needs about 1.4 million in
// all, published models far less (the largest PEtab benchmark model
// about 20,000). What passes it is expansion gone exponential or
// quadratic, such as function definitions nested by repeated composition,
// f_i(x) = f_{i-1}(f_{i-1}(x)), whose expansion is a DAG of 2^i distinct
// nodes however it is shared. Generated code grows with the expressions
// (about 25 bytes of Go per unit), so the bound is also what keeps it
// compilable.
const MaxExprSize = 1 << 21

// expansionSizes estimates, for each function definition, how many nodes
// one expansion of its body creates with every call expanded: the body's
// nodes plus, for each distinct call in it (calls of one function on
// structurally equal arguments are expanded once, as call memoises them),
// the size of the callee's expansion. The estimate needs no expansion, so
// a definition whose expansion would be astronomically large is refused
// with the size it would reach before any work is done. Recursive
// definitions get no estimate here; conversion reports them.
func (r *reader) expansionSizes() map[*funcDef]float64 {
	sizes := make(map[*funcDef]float64)
	state := make(map[*funcDef]uint8) // 1 visiting, 2 done
	ids := make(map[string]int)       // structural ids of mnodes (hash-consing)
	var size func(f *funcDef) float64
	memo := make(map[*mnode]int)
	var idOf func(n *mnode) int
	idOf = func(n *mnode) int {
		if id, ok := memo[n]; ok {
			return id
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "%d|%s|%s|%v|", n.kind, n.op, n.name, n.val)
		for _, a := range n.args {
			sb.WriteString(strconv.Itoa(idOf(a)))
			sb.WriteByte(',')
		}
		for _, a := range []*mnode{n.qual, n.other} {
			if a != nil {
				sb.WriteString(strconv.Itoa(idOf(a)))
			}
			sb.WriteByte(';')
		}
		k := sb.String()
		id, ok := ids[k]
		if !ok {
			id = len(ids)
			ids[k] = id
		}
		memo[n] = id
		return id
	}
	var body func(n *mnode, seen map[int]bool) float64
	body = func(n *mnode, seen map[int]bool) float64 {
		if n == nil {
			return 0
		}
		total := 1.0
		for _, a := range n.args {
			total += body(a, seen)
		}
		total += body(n.qual, seen) + body(n.other, seen)
		if n.kind == mCall {
			if g, ok := r.funcs[n.name]; ok && !seen[idOf(n)] {
				seen[idOf(n)] = true
				total += size(g)
			}
		}
		return total
	}
	depth := 0
	size = func(f *funcDef) float64 {
		switch state[f] {
		case 1:
			return 0
		case 2:
			return sizes[f]
		}
		if depth >= symbolic.MaxDepth {
			return 0 // conversion reports the nesting
		}
		depth++
		state[f] = 1
		s := body(f.body, make(map[int]bool))
		state[f] = 2
		depth--
		sizes[f] = s
		return s
	}
	for _, fd := range r.m.FunctionDefinitions {
		size(r.funcs[fd.ID])
	}
	return sizes
}

// checkExpansions refuses function definitions whose expansion would pass
// MaxExprSize, at the definition's line with the estimated size; calls of
// them then expand to nothing.
func (r *reader) checkExpansions() {
	sizes := r.expansionSizes()
	for _, fd := range r.m.FunctionDefinitions {
		f := r.funcs[fd.ID]
		if s := sizes[f]; s > MaxExprSize && !f.bad {
			r.errorf(fd.Line, "functionDefinition", fd.ID, "expanding its calls would create about %.3g expression nodes, more than the limit of %d", s, MaxExprSize)
			f.bad = true
		}
	}
}
