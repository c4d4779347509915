package capi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/pbgen/pbgen/mcmc"
	"github.com/pbgen/pbgen/petab"
)

// SampleOptions are Sample's choices, as pbgen sample's flags.
type SampleOptions struct {
	// Sampler is smmala, mala or rwm ("": smmala).
	Sampler string
	// Chains, Warmup (0: none) and Samples per chain; Seed determines
	// every random number.
	Chains, Warmup, Samples int
	Seed                    uint64
	// Init is prior (each chain's start drawn from the initialization
	// priors, the default) or nominal.
	Init string
}

// Sample runs MCMC on the problem's posterior (petab.Problem.Target with
// the problem's method and tolerances; mcmc.Run, one goroutine and one
// target per chain, as pbgen sample) and writes the kept draws into
// draws (Chains x Samples x dim, row-major, theta on the parameter
// scales) and their log posterior into logPost (Chains x Samples). It
// returns each chain's acceptance rate after warm-up.
func (p *Problem) Sample(opt *SampleOptions, draws, logPost []float64) ([]float64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		return nil, errClosed
	}
	if p.pp == nil {
		return nil, fmt.Errorf("sampling needs a problem read from its PEtab files (its initialization priors), not a compiled one")
	}
	mo, mode, err := sampleOptions(opt)
	if err != nil {
		return nil, err
	}
	dim := len(p.info.ParameterIDs)
	if len(draws) != opt.Chains*opt.Samples*dim || len(logPost) != opt.Chains*opt.Samples {
		return nil, fmt.Errorf("the draws and log_post buffers have %d and %d values, want %d and %d (chains x samples x parameters, chains x samples)",
			len(draws), len(logPost), opt.Chains*opt.Samples*dim, opt.Chains*opt.Samples)
	}
	pp := p.pp
	if err := pp.InitialPoint(mode, rand.New(rand.NewPCG(0, 0)), make([]float64, dim)); err != nil {
		return nil, fmt.Errorf("init %s: %v", opt.Init, err)
	}
	mo.Names = p.info.ParameterIDs
	mo.Init = func(_ int, rng *rand.Rand, dst []float64) {
		if pp.InitialPoint(mode, rng, dst) != nil {
			dst[0] = math.NaN() // rejected by Run; cannot happen after the check above
		}
	}
	topt := &petab.TargetOptions{Method: p.opt.Method, RTol: p.opt.RTol, ATol: p.opt.ATol,
		Grad: mo.Sampler != mcmc.RWM, FIM: mo.Sampler == mcmc.SMMALA}
	res, err := mcmc.Run(context.Background(), func() (mcmc.Target, error) { return pp.Target(topt) }, mo)
	if err != nil {
		return nil, err
	}
	acc := make([]float64, len(res.Chains))
	for c, ch := range res.Chains {
		copy(draws[c*opt.Samples*dim:], ch.Draws)
		copy(logPost[c*opt.Samples:], ch.LogPost)
		acc[c] = float64(ch.Accepted) / float64(opt.Samples)
	}
	return acc, nil
}

// sampleOptions checks opt and returns mcmc's options and the init mode.
func sampleOptions(opt *SampleOptions) (*mcmc.Options, petab.InitMode, error) {
	name := strings.ToLower(opt.Sampler)
	if name == "" {
		name = "smmala"
	}
	kind, ok := mcmc.ParseSampler(name)
	if !ok {
		return nil, 0, fmt.Errorf("sampler %q: want smmala, mala or rwm", opt.Sampler)
	}
	var mode petab.InitMode
	switch opt.Init {
	case "", "prior":
		mode = petab.InitPrior
	case "nominal":
		mode = petab.InitNominal
	default:
		return nil, 0, fmt.Errorf("init %q: want prior or nominal", opt.Init)
	}
	switch {
	case opt.Chains < 1:
		return nil, 0, fmt.Errorf("chains = %d, want at least 1", opt.Chains)
	case opt.Warmup < 0:
		return nil, 0, fmt.Errorf("warmup = %d, want 0 or more", opt.Warmup)
	case opt.Samples < 1:
		return nil, 0, fmt.Errorf("samples = %d, want at least 1", opt.Samples)
	}
	mo := &mcmc.Options{Sampler: kind, Chains: opt.Chains, Warmup: opt.Warmup, Samples: opt.Samples, Seed: opt.Seed, Workers: opt.Chains}
	if opt.Warmup == 0 {
		mo.Warmup = -1 // mcmc's "none"; its zero means the default
	}
	return mo, mode, nil
}
