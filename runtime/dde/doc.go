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
// The nested lookups of that stage read left limits too (a segment
// ending at t_s + tau_j + tau_k reads e_k at t_s + tau_j with d_j's
// value from before t_s), and the first point of a segment reads right
// limits whatever the rounding of t - tau (history.stateAt): x' =
// -x(t - a - b) through delay(delay(x, a), b) with x := x + c at T is
// exact to rounding with DOPRI5 (2e-16), where the last stage of the
// segment ending at T + a + b read the value after the jump (2e-11).
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
// (priorities, persistence, delayed executions, random ties); switches
// of f end it too (see "Switches of f"). The
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
// # Sensitivities through events
//
// SolveSens carries S across the events too, with runtime/events' jumps
// (events.Instants.Sens): at an instant t_e, dtau/dp from the root
// function that crossed (or the queued execution's time), D = S- + f-
// dtau, each execution's rows h_x D + h_t dtau + h_p, and S+ = D - f+
// dtau. Event functions that read delayed values (model.DelayEvents)
// give their derivatives in them too (model.DelayEventDerivs), and those
// fold into the derivatives in p and t that runtime/events' formulas
// take (evSens): d_k(t_e) moves by D_k + d_k' dtau/dp, with D_k = dd_k/dp
// at fixed t from the history of S (as for f, with -e_k' dtau_k/dp) and
// d_k' = e_k'(t_e - tau_k) along the solution, so a root g(t, x, p, d)
// gives g_p + g_d D and g_t + g_d d', an assigned value or an event delay
// alike. S is integrated with x (z = (x, S)); Locate scans the states'
// part of z's dense output and S at the instant is interpolated on the
// same step.
//
// An instant that moved the state is a jump source, as the start is when
// the history does not meet x0: e_k jumps there from e- to e+, so d_k
// jumps at t_e + tau_k (a breaking point Solve adds), a time that moves by
// dtau_e/dp + dtau_k/dp, and S jumps there by (f- - f+)(dtau_e/dp +
// dtau_k/dp), f- and f+ being f with d_k = e- and e+ (sensRHS.jump, the
// code path of the start's jump, with dtau_e = 0 there). S takes that
// jump before any event at the same time, and an event whose trigger
// changes there because the delayed value it reads jumped (rather than
// crossed) moves with that time (events.Instants.MovesWith), not with its
// root function.
//
// A nested delay passes the jump on (sensRHS.nestedSource): where d_k
// jumps at t_s + tau_k, a delayed value e_j that reads d_k jumps there
// too, so t_s + tau_k is a jump source of e_j, moving by dt_s/dp +
// dtau_k/dp, and S jumps again at t_s + tau_k + tau_j where f reads d_j.
// Every time where S jumps, t_s + tau_k of each jump source (the start,
// an event, a nested delay's), is put among the breaking points when the
// source is recorded (sensRHS.addSource), since jump applies it at a
// segment's end only: whatever Settings.MaxOrder and MaxBreaks leave out
// (the nested times are sums of two delays and more).
//
// Against the method of steps by hand (TestEventsSensExact: x' =
// -x(t-1), an event at t >= T assigning x + a x(t-1), one triggered by
// x(t-1) <= c, one whose trigger x(t-1) >= 0.2 turns true when the first
// event's jump reaches x(t-1) at 1 + T; p = (T, a, c)) at rtol 1e-10 the
// worst entry of S is 4.4e-12 off with BDF and 1.1e-12 with DOPRI5
// (6.2e-10 and 1.7e-10 before the left and right limits above).
// Against fourth-order central differences of Solve at rtol 1e-13
// (testsuite TestDelayEventSens, the SBML models of testdata/delayevents:
// an event at a parameter time whose assignment reads delay(x, tau) and a
// trigger on delay(x, tau) < c; a delayed negative feedback with a state
// trigger and a delayed event whose values, read from a delayed value,
// are taken at the trigger time), the worst entry relative to its
// column's largest is, at rtol 1e-10, 3.8e-9 (BDF) and 1.2e-10 (DOPRI5)
// on hutchevents, 1.2e-9 and 4.7e-11 on feedbackevents, the same in
// generated code (TestDelayEventSensGenerated). A nested delay reading
// the jump of an event (testsuite TestDelaySwitchSens, nestedjump.xml:
// x' = -delay(delay(x, a), b), x := x + c at t >= T, p = (a, b, T, c),
// against the method of steps by hand on [0, 2(a + b)]): 2.4e-15 (BDF)
// and 2.8e-16 (DOPRI5) of a column, interpreted and generated (go test
// ./runtime/dde ./testsuite -run
// 'EventsSensExact|DelayEventSens|DelaySwitchSens' -v).
// TestEventsSensExact fails with the jump at t_e + tau_k, the folded d'
// or MovesWith left out, TestDelayEventSens with the jump or the folded
// D (of a root or of an assigned value) left out, TestDelaySwitchSens
// with the nested jump left out (S_T off by c, a whole column) or with
// its time left to MaxOrder 1 and MaxBreaks 1. The cost is the sensitivities' (about np+1
// times the states' work): BenchmarkSolveSensHutchEvS takes 2.6 to 3.6
// times BenchmarkSolveHutchEvS's time (np = 3; wall clock, 200
// iterations, three runs on a shared two-core machine).
//
// # Switches of f
//
// A model whose rates switch (model.Switches: the relations inside
// piecewise in f, such as a step input piecewise(u, t >= T, 0) or an
// inflow while a state is below a threshold) is solved, by Solve and
// SolveSens, with the event loop above, events or not, and the switch
// roots end the scan as runtime/events' do (events.Instants): the steps
// scanned straddle the jump of f, so the segment is integrated again up
// to the left end of the switch's bracket (x and S: no step of the
// history straddles it; Instants.Switched), the state is carried across
// the bracket with f- (Instants.Across) and integration restarts on the
// new side. The instant moves S as runtime/events does, S+ = S- + (f- -
// f+) dtau/dp, dtau/dp from the switch's root (with the derivatives in
// the delayed values it reads folded in, as for a trigger), zero for a
// switch at a constant time. x' jumps there but x does not: the switch
// is a breaking point whose effect reaches f again at t_sw + tau_k (as
// the events' jumps do), where only S' jumps (D_k reads S from either
// side of t_sw), so no further jump of S is due. The PEtab path passes
// the switches through its theta model (runtime/objective's
// thetaDelayEvents.NumSwitches; without it they were stepped over).
//
// A switch may coincide with the time a jump of the state reaches f (a
// step input at T = T0 + 1 with an event at T0 and a delay of 1): S
// takes every jump whose time lies before the instant (sensRHS.jump
// takes those of (last, t], one inside the switch's bracket included),
// with f on the switch's new side, then the switch's with f- from the
// old side but the delayed values after that jump (evModel.fFrom), so
// each is counted once; the instant moves with the switch's root, not
// with the jump's time (events.Instants.MovesWith leaves a root Locate
// found crossing alone).
//
// Against the method of steps by hand at rtol 1e-10 (testsuite
// TestDelaySwitchSens, testdata/delayswitch): x' = -x(t - 1) +
// piecewise(u, t >= T, 0), p = (T, u), on [0, 2], worst entry of S
// relative to its column's largest 8.4e-11 (BDF) and 1.2e-12 (DOPRI5),
// x within 1.6e-10 and 6.0e-13; x' = -k x(t - tau) + piecewise(b, x < c,
// 0), p = (k, tau, b, c), on [0, 2 tau] (S from the closed form by
// fourth-order central differences), 3.0e-10 and 1.2e-10, x within
// 9.9e-11 and 5.8e-11; x' = -x(t - 1) + piecewise(u, delay(x, 1) < c, 0),
// a switch on a delayed value (symbolic.Builder.Switches keeps those
// too), p = (c, u), 5.6e-12 and 5.6e-12; the coincidence above
// (coincide.xml, T0 = 0.7 and T = 1.7, equal in floating point to
// T0 + 1), 7.3e-12 and 6.3e-12 (0.8 of a column without fFrom, 1.25 with
// MovesWith taken at the root); generated code the same
// (TestDelaySwitchSensGenerated; go test ./testsuite -run
// DelaySwitchSens -v). Without the jump at the switch, as when Solve
// stepped over switches, S_T and S_c are off by a whole column.
// Differences of Solve are a poor reference across a state switch: its
// state carries the switch's location error (it is carried over the
// bracket with f-, as in runtime/events), 2e-9 of a column in central
// differences at rtol 1e-13. petab TestDelaySwitchGradients (the
// objective with a state switch): the gradient within 9.0e-8 of its
// largest component of central differences of the llh, the FIM within
// 3.9e-9 of its largest entry of the Gauss-Newton product.
//
// # Limits
//
// SolveSens refuses (ErrSens, naming the model and why): a model without
// model.DelaySens; a delay whose length depends on the state or time; a
// model with events but without model.EventDerivs, or whose events may
// read delayed values (model.DelayEvents) without model.DelayEventDerivs;
// a delay of length zero in a model with events or switches of f (its
// delayed value jumps with the state at an event, whose derivatives would
// need S on both sides, and the derivatives at an instant read S from the
// history alone). A jump of the state (at the
// start, where the history does not meet x0, as pbgen sim -x0 can make
// it, or at an event) makes x' jump at t_s + tau_k and, through nested
// delays, at t_s + tau_j + tau_k, ...: SolveSens adds the jumps of S
// there. S is exact only where
// x is differentiable in p (runtime/events says where it is not: an
// event or a switch crossing an output time, the number of executions or
// of switch crossings changing); here also where t_s + tau_k crosses an
// output time. A switch that chatters costs a restart per crossing, as in
// runtime/events, and each switch an integration of its segment again.
// Refused by name (an error naming the model, the switch root and the
// time; testsuite TestDelaySwitchCrossBack): a switch whose root, once
// crossed, does not stay on its new side (Instants.Across; a root on a
// delayed value that reaches zero exactly where a jump of the state
// arrives and sends it back: carried with f- the state was 5e-4 off), by
// Solve and SolveSens; and, by SolveSens (ErrSens), a switch on a
// delayed value d_k located within the location tolerance of the time
// d_k itself jumps, whose f- would be taken with the value after the
// jump, on which the relation may already hold. Refused by SolveSens too
// (ErrSens, naming the model and the delay; testsuite
// TestDelayHistoryJumps, testdata/delayhist): a delayed value whose
// history before the start is discontinuous in time (floor or ceiling of
// time, quotient and rem through them, a relation on time:
// model.DelayInfo.HistoryJumps, from symbolic.ODE.DelayJumps) when the
// jump times or the delay depend on the parameters and the last output
// is after t0, and one whose expression holds a relation on time, the
// state or a delayed value (not a switch of f; DelayInfo.ArgJumps) when
// its times, the state it reads or the delay depend on the parameters and
// the last output is after t0 + tau. Neither is located: S would miss
// (f- - f+) dt/dp where the jump reaches f, t_jump + tau (X' = k
// delay(floor((t + 0.6)/T), D), T = 1.3, D = 2: S_D was 0 at t = 1, not
// -1; with delay(floor(t/T), D) the jump at t0 itself was missed too,
// DelayHistory(t0) being the value there, not the left limit; X' = k
// delay(piecewise(u, Y >= T, 0), D) with Y = t, a relation on a state
// after the start: S_T and S_D were 0 at t = 2, not -k u). The refusal is
// conservative: the jump times are not computed, so a history whose jumps
// all lie before t0 - tau is refused as well (testsuite's delayfloor.xml,
// D = 0.5 < 0.6, was solved right and is refused now; TestStepSensDelay
// takes a state Y = t for time instead). runtime/objective's New refuses
// the same before any solve (ErrDelaySens). Solve is not
// refused and steps over those jumps (a kink of x, no breaking point):
// at rtol 1e-10 its x is within 1.6e-10 (BDF) and 4.0e-9 (DOPRI5) of the
// closed form on those models. runtime/ode refuses a
// model.Delays (ErrDelays), so runtime/sens (PBS, PBSR, Exp and its FS)
// and runtime/events do too.
//
// # Allocation
//
// The right-hand sides (of Solve and SolveSens) and the event functions
// and folded event derivatives the instants call allocate nothing; each
// integration segment (one per breaking point) keeps its own Trajectory
// as history, and each event instant that moves the state records a jump
// source (and each breaking point at which a jump reaches a nested
// delay another).
package dde
