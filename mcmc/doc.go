// Package mcmc samples a Bayesian posterior with Markov chain Monte Carlo:
// simplified manifold MALA (SMMALA, Girolami and Calderhead 2011), MALA with
// a dense preconditioner, and adaptive random-walk Metropolis (Haario et al.
// 2001) as the gradient-free baseline. It runs several chains in parallel,
// computes the convergence diagnostics of Vehtari et al. (2021) (rank-
// normalised split R-hat, bulk and tail ESS), and writes CmdStan-style CSV,
// a stansummary-like table and PNG plots.
//
// The package depends only on the Target interface (log posterior, gradient
// and metric), gonum and the standard library, so any objective (a PEtab
// problem, a test density) can be sampled.
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
// deterministic.
//
// # Panics and errors
//
// Run returns errors for bad options and for targets that disagree with
// themselves (dimension, bounds). The diagnostics functions return NaN
// where a quantity is undefined (too few draws, zero variance) rather than
// panicking.
package mcmc
