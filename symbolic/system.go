package symbolic

// ODE is the input to Build: an ODE system in terms of symbols of kind
// KindState (the states, by Name), KindParam (the sensitivity parameters) and
// KindTime. Everything else (rules, function definitions, constants,
// compartment sizes) has already been substituted by the caller (the SBML
// parser's lowering).
type ODE struct {
	B       *Builder // the builder owning every node of the ODE
	Name    string   // model id
	Source  string   // file the model came from, for messages and headers
	States  []State  // in state order
	Params  []Param  // sensitivity parameters, in order
	Outputs []Output // extra observables (e.g. assignment-rule species), optional
	Events  []Event  // discrete changes of the state, in document order, optional
	Delays  []Delay  // delayed values the rates and outputs read (KindDelay symbols), optional
	// Algebraic is the number of algebraic variables z: the last
	// Algebraic states. Their Rate is a residual g(t, x, z, p) that the
	// solution keeps at 0 (dx/dt = f(t, x, z, p), 0 = g(t, x, z, p), a
	// semi-explicit DAE), and their Init a first guess for z(t0), which
	// need not satisfy g (runtime/dae solves it). Zero for an ODE.
	Algebraic int
}

// Delay is a delayed value d(t) = Expr(t - Tau(t)): the rates and outputs
// read it as the KindDelay symbol Name. Expr and Tau are expressions of
// t, x, p and the delayed values listed before this one (so a solver
// computes them in order); History is Expr before the start time, an
// expression of t and p (SBML: every variable at its initial value).
// Jx and Jp hold d fixed; System.DelayDerivs has the derivatives through
// the delays.
type Delay struct {
	Name, Label        string // the symbol's name; a readable form for messages
	Expr, Tau, History *Node
}

// DelayIndex returns the index of each delay by name.
func (o *ODE) DelayIndex() map[string]int {
	m := make(map[string]int, len(o.Delays))
	for k, d := range o.Delays {
		m[d.Name] = k
	}
	return m
}

// DelayShape says whether delay k's Tau depends on the parameters only
// (constant: a solver knows its breaking points), and how many delayed
// values its Expr and Tau read (1 + the largest index, 0 for none).
func (o *ODE) DelayShape(k int, index map[string]int) (constant bool, reads int) {
	d := o.Delays[k]
	constant = true
	for _, s := range FreeSymbols(d.Tau) {
		if s.Kind != KindParam {
			constant = false
		}
		if s.Kind == KindDelay {
			reads = max(reads, index[s.Name]+1)
		}
	}
	for _, s := range FreeSymbols(d.Expr) {
		if s.Kind == KindDelay {
			reads = max(reads, index[s.Name]+1)
		}
	}
	return constant, reads
}

// DelayJumps says where delayed value k may jump at a time no breaking
// point or jump source of runtime/dde accounts for. hist: its History
// (before the start, a function of time and p) holds floor or ceil of an
// expression of time, or a relation on time, so d_k jumps somewhere in
// [t0, t0 + tau] (at a jump time of the history plus tau, the one at t0
// included: DelayHistory is the value there, not the left limit);
// histMove: those times depend on the parameters. arg: its Expr holds a
// relation on time, a state or a delayed value (not a switch of f:
// Builder.Switches reads the rates only), or floor or ceil of one that
// LowerSteps has not made a state, so e_k jumps during the solve;
// argMove: that argument depends on the parameters or on a state or
// delayed value (which move with them). A jump whose time moves with p,
// or reaches f a delay later that moves with p, is a jump of S the
// solver would miss.
func (o *ODE) DelayJumps(k int) (hist, histMove, arg, argMove bool) {
	d := o.Delays[k]
	hist, histMove = jumpsIn(d.History, func(s *Node) bool { return s.Kind == KindTime },
		func(s *Node) bool { return s.Kind == KindParam })
	arg, argMove = jumpsIn(d.Expr, func(s *Node) bool { return s.Kind == KindTime || s.Kind == KindState || s.Kind == KindDelay },
		func(s *Node) bool { return s.Kind != KindTime })
	return
}

// jumpsIn reports whether n holds a relation, or floor or ceil, whose
// operands have a free symbol for which moving is true (a discontinuity
// in time), and whether one of those has a free symbol for which dep is
// true.
func jumpsIn(n *Node, moving, dep func(*Node) bool) (jumps, depends bool) {
	if n == nil {
		return false, false
	}
	seen := make(map[*Node]bool)
	stack := []*Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[c] {
			continue
		}
		seen[c] = true
		if isRel(c.Op) || c.Op == OpFloor || c.Op == OpCeil {
			mv, dp := false, false
			for _, a := range c.Args {
				for _, s := range FreeSymbols(a) {
					mv = mv || moving(s)
					dp = dp || dep(s)
				}
			}
			if mv {
				jumps = true
				depends = depends || dp
			}
		}
		stack = append(stack, c.Args...)
	}
	return jumps, depends
}

// State is one state variable: dx/dt = Rate, x(t0) = Init.
// Init may depend on parameters (and on t only through t0, which the lowering
// substitutes) but not on states.
type State struct {
	Name string
	Rate *Node
	Init *Node
	// Held marks a state that only events change (Rate is 0) and whose
	// sensitivity is 0 at all times: its Init and the values events
	// assign it have no derivative in x or p, as for the integer parts
	// LowerSteps adds. Build leaves its column out of Jx: it multiplies
	// only its row of S and the integrator's corrections of it, which
	// are 0, and the rates need not be differentiable in it
	// (factorial(ceil(a)), SBML Test Suite 00173).
	Held bool
	Meta map[string]string // free-form metadata (SBML id, compartment, units); never used in numerics
}

// Param is a sensitivity parameter with its default value.
type Param struct {
	Name  string
	Value float64
	Meta  map[string]string
}

// Output is a named expression of (t, x, p) reported beside the states.
type Output struct {
	Name string
	Expr *Node
}

// Entry is one structurally non-zero entry of a sparse matrix.
type Entry struct {
	Row, Col int
	Expr     *Node
}

// System is an ODE with its derivatives, ready for code generation or
// interpretation. Jx, Jp and X0p are sorted by (Row, Col) and never contain
// an entry whose expression is the constant 0.
type System struct {
	ODE *ODE
	B   *Builder // the builder owning every node below
	F   []*Node  // f_i, len = len(ODE.States)
	X0  []*Node  // initial state as a function of p
	Jx  []Entry  // df_i/dx_j
	Jp  []Entry  // df_i/dp_j
	X0p []Entry  // dx0_i/dp_j
	// Gt holds the partial derivatives in t of the algebraic residuals
	// (the last ODE.Algebraic rows of F), one per algebraic variable; nil
	// without algebraic variables.
	Gt []*Node
}
