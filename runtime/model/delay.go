package model

// Delays is the optional interface of a model whose equations use values
// from the past: SBML's csymbol delay, delay(e, tau) = the value of e at
// t - tau. Such a model is a delay differential equation; its F, Jx, Jp
// (and OutputsTo) alone cannot be evaluated, because they need the
// delayed values d_k, which only a solver that keeps the history can
// supply (runtime/dde). They are therefore given here in variants that
// take d, and the plain methods of Model evaluate them with every d_k
// NaN, so that a solver that ignores this interface fails on non-finite
// values instead of simulating another model (runtime/ode refuses such a
// model outright).
//
// Delayed value k is d_k(t) = e_k(t - tau_k(t)), where e_k (DelayArg) and
// tau_k (DelayTime) are expressions of (t, x, p) and of the delayed values
// of lower index only (nested delays and delays whose length is itself a
// delayed value are ordered so; the list is topologically sorted).
// Before the start time the history of e_k is DelayHistory, an
// expression of (t, p): SBML defines it through the initial values (with
// the time in them), so a variable given as sin(t) by an initial
// assignment has been sin(t) before the start.
//
// Jx and Jp in the d variants treat d as constant: the Newton matrix of
// an implicit integrator needs no more, and sensitivities through delays
// take the rest from the optional DelaySens.
//
// It is optional and additive: a model without delays does not implement
// it, and generated code that does not implement it keeps compiling.
type Delays interface {
	// NumDelays is the number of delayed values.
	NumDelays() int
	// DelayInfo describes delayed value k.
	DelayInfo(k int) DelayInfo
	// DelayArg is e_k at (t, x, p), with d[:k] the delayed values of
	// lower index at t.
	DelayArg(k int, t float64, x, p, d []float64) float64
	// DelayTime is tau_k at (t, x, p), with d[:k] as in DelayArg.
	DelayTime(k int, t float64, x, p, d []float64) float64
	// DelayHistory is e_k at a time t before the start.
	DelayHistory(k int, t float64, p []float64) float64
	// FDelayed writes f(t, x, p) with the delayed values d (length
	// NumDelays) into dst.
	FDelayed(dst []float64, t float64, x, p, d []float64)
	// JxDelayed writes df/dx at (t, x, p, d), d held fixed, in JxPattern
	// order into dst.
	JxDelayed(dst []float64, t float64, x, p, d []float64)
	// OutputsDelayedTo writes the outputs (Observer) at (t, x, p, d)
	// into dst; a model without outputs writes nothing.
	OutputsDelayedTo(dst []float64, t float64, x, p, d []float64)
}

// DelayInfo describes one delayed value.
type DelayInfo struct {
	// Name is a readable form of the delay, such as "delay(x, 0.2)".
	Name string
	// Constant: tau depends on the parameters only, so the breaking
	// points t0 + tau, t0 + 2 tau, ... where the solution's derivatives
	// jump are known in advance and a solver stops at them.
	Constant bool
	// Reads is the number of delayed values that e_k and tau_k read:
	// they depend on d[:Reads] only (0 when they use no delayed value).
	// A solver looking e_k up in the past computes those alone.
	Reads int
	// HistoryJumps: the history before the start is discontinuous in
	// time (floor or ceiling of time, a relation on time), so d_k jumps
	// at the history's jump times plus tau, in [t0, t0 + tau];
	// HistoryJumpsMove: those times depend on the parameters. A solver
	// does not locate them (runtime/dde.SolveSens refuses where they
	// would move S).
	HistoryJumps, HistoryJumpsMove bool
	// ArgJumps: e_k holds a relation (or floor, ceiling) on time, a state
	// or a delayed value, so it jumps during the solve and d_k tau later;
	// ArgJumpsMove: the relation's operands depend on the parameters, a
	// state or a delayed value. As HistoryJumps, not located.
	ArgJumps, ArgJumpsMove bool
}

// HasDelays reports whether m uses delayed values.
func HasDelays(m Model) bool {
	d, ok := m.(Delays)
	return ok && d.NumDelays() > 0
}
