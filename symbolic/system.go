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
	// Algebraic is the number of algebraic variables z: the last
	// Algebraic states. Their Rate is a residual g(t, x, z, p) that the
	// solution keeps at 0 (dx/dt = f(t, x, z, p), 0 = g(t, x, z, p), a
	// semi-explicit DAE), and their Init a first guess for z(t0), which
	// need not satisfy g (runtime/dae solves it). Zero for an ODE.
	Algebraic int
}

// State is one state variable: dx/dt = Rate, x(t0) = Init.
// Init may depend on parameters (and on t only through t0, which the lowering
// substitutes) but not on states.
type State struct {
	Name string
	Rate *Node
	Init *Node
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
