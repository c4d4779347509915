// Package cvodes computes states and forward sensitivities of a
// model.Model with SUNDIALS CVODES, so that pbgen's own methods (PBS, PBSR,
// Exp, FS) can be benchmarked and checked against the solver the
// Peano-Baker paper compared with.
//
// The package is a cgo binding behind the build tag `cvodes`: without the
// tag only this documentation is compiled, so `go build ./...` and
// `go vet ./...` need neither a C compiler nor SUNDIALS. With the tag it
// links Debian's libsundials-dev (SUNDIALS 6.4 in bookworm) and, for the KLU
// configuration, SuiteSparse's KLU (libsuitesparse-dev); install both with
// scripts/install-sundials.sh and test with
//
//	go test -tags cvodes ./internal/cvodes
//
// # Method
//
// One Solver owns one CVODES memory block, created once by New and reused
// by every Solve through CVodeReInit and CVodeSensReInit, so a solve costs
// no allocation. The state ODE is integrated with BDF and Newton iteration.
// Options.Linear chooses the linear solver of the Newton systems
// I - gamma Jx: Dense (the default) is a dense SUNMatrix with the dense
// (LU) SUNLinearSolver, the Jacobian being the model's analytic Jx
// scattered from its CSR pattern into the column-major dense matrix; KLU is
// a sparse SUNMatrix in CSR whose pattern is Jx's plus the diagonal (so
// that CVODES forms I - gamma Jx in place and KLU's symbolic analysis,
// done once, stays valid), factorised by SuiteSparse's KLU through
// SUNLinSol_KLU, the Jacobian callback writing Jx's values into it. The
// staggered sensitivity corrector solves with the same linear solver and
// factorisation as the state, as CVODES does for any linear solver.
// Forward sensitivities use CV_STAGGERED with a
// user sensitivity right-hand side that computes Jx*S_j + Jp[:,j] from the
// model's sparse Jx and Jp. Sensitivity tolerances come from
// CVodeSensEEtolerances (the state tolerances, with CVODES's default scaling
// pbar = 1, or Options.PBar through CVodeSetSensParams: runtime/sens's
// default ScaleParams is pbar = |p|), and Options.ErrCon switches
// CVodeSetSensErrCon, i.e. whether
// the sensitivities take part in the local error test.
//
// Output times are reached the way CVODE is normally run: CVode(tout,
// CV_NORMAL) steps past tout and interpolates, with no stop time.
//
// Solver.Trace integrates one step at a time (CV_ONE_STEP) and records
// every accepted step (its size and order, the norm of the state's local
// error estimate, the cumulative failure, iteration and setup counters),
// for comparing step sequences with runtime/ode's BDF
// (TestStepSequenceMatchesCVODES).
//
// # Events and the PEtab objective
//
// EventSolver (NewEvents) adds CVODES's root finding (CVodeRootInit on
// the model's root functions) and the event loop: executions at each
// root, S carried across them, a restart after each. SolveFrom starts a
// solve from a given S and trigger values, continues the last one
// (CVODES stepping on from its own state) or leaves an instant at its
// end to the next, so that a PEtab experiment cut into
// pre-equilibration, periods and steady-state chunks runs on it.
// NewObjectiveSolver is runtime/objective's Options.NewSolver: a
// SensSolver for a model without events, an EventSensSolver
// (objective.EventSolver) for one with them.
//
// # Layouts
//
// As in runtime/model: states at output k are dstX[k*nx:(k+1)*nx], and the
// sensitivities at output k are the row-major nx x ns matrix
// dstS[k*nx*ns:(k+1)*nx*ns] (row i = state i, column j = parameter
// Options.Params[j]; ns = np and column j = parameter j when Params is
// nil).
//
// # Errors
//
// Wrong slice lengths and unordered output times are misuse and panic with
// a "cvodes: " prefix. A failure of CVODES (too much work, repeated error
// test or convergence failures, a callback that fails) is returned as an
// *Error carrying the CVODES flag name, the time reached and CVODES's own
// message. A panic inside the model during a callback is recovered, stops
// the solve and is returned as the Error's cause, so it never unwinds
// through C frames. Non-finite right-hand sides or Jacobians are reported to
// CVODES as recoverable failures (it then retries with a smaller step).
package cvodes
