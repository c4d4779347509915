// Package ode integrates the state equations dx/dt = f(t, x, p) of a
// model.Model and, optionally, the forward sensitivities S = dx/dp.
//
// # Methods
//
// BDF (the default) is a variable-order (1-5), variable-step backward
// differentiation formula in Nordsieck form that follows CVODE's algorithm
// and constants (local error test, order selection, modified Newton
// iteration on the iteration matrix M = I - gamma*Jx built from the
// analytic Jx, Jacobian and factorisation reuse). On HIRES it
// reproduces CVODE's step, failure, Jacobian and setup counts. DOPRI5 is the
// explicit Dormand-Prince 5(4) pair with PI step control, for non-stiff
// models.
//
// Adams is CVODE's CV_ADAMS with functional iteration: variable-order
// (1-12), variable-step Adams-Moulton in the same Nordsieck form, on the
// BDF's code with the method's own coefficients, order changes and
// fixed-point corrector (adams.go), for S the staggered fixed point of
// CVODES. It takes CVODES's steps (SUNNonlinSol_FixedPoint, errconS,
// CV_NORMAL): on Chua (t in [0, 20]) at rtol 1e-6 545 of 546 step sizes
// agree to 1e-6, with the same error test failures and iterations, and
// its S error equals CVODES's to two digits at rtol 1e-6 to 1e-10 on Chua
// and PKA (go test -tags cvodes -run TestAdams -v ./internal/cvodes). It
// needs no Jacobian and no linear solve for x, so it suits non-stiff
// models at tight tolerances; on a stiff one its steps are bounded by
// stability (PKA to t = 600 at rtol 1e-6: 174208 steps against the BDF's
// few hundred). CashKarp is the Cash-Karp 4(5) Runge-Kutta pair (Stan's
// ckrk), fifth order propagated, with DOPRI5's step control and a
// fourth-order dense output (cashkarp.go). ParseMethod takes Stan's
// names (bdf, adams, rk45, ckrk).
//
// With S in the error test (SensSettings.ErrCon) and Interpolate it takes
// CVODES's steps (errconS, CV_NORMAL): on CaMKII at rtol 1e-5 the same
// 348 steps, orders, error test failures, Newton iterations and setups,
// the sizes within 1e-6 over the first 322 (after which the rounding of a
// local error estimate moves a step-size factor), and so its global error
// in S is CVODES's at equal tolerances: at rtol 1e-6, 1e-8 and 1e-10
// (atol rtol/100) 2.0e-5, 4.4e-7 and 3.5e-8 on CaMKII against CVODES's
// 2.0e-5, 4.4e-7 and 2.3e-8, 8.3e-7, 2.1e-8 and 3.7e-10 on PKA against
// 8.3e-7, 2.1e-8 and 4.0e-10 (go test -tags cvodes -run
// 'TestStepSequenceMatchesCVODES|TestAccuracyMatchesCVODES' -v
// ./internal/cvodes). At 1e-10 the two sequences part on rounding after
// about a thousand steps, and the error is a draw of the sequence: rtol
// perturbed by 1e-12 to 1e-6 of itself gives 1.2e-8 to 3.7e-8 for ours,
// 1.7e-8 to 3.7e-8 for CVODES on CaMKII. Landing on every output (the
// default) is CVODES with a stop time at each, other step sequences than
// CV_NORMAL's: at rtol 1e-6 and 1e-8 ours is 1.8e-5 and 4.1e-7 on CaMKII
// against CVODES's 1.0e-4 and 1.3e-6 with stop times, and on PKA equal
// to it (1.5e-6, 1.8e-8).
//
// M is factorised with a dense LU for small models and with the sparse LU
// of runtime/sparse for large sparse ones (Settings.LinearSolver; the
// automatic choice is AutoSparse, measured on generated networks): the
// fill-reducing ordering is computed once per Solver, each new M is
// refactorised numerically with the previous pivot order while its pivots
// stay acceptable, and the state's correction and the sensitivity block
// are solved with the same factors. A singular M is ErrSingular on both
// paths; the sparse LU also names the state whose column has no pivot.
//
// Forward sensitivities (IntegrateSens) use CVODES's staggered corrector
// for BDF and Adams (Adams: its fixed-point iteration, the same for all
// columns), and are integrated explicitly, as extra components, with
// DOPRI5 and CashKarp. For BDF the same factorisation of M serves all
// sensitivity columns, solved as one multi-column system. With
// many columns (16, with the sparse LU only: on the dense CaMKII it cost
// 16% and doubled S's error), where
// a multi-column solve costs more than a refactorisation, the corrector
// first rebuilds M from Jx at the converged state, the matrix of the
// sensitivity system, so that M is that linear system's exact Jacobian:
// its first correction then solves the system, and is accepted when a
// backward-error check on a few columns shows a stable solve (a second
// correction would only be iterative refinement in working precision).
// Only when that check fails does it iterate, testing each column's
// convergence by the Euclidean rate of its corrections or accepting it at
// working precision: CVODES's test, weighted and with a stale M, iterates
// and fails on rounding when a column's entries span many orders of
// magnitude (on Lang_PLOSComputBiol2024, with 317 parameters down to
// 1e-15, it took 7 times the iterations and twice the steps; see
// sensNewtonExact).
//
// # Grid and outputs
//
// Every accepted step (t, x, f(t, x)) is recorded in a Trajectory with the
// method's own dense output (the BDF's Nordsieck polynomial, DOPRI5's
// quartic continuous extension), so x can be evaluated anywhere to the
// integrator's accuracy and the sensitivity
// methods of runtime/sens can run on the integrator's grid. By default the
// integrator lands exactly on every requested output time (tr.Out indexes
// them) and never steps past the last one.
//
// # Errors and panics
//
// Settings and arguments a user's data can produce (a tolerance out of
// range, unordered or non-finite output times, vectors of the wrong
// length) are returned as errors wrapping ErrInvalid: NewSolver records
// unusable settings (Settings.Validate) and every integration returns the
// error. A model too large for the memory limit gives a *MemoryError
// (MemoryEstimate, Settings.MemoryLimit). Only programming errors (a nil
// model or Trajectory, inconsistent Jacobian patterns) panic, with a
// message prefixed "ode: ". Failures that depend on the data (step
// size underflow, too many steps, non-finite values, an iteration matrix
// that stays singular, repeated test failures) are returned as *StepError,
// carrying the time, step and last accepted state.
//
// A non-finite f, Jx or Newton iterate at a BDF trial step is, as in CVODE,
// a recoverable failure that cuts the step: a stiff model may meet a NaN only
// at an overly large trial step and then proceed. If the step then falls to
// the resolution of t, or the corrector fails maxncf (10) times within one
// step, and the most recent failed trial of that step met a non-finite value
// (no error test failure since), the error is ErrNonFinite rather than a step
// underflow: the model left the domain where f is defined (sqrt(k - x) once
// x passes k, a log of a state crossing zero). T and X are then the last
// accepted point, T + H the failed trial, and Index the component of f (the
// row of a Jx entry, or the state component of a Newton iterate) that was
// non-finite. DOPRI5 reports non-finite
// stage values once its step has fallen below 1e-12 max(1, |t|).
//
// # Allocation
//
// NewSolver allocates all workspaces; Integrate and IntegrateSens allocate
// nothing once the Trajectory has grown to its working size. A Solver is
// for one goroutine at a time; a Model may be shared.
package ode
