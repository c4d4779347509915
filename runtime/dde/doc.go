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
// delays that depend on the state or time are not located. A segment
// ending at t0 + tau reads the history's value at t0 (its left limit)
// even at its last stage, which lands on t0 + tau: where the history
// does not meet x0 the solution's value there would be an O(h) error.
//
// # Sensitivities
//
// SolveSens computes S = dx/dp by forward sensitivity through the
// delays, for a model that implements model.DelaySens and whose delays
// all have lengths that depend on the parameters only:
//
//	S'(t) = Jx S(t) + Jp + sum_k (df/dd_k) D_k(t),
//	D_k(t) = de_k/dx S(s) + de_k/dp + sum_{j<k} de_k/dd_j D_j(s) - e_k'(s) dtau_k/dp,  s = t - tau_k,
//
// with dH_k/dp and dH_k/dt of the history before the start, and e_k'(s),
// the derivative of e_k along the solution, from x'(s) = f(s, x(s), d(s))
// (and d_j'(s) for nested delays, in turn); it is formed only for delays
// that depend on p. The state and S are integrated together as one
// vector z = (x, S column by column) by the method of steps above, so S
// at s comes from the same dense output as x, the breaking points are
// the states', and S is in the error test with the states' tolerances.
// The Newton matrix is block diagonal, a copy of I - gamma Jx per
// column (CVODES's simultaneous corrector makes the same approximation);
// with LinearAuto runtime/ode factors it by the sparse LU when it is
// large. Integrating z costs about np+1 times the states' work.
//
// Against central finite differences of the delay solution at rtol
// 1e-10 (runtime/dde and testsuite tests: a linear DDE, the delayed
// logistic equation, a delayed negative feedback, a nested delay, with
// parameter-dependent delays and histories), the worst entry is within
// 9x of rtol with BDF and 2x with DOPRI5, except the delayed logistic
// equation with BDF, 28x: BDF's own global error, which falls with rtol
// (Solve's states alone, with BDF at the same rtol, are 41x off there).
// The cost, in instructions (callgrind, BenchmarkSolveSensLogistic
// against BenchmarkSolveLogistic: 7.6e6 against 1.7e6 a solve), is 4.5
// times the states' for np = 4.
//
// # Events
//
// A model with delays and events (model.Events; its event functions
// may read delayed values through model.DelayEvents) is solved by Solve
// with runtime/events' semantics (events.Instants): each integration
// segment, ending at a breaking point, the next queued execution or an
// output a few outputs on (as runtime/events chooses them), is scanned
// for trigger changes on its dense output with the delayed values looked
// up in the history, cut at the first, and the events are handled there
// (priorities, persistence, delayed executions, random ties). The
// history is piecewise: the segment before an instant t_e ends there and
// the one after begins there, so a delayed value of a time before t_e
// reads the state before the event and one of t_e or later the state
// after it (the left limit at the end of a segment that ends at
// t_e + tau, as at t0 + tau). An execution adds the breaking points
// t_e + sums of the constant delays that f reads (model.DelaySens's
// FdPattern says which; all of them without it), since the state's jump
// reaches f there. Outputs at an event time report the state after it;
// Result.Fired lists the executions.
//
// Against the method of steps by hand (TestEventsExact: x' = -x(t-1)
// with a jump x := x + x(t-1) at t = 0.5 and an event triggered by
// x(t-1) falling below 0.75, which fires, is reset by the jump reaching
// the delayed value at 1.5, and fires again) at rtol 1e-10 the states
// are within 6.7e-10 of the exact ones with BDF and 2.2e-16 with DOPRI5
// (exact here: the solution is piecewise polynomial), and so is the last
// event time; the SBML Test Suite's six cases of delays with events pass
// (interpreted and generated). The cost is in the restarts: over [0, 10]
// at rtol 1e-8 the three executions add 15 breaking points to the five of
// the start, and a solve takes 6.1e6 instructions against 1.4e6 without
// the events (callgrind, BenchmarkSolveHutchEvents against
// BenchmarkSolveHutch, the difference of 41 and 1 iterations).
//
// # Limits
//
// SolveSens refuses a model with delays and events (ErrSens) unless it
// has no parameters: S would jump at the events, and a delayed S would
// read those jumps at event times that move with p. Solve steps over
// the switches of f (model.Switches) of a delay model, with or without
// events. Sensitivities through a delay whose length depends on
// the state or time are refused (ErrSens), and so is a model without
// model.DelaySens. A history that does not meet the solution at the
// start (x0 set apart from the history, as pbgen sim -x0 can) makes
// x' jump at t0 + tau_k, a point that moves with tau_k: SolveSens adds
// the jump (f- - f+) dtau_k/dp of S there, but not that of a nested
// delay reading the jumping value (at t0 + tau_j + tau_k). runtime/ode
// refuses a model.Delays (ErrDelays), so runtime/sens (PBS, PBSR, Exp and
// its FS) and runtime/events do too.
//
// # Allocation
//
// The right-hand sides (of Solve and SolveSens) allocate nothing; each
// integration segment (one per breaking point) keeps its own Trajectory
// as history.
package dde
