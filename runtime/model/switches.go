package model

// Switches is the optional interface of a model.Events whose right-hand
// side f is discontinuous where some of its root functions change sign:
// the relations inside piecewise functions (and other relations) in f,
// such as a step input piecewise(1, t >= T, 0) or a rate that switches
// with a state. They belong to no event: they are the last NumSwitches()
// of the NumRoots() root functions of RootsTo and RootGrad, after those
// of the triggers (a root may occur in both lists).
//
// runtime/events stops the integration where a switch changes sign and
// restarts it there, so that no step straddles the jump of f (an
// implicit step across it is accurate only under a step size the error
// control must first discover, and a Peano-Baker grid across it is
// wrong); at a switch whose time depends on the parameters S jumps by
// (f- - f+) dtau/dp.
//
// A model with switches and no events implements Events with NumEvents
// 0. Switches is optional and additive like Events (no GenVersion bump):
// a model without it has no switches, and solvers that ignore it step
// over the discontinuities under their error control, as before.
type Switches interface {
	Events
	// NumSwitches is the number of switch root functions, the last ones
	// of RootsTo: root j is a switch for j >= NumRoots()-NumSwitches().
	NumSwitches() int
}
