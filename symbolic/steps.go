package symbolic

// Step functions of the rates: floor and ceil.
//
// floor(a) in a rate is constant between the integers of a and jumps at
// each. Its derivative, 0 wherever it exists, is what Diff gives, and
// alone it leaves the jumps out of the sensitivities: where a moves with
// t or the state, the times at which a crosses an integer move with the
// parameters, and there x has a kink whose time moves, so S jumps by
// (f- - f+) dtau/dp (dX/dt = k floor(t/T): X(3) = 6 - 3T for 2T <= 3 <
// 3T, dX/dT = -3, not 0). A relation has one root function, a - b,
// which the switches of f (Builder.Switches) hand to the event solver;
// floor(a) has one at every integer, which no finite list of continuous
// functions of (t, x, p) expresses, and a root like sin(pi a) is missed
// when a step crosses two integers.
//
// LowerSteps therefore makes the integer part a state: floor(a) becomes
// a state n with rate 0 and n(t0) = floor(a(t0)), and two events keep it
// equal to floor(a): when a >= n + 1 becomes true, n := max(n + 1,
// floor(a)); when a < n becomes true, n := min(n - 1, floor(a)). Their
// roots a - (n + 1) and a - n are continuous between events, so the event
// solver locates each crossing, one integer at a time, and carries S
// over it with the usual jump: f is smooth in (t, x, n, p) between the
// crossings, n's own row of S stays 0 (its assignments have no
// derivative in x or p), and the other rows jump by (f- - f+) dtau/dp. The
// max and min take a jump of a by more than one integer (an SBML event
// that sets the state, new parameters at a PEtab period) in one
// execution. ceil(a) is the same with a > m and a <= m - 1, m := max(m +
// 1, ceil(a)) and m := min(m - 1, ceil(a)).
//
// The events start with InitialValue false: a trigger already true at
// the start fires there, so n is made right when the solve starts
// elsewhere than where Init assumed (another start time, a state set by
// the caller, an algebraic variable whose Init is only a guess, a
// continued solve with other parameters).

// StepKindFloor and StepKindCeil are the values of State.Meta["step"] of
// the states LowerSteps adds: the function whose value the state holds.
const (
	StepKindFloor = "floor"
	StepKindCeil  = "ceil"
)

