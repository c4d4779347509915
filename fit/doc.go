// Package fit minimises smooth functions within box bounds: the
// negative log posterior of a parameter-estimation problem, on the
// parameters' estimation scales, from many start points.
//
// It depends only on its Objective interface (value, gradient and an
// optional Hessian approximation such as the Fisher information), gonum
// and the standard library, as package mcmc depends on its Target: a
// PEtab problem plugs in through petab.FitObjective, a test function
// through Func.
//
// # Method
//
// Minimize is the interior trust-region reflective method of Coleman and
// Li (1994, 1996) as Fides implements it (Fröhlich and Sorger, PLoS
// Comput Biol 2022), which MATLAB's lsqnonlin and SciPy's least_squares
// (method "trf") also follow. At each iterate x, strictly inside the
// box, with gradient g and Hessian approximation B:
//
//   - v is the distance to the bound g points to (x - lo where g >= 0,
//     x - hi where g < 0; ±1 where that bound is infinite), and the
//     problem is scaled by sqrt|v|: a coordinate close to the bound it is
//     pushed to takes proportionally small steps;
//   - the trust-region subproblem of the scaled quadratic model (with
//     Coleman and Li's term diag(|g|) on bounded coordinates) is solved
//     exactly, in the 2-D subspace of the scaled gradient and the Newton
//     direction (TwoD, the default) or in all dimensions (Full);
//   - a step that would leave the box is replaced by the best, by the
//     model, of: the step truncated at the bound (stepped back to a
//     fraction theta >= 0.95 of the way), the step reflected at each
//     bound it meets in turn, and the constrained Cauchy step;
//   - the step is accepted if it decreases f, and the radius grows or
//     shrinks with the ratio of actual to predicted decrease (Nocedal and
//     Wright 2006, Algorithm 4.1, with Fides's constants).
//
// B is the objective's Hessian (FIM: the Fisher information, Gauss-Newton),
// a BFGS or SR1 approximation, or the hybrid that switches from the FIM to
// BFGS when the FIM stalls (Fides's HybridFixed and HybridFraction). The
// stopping criteria and their defaults are Fides's (Options). Every
// minimisation ends with a Status.
//
// # Multi-start
//
// MultiStart runs Minimize from many start points drawn in the bounds
// (Latin hypercube or uniform; or by a caller's function, e.g. from a
// prior), on several goroutines, each with its own Objective. Start i's
// point depends only on the seed, i and the number of starts, never on
// the number of workers or the order in which starts finish; a start
// point where the objective fails is redrawn, as pyPESTO does, and the
// redraws are counted.
//
// # Profiles and L-BFGS
//
// Profile computes a parameter's profile (the minimum over the others
// with it fixed at a sequence of values) and the interval where it stays
// within a threshold of the optimum (Raue et al. 2009). MinimizeLBFGS
// runs gonum/optimize's L-BFGS and line search on problems without
// bounds, as a second method.
//
// # Errors
//
// Misuse (lengths, a start outside the bounds) is an error of Minimize;
// a failed evaluation during the minimisation is a rejected step (f taken
// as +Inf), and a failure at the start point a Result with Status
// StartFailed. Nothing here panics on a bad objective value.
package fit
