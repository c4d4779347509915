package symbolic

// Program is a straight-line evaluation order for a set of root
// expressions: common-subexpression elimination for free, since interned
// nodes are shared. Every non-leaf node reachable from the roots appears
// exactly once in Steps, after all of its arguments; leaves (constants and
// symbols) are not steps.
type Program struct {
	Steps []*Node       // non-leaf nodes, arguments first
	Roots []*Node       // the expressions asked for, in order
	Uses  map[*Node]int // uses of each step node as an argument of a step or as a root
}

// NewProgram schedules roots (visited in order, arguments depth first, so
// the order is deterministic).
func NewProgram(roots []*Node) *Program {
	p := &Program{Roots: roots, Uses: make(map[*Node]int)}
	seen := make(map[*Node]bool)
	var visit func(n *Node)
	visit = func(n *Node) {
		if n.Op == OpConst || n.Op == OpSym {
			return
		}
		p.Uses[n]++
		if seen[n] {
			return
		}
		seen[n] = true
		for _, a := range n.Args {
			visit(a)
		}
		p.Steps = append(p.Steps, n)
	}
	for _, r := range roots {
		visit(r)
	}
	return p
}
