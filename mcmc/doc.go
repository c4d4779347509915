// Package mcmc samples a Bayesian posterior with Markov chain Monte Carlo:
// simplified manifold MALA (SMMALA, Girolami and Calderhead 2011), MALA with
// a dense preconditioner, and adaptive random-walk Metropolis (Haario et al.
// 2001) as the gradient-free baseline. It runs several chains in parallel,
// computes the convergence diagnostics of Vehtari et al. (2021)
// (rank-normalised split R-hat, bulk and tail ESS; they agree with R's
// posterior package), and writes CmdStan-style CSV, a stansummary-like
// table and PNG plots.
//
// The package depends only on the Target interface (log posterior, gradient
// and metric), gonum and the standard library, so any objective (a PEtab
// problem, a test density) can be sampled.
//
// # Kernels and adaptation
//
// SMMALA proposes θ* ~ N(θ + (ε²/2) G(θ)⁻¹∇log π(θ), ε² G(θ)⁻¹) with G the
// target's metric (Fisher information plus the prior's negative Hessian)
// and accepts with the full Metropolis-Hastings ratio, each proposal
// density with its own point's metric and log-determinant. For a
// parameter with finite bounds, 12/(hi-lo)² (the curvature of a Gaussian
// with the variance of the uniform distribution on the box) is added to
// the metric's diagonal, so a direction the data do not determine (a
// singular Fisher information, non-identifiable parameters) gets steps of
// the box's size rather than unbounded ones that are all rejected; a
// metric still not positive definite gets the smallest ridge that makes
// it so. Both depend on the point only, so the ratio stays exact. Warm-up
// adapts ε only.
//
// MALA uses the same proposal with a constant covariance M. M starts as
// the inverse metric at the initial point and is re-estimated from the
// draws of Stan's doubling windows (75-iteration initial buffer, windows
// of 25, 50, 100, ... iterations, 50-iteration terminal buffer), each
// window forgetting the previous ones.
//
// RWM proposes θ* ~ N(θ, ε² (2.38²/d) Σ) (Haario et al. 2001). Σ starts
// as the inverse metric at the initial point and is the covariance of all
// warm-up draws after the initial buffer, updated at the same window ends
// rather than at every iteration (a deviation from Haario, who update it
// continuously; the chain is frozen for sampling either way), shrunk
// slightly toward a multiple of the identity as Haario's εI does. The
// extra scale ε is tuned to acceptance 0.234, as in Andrieu and Thoms
// (2008).
//
// The step size ε is tuned by Robbins-Monro on log ε toward acceptance
// 0.574 (Langevin) or 0.234 (RWM), the optimal-scaling rates of Roberts
// and Rosenthal. Everything adapted is frozen after warm-up, so the kept
// draws come from a time-homogeneous Markov chain.
//
// # Parameters and bounds
//
// Parameters live on the target's own scale (for PEtab, the parameter
// scale: lin, log or log10); the sampler never transforms them. Bounds are
// hard: a proposal outside [lo, hi] is rejected without evaluating the
// target. Rejection keeps every kernel exact: the posterior is zero outside
// the box, so the Metropolis-Hastings ratio is zero there. Reflection would
// keep more proposals, but it is only correct for proposals that are
// symmetric under reflection, which neither a correlated random walk nor a
// position-dependent Langevin proposal is. Rejection also means the solver
// is never asked to integrate at parameters the problem declares invalid.
//
// # Failures
//
// An error from Target.Eval at a proposal, a non-finite log posterior or
// gradient, or a metric that cannot be factorised counts as a rejected
// proposal. Such failures are counted per chain (Chain.Failed) and the first
// message is kept (Chain.FirstFailure); they are not fatal. Failures at the
// initial point make the sampler try another initial point.
//
// # Reproducibility
//
// Chain c draws its random numbers from a PCG generator seeded from
// (Options.Seed, c) alone, and each worker owns its target, so the chains
// are identical whatever Options.Workers is, provided the target is
// deterministic. Options.FirstChain runs chains k, k+1, ... alone, exactly
// as they are in a run of all chains, so separate processes (a Slurm job
// array, pbgen sample -chain-index) can run the chains of one analysis.
// The chain files are then byte-identical too: WriteCSV writes no
// wall-clock times, which go to the sidecar chain_N.timing.json
// (WriteTiming, ReadTiming) instead of CmdStan's "Elapsed Time" comments.
//
// # Use from a command
//
// A command such as pbgen sample wires flags to Options and the PEtab
// objective to Target, one objective (and ODE solver) per worker. With
// runtime/objective the adapter is a few lines (built with Grad for SMMALA
// and MALA, FIM for SMMALA only, so RWM never pays for sensitivities):
//
//	type petabTarget struct {
//		o      *objective.Objective
//		res    objective.Result
//		lo, hi []float64 // PEtab bounds through objective.ToScale
//	}
//
//	func (t *petabTarget) Eval(theta, grad, metric []float64) (float64, error) {
//		if err := t.o.Eval(theta, &t.res); err != nil {
//			return 0, err // a failed solve: a counted rejection
//		}
//		for i := range grad {
//			grad[i] = t.res.Grad[i] + t.res.GradPrior[i]
//		}
//		if metric != nil {
//			if t.res.FIM == nil {
//				return 0, errors.New("no FIM") // MALA, RWM: identity start
//			}
//			copy(metric, t.res.FIM) // plus the prior's negative Hessian
//		}
//		return t.res.LogPost, nil
//	}
//
// and the command itself:
//
//	s, ok := mcmc.ParseSampler(*sampler) // "smmala", "mala", "rwm"
//	res, err := mcmc.Run(ctx, newPetabTarget, &mcmc.Options{Sampler: s,
//		Chains: *chains, Warmup: *warmup, Samples: *samples, Seed: *seed,
//		Names: obj.Params(), Init: fromNominalOrInitPrior,
//		Progress: func(p mcmc.Progress) { fmt.Fprintf(os.Stderr, "\r%v", p) }})
//	mcmc.WriteCSVFiles(*outDir, res)  // chain_1.csv, chain_1.timing.json, ...
//	mcmc.WriteSummary(os.Stdout, res) // stansummary-like table
//	mcmc.WritePlots(*plotDir, res, 4) // trace.png, hist.png, pair.png
//
// Progress reports iterations per second, acceptance and the time left
// about once a second; a cancelled ctx (Ctrl-C) stops every chain within
// one iteration.
//
// # Panics and errors
//
// Run returns errors for bad options and for targets that disagree with
// themselves (dimension, bounds). The diagnostics functions return NaN
// where a quantity is undefined (too few draws, zero variance) rather than
// panicking.
package mcmc