// LowerSteps replaces every floor(a) and ceil(a) in the rates of o whose
// argument a depends on time, a state or a delayed value by a new state
// holding its value, kept right by two events (see above); floor and
// ceil of parameters alone are constant during a solve and stay. Nested
// ones are lowered innermost first, and equal arguments share one state.
// The new states come after the differential states (before the
// algebraic ones, which stay last) and the events after o's own, in the
// order the functions are first met in the rates. name(kind, k) names
// the k-th new state (k from 1; kind is StepKindFloor or StepKindCeil):
// the caller makes it unique. Outputs, events and delays keep their
// floor and ceil: their values are exact, and their derivatives (0) are
// right where they exist. It returns the number of states added.
func LowerSteps(o *ODE, name func(kind string, k int) string) int {
	b := o.B
	steps := collectSteps(o)
	if len(steps) == 0 {
		return 0
	}
	// Symbols whose value is known at t0 for the initial values: the
	// states by their initial values, time 0 (the lowering's t0), and
	// each delayed value by its history at t0 - tau(t0) (in order: tau
	// may read the delayed values before it).
	init := make(map[*Node]*Node, len(o.States)+len(o.Delays)+1)
	for _, s := range o.States {
		init[b.Sym(s.Name, KindState)] = s.Init
	}
	init[b.Time()] = b.Const(0)
	for _, d := range o.Delays {
		at := b.Neg(b.Substitute(d.Tau, init))
		init[b.Sym(d.Name, KindDelay)] = b.Substitute(d.History, map[*Node]*Node{b.Time(): at})
	}
	at := len(o.States) - o.Algebraic
	repl := make(map[*Node]*Node, len(steps))
	type lowered struct {
		op  Op
		arg *Node // with inner steps replaced
	}
	index := make(map[lowered]*Node)
	var states []State
	var events []Event
	for _, n := range steps {
		arg := b.Substitute(n.Args[0], repl)
		key := lowered{n.Op, arg}
		if s, ok := index[key]; ok {
			repl[n] = s
			continue
		}
		kind := StepKindFloor
		if n.Op == OpCeil {
			kind = StepKindCeil
		}
		st := State{
			Name: name(kind, len(states)+1),
			Rate: b.Const(0),
			Held: true,
			// Inner steps are replaced by their own initial values
			// through the states' Init, which are in init already.
			Init: b.Func(n.Op, b.Substitute(arg, init)),
			Meta: map[string]string{"step": kind, "arg": arg.String(),
				"about": kind + " of " + arg.String() + ", held between the events that cross its integers"},
		}
		s := b.Sym(st.Name, KindState)
		init[s] = st.Init
		index[key] = s
		repl[n] = s
		idx := at + len(states)
		states = append(states, st)
		one := b.Const(1)
		up, down := b.Add(s, one), b.Sub(s, one)
		fa := b.Func(n.Op, arg)
		var trigUp, trigDown *Node
		if n.Op == OpFloor {
			trigUp, trigDown = b.Rel(OpGeq, arg, up), b.Rel(OpLt, arg, s)
		} else {
			trigUp, trigDown = b.Rel(OpGt, arg, s), b.Rel(OpLeq, arg, down)
		}
		ev := func(dir string, trig, val *Node) Event {
			return Event{
				Name: st.Name + "_" + dir, Trigger: trig, Persistent: true, UseValuesFromTriggerTime: true,
				Assign: []EventAssign{{State: idx, Value: val}},
				Meta:   map[string]string{"step": st.Name},
			}
		}
		events = append(events,
			ev("up", trigUp, b.Piecewise(up, b.Rel(OpGeq, up, fa), fa)),
			ev("down", trigDown, b.Piecewise(down, b.Rel(OpLeq, down, fa), fa)))
	}
	for i := range o.States {
		o.States[i].Rate = b.Substitute(o.States[i].Rate, repl)
	}
	for i := range o.Delays {
		o.Delays[i].Expr = b.Substitute(o.Delays[i].Expr, repl)
	}
	// Insert before the algebraic states, moving the indices of the
	// events' targets past them.
	for k := range o.Events {
		for j := range o.Events[k].Assign {
			if a := &o.Events[k].Assign[j]; a.State >= at {
				a.State += len(states)
			}
		}
	}
	o.States = append(o.States[:at], append(states, o.States[at:]...)...)
	o.Events = append(o.Events, events...)
	return len(states)
}

// collectSteps returns the floor and ceil nodes of the rates and of the
// delayed expressions whose argument moves during a solve, each once, inner ones before the
// functions whose argument holds them (post-order over the shared DAG).
func collectSteps(o *ODE) []*Node {
	var out []*Node
	seen := make(map[*Node]bool)
	type frame struct {
		n    *Node
		next int
	}
	var stack []frame
	roots := make([]*Node, 0, len(o.States)+len(o.Delays))
	for _, s := range o.States {
		roots = append(roots, s.Rate)
	}
	for _, d := range o.Delays {
		roots = append(roots, d.Expr)
	}
	for _, r := range roots {
		if r == nil || seen[r] {
			continue
		}
		seen[r] = true
		stack = append(stack[:0], frame{r, 0})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next < len(top.n.Args) {
				a := top.n.Args[top.next]
				top.next++
				if !seen[a] {
					seen[a] = true
					stack = append(stack, frame{a, 0})
				}
				continue
			}
			n := top.n
			stack = stack[:len(stack)-1]
			if (n.Op == OpFloor || n.Op == OpCeil) && moves(n.Args[0]) {
				out = append(out, n)
			}
		}
	}
	return out
}

// moves reports whether g depends on time, a state or a delayed value:
// whether it can change during a solve.
func moves(g *Node) bool {
	for _, s := range FreeSymbols(g) {
		if s.Kind == KindTime || s.Kind == KindState || s.Kind == KindDelay {
			return true
		}
	}
	return false
}
