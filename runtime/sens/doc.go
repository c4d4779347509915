// Package sens computes the state x(t) of a model.Model and its parametric
// sensitivity S(t) = dx(t)/dp with the Peano-Baker methods of Eriksson,
// Kramer, Milinanni and Nyquist (PBS, PBSR, Exp; see
// docs/algorithms.md in the repository) or with forward sensitivity (FS, runtime/ode).
//
// A Solver is built once per model (NewSolver) and solved many times
// (Solver.SolveFrom, or Solver.Solve from x0 at t0); Solve is the one-shot
// form. The state is integrated first (runtime/ode, BDF by default), then
// S is stepped along a time grid, except for FS, which integrates both
// together.
//
// # Methods
//
// What each method computes by default:
//
//   - PBSR (the default): end-point exponential W-steps (e^{hJ(tb)}, phi1
//     and phi2 of hJ(tb), the change of Jx within the step in the
//     forcing) on a dyadic grid of its own whose steps a local error test
//     of S chooses; where SensRTol <= 1e-8, and on models of 64 states or
//     more with dense exponentials, order 3 steps that add the quadratic
//     term of the forcing through the previous point (Tuning.Order,
//     correct.go). It takes no Peano-Baker series step. With Paper it is
//     the paper's Algorithm 2: PBS steps refined n_int times on the
//     integrator's grid, a frozen-Jacobian exponential step where Jx
//     barely changes.
//   - Exp: the same end-point exponential step on aligned steps of about
//     the integrator's size, without an error test of S. With Paper, the
//     paper's Algorithm 3: a frozen-Jacobian exponential on every
//     integrator step.
//   - PBS: the truncated Peano-Baker series step (I + I1 + I2) on every
//     integrator step (Algorithm 1). It gives up on stiff networks
//     (MethodError), where the truncated series is unstable.
//   - FS: forward sensitivity, S integrated with x by the BDF (a
//     staggered corrector, as CVODES), or by the integrator
//     Options.ODE.Method names: Adams (CVODES's CV_ADAMS with its
//     staggered fixed point), DOPRI5 or CashKarp (S as extra components).
//     S is in the error test only with ErrCon.
//   - Auto: FS or PBSR, chosen before the solve by Resolve from cheap
//     measurements (the columns, states and non-zeros of Jx, whether Jx
//     depends on x, ErrCon, and the largest h ||Jx|| of a probe
//     integration of the state at the tolerances); the default of pbgen
//     sim and pbgen petab. NewSolver takes the concrete method (Resolve's
//     Choice.Method); Solve and runtime/objective resolve Auto themselves,
//     once. The rules and the measurements behind them are at
//     ResolveColumns and AutoMinColumns (auto.go).
//
// # Large networks: dense exponentials or their actions
//
// The exponential steps above (the end-point step, the frozen steps near
// equilibrium, the paper's frozen and Magnus steps) are computed one of
// two ways, chosen per model (Tuning.ExpAction; automatic by default):
//
//   - dense (ExpActionDense, automatic below SparseExpMinStates = 64
//     states or with a dense Jx): e^{hJ}, phi1 and phi2 as nx x nx
//     matrices (Padé with scaling and squaring), cached and reused across
//     steps of the same length, applied by dense products: O(nx^3) per
//     exponential, O(nx^2 ns) per step, 48 nx x nx matrices of memory.
//     The fastest on the paper's networks (PKA, CaMKII stay dense).
//   - sparse (ExpActionSparse, automatic from 64 states with at most 5
//     non-zeros per row of Jx, or from 500 states with a sparse Jx; see
//     useSparseExp): every step applies e^{hJb} and its phi
//     functions to the nx x ns block of S and the forcing
//     (runtime/expm.Action, Al-Mohy and Higham's truncated Taylor
//     series, a few tens of sparse products per step), or on stiff steps
//     (||hJ||_1 > 600) shift-and-invert Krylov with the sparse LU
//     (expm.StiffAction). Nothing is cached, so every step is the fresh
//     end-point step; PBSR's error filter uses the sparse LU of
//     I - h Jb/4. Cost O(nnz(Jx) ns) per product, memory O(nnz + nx ns).
//     On the scalenet chains the solve grows about linearly in nx (see
//     docs/algorithms.md).
//
// When to choose which (or let Auto choose): PBSR for S to the tolerance at the lowest cost on
// stiff reaction networks; Exp where errors of 1e-3 to 1e-2 suffice, the
// fastest; FS for the most accurate S, and on small networks (a few
// states), where it is also the fastest; PBS only on non-stiff problems,
// for comparison. Paper reproduces the published algorithms, for
// comparison only: they have no error estimate of their own. The
// measurements behind these choices are in docs/algorithms.md and the
// README. In the source, each part has its file: the drivers
// stategrid.go (the integrator's grid, as in the paper) and dyadic.go (the
// dyadic grid of the defaults), the step kinds series.go (the Peano-Baker
// series step), paperexp.go (the paper's frozen and Magnus exponential
// steps) and endpoint.go (the end-point exponential W-step of the default
// PBSR and Exp, with its cache of exponentials), sparseexp.go (the same
// steps by exponential actions, for large sparse models) and expaction.go
// (the choice between the two), the step-size control control.go and the
// near-equilibrium freezer freeze.go.
//
// # Options
//
// Options are what a user chooses: Method, RTol and ATol (of S and, 100
// times tighter for the default PBSR and Exp, of the state), Params (the
// columns of S), ErrCon (FS), Paper, the integrator's ODE settings and a
// MemoryLimit. Options.Tuning holds the knobs of the method studies
// (grids, step kinds, refinement rules, reuse thresholds); each says which
// methods read it, and a user leaves them at zero. Options.Validate
// reports an option that cannot be used.
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
// of ||Jx|| over the solve, see Stats.JxIntegral, above 1000 times the
// relative tolerance of S or 1e-2: stiff rates of 1e11 and beyond on
// CaMKII), recommending FS. A
// non-finite S is an ode.ErrNonFinite *ode.StepError.
//
// What is not guarded by default: FS without ErrCon (CVODES's default)
// does not control S at all; the paper-mode methods and Exp have no error
// estimate of S of their own; and S of the default PBSR and Exp inherits
// the state's error, amplified in transients (the state is integrated at
// Tuning.StateTolFactor = 0.01 times the tolerances for this reason).
// docs/algorithms.md gives the sizes of these errors on the paper's
// networks. Options.Check guards all of them, at the cost of a second
// solve: it solves again with FS with ErrCon at the tolerances / 10 (the
// accuracy reference, whose own error is 0.1 to 7.6 tolerance units on
// the paper's networks) and takes the difference as the global error of x
// and S, measured per output time and per column of S relative to the
// column's size there (not below 1/16 of the RMS column), the columns
// scaled by |p_j| with the default Options.SensScale (Check). Measured
// against FS at rtol 1e-10 and a closed form, the estimate is 0.97 to
// 1.03 times the true error for every method where that exceeds 50
// tolerance units (0.81 to 1.08 below). Above Options.CheckBound (100
// tolerances by default) the method is solved again at tolerances / 10
// and / 100, and the first solve within the bound is returned; otherwise
// (and at once where the estimate is beyond what two retries could mend,
// 1e6 tolerances) Solve returns an *AccuracyError naming the method, the
// time and FS with ErrCon. At rtol 1e-6 on [0, 10] the paper's PBSR and
// Exp (1.5e4 to 1.8e5 tolerances off), PBS (661 to 5.7e4) and Exp on PKA,
// Chua and the stiff CaMKII (267 to 8.3e3) fail; FS with ErrCon (2.4 to
// 47) and the default PBSR pass (on PKA and Chua after one retry, which
// takes order 3 steps, Tuning.Order: 566 -> 20, 908 -> 14). A column
// below 1/16 of the RMS column is held to that floor only: on
// Lang_PLOSComputBiol2024 PBSR and Exp pass with columns 1.7e9 and 8.8e8
// of their own tolerances off (docs/bench/errweights-2026-12-07.txt).
// The check costs the reference solve
// and the retries: on CaMKII 1.7 times FS's time for FS, 2.8 times
// PBSR's for PBSR (one retry). Stats.Check holds the estimate of every
// checked solve.
package sens
