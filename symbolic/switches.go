package symbolic

// Switches returns the root functions of the discontinuities of the
// rates f: for each relation a op b inside them (the conditions of
// piecewise functions, or a relation used as a number), a - b, as Roots
// forms them, in first-seen order over f and without duplicates. Only
// roots that depend on time, a state or a delayed value are kept: one of
// the parameters alone cannot change sign during a solve.
//
// floor and ceil are not included: their discontinuities are at every
// integer of their argument, which a finite list of continuous roots
// cannot express. LowerSteps makes each one of a moving argument a state
// held between events instead (steps.go); one left here has an argument
// that depends on the parameters alone and no jump during a solve.
func (b *Builder) Switches(f []*Node) []*Node {
	var out []*Node
	seen := make(map[*Node]bool)
	have := make(map[*Node]bool)
	var stack []*Node
	for i := len(f) - 1; i >= 0; i-- {
		if f[i] != nil {
			stack = append(stack, f[i])
		}
	}
	// One walk over the shared DAG of all rates, in the order of Roots.
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		if isRel(n.Op) && len(n.Args) == 2 {
			if g := b.Sub(n.Args[0], n.Args[1]); g.Op != OpConst && !have[g] && movesInTime(g) {
				have[g] = true
				out = append(out, g)
			}
		}
		for i := len(n.Args) - 1; i >= 0; i-- {
			stack = append(stack, n.Args[i])
		}
	}
	return out
}

// movesInTime reports whether g depends on time, a state or a delayed
// value (which moves in time as the state it delays does: a relation on
// delay(x, tau) switches f when the delayed value crosses).
func movesInTime(g *Node) bool {
	for _, s := range FreeSymbols(g) {
		if s.Kind == KindTime || s.Kind == KindState || s.Kind == KindDelay {
			return true
		}
	}
	return false
}
