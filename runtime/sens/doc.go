// Package sens computes the state x(t) of a model.Model and its parametric
// sensitivity S(t) = dx(t)/dp with the Peano-Baker methods of Eriksson,
// Kramer, Milinanni and Nyquist (PBS, PBSR, Exp; see
// /work/shared/ALGORITHMS.md) or with forward sensitivity (FS, runtime/ode).
//
// # Methods
//
// The state is integrated first (runtime/ode, BDF by default); S is then
// stepped along the integrator's grid. With Options.Paper the published
// algorithms are used as written: PBSR refines an interval into
// n_int = ceil(10 dt ||Jx||) PBS steps unless ||dJx||/||Jx|| <= 1e-4 or
// n_int > 10, where it takes the frozen-Jacobian exponential step, and x
// inside a step is interpolated linearly. The default PBSR instead takes the
// second-order Magnus exponential step (A = (Ja+Jb)/2, B = (Pa+Pb)/2) and
// bisects an interval only where a step-doubling local error estimate
// exceeds SensRTol ||S||_F + SensATol, with x from the dense output. All
// exponentials are inverse-free (runtime/expm), so singular Jx (conservation
// laws) is handled exactly.
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
