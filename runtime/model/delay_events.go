package model

// DelayEvents is the optional interface of a model with both delays and
// events (model.Delays and model.Events): its triggers, root functions,
// event delays, priorities and assigned values may read delayed values
// (SBML allows csymbol delay anywhere in an event), so, as F has
// FDelayed, each has a variant that takes the delayed values d (length
// NumDelays) at the same time t. The plain methods of Events evaluate
// them with every d_k NaN, as the plain F does (model.Delays says why).
// runtime/dde solves such a model, looking d up in the solution's
// history; runtime/events refuses a model with delays.
//
// It is optional and additive: a model with delays whose events read no
// delayed value may leave it out (runtime/dde then calls the plain
// methods), and generated code without it keeps compiling.
type DelayEvents interface {
	Delays
	Events
	// TriggersDelayedTo is TriggersTo with the delayed values d.
	TriggersDelayedTo(dst []bool, t float64, x, p, d []float64)
	// RootsDelayedTo is RootsTo with the delayed values d.
	RootsDelayedTo(dst []float64, t float64, x, p, d []float64)
	// EventDelayDelayed is Delay (event k's delay) with the delayed
	// values d.
	EventDelayDelayed(k int, t float64, x, p, d []float64) float64
	// PriorityDelayed is Priority with the delayed values d.
	PriorityDelayed(k int, t float64, x, p, d []float64) float64
	// EventAssignDelayed is EventAssign with the delayed values d.
	EventAssignDelayed(k int, t float64, x, p, d, dst []float64)
}

// DelayEventDerivs is the optional interface of a model.DelayEvents that
// also gives the derivatives of its root functions, event delays and
// assigned values in the delayed values they read, which sensitivities
// across the events of a delay model need (runtime/dde.SolveSens): a
// root g(t, x, p, d) crossing zero at tau moves tau through d as well,
//
//	dtau/dp = -(g_x S + g_p + g_d D) / (g_x f + g_t + g_d d'),
//
// with D = dd/dp and d' the derivative of d along the solution, which
// only the solver's history gives. It is optional and additive: a model
// whose events read no delayed value needs only model.EventDerivs.
type DelayEventDerivs interface {
	DelayEvents
	EventDerivs
	// RootGradDelayed is RootGrad at (t, x, p) with the delayed values d:
	// it also writes dg_j/dd into dd (length NumDelays).
	RootGradDelayed(j int, t float64, x, p, d, dx, dp, dd []float64) float64
	// EventDerivDelayed is EventDeriv at (t, x, p) with the delayed
	// values d: it also writes the derivatives in d into dd, row-major
	// (n+1) x NumDelays in the rows of EventDeriv (every entry written).
	EventDerivDelayed(k int, t float64, x, p, d []float64, der *EventDeriv, dd []float64)
}
