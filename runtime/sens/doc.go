// Package sens computes the state x(t) of a model.Model and its parametric
// sensitivity S(t) = dx(t)/dp with the Peano-Baker methods of Eriksson,
// Kramer, Milinanni and Nyquist (PBS, PBSR, Exp; see
// /work/shared/ALGORITHMS.md) or with forward sensitivity (FS, runtime/ode).
//
// # Methods
//
// The state is integrated first (runtime/ode, BDF by default); S is then
// stepped along a time grid. With Options.Paper the published algorithms
// are used as written, on the integrator's grid: PBSR refines an interval
// into n_int = ceil(10 dt ||Jx||) PBS steps unless ||dJx||/||Jx|| <= 1e-4
// or n_int > 10, where it takes the frozen-Jacobian exponential step, and
// x inside a step is interpolated linearly.
//
// The defaults of PBSR and Exp differ in three ways, each measured on the
// stiff PKA and CaMKII networks (see TestNetworksPaperSettings and the
// -measure table of measure_test.go):
//
//   - The step is the end-point exponential trapezoid (ExpEndpoint):
//     linearised at tb, where Jx is known from the trajectory, with the
//     remaining forcing integrated linearly through phi1 and phi2
//     (runtime/expm ExpInt2To). It is second order and stiffly accurate:
//     averaged (Magnus) or start-point matrices return the quasi-steady
//     state of an earlier time, a lag that dominated the error on PKA.
//   - S has its own grid (GridDyadic): aligned steps Delta/2^j of each
//     output interval, no longer than the integrator's local step, so
//     that a handful of step lengths recur and a cached exponential is
//     reused whenever h ||Jb - An|| <= RefTheta, its Jacobian An differing
//     from Jb being treated implicitly in the forcing (an exponential
//     W-method, exact in the stiff limit). On CaMKII this computes about
//     40 exponentials for 1000+ intervals instead of one per interval.
//     PBSR adds a local error control (h^3/12 ||d2g/dt2|| from divided
//     differences against SensRTol ||S||_F + SensATol) that halves steps.
//   - The state is integrated at StateTolFactor = 0.01 times RTol, ATol:
//     S inherits the state's error, amplified in switch-like transients
//     (at the user's tolerance the CaMKII error floor is about 1e-2
//     whatever the S method), while the state costs a few percent of S.
//
// All exponentials are inverse-free (runtime/expm), so singular Jx
// (conservation laws) is handled exactly.
//
// # Layout
//
// S is row-major nx x ns per output time: row i = state i, column j =
// parameter Params[j] (all parameters in model order by default).
//
// # Allocation, errors and panics
//
// A Solver owns all buffers: after the first Solve with the same sizes it
// allocates nothing. Misuse (wrong lengths, bad options) panics with
// messages prefixed "sens: "; integration failures are returned as errors.
package sens
