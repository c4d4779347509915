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
// # Sensitivities
//
// SolveSens also carries S = dx/dp across the events, for FS and the
// Peano-Baker methods alike (model.EventDerivs gives the derivatives it
// needs). Each segment is integrated for x alone and scanned as above;
// then x and S are integrated by a sens.Solver (SolveFrom, from the
// segment's start with its S) to the first trigger change or the
// segment's end, so S is never interpolated. At an event instant tau
// located where root g crosses zero, g(tau, x(tau), p) = 0 gives
//
//	dtau/dp = -(g_x S- + g_p) / (g_x f- + g_t)
//
// (zero for a fixed time, 1 for t >= T in T; ErrTangential when the
// denominator vanishes). With D = S- + f- dtau, the total derivative of
// the state at the moving instant, an execution x := h(t, x, p) replaces
// the rows of its targets by h_x D + h_t dtau + h_p (the other rows are
// unchanged: h is the identity there), executions at one instant compose
// in their order, and afterwards
//
//	S+ = D - f+ dtau,
//
// because x(t) = x(tau+) + the integral of f from tau to t. For one event
// with assigned components this is S+ = h_x S- + h_p + (h_x f- + h_t -
// f+) dtau; an unassigned component jumps by (f- - f+) dtau when its rate
// depends on an assigned state. A delayed event inherits the trigger
// instant's D: its execution time moves with dtau + d_t dtau + d_x D +
// d_p (d the delay) and that is the dtau of the instant where it
// executes; values from the trigger time carry their derivatives
// h_x D + h_t dtau + h_p computed then. Priorities, persistence and the
// random order of ties choose what executes but have no derivative.
//
// S is exact only where x is differentiable in p: not where an event
// crosses an output time or another event's time as p varies, nor where
// the number of executions changes. FS steps with the state's error
// control alone unless sens.Options.ErrCon is set; after an event that
// lands the state on a steady state the steps are long and S, relaxing
// to the new steady state's sensitivity, needs ErrCon (SBML case 00354:
// 1% off without it).
//
// # Repeated and continued solves
//
// SensSolver is SolveSens for repeated solves of one model: it keeps its
// integrators and buffers (a solve allocates nothing once they have
// grown) and can continue a solve, as a simulation cut into pieces (a
// PEtab experiment's periods and steady states): SensStart.Triggers are
// the trigger values before the start (another solver's Triggers()),
// Continue keeps this solver's triggers and queued executions, and Open
// leaves the events at the last output time to the solve that continues
// it (which applies its own changes there first).
//
// # Limits
//
// Discontinuities of the right-hand side that are not events (a
// piecewise function of time or state in a rate) are not located: the
// integrator steps through them under its error control. Two sign changes
// of one root function within one integrator step are not seen.
package events
