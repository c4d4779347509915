package mcmc

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Target is the posterior a chain samples. Each chain's worker owns its
// Target (Run calls the factory once per worker), so implementations need
// not be safe for concurrent use; this is what lets a PEtab objective keep
// one ODE solver and its workspaces per goroutine.
type Target interface {
	// Dim is the number of parameters.
	Dim() int
	// Eval returns the log posterior (log-likelihood plus log prior, up to
	// an additive constant) at theta. With grad non-nil (length Dim) it
	// writes the gradient; with metric non-nil (length Dim*Dim, row-major)
	// it writes the metric: the Fisher information plus the negative
	// Hessian of the log prior, symmetric positive (semi-)definite. Eval
	// must not modify or retain theta. An error means the posterior could
	// not be evaluated there (for example a failed ODE solve); the sampler
	// treats it as a rejected proposal. -Inf is a valid log posterior
	// (zero density) and also rejects.
	//
	// RWM asks for neither gradient nor metric while sampling, MALA only
	// for the gradient, so a target can skip the sensitivities then. Both
	// ask for the metric once per chain, at the initial point, to start
	// their proposal covariance; a target without a metric may return an
	// error for that call, and the identity is used instead.
	Eval(theta, grad, metric []float64) (logPost float64, err error)
	// Bounds returns the lower and upper bounds on the parameter scale.
	// Either may be nil for unbounded; entries may be ±Inf. Run reads them
	// once per worker and does not modify them.
	Bounds() (lo, hi []float64)
}

// Sampler selects the Markov kernel.
type Sampler int

const (
	// SMMALA is simplified manifold MALA: a Langevin proposal whose
	// covariance is the inverse of the target's metric at the current
	// point. It needs gradient and metric.
	SMMALA Sampler = iota
	// MALA is the Metropolis-adjusted Langevin algorithm with a dense
	// preconditioner estimated during warm-up. It needs the gradient.
	MALA
	// RWM is adaptive random-walk Metropolis (Haario et al. 2001). It
	// needs only the log posterior.
	RWM
)

// String returns the name the CLI flag uses.
func (s Sampler) String() string {
	switch s {
	case SMMALA:
		return "smmala"
	case MALA:
		return "mala"
	case RWM:
		return "rwm"
	}
	return "unknown"
}

// ParseSampler maps a CLI name (smmala, mala, rwm) to a Sampler.
func ParseSampler(name string) (Sampler, bool) {
	for _, s := range []Sampler{SMMALA, MALA, RWM} {
		if s.String() == name {
			return s, true
		}
	}
	return 0, false
}

// targetAccept is the acceptance rate warm-up aims for: the asymptotically
// optimal rates of Roberts and Rosenthal (0.574 for Langevin kernels, 0.234
// for random walks).
func (s Sampler) targetAccept() float64 {
	if s == RWM {
		return 0.234
	}
	return 0.574
}

