// Package sens computes the state x(t) of a model.Model and its parametric
// sensitivity S(t) = dx(t)/dp with the Peano-Baker methods of Eriksson,
// Kramer, Milinanni and Nyquist (PBS, PBSR, Exp; see
// ../shared/ALGORITHMS.md) or with forward sensitivity (FS, runtime/ode).
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
// The defaults of PBSR and Exp differ in the ways below, each measured on
// the stiff PKA and CaMKII networks and on Chua's circuit (see
// TestNetworksPaperSettings, TestFrozenSteadyState and the -measure table
// of measure_test.go):
//
//   - The step is the end-point exponential trapezoid (ExpEndpoint):
//     linearised at tb, where Jx is known from the trajectory, with the
//     remaining forcing integrated linearly through phi1 and phi2
//     (runtime/expm ExpInt2To). It is second order and stiffly accurate:
//     averaged (Magnus) or start-point matrices return the quasi-steady
//     state of an earlier time, a lag that dominated the error on PKA.
//   - S has its own grid (GridDyadic): aligned steps Delta/2^j of each
//     output interval (outputs are grid points, never interpolated), so
//     that a handful of step lengths recur and a cached exponential is
//     reused whenever h ||Jb - An|| <= RefTheta, or on stiff steps
//     ||Jb - An|| <= 1% of ||Jx||, its Jacobian An differing from Jb being
//     treated implicitly in the forcing (an exponential W-method, exact in
//     the stiff limit). On CaMKII this computes about 30 exponentials for
//     1000+ intervals instead of one per interval; with kf__CaM__Ca = 1e9,
//     whose exponentials need about 26 squarings each, the relative test
//     cut them from 740 to 71 at rtol 1e-6.
//   - x inside the integrator's steps and at the outputs is the
//     integrator's own dense output (ode.Trajectory: the BDF's Nordsieck
//     polynomial), not a cubic Hermite interpolant through (x, f), whose
//     slopes carry the state's error times ||Jx||: on the stiff CaMKII it
//     was 2% off at t = 1, and the Jacobians it fed to the error control
//     made PBSR take 9 minutes instead of 40 ms.
//   - PBSR chooses the steps by a local error control: h^3/12 ||(I -
//     h An/4)^{-2} g2|| against SensRTol ||S||_F + SensATol, with g the
//     forcing the step interpolates linearly, g2 its second derivative,
//     and (I - h An/4)^{-2} a bound of how much e^{(h-s)An} damps the
//     interpolation error in stiff directions. g2 comes from divided differences of S V and (Jx S +
//     Jp) V for 4 fixed Gaussian probe vectors V (E ||X v||^2 =
//     ||X||_F^2), so the estimate costs a few nx x 4 products instead of
//     two nx x ns ones. A rejected step is cut by (tol/e)^(1/p) (p = 3,
//     or 2 for the first step, whose estimate uses first differences; at
//     least halved) in one go, and an accepted one grows (up to 4 times)
//     when (tol/e)^(1/3) >= 2, to the largest aligned dyadic step below
//     that: on CaMKII the first step is found in 6 trials instead of 25,
//     each a fresh exponential. Steps are not bounded by the integrator's.
//   - Exp has no error control: its steps are the largest aligned ones
//     spanning at most 2 integrator steps (expGridFactor), about the
//     integrator's step at the user's tolerances.
//   - Near equilibrium, when x has stayed within 0.3 of the state
//     tolerance of a point (and Jx, Jp within SensRTol of its), Jx and Jp
//     are frozen there and every step becomes the same affine map
//     S -> M S + c (the W-method correction folded into M and c, no new
//     exponential). Its increments converge (to zero, or to a constant
//     drift along a neutral direction of Jx, as in CaMKII); once two agree
//     to 1e-13 ||S||_F, S += D replaces the product (Stats.Converged),
//     recomputed every 64 steps. Jx and Jp are still evaluated at every
//     step, skipped ones included, so that a Jacobian that changes in
//     time while x stays put (an input switched on at equilibrium) ends
//     the freeze at once (TestFrozenTimeDependentJacobian); the
//     evaluation costs well under a step. On CaMKII this skips about 490 of the
//     536 steady steps, and the steady S is as accurate as stepping with
//     the trajectory's Jacobians. Exactness at an equilibrium is kept.
//   - Terms of a step below 1% of the local tolerance are dropped (the
//     W-method terms when Jx is that close to An, and the change of Jp,
//     whose forcing W P is then cached per exponential).
//   - The state is integrated at StateTolFactor = 0.01 times RTol, ATol:
//     S inherits the state's error, amplified in switch-like transients
//     (at the user's tolerance the CaMKII error floor is about 1e-2
//     whatever the S method), while the state costs a few percent of S.
//
// What limits the speed: a step costs about two nx x nx by nx x ns
// products (M S and the W-method solve) plus the sparse Jp forcing. On
// amd64 with AVX2 and FMA these run through the assembly kernels of
// runtime/internal/dense (MulAdd: rows in pairs, column blocks kept in
// registers over the inner dimension; FactorFull, SolveFull; ForceCols
// and AddTrans4, the forcing by columns of Jp and its transposed add;
// MulRows4 and SpMul4, the dense and sparse 4-column probe products),
// about 7 us for an Exp step and 8 us for a PBSR
// sub-step with its error estimate on CaMKII's 21 x 59
// (BenchmarkCaMKIIExpStep, BenchmarkCaMKIIPBSRStep; 18 and 22 us with
// gonum's SSE2 loops, the fallback elsewhere). Of a CaMKII PBSR solve
// (about 7.7 ms) the 624 steps take 5.1, the 28 exponentials 0.5, the
// state 0.4. The count is the rest: CaMKII needs about 620 PBSR steps at
// SensRTol = 1e-5 (300 in [0, 1), where ||S||_F grows from 0 to 4.5e3,
// about the integrator's steps there; the estimate is not dominated by
// stiff components, whose damping the filter models, and SensATol is not
// what binds: 1e-4 instead of 1e-6 saves 10%) and 340 Exp steps. A looser default test (3 RTol) kept the CaMKII error at
// 1.3e-3 with 460 steps but gave 1.2e-3 on Chua's circuit at RTol 1e-6,
// above its 1e-3 bound; the default stays RTol.
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
// allocates nothing. Nothing a user can pass panics: options that cannot
// be used (Options.Validate: tolerances out of range, unknown enumerations,
// bad parameter indices) and wrong lengths or unordered output times are
// errors wrapping ode.ErrInvalid; NewSolver records them and every Solve
// returns them. NewSolver also estimates its memory first (MemoryEstimate)
// and, above Options.MemoryLimit (by default from the machine), allocates
// nothing: Solve returns a *ode.MemoryError that says what would fit.
// Integration failures are *ode.StepError. Only programming errors (a nil
// model) panic, with messages prefixed "sens: ".
//
// A method that cannot deliver S to its tolerance says so rather than
// return numbers: a *MethodError names the method, the time where it gave
// up and a method that would work. PBS gives up where dt ||Jx|| > 2 on a
// step (its truncated series is then unstable: on CaMKII S reached 1e114)
// or where S grows beyond the bound of the linearised dynamics; PBS, PBSR
// and Exp give up where rounding would dominate S (eps times the integral
// of ||Jx|| over the solve, see Stats.JxIntegral, above 1000 SensRTol or
// 1e-2: stiff rates of 1e11 and beyond on CaMKII), recommending FS. A
// non-finite S is an ode.ErrNonFinite *ode.StepError.
//
// What is not guarded: FS without Options.ErrCon (CVODES's default) does
// not control S at all (9.6e-2 off on CaMKII at the paper's settings,
// 0.58 on CaMKII with kf__CaM__Ca = 1e9; 2.4e-4 and 1.4e-4 with ErrCon);
// the paper-mode methods have no error estimate of
// their own (they are the published algorithms, for comparison: 16% off
// on CaMKII at the paper's settings, 19% on CaMKII with kf__CaM__Ca =
// 1e9), and S of the default PBSR and Exp inherits the state's error,
// amplified in transients (on CaMKII about 100 to 1000 times the
// tolerance; the state is integrated at StateTolFactor times it).
package sens
