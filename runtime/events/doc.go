// Package events integrates the state of a model with discrete events
// (model.Events, SBML's <event>) through runtime/ode's public API.
//
// # Method
//
// Solve integrates one segment at a time with ode.Solver.Integrate, from
// the current time over the outputs left, landing on each, to the last
// of them or the next queued (delayed) execution, whichever is first.
// After every accepted step (ode.Solver.SetStop) the step is scanned
// with the integrator's own dense output (Trajectory.InterpStep), and
// the integration ends at the first step in which a trigger changes or
// a switch crosses: no step is taken past the next event, and the
// integrator restarts at events and switches only, not at outputs, as
// CVODE's root finding does. (Segments used to end after a few outputs
// and be scanned afterwards, which cost restarts at outputs and steps
// past the event: on Liu_IFACPapersOnLine2025 with its event firing FS
// took 975 steps where CVODES takes 366.) In a step, a root function
// of the triggers that changes sign is located by the Illinois variant
// of regula falsi, safeguarded by bisection, to a time tolerance; a
// trigger that changes with no root changing sign (a trigger that is
// not a relation, a relation whose root only touches zero) is located
// by bisection on the trigger values. At the earliest change the rest
// of the step is discarded, the events are handled at that time with
// the state from the dense output, and integration restarts there (the integrator starts
// afresh: the right-hand side may jump with the state). A root that
// crosses without changing a trigger and lands exactly on zero keeps its
// old sign for the rest of the scan, so that a strict relation that
// changes just after is still seen.
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
// at one instant, and at most as many in a row each within 100 time
// tolerances of the one before, which stops events that re-trigger each
// other as time creeps on (a sliding mode: dx/dt = 1 - 2 floor(x) at
// x = 1 has its floor's events alternate about every 1e-12; both end
// the solve with ErrTooManyEvents).
//
// Outputs at a time where events execute report the state after them.
//
// # Sensitivities
//
// SolveSens also carries S = dx/dp across the events, for FS and the
// Peano-Baker methods alike (model.EventDerivs gives the derivatives it
// needs). FS by BDF (without sens.Options.Check, on a model without
// switches of f) integrates x and S in one pass per segment, ended as above at the step where a trigger
// changes, and takes S at the event from that step's Nordsieck
// polynomial (ode.Solver.SensAt), as CVODES interpolates S at a root:
// about CVODES's steps (378 against 366 on Liu at its event; on PKA with
// 30 doses, 2947 steps instead of 5312, 4227 instead of 6625 with
// ErrCon). PBSR and Exp on their dyadic grid need the state's
// trajectory before S, and only its dense output: each segment is
// integrated for x alone, ended at the step of the change, and S is
// solved on that trajectory up to the change (sens.Solver.SolveOn; on
// PKA 4268 steps instead of 8552). PBS, the state grid, FS with Check,
// by DOPRI5 or with switches integrate x and S again (sens.Solver.SolveFrom, from the
// segment's start with its S) up to the change, located on the state
// pass. At an event instant tau
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
// # Switches of the right-hand side
//
// A model that also implements model.Switches has root functions that
// belong to no event: the relations inside the rates (a piecewise input
// switched on at t >= T, a rate that changes with a state crossing a
// threshold), collected by symbolic.Builder.Switches and emitted by
// interp and codegen. Solve and SolveSens treat a model with switches and
// no events like one with events (Needed says which models need them).
// A switch that changes sign ends the scan like a trigger change; since
// the steps scanned straddle the jump of f, the segment is integrated
// again up to the left end of the switch's bracket (the last time known
// on the old side; x and S for SolveSens, so that no step of sol
// straddles it and PBSR and Exp restart their grid there), the state is
// carried over the bracket with f-, and integration restarts on the new
// side: at the located time, moved on if the switch is not yet strictly
// past zero there (the relation may hold at zero, and the accurate state
// may lag the scanned one). If the accurate integration has already
// crossed at the bracket's left end, the bracket is located again on it
// and SolveSens solves x and S again up to its new left end: Exp and PBS,
// without error control of S, take f's derivatives at a step's end for
// the whole step, and a last step ending 1e-11 past the switch put them
// 1% off.
//
// floor and ceiling in the rates are not switches: they jump at every
// integer of their argument. The lowering (symbolic.LowerSteps) makes
// each one of a moving argument a state with two events that set it
// anew at the next integer up or down, which this package handles as
// any events.
//
// At a switch S jumps as at an event without executions: S+ = S- +
// (f- - f+) dtau, with dtau from the switch's root function (zero for a
// switch at a constant time, where S is continuous). Root-located
// instants evaluate f- at the bracket's left end, on the old side, for
// events whose triggers are switches too.
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
// # Solvers that integrate themselves
//
// Instants is this package's event handling (location on a dense
// output, the SBML semantics at an instant) without the integration,
// for a solver that integrates the state itself: runtime/dde, whose
// right-hand side and event functions read a history of the solution
// only it keeps. Switches of f end Locate's scan as they end Solve's;
// the caller integrates again up to the old side (Instants.Switched)
// and carries the state across as Solve does (Instants.Across), and the
// instant moves S by (f- - f+) dtau. With Instants.Sens it carries
// S across the instants with the jumps above (the caller hands S in and
// out, SensView), dtau/dp from the root Locate found or the queued
// execution, or from the caller where it knows better (MovesWith: in
// runtime/dde a trigger that changes because a delayed value jumps);
// the trajectories Locate scans may carry more than the state (x first:
// runtime/dde's x and S), of which the model sees the state.
//
// # Limits
//
// floor, ceil and the other functions with jumps are not switches: their
// discontinuities are at every integer of their argument. Two sign
// changes of one root function within one integrator step are not seen.
// A switch that chatters (its root returns to zero and crosses at once,
// as a state held at a threshold by the switch itself would) costs a
// restart per crossing.
package events
