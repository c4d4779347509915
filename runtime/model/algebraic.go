package model

// Algebraic is the optional interface of a model that is a semi-explicit
// differential-algebraic system
//
//	dx/dt = f(t, x, z, p),   0 = g(t, x, z, p),
//
// with g_z = dg/dz nonsingular along the solution (index 1): SBML
// algebraic rules, and fast reactions at rapid equilibrium. The last
// NumAlgebraic states are the algebraic variables z; the other states are
// x. F, Jx and Jp cover both: the rows of the algebraic variables hold
// the residuals g and their derivatives (Jx's columns are all states, so
// its algebraic rows hold g_x and g_z). InitialState writes x(t0) and a
// first guess for z(t0), which need not satisfy g.
//
// Such a model is not an ODE, and the integrators and sensitivity solvers
// must not take it as one: runtime/dae wraps it into a model.Model over x
// alone whose F solves g = 0 for z (Newton) and whose Jacobians are those
// of the reduced system (by the implicit function theorem), so that every
// method works on it unchanged.
//
// It is optional and additive like Events: a model without it has no
// algebraic variables, and generated code that does not implement it
// keeps compiling, so it needs no GenVersion bump. interp.Model and
// generated packages implement it when the system has algebraic
// variables.
type Algebraic interface {
	Model
	// NumAlgebraic returns the number of algebraic variables, the last
	// states of the model.
	NumAlgebraic() int
	// ResidualT writes the partial derivative dg/dt of the residuals at
	// (t, x, p) into dst (length NumAlgebraic): the implicit derivative
	// dz/dt at fixed x, which event sensitivities need, is
	// -g_z^{-1} dg/dt.
	ResidualT(dst []float64, t float64, x, p []float64)
}
