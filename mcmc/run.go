package mcmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Result holds the kept draws and statistics of every chain.
type Result struct {
	Sampler Sampler
	Dim     int
	Names   []string // parameter names (Options.Names or theta.1, ...)
	Chains  []Chain
	Options Options       // the options in effect, defaults filled in
	Elapsed time.Duration // wall-clock time of Run
}

// Chain is one chain's output.
type Chain struct {
	Index int // 0-based; files and tables number chains from 1
	// Draws are the kept iterations, Samples×Dim row-major.
	Draws      []float64
	LogPost    []float64 // log posterior at each kept draw
	AcceptStat []float64 // min(1, MH ratio) of each kept iteration's proposal
	Init       []float64 // the initial point
	// StepSize is the step size frozen after warm-up (for RWM the scale
	// of the proposal covariance Preconditioner).
	StepSize float64
	// Preconditioner is MALA's covariance M or RWM's proposal covariance
	// (before StepSize²), Dim×Dim; nil for SMMALA, whose metric is the
	// target's.
	Preconditioner []float64
	Accepted       int     // accepted proposals after warm-up
	WarmupAccept   float64 // mean acceptance statistic during warm-up
	// OutOfBounds counts proposals rejected for leaving the bounds, Failed
	// proposals rejected because the target failed (error, non-finite
	// value, metric not positive definite), both over warm-up and
	// sampling. FirstFailure is the first failure's message.
	OutOfBounds, Failed int
	FirstFailure        string
	Evals               int // target evaluations, including initialisation
	WarmupTime          time.Duration
	SampleTime          time.Duration

	// With Options.SaveWarmup, the warm-up iterations as Draws, LogPost
	// and AcceptStat are, and the step size used at each.
	WarmupDraws, WarmupLogPost, WarmupAcceptStat, WarmupStepSize []float64
}

// Draw returns draw i (do not modify).
func (c *Chain) Draw(i, dim int) []float64 { return c.Draws[i*dim : (i+1)*dim] }

// Param returns the draws of parameter j of every chain, chains×draws.
func (r *Result) Param(j int) [][]float64 {
	out := make([][]float64, len(r.Chains))
	for c := range r.Chains {
		ch := &r.Chains[c]
		n := len(ch.LogPost)
		x := make([]float64, n)
		for i := 0; i < n; i++ {
			x[i] = ch.Draws[i*r.Dim+j]
		}
		out[c] = x
	}
	return out
}

