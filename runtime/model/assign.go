package model

// Assigner is the optional interface of a model whose estimation problem
// changes states discretely during a simulation: a PEtab v2 experiment
// with several periods, where a condition applied at a period's start may
// set states from expressions of the current state and parameters
// (A := A + 5 at t = 10). Assignment set k sets the states
// AssignTargets(k) simultaneously to g(t, x, p), every g evaluated at the
// values before the assignment; the other states keep their values.
// runtime/objective applies the sets and carries the sensitivities
// through them by the chain rule, S_i := dg_i/dx S + dg_i/dp dp/dtheta.
//
// It is optional and additive: a model without it is unchanged, and
// generated code that does not implement it keeps compiling, so it needs
// no GenVersion bump. interp.Observed implements it.
type Assigner interface {
	// NumAssignments returns the number of assignment sets.
	NumAssignments() int
	// AssignTargets returns the states (indices, ascending) that set k
	// assigns. The caller must not modify the slice.
	AssignTargets(k int) []int
	// Assign writes the new values of set k's targets at (t, x, p) into
	// dst (length len(AssignTargets(k))) and, when d is not nil, their
	// derivatives into d (dense, every entry written, zeros included).
	Assign(k int, t float64, x, p, dst []float64, d *AssignDeriv)
}

// AssignDeriv receives the derivatives of an assignment set with n targets,
// dense, row-major and caller-owned: X is n x nx (dg_i/dx_j), P is n x np
// (dg_i/dp_j).
type AssignDeriv struct {
	X, P []float64
}
