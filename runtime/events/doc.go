// Package events integrates the state of a model with discrete events
// (model.Events, SBML's <event>) through runtime/ode's public API.
//
// # Method
//
// Solve integrates one segment at a time, from the current time to the
// next output time or the next queued (delayed) execution, whichever is
// first, with ode.Solver.Integrate. It then scans the accepted steps of
// the segment in order with the integrator's own dense output
// (Trajectory.InterpStep): a root function of the triggers that changes
// sign inside a step is located by the Illinois variant of regula falsi,
// safeguarded by bisection, to a time tolerance; a trigger that changes
// with no root changing sign (a trigger that is not a relation, a
// relation whose root only touches zero) is located by bisection on the
// trigger values. At the earliest change the rest of the segment is
// discarded, the events are handled at that time with the state from the
// dense output, and integration restarts there (the integrator starts
// afresh: the right-hand side may jump with the state).
//
// # SBML semantics
//
// An event is triggered when its trigger goes from false to true; at the
// start time the trigger's value "before" is EventInfo.InitialValue, so a
// trigger true at t0 fires then only if InitialValue is false. A
// triggered event is queued to execute after its delay (evaluated at the
// trigger time), with its assignments computed then if
// UseValuesFromTriggerTime. Whenever events are due at one time, the
// one of highest priority (evaluated at that moment; events without one
// come last; among equal priorities one is chosen at random, as SBML
// asks, by a generator seeded from Settings.Seed) executes, then the triggers are
// evaluated again: events whose triggers became true are queued (those
// without delay are due at once) and events whose triggers became false
// are dropped from the queue unless persistent. This repeats until no
// event is due. At most Settings.MaxEvents executions happen at one
// time, which stops a model whose events re-trigger each other forever
// at one instant.
//
// Outputs at a time where events execute report the state after them.
//
// # Limits
//
// Discontinuities of the right-hand side that are not events (a
// piecewise function of time or state in a rate) are not located: the
// integrator steps through them under its error control. Two sign changes
// of one root function within one integrator step are not seen.
package events
