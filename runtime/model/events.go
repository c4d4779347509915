package model

// Events is the optional interface of a model whose state changes
// discretely when conditions are met: SBML events. Event k has a trigger,
// a truth-valued function of (t, x, p); when it goes from false to true
// the event is triggered, and after a delay (possibly zero) it executes:
// the states EventTargets(k) are set at once to values computed from the
// state before the event. runtime/events implements the SBML rules on top
// of this interface (simultaneous events ordered by priority, triggers
// re-evaluated after each execution, delayed events queued and, unless
// persistent, cancelled when their trigger turns false).
//
// Trigger changes are located as zeros of continuous root functions
// (RootsTo): for a trigger built of relations a op b these are the
// differences a - b, so the truth value can change only where a root
// function changes sign or where an event changes the state.
//
// It is optional and additive: a model without it has no events, and
// generated code that does not implement it keeps compiling, so adding it
// needed no GenVersion bump. interp.Model and generated packages implement
// it. Such a model is solved with runtime/events; sens.Solver refuses it
// rather than step over its events. The derivatives that sensitivities across
// events need are in the optional EventDerivs.
type Events interface {
	// NumEvents is the number of events, in document order.
	NumEvents() int
	// EventInfo returns event k's name and flags.
	EventInfo(k int) EventInfo
	// TriggersTo writes each event's trigger value at (t, x, p) into dst
	// (length NumEvents).
	TriggersTo(dst []bool, t float64, x, p []float64)
	// NumRoots is the number of root functions.
	NumRoots() int
	// RootsTo writes the root functions at (t, x, p) into dst (length
	// NumRoots).
	RootsTo(dst []float64, t float64, x, p []float64)
	// Delay is event k's delay at (t, x, p), to be evaluated at the
	// trigger time; 0 when EventInfo(k).HasDelay is false.
	Delay(k int, t float64, x, p []float64) float64
	// Priority is event k's priority at (t, x, p), evaluated when
	// simultaneous events are ordered; meaningless unless
	// EventInfo(k).HasPriority.
	Priority(k int, t float64, x, p []float64) float64
	// EventTargets returns the states event k sets (indices, ascending).
	// The caller must not modify the slice.
	EventTargets(k int) []int
	// EventAssign writes the new values of event k's targets, computed at
	// (t, x, p), into dst (length len(EventTargets(k))).
	EventAssign(k int, t float64, x, p, dst []float64)
}

// EventInfo is an event's name and SBML flags.
type EventInfo struct {
	Name string
	// InitialValue is the trigger's value just before the start time: a
	// trigger true at the start fires then only if InitialValue is false.
	InitialValue bool
	// Persistent: a triggered, delayed event executes even if its trigger
	// turns false before then; otherwise it is cancelled.
	Persistent bool
	// UseValuesFromTriggerTime: the assignments are computed at the
	// trigger time, else at the execution time.
	UseValuesFromTriggerTime bool
	HasDelay, HasPriority    bool
}

// EventDerivs is the optional interface of a model.Events that also gives
// the derivatives of its root functions, delays and assigned values, which
// sensitivities across events need: at an event located at tau where root
// g crosses zero, dtau/dp = -(g_x S + g_p) / (g_x f + g_t), and the
// sensitivities of the assigned states jump through the assignment's
// derivatives (S+ = G_x S- + G_p + (G_x f- + G_t - f+) dtau/dp for an
// event without delay). It is optional and additive like Events.
type EventDerivs interface {
	Events
	// RootGrad writes dg_j/dx into dx (length NumStates) and dg_j/dp
	// into dp (length NumParams) at (t, x, p) and returns dg_j/dt.
	RootGrad(j int, t float64, x, p, dx, dp []float64) float64
	// EventDeriv writes the derivatives of event k at (t, x, p) into d,
	// dense, every entry written: row 0 is the delay (zero without one),
	// row 1+i the value assigned to EventTargets(k)[i].
	EventDeriv(k int, t float64, x, p []float64, d *EventDeriv)
}

// EventDeriv receives the derivatives of an event with n targets,
// caller-owned, row-major with n+1 rows (see EventDerivs.EventDeriv): X is
// (n+1) x nx, P (n+1) x np and T n+1 (the partial derivatives in t).
type EventDeriv struct {
	X, P, T []float64
}
