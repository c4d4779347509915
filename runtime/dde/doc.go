// Package dde solves the states of a model with delayed values
// (model.Delays, SBML's csymbol delay): delay differential equations
// x'(t) = f(t, x(t), p, d(t)) with d_k(t) = e_k(t - tau_k(t)), on top of
// runtime/ode's integrators.
//
// # Method
//
// The solution is integrated by the method of steps: the right-hand side
// handed to runtime/ode looks the delayed values up in the history of
// the solution computed so far, which is the integrator's own dense
// output (ode.Trajectory: BDF's Nordsieck polynomials, DOPRI5's quartic
// extension), so the history is as accurate as the steps themselves and
// costs nothing beyond keeping the trajectories. At a time s the value of
// e_k is e_k(s, x(s), p, d(s)), with x(s) interpolated and d(s) (for
// nested delays) looked up in turn. Before the start time the history is
// model.Delays.DelayHistory, SBML's: the expression with every variable
// at its initial value, time included (a variable whose initial
// assignment is sin(t) has been sin(t) before the start).
//
// A delay of length zero reads e_k at the current (t, x) exactly. For
// delays whose length depends on the parameters only (DelayInfo.Constant)
// the step is bounded by the shortest of them, so every value looked up
// lies in accepted steps (unless that delay is shorter than a thousandth
// of the time span, where the bound would make a stiff model crawl: then
// steps overlap the delay as below); a delay that depends on the state or time may
// ask for a time in the step being tried, where the last accepted step's
// polynomial is extrapolated (or, on the first step, x is interpolated
// linearly between the start and the trial point), as in DDE solvers that
// allow "overlapping" steps.
//
// # Breaking points
//
// The solution's derivative jumps where the history ends: at t0, and so
// f at t0 + tau (where x(t - tau) has that jump), the second derivative
// at t0 + 2 tau, and so on (sums of every constant delay). An integrator
// stepping over such a point loses its order there. Solve restarts the
// integrator at each breaking point up to Settings.MaxOrder jumps (5 by
// default, the BDF's highest order; beyond it the jump is in a derivative
// the method does not see), as RADAR5 and dde23 do. Breaking points of
// delays that depend on the state or time are not located.
//
// # Limits
//
// Events combined with delays are not supported (Solve refuses a model
// with events), nor are sensitivities through delays: runtime/ode refuses
// a model.Delays (ErrDelays), so runtime/sens and runtime/events do too.
//
// # Allocation
//
// The right-hand side allocates nothing; each integration segment (one
// per breaking point) keeps its own Trajectory as history.
package dde
