// Package objective evaluates the log-likelihood of an estimation problem
// (PEtab semantics), its gradient and the Fisher information from a model
// with observables (model.Observables) and the problem's data, with S from
// runtime/sens. It imports only runtime/... (and gonum), so a compiled
// problem runs without the generator.
//
// # Parameters
//
// theta holds the estimated parameters (Problem.Estimated, Params()) on
// their parameter scales (lin, log, log10); a Value{Theta: a} anywhere in
// the problem (condition parameters, placeholders) takes theta[a]'s linear
// value. Nominal() is the parameter table's nominal point on those scales.
//
// # Likelihood
//
// For a datum m of an observable with transformation z (identity, log,
// log10), simulated value h and noise scale sigma, r = (z(h) - z(m)) /
// sigma and, as the PEtab noise distributions define them,
//
//	normal:  llh = -log(sqrt(2 pi) sigma) - r^2/2 + J
//	Laplace: llh = -log(2 sigma) - |r| + J
//
// with J = 0, -log(m), -log(m ln 10) the Jacobian of the transformation at
// the measurement (log-normal and log-Laplace are densities of m). LLH sums
// over data (larger is better), Res holds r and Chi2 the sum of r^2 for
// both distributions (as PEtab's residuals are normalised by sigma
// whatever the distribution).
//
// # Priors
//
// LogPrior sums the objective priors' log densities: of the linear value
// for the v1 kinds uniform, normal, laplace, logNormal, logLaplace and the
// v2 kinds (cauchy, chisquare, exponential, gamma, log-uniform, rayleigh),
// of theta for the parameterScale kinds, without a change-of-variables
// Jacobian (PEtab states priors this way; LogPost is then the MAP
// objective, but not a log density in theta when a linear-value prior sits
// on a log-scaled parameter, which a sampler in theta would need). A prior
// with Truncate (PEtab v2) is restricted to the parameter's bounds and
// divided by its mass there.
// Outside a prior's support LogPrior is -Inf. LogPost = LLH + LogPrior.
// Grad is dLLH/dtheta and GradPrior dLogPrior/dtheta, kept apart so that
// maximum-likelihood users take Grad and MAP or sampling users add them;
// with FIM, HessPrior is the diagonal of LogPrior's Hessian (for a
// posterior metric FIM - diag(HessPrior)).
//
// # Gradient and Fisher information
//
// Every path from theta is chained: the state (dh/dx S, dsigma/dx S), the
// simulation condition's model parameters (dh/dp dp/dtheta), the
// placeholders (dh/du du/dtheta) and the noise scale, with
// d(linear)/d(theta) for the scale. FIM is the expected Fisher information
// of the likelihood in theta on the transformed scale: per datum
// (dz/dtheta)(dz/dtheta)^T/sigma^2 + w (dsigma/dtheta)(dsigma/dtheta)^T/
// sigma^2 with w = 2 for normal noise and w = 1 for Laplace noise (the
// information of a Laplace location and of its scale are both 1/sigma^2,
// and the two are orthogonal).
//
// # Sensitivities: one column per theta
//
// runtime/sens computes S with respect to the model's parameters. Here the
// columns are the thetas that reach an experiment's dynamics instead: the
// model is wrapped so that its parameter derivative is Jp dp/dtheta (see
// thetaModel). A theta that sets a parameter only in the
// pre-equilibration condition still moves the simulation's start x0, and
// S(t) = Phi(t) S0 + ... can carry that direction only in a column of its
// own; with theta columns, pre-equilibration, re-initialisation, several
// model parameters mapped to one theta and the simulation condition all
// add up in the same column, and the number of columns is the number of
// thetas reaching the dynamics. Without Grad and FIM no columns are
// computed.
//
// # Adjoint gradient
//
// With Options.Gradient = GradAdjoint (pbgen petab -grad -sens adjoint)
// Grad is computed without S: per experiment the state is integrated
// forward alone, its dense output kept (the checkpoints: every step's
// Nordsieck history, Stats.AdjointBytes, bounded by AdjMemoryLimit), and
// the adjoint lambda'(t) = -Jx^T lambda, with the jumps dllh/dx at the
// data times, is integrated backwards by the same BDF together with the
// quadrature of lambda^T Jp (Jp in the experiment's theta columns);
// dLLH/dtheta = lambda(T0)^T dx0/dtheta + that integral + the data's
// direct terms. Its tolerances are AdjRTol and AdjATol (AdjATol relative
// to ||lambda||). The Fisher information needs S and is always forward
// (New refuses FIM with GradAdjoint), as are, for now, pre-equilibration
// and data at steady state, periods, events and switches, delays and
// algebraic variables: New refuses them with ErrAdjoint naming the case.
// The default is GradForward: the adjoint's cost grows with the number of
// data times (each jump restarts the backward BDF through a stiff
// transient: on Lang_PLOSComputBiol2024's 600 data times about 140
// backward steps per interval, against about 8 forward steps), so it pays
// off only for many parameters and few data times (docs/bench/adjoint.md).
// See adjoint.go.
//
// # Periods
//
// An experiment with Periods (PEtab v2 experiments with several periods)
// switches condition at each period's start T0: the parameters become
// those of the period's condition, and the model's assignment set
// (model.Assigner) sets states x_i := g_i(T0, x, p) from the state and the
// parameters just before T0, with S_i := dg_i/dx S + dg_i/dp dp/dtheta;
// other states keep x and S. Each period restarts the solver at T0
// (sens.Solver.SolveFrom with the state and S reached). All periods share
// the experiment's sensitivity columns (the thetas of every period's
// condition), so S passes from one to the next without re-indexing. A
// datum at a period's T0 is observed after the change; data at +Inf at the
// steady state of the last period. Periods after the last datum are not
// simulated.
//
// # Pre-equilibration and steady state
//
// An experiment with a pre-equilibration condition starts from
// x0 = InitialState(p_preeq), S0 = InitialSens(p_preeq) dp/dtheta and
// goes to steady state (below). Then the simulation condition
// applies: states in Reinit take InitialState(p_sim) and their S rows from
// InitialSens(p_sim) dp_sim/dtheta, the others keep their values and
// sensitivities. Data at T = +Inf are evaluated (with t = +Inf passed to
// Observe) at the steady state of the simulation condition, reached from
// the last finite output time (or T0).
//
// Steady state is reached by integrating the state alone in chunks of
// length 1, 10, 100, ... (each restarting the integrator from the state
// reached) until max_i |f_i|/(SteadyATol + SteadyRTol |x_i|) < 1, or fails
// after SteadyTMax. Newton steps then polish x and the sensitivities are
// solved for: with the conservation laws L of the model (L f = 0, found at
// New as the left null space of [Jx Jp] at sampled states), Jx S = -Jp and
// L S = L S0 combine into one regular system (Jx + L^T L) S =
// -Jp + L^T L S0, so singular Jx from conserved moieties is handled
// without integrating S. When that matrix is singular or ill-conditioned,
// or x is not within the tolerances of an exact root (a degenerate steady
// state approached algebraically), x and S are integrated together to
// steady state instead, the test extended to dS/dt = Jx S + Jp
// (Stats.SensFallbacks counts these), and that experiment's steady state
// integrates S directly on later evaluations: the cause is structural (in
// Raimundez_PCB2020 a complex that no rate depends on makes Jx singular
// beyond the conservation laws). See steady.go.
//
// # Output times
//
// The data's times are outputs of each solve, but not points the
// integrator must land on: by default it steps over them and x and S are
// interpolated from its Nordsieck history (ode.Settings.Interpolate, as
// CVODES's CV_NORMAL does), so FS takes the steps its error control asks
// for and no more (on the PEtab benchmark problems about as many as
// CVODES FS; landing on every output took 1.6x more on Okuonghae's: 122
// steps instead of 75, CVODES 73).
// Options.OutputsOnGrid restores landing on them. A phase still ends
// exactly at the next phase's start.
//
// # Events
//
// A phase of a model with events (model.Events) or with switches of its
// right-hand side (model.Switches: the relations in its rates, such as
// a piecewise input in time or a rate that switches with a state;
// events.Needed) is first solved without them, through all its output
// times at once, and that solution is kept when no event would have
// fired and no switch crossed: no trigger turns true at the start, and
// none changes at the integrator's grid points nor has a root crossing
// between them. Otherwise (and on later evaluations of that phase) it is
// solved with runtime/events (events.SensSolver per column group, for
// every Method: S jumps at each execution and at a switch whose time
// moves with the parameters), which ends its integrations at the steps
// where a trigger changes or a switch crosses, so that no step straddles
// a jump of f. Giordano_Nature2020's piecewise inputs in time: llh +
// gradient by FS 1.08 ms (generated), 1.36 ms before when stepped over,
// and CVODES FS with root finding 11.9 ms. Steady states of such a model skip the shortcuts: they are
// integrated with S through the events, in chunks as
// above, until f and dS/dt are negligible and no delayed execution is
// queued. As PEtab v2 defines it, the trigger values carry over from
// pre-equilibration to the simulation (a trigger that stayed true does
// not fire again) and from period to period, and a period ends before the
// events at the next period's start, which execute after that period's
// changes. A delayed execution still queued when a period ends is not
// supported (an error says so). Options.NewSolver serves such a model
// when its Solver implements EventSolver (the contract of
// events.SensSolver; ErrEventsNewSolver otherwise), which then solves
// every phase with its own event handling, without the solve without
// events above: internal/cvodes runs CVODES with its root finding
// through it, as AMICI does. See events.go.
//
// # Algebraic variables
//
// A model with algebraic variables (model.Algebraic with NumAlgebraic >
// 0: SBML algebraic rules, fast reactions) is wrapped once by New with
// runtime/dae: every path (simulation, pre-equilibration and steady
// states with their conservation laws, periods, events) solves the
// reduced model over the differential states, z(t, x, p) solved by Newton
// wherever it is evaluated, so that a condition's new parameters, a
// re-initialised or assigned state and an event are followed by
// consistent algebraic values. Observables and assignment sets are those
// of the wrapped model at (x, z), their derivatives reduced through z by
// the implicit function theorem (dae.Model.ReduceRows), so Grad and FIM
// hold for every Method. Reinit, assignment targets and events must be
// differential states. When an experiment fails and a condition's
// algebraic equations have no solution at its start, the error says so.
// Results of such a model are reproducible to Newton's tolerance rather
// than bit for bit: runtime/dae starts each solve of z from the last z of
// its pooled scratch, which depends on what was solved before (and so on
// Workers, and on the garbage collector emptying the pool); on
// petab/testdata/fast one and two workers differ by 1.2e-12 in the llh.
// See algebraic.go.
//
// # Delays
//
// A model with delayed values (model.Delays: SBML csymbol delay) is solved
// by runtime/dde: each experiment is one dde.Solve through its data
// times, or, with Grad or FIM, one dde.SolveSens (forward sensitivity
// through the delays) in the experiment's theta columns, chained through
// the conditions' mappings and initial values as on the ODE path. Method
// does not apply: every method's sensitivities of a delay model are
// dde.SolveSens's. New refuses, naming the delays, pre-equilibration,
// data at +Inf, periods and Options.NewSolver, and Grad or FIM
// (ErrDelaySens, saying why) where runtime/dde cannot differentiate: a
// model without model.DelaySens (with algebraic rules or fast reactions
// too), a delay whose length depends on the state or time, a model with
// events without model.EventDerivs or, where its events may read delayed
// values, model.DelayEventDerivs (the llh dde.Solve computes). With
// events and those, dde.SolveSens carries S across the events. Such an
// Eval allocates, in runtime/dde. See delay.go.
//
// # Workers, allocation, errors
//
// With Options.Workers > 1 the experiments are assigned round robin to
// that many goroutines, each with its own solvers; each experiment's
// contribution is kept apart and they are summed in experiment order, so
// the result does not depend on Workers. After the first Eval, Eval
// allocates nothing (for any Workers) as long as the solvers' step counts
// do not grow. A failed solve, a non-finite or non-positive (log
// transformation) simulated value or a sigma <= 0 is an error naming the
// experiment, its conditions, the datum, observable and time; LLH is then
// not meaningful. A theta of the wrong length is an error.
package objective