// Options configures Run. A nil *Options means all defaults; a zero field
// means that field's default.
type Options struct {
	Sampler Sampler
	// Chains is the number of chains (default 4).
	Chains int
	// Warmup is the number of adaptation iterations per chain, discarded
	// (default 1000; negative for none, which keeps StepSize and the
	// initial preconditioner).
	Warmup int
	// Samples is the number of kept iterations per chain (default 1000).
	Samples int
	// SaveWarmup keeps the warm-up iterations too (Chain.Warmup...), and
	// the CSV files then start with them, as CmdStan's save_warmup=1, so
	// the adaptation can be inspected. Diagnostics never use them.
	SaveWarmup bool
	// Seed determines all random numbers; chain c uses a generator derived
	// from (Seed, c) only.
	Seed uint64
	// FirstChain is the index of the first chain to run (default 0): Run
	// runs chains FirstChain, ..., FirstChain+Chains-1, each exactly as a
	// run of more chains with the same Seed would (Chain.Index and Init's
	// chain argument are these indices). It lets separate processes (a
	// Slurm job array) run the chains of one analysis, to be merged.
	FirstChain int
	// Workers is the number of goroutines, each owning one Target
	// (default min(Chains, GOMAXPROCS)).
	Workers int
	// StepSize is the initial step size (default 1.65*Dim^(-1/6) for the
	// Langevin kernels, the Roberts-Rosenthal scaling; 1 for RWM, whose
	// proposal is already scaled by 2.38/sqrt(Dim)).
	StepSize float64
	// TargetAccept overrides the acceptance rate warm-up aims for (default
	// 0.574 for SMMALA and MALA, 0.234 for RWM).
	TargetAccept float64
	// Names are the parameter names for CSV and the summary (default
	// theta.1, theta.2, ...). Characters CSV readers would split on are
	// replaced by '_' on output.
	Names []string
	// Init writes chain's initial point into dst; it may use rng, which is
	// the chain's own generator. Run calls it again (at most MaxInitTries
	// times) while the target fails or is out of bounds there. Default:
	// uniform in the bounds where both are finite, uniform in [-2, 2]
	// (clipped to the bounds) elsewhere, as Stan does on its unconstrained
	// scale. Workers call Init concurrently for different chains.
	Init func(chain int, rng *rand.Rand, dst []float64)
	// MaxInitTries bounds the initialisation attempts per chain (default
	// 100).
	MaxInitTries int
	// Progress, if non-nil, is called about every ProgressEvery and once
	// at the end. Calls are sequential (never concurrent) and come from a
	// goroutine Run owns; the callback must return quickly.
	Progress func(Progress)
	// ProgressEvery is the progress interval (default 1 s).
	ProgressEvery time.Duration
}

// Progress is a snapshot of a running Run for a progress line.
type Progress struct {
	Done, Total int     // iterations completed and planned, over all chains
	ChainsDone  int     // chains finished
	Warmup      bool    // some chain is still in warm-up
	IterPerSec  float64 // over all chains since the start
	Accept      float64 // acceptance rate over all iterations so far
	Failed      int     // failed evaluations so far, over all chains
	Elapsed     time.Duration
	Remaining   time.Duration // estimate from IterPerSec; 0 when unknown
}

func (o *Options) withDefaults(dim int) Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Chains <= 0 {
		r.Chains = 4
	}
	if r.Warmup == 0 {
		r.Warmup = 1000
	} else if r.Warmup < 0 {
		r.Warmup = 0
	}
	if r.Samples <= 0 {
		r.Samples = 1000
	}
	if r.MaxInitTries <= 0 {
		r.MaxInitTries = 100
	}
	if r.ProgressEvery <= 0 {
		r.ProgressEvery = time.Second
	}
	if r.TargetAccept <= 0 || r.TargetAccept >= 1 {
		r.TargetAccept = r.Sampler.targetAccept()
	}
	return r
}

// Func is a Target made of a function, for densities that need no
// per-worker state (tests, analytic posteriors). Run shares one Func
// between workers when the factory returns the same value, so F must then
// be safe for concurrent use.
type Func struct {
	N      int                                                              // dimension
	Lo, Hi []float64                                                        // bounds (nil for none)
	F      func(theta, grad, metric []float64) (logPost float64, err error) // as Target.Eval
}

// Dim returns f.N.
func (f *Func) Dim() int { return f.N }

// Bounds returns f.Lo and f.Hi.
func (f *Func) Bounds() (lo, hi []float64) { return f.Lo, f.Hi }

// Eval calls f.F.
func (f *Func) Eval(theta, grad, metric []float64) (float64, error) {
	return f.F(theta, grad, metric)
}

// String formats p as a one-line status for a terminal, e.g.
// "warmup 1200/8000 (15%), 3.4e+03 it/s, accept 0.57, 2 failed, 2s left".
func (p Progress) String() string {
	phase := "sampling"
	if p.Warmup {
		phase = "warmup"
	}
	pct := 0.0
	if p.Total > 0 {
		pct = 100 * float64(p.Done) / float64(p.Total)
	}
	s := fmt.Sprintf("%s %d/%d (%.0f%%), %.3g it/s, accept %.2f", phase, p.Done, p.Total, pct, p.IterPerSec, p.Accept)
	if p.Failed > 0 {
		s += fmt.Sprintf(", %d failed", p.Failed)
	}
	if p.Remaining > 0 {
		s += fmt.Sprintf(", %v left", p.Remaining.Round(time.Second))
	}
	return s
}