// chainRNG derives chain c's generator from (seed, c) alone, so a chain
// does not depend on which worker runs it or in which order. The two
// SplitMix64 outputs decorrelate neighbouring seeds and chain indices
// before they become PCG state.
func chainRNG(seed uint64, c int) *rand.Rand {
	a := splitmix(seed ^ 0x9e3779b97f4a7c15*uint64(c+1))
	b := splitmix(a ^ uint64(c))
	return rand.New(rand.NewPCG(a, b))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Run samples the posterior newTarget describes. It calls newTarget once
// per worker (each worker owns its Target for all the chains it runs),
// runs opt.Chains chains of opt.Warmup adaptation and opt.Samples kept
// iterations, and returns every chain. A nil opt means defaults.
//
// Run returns an error when newTarget fails, when targets disagree on
// Dim or Bounds, when the iteration counts overflow an int, when a chain
// cannot find a valid initial point, or when ctx is cancelled (then the
// Result is nil). Failed evaluations during sampling are not errors: they
// are counted in each Chain. Run allocates every kept draw up front; see
// EstimateFootprint for what a run will take before starting it.
func Run(ctx context.Context, newTarget func() (Target, error), opt *Options) (*Result, error) {
	start := time.Now()
	first, err := newTarget()
	if err != nil {
		return nil, fmt.Errorf("mcmc: target: %w", err)
	}
	dim := first.Dim()
	if dim <= 0 {
		return nil, fmt.Errorf("mcmc: target dimension %d", dim)
	}
	lo, hi, err := checkBounds(first, dim)
	if err != nil {
		return nil, err
	}
	o := opt.withDefaults(dim)
	if o.Sampler < SMMALA || o.Sampler > RWM {
		return nil, fmt.Errorf("mcmc: unknown sampler %d", o.Sampler)
	}
	if err := checkCounts(&o, dim); err != nil {
		return nil, err
	}
	if o.StepSize <= 0 || math.IsInf(o.StepSize, 0) || math.IsNaN(o.StepSize) {
		o.StepSize = 1
		if o.Sampler != RWM {
			o.StepSize = 1.65 * math.Pow(float64(dim), -1.0/6)
		}
	}
	if o.FirstChain < 0 {
		return nil, fmt.Errorf("mcmc: first chain %d", o.FirstChain)
	}
	if o.Names != nil && len(o.Names) != dim {
		return nil, fmt.Errorf("mcmc: %d names for %d parameters", len(o.Names), dim)
	}
	names := o.Names
	if names == nil {
		names = make([]string, dim)
		for i := range names {
			names[i] = fmt.Sprintf("theta.%d", i+1)
		}
	}
	o.Names = names
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	o.Workers = min(o.Workers, o.Chains)

	res := &Result{Sampler: o.Sampler, Dim: dim, Names: names, Chains: make([]Chain, o.Chains), Options: o}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	prog := newProgressState(o.Chains, o.Warmup+o.Samples, o.Warmup)
	var wg sync.WaitGroup
	stopMon := make(chan struct{})
	monDone := make(chan struct{})
	if o.Progress != nil {
		go prog.monitor(o.Progress, o.ProgressEvery, start, stopMon, monDone)
	} else {
		close(monDone)
	}

	jobs := make(chan int, o.Chains)
	for c := 0; c < o.Chains; c++ {
		jobs <- c
	}
	close(jobs)
	errs := make([]error, o.Workers)
	for w := 0; w < o.Workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			t := first
			if w > 0 {
				var err error
				if t, err = newTarget(); err != nil {
					errs[w] = fmt.Errorf("mcmc: target: %w", err)
					cancel()
					return
				}
				if t.Dim() != dim {
					errs[w] = fmt.Errorf("mcmc: targets disagree on dimension: %d and %d", dim, t.Dim())
					cancel()
					return
				}
			}
			tlo, thi, err := checkBounds(t, dim)
			if err != nil {
				errs[w] = err
				cancel()
				return
			}
			if !sameBounds(lo, tlo) || !sameBounds(hi, thi) {
				errs[w] = errors.New("mcmc: targets disagree on bounds")
				cancel()
				return
			}
			for c := range jobs {
				if ctx.Err() != nil {
					return
				}
				if err := runChain(ctx, t, tlo, thi, c, &o, &res.Chains[c], prog); err != nil {
					errs[w] = err
					cancel()
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(stopMon)
	<-monDone
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	if o.Progress != nil {
		o.Progress(prog.snapshot(start, true))
	}
	return res, nil
}

func checkBounds(t Target, dim int) (lo, hi []float64, err error) {
	lo, hi = t.Bounds()
	if lo != nil && len(lo) != dim || hi != nil && len(hi) != dim {
		return nil, nil, fmt.Errorf("mcmc: bounds of length %d, %d for %d parameters", len(lo), len(hi), dim)
	}
	for i := 0; i < dim; i++ {
		l, h := math.Inf(-1), math.Inf(1)
		if lo != nil {
			l = lo[i]
		}
		if hi != nil {
			h = hi[i]
		}
		if !(l < h) {
			return nil, nil, fmt.Errorf("mcmc: parameter %d: empty bounds [%v, %v]", i+1, l, h)
		}
	}
	return lo, hi, nil
}

func sameBounds(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// defaultInit draws uniformly in the bounds where both are finite and in
// [-2, 2] clipped to the bounds elsewhere (Stan's default on its
// unconstrained scale; on a log10 scale that is four decades around 1).
func defaultInit(lo, hi []float64, rng *rand.Rand, dst []float64) {
	for i := range dst {
		l, h := math.Inf(-1), math.Inf(1)
		if lo != nil {
			l = lo[i]
		}
		if hi != nil {
			h = hi[i]
		}
		a, b := math.Max(l, -2), math.Min(h, 2)
		if !(a < b) { // the box lies outside [-2, 2]
			if !math.IsInf(l, 0) {
				a, b = l, math.Min(h, l+4)
			} else {
				a, b = h-4, h
			}
		}
		dst[i] = a + (b-a)*rng.Float64()
	}
}

// runChain runs chain c on t and fills out.
func runChain(ctx context.Context, t Target, lo, hi []float64, c int, o *Options, out *Chain, prog *progressState) error {
	n := t.Dim()
	c0 := c           // position in the Result and the progress counters
	c += o.FirstChain // the chain's index: its generator and Chain.Index
	rng := chainRNG(o.Seed, c)
	k := newKernel(t, o.Sampler, lo, hi, rng)
	t0 := time.Now()

	// Langevin kernels need a preconditioner before the first evaluation;
	// the identity is replaced below by the inverse metric at the start.
	ident := make([]float64, n*n)
	for i := 0; i < n; i++ {
		ident[i*n+i] = 1
	}
	if o.Sampler != SMMALA {
		k.setPrecondition(ident)
	}
	ok := false
	for try := 0; try < o.MaxInitTries && !ok; try++ {
		if o.Init != nil {
			o.Init(c, rng, k.cur.theta)
		} else {
			defaultInit(lo, hi, rng, k.cur.theta)
		}
		if !allFinite(k.cur.theta) || !k.inBounds(k.cur.theta) {
			continue
		}
		ok = k.evalState(k.cur)
	}
	if !ok {
		msg := k.firstFailure
		if msg == "" {
			msg = "no initial point in bounds with a finite log posterior"
		}
		return fmt.Errorf("mcmc: chain %d: no valid initial point in %d tries: %s", c+1, o.MaxInitTries, msg)
	}
	out.Init = append([]float64(nil), k.cur.theta...)
	if o.Sampler != SMMALA {
		// Start MALA's preconditioner and RWM's proposal covariance from
		// the inverse metric at the initial point: it has the posterior's
		// scales and correlations where the data determine them, and spares
		// warm-up the search over orders of magnitude. The box curvature
		// (see kernel.boxCurv) keeps directions the data do not determine
		// at the box's scale. Fall back to the identity when the metric is
		// unusable there.
		metric := make([]float64, n*n)
		cov := ident
		k.evals++
		if _, err := t.Eval(k.cur.theta, nil, metric); err == nil && allFinite(metric) {
			k.addBoxCurv(metric)
			if _, ok := factorSPD(k.tmpMat, make([]float64, n*n), metric, n); ok {
				inv := make([]float64, n*n)
				invertSPDTo(inv, k.tmpMat, k.w, n)
				if allFinite(inv) {
					cov = inv
				}
			}
		}
		if !k.setPrecondition(cov) {
			k.setPrecondition(ident)
		}
	}

	ad := newStepAdapter(o.StepSize, o.TargetAccept, o.Warmup)
	var ends []int
	var acc *welford
	var covBuf []float64
	firstWindow := o.Warmup
	if o.Sampler != SMMALA {
		firstWindow, ends = windowEnds(o.Warmup)
		acc = newWelford(n)
		covBuf = make([]float64, n*n)
	}
	lastEnd := 0
	if len(ends) > 0 {
		lastEnd = ends[len(ends)-1]
	}
	if o.SaveWarmup {
		out.WarmupDraws = make([]float64, o.Warmup*n)
		out.WarmupLogPost = make([]float64, o.Warmup)
		out.WarmupAcceptStat = make([]float64, o.Warmup)
		out.WarmupStepSize = make([]float64, o.Warmup)
	}
	next := 0
	done := ctx.Done()
	warmAccept := 0.0
	for it := 0; it < o.Warmup; it++ {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		k.eps = ad.eps()
		a, _ := k.step()
		if o.SaveWarmup {
			copy(out.WarmupDraws[it*n:], k.cur.theta)
			out.WarmupLogPost[it] = k.cur.lp
			out.WarmupAcceptStat[it] = a
			out.WarmupStepSize[it] = k.eps
		}
		ad.update(a)
		warmAccept += a
		prog.add(c0, a, k.failed)
		if acc != nil && it >= firstWindow && it < lastEnd {
			acc.add(k.cur.theta)
		}
		if next < len(ends) && it+1 == ends[next] {
			next++
			if acc.covTo(covBuf) && k.setPrecondition(covBuf) {
				ad.restart()
			}
			// MALA estimates each window from its own draws, as Stan does,
			// so the transient of the first windows is forgotten. RWM keeps
			// accumulating, as Haario's adaptive Metropolis uses the whole
			// history: a random walk's draws are so autocorrelated that one
			// window holds too few independent ones for a covariance.
			if o.Sampler == MALA {
				acc.reset()
			}
		}
	}
	if o.Warmup > 0 {
		out.WarmupAccept = warmAccept / float64(o.Warmup)
		k.eps = math.Exp(ad.averaged())
	} else {
		k.eps = o.StepSize
	}
	out.WarmupTime = time.Since(t0)
	out.StepSize = k.eps
	if o.Sampler != SMMALA {
		out.Preconditioner = append([]float64(nil), k.precondition...)
	}

	t1 := time.Now()
	out.Draws = make([]float64, o.Samples*n)
	out.LogPost = make([]float64, o.Samples)
	out.AcceptStat = make([]float64, o.Samples)
	for it := 0; it < o.Samples; it++ {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		a, accepted := k.step()
		if accepted {
			out.Accepted++
		}
		copy(out.Draws[it*n:], k.cur.theta)
		out.LogPost[it] = k.cur.lp
		out.AcceptStat[it] = a
		prog.add(c0, a, k.failed)
	}
	out.SampleTime = time.Since(t1)
	out.Index = c
	out.OutOfBounds = k.outOfBounds
	out.Failed = k.failed
	out.FirstFailure = k.firstFailure
	out.Evals = k.evals
	prog.finish(c0)
	return nil
}

// progressState holds per-chain counters the chains update and the
// monitor reads; atomics keep the chains free of locks.
type progressState struct {
	perChain int
	done     []atomic.Int64
	accept   []atomic.Uint64 // float64 bits of the summed acceptance statistic
	failed   []atomic.Int64
	finished atomic.Int64
	warmup   int64
}

func newProgressState(chains, perChain, warmup int) *progressState {
	return &progressState{
		perChain: perChain,
		warmup:   int64(warmup),
		done:     make([]atomic.Int64, chains),
		accept:   make([]atomic.Uint64, chains),
		failed:   make([]atomic.Int64, chains),
	}
}

// add is called by chain c's goroutine only, so the read-modify-write of
// the accept sum does not race with another writer.
func (p *progressState) add(c int, a float64, failed int) {
	p.done[c].Add(1)
	p.accept[c].Store(math.Float64bits(math.Float64frombits(p.accept[c].Load()) + a))
	p.failed[c].Store(int64(failed))
}

func (p *progressState) finish(c int) { p.finished.Add(1) }

func (p *progressState) snapshot(start time.Time, final bool) Progress {
	var pr Progress
	acc := 0.0
	for c := range p.done {
		d := p.done[c].Load()
		pr.Done += int(d)
		pr.Warmup = pr.Warmup || d < p.warmup
		acc += math.Float64frombits(p.accept[c].Load())
		pr.Failed += int(p.failed[c].Load())
	}
	pr.Total = p.perChain * len(p.done)
	pr.ChainsDone = int(p.finished.Load())
	pr.Elapsed = time.Since(start)
	if pr.Done > 0 {
		pr.Accept = acc / float64(pr.Done)
		pr.IterPerSec = float64(pr.Done) / pr.Elapsed.Seconds()
		if !final && pr.IterPerSec > 0 {
			pr.Remaining = time.Duration(float64(pr.Total-pr.Done) / pr.IterPerSec * float64(time.Second))
		}
	}
	return pr
}

func (p *progressState) monitor(f func(Progress), every time.Duration, start time.Time, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			f(p.snapshot(start, false))
		}
	}
}
