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
// the order is deterministic). It uses an explicit stack, so expressions of
// any height are accepted.
func NewProgram(roots []*Node) *Program {
	p := &Program{Roots: roots, Uses: make(map[*Node]int)}
	type frame struct {
		n    *Node
		next int // index of the next argument to visit
	}
	var stack []frame
	// enter counts a use of n and reports whether it is a new step.
	enter := func(n *Node) bool {
		if n.Op == OpConst || n.Op == OpSym {
			return false
		}
		p.Uses[n]++
		return p.Uses[n] == 1
	}
	for _, r := range roots {
		if !enter(r) {
			continue
		}
		stack = append(stack, frame{r, 0})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next < len(top.n.Args) {
				a := top.n.Args[top.next]
				top.next++
				if enter(a) {
					stack = append(stack, frame{a, 0})
				}
				continue
			}
			p.Steps = append(p.Steps, top.n)
			stack = stack[:len(stack)-1]
		}
	}
	return p
}
