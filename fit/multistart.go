package fit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"
)

// Sampling chooses how MultiStart draws start points in the bounds.
type Sampling int

const (
	// LatinHypercube divides each parameter's range into Total equal
	// strata and gives every stratum to exactly one start (McKay, Beckman
	// and Conover 1979), with the strata's order per parameter drawn from
	// the seed and the position within the stratum from the start's own
	// generator: the starts cover every parameter's range evenly.
	LatinHypercube Sampling = iota
	// Uniform draws every start independently and uniformly in the box
	// (pyPESTO's default).
	Uniform
)

// String returns "lhs" or "uniform".
func (s Sampling) String() string {
	if s == Uniform {
		return "uniform"
	}
	return "lhs"
}

// MultiOptions configures MultiStart. A nil *MultiOptions means all
// defaults; a zero field means that field's default.
type MultiOptions struct {
	// Starts is the number of starts to run (default 10).
	Starts int
	// FirstStart and Total place these starts in a larger analysis: run
	// starts FirstStart, ..., FirstStart+Starts-1 of Total (default
	// Total = FirstStart+Starts), each exactly as the run of all Total
	// starts with the same Seed would. This lets separate processes (a
	// Slurm job array) run the starts of one analysis.
	FirstStart, Total int
	// Seed determines every start point: start i's depends on (Seed, i,
	// Total) only.
	Seed     uint64
	Sampling Sampling
	// Init, when non-nil, is called after the sampling with dst holding
	// start i's sampled point (NaN for a parameter with an infinite
	// bound), and may replace any entries: draw some parameters from a
	// prior, or the whole point. rng is start i's own generator. It is
	// called again after each redraw. Workers call it concurrently for
	// different starts.
	Init func(start int, rng *rand.Rand, dst []float64)
	// MaxRedraws bounds the redraws of one start whose point the
	// objective cannot evaluate (default 100); the start then ends with
	// Status StartFailed.
	MaxRedraws int
	// Workers is the number of goroutines, each owning one Objective
	// (default min(Starts, GOMAXPROCS)).
	Workers int
	// ObjectivePerStart makes each start build an objective of its own
	// (newObjective is then called for every start, concurrently, and an
	// objective with a Close method is closed after its start) rather
	// than each worker one for all its starts. An objective that keeps
	// state between evaluations (an ODE solver's step size or steady
	// state from the previous call) gives results that depend, in the
	// last digits, on what it evaluated before; with one per start they
	// do not depend on the number of workers.
	ObjectivePerStart bool
	// Options configure each minimisation.
	Options *Options
	// Progress, if non-nil, is called about every ProgressEvery and once
	// at the end, sequentially, from a goroutine MultiStart owns; it must
	// return quickly.
	Progress func(Progress)
	// ProgressEvery is the progress interval (default 1 s).
	ProgressEvery time.Duration
}

// Progress is a snapshot of a running MultiStart.
type Progress struct {
	Done, Total int     // starts finished, and to run
	Best        float64 // lowest f so far (+Inf before the first)
	Failed      int     // starts that ended StartFailed
	Redraws     int     // redrawn start points so far
	Elapsed     time.Duration
	Remaining   time.Duration // estimate from the starts done; 0 when unknown
}

// String formats p for a terminal, e.g.
// "12/50 starts, best f 123.4, 3 redraws, 40s left".
func (p Progress) String() string {
	s := fmt.Sprintf("%d/%d starts", p.Done, p.Total)
	if !math.IsInf(p.Best, 1) {
		s += fmt.Sprintf(", best f %.10g", p.Best)
	}
	if p.Failed > 0 {
		s += fmt.Sprintf(", %d failed", p.Failed)
	}
	if p.Redraws > 0 {
		s += fmt.Sprintf(", %d redraws", p.Redraws)
	}
	if p.Remaining > 0 {
		s += fmt.Sprintf(", %v left", p.Remaining.Round(time.Second))
	}
	return s
}

// Start is one start of a MultiStart: its index, start point, redraws
// and the minimisation's Result.
type Start struct {
	Index   int
	X0      []float64
	Redraws int
	Result
}

// MultiResult holds the starts in index order and the best of them.
type MultiResult struct {
	Starts []Start
	// Best indexes Starts: the lowest finite F (-1 if every start
	// failed).
	Best    int
	Elapsed time.Duration
}

// MultiStart minimises from many start points (see the package doc).
// newObjective is called once per worker (or per start, with
// ObjectivePerStart), from several goroutines at once: it must be safe
// for concurrent use. The error is for misuse (bad
// options, bounds that cannot be sampled) and for a factory that fails;
// a start that fails is a Start with Status StartFailed.
func MultiStart(ctx context.Context, newObjective func() (Objective, error), opt *MultiOptions) (*MultiResult, error) {
	o := multiDefaults(opt)
	if o.FirstStart < 0 || o.Total < o.FirstStart+o.Starts {
		return nil, fmt.Errorf("fit: starts %d to %d of %d", o.FirstStart, o.FirstStart+o.Starts-1, o.Total)
	}
	probe, err := newObjective()
	if err != nil {
		return nil, err
	}
	n := probe.Dim()
	lo, hi := probe.Bounds()
	draw, err := newSampler(&o, n, lo, hi)
	if err != nil {
		closeObjective(probe)
		return nil, err
	}
	objs := make([]Objective, o.Workers)
	if o.ObjectivePerStart {
		closeObjective(probe)
	} else {
		objs[0] = probe
		for w := 1; w < o.Workers; w++ {
			if objs[w], err = newObjective(); err != nil {
				return nil, err
			}
			if objs[w].Dim() != n {
				return nil, fmt.Errorf("fit: objectives disagree on the dimension: %d and %d", n, objs[w].Dim())
			}
		}
	}
	res := &MultiResult{Starts: make([]Start, o.Starts), Best: -1}
	start := time.Now()
	jobs := make(chan int)
	var (
		mu       sync.Mutex
		done     int
		best     = math.Inf(1)
		failed   int
		redraws  int
		firstErr error
	)
	snapshot := func() Progress {
		mu.Lock()
		defer mu.Unlock()
		p := Progress{Done: done, Total: o.Starts, Best: best, Failed: failed, Redraws: redraws, Elapsed: time.Since(start)}
		if done > 0 && done < o.Starts {
			p.Remaining = time.Duration(float64(p.Elapsed) / float64(done) * float64(o.Starts-done))
		}
		return p
	}
	stopProgress := startProgress(o.Progress, o.ProgressEvery, snapshot)
	var wg sync.WaitGroup
	for w := range o.Workers {
		wg.Add(1)
		go func(obj Objective) {
			defer wg.Done()
			for k := range jobs {
				var st Start
				var err error
				if o.ObjectivePerStart {
					st, err = freshStart(ctx, newObjective, o.FirstStart+k, draw, &o, n)
				} else {
					st, err = runStart(ctx, obj, o.FirstStart+k, draw, &o, n)
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				res.Starts[k] = st
				done++
				redraws += st.Redraws
				if st.Status == StartFailed {
					failed++
				} else if st.F < best {
					best = st.F
				}
				mu.Unlock()
			}
		}(objs[w])
	}
	for k := range o.Starts {
		jobs <- k
	}
	close(jobs)
	wg.Wait()
	stopProgress()
	res.Elapsed = time.Since(start)
	if firstErr != nil {
		return nil, firstErr
	}
	for k, s := range res.Starts {
		if s.Status != StartFailed && s.Status != NotRun && finite(s.F) && (res.Best < 0 || s.F < res.Starts[res.Best].F) {
			res.Best = k
		}
	}
	return res, nil
}

func multiDefaults(opt *MultiOptions) MultiOptions {
	var o MultiOptions
	if opt != nil {
		o = *opt
	}
	if o.Starts <= 0 {
		o.Starts = 10
	}
	if o.Total == 0 {
		o.Total = o.FirstStart + o.Starts
	}
	if o.MaxRedraws <= 0 {
		o.MaxRedraws = 100
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	o.Workers = min(o.Workers, o.Starts)
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = time.Second
	}
	return o
}

// startProgress calls report every interval and once at the end, from
// one goroutine; the returned function stops it after the final call.
func startProgress(report func(Progress), every time.Duration, snap func() Progress) func() {
	if report == nil {
		return func() {}
	}
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-quit:
				report(snap())
				return
			case <-t.C:
				report(snap())
			}
		}
	}()
	return func() { close(quit); <-finished }
}

// runStart draws start i's point and minimises from it, redrawing while
// the objective fails there.
func runStart(ctx context.Context, obj Objective, i int, draw *sampler, o *MultiOptions, n int) (Start, error) {
	rng := startRNG(o.Seed, i)
	st := Start{Index: i, X0: make([]float64, n)}
	draw.first(i, rng, st.X0)
	for {
		r, err := Minimize(ctx, obj, st.X0, o.Options)
		if err != nil {
			return st, fmt.Errorf("fit: start %d: %v", i, err)
		}
		st.Result = *r
		if r.Status != StartFailed || st.Redraws >= o.MaxRedraws || ctx.Err() != nil {
			if r.Status == StartFailed {
				st.Err = fmt.Errorf("objective failed at all %d drawn start points; the last: %v", st.Redraws+1, r.Err)
			}
			return st, nil
		}
		st.Redraws++
		draw.again(i, rng, st.X0)
	}
}

// freshStart runs start i with an objective of its own.
func freshStart(ctx context.Context, newObjective func() (Objective, error), i int, draw *sampler, o *MultiOptions, n int) (Start, error) {
	obj, err := newObjective()
	if err != nil {
		return Start{Index: i}, err
	}
	defer closeObjective(obj)
	if obj.Dim() != n {
		return Start{Index: i}, fmt.Errorf("fit: objectives disagree on the dimension: %d and %d", n, obj.Dim())
	}
	return runStart(ctx, obj, i, draw, o, n)
}

// closeObjective calls obj's Close method if it has one.
func closeObjective(obj Objective) {
	if c, ok := obj.(interface{ Close() }); ok {
		c.Close()
	}
}

// startRNG is start i's generator: a PCG stream of (seed, i) only.
func startRNG(seed uint64, i int) *rand.Rand { return rand.New(rand.NewPCG(seed, uint64(i))) }

// sampler draws start points.
type sampler struct {
	o      *MultiOptions
	lo, hi []float64
	perm   [][]int // LatinHypercube: perm[d][i] is start i's stratum in d
}

func newSampler(o *MultiOptions, n int, lo, hi []float64) (*sampler, error) {
	s := &sampler{o: o, lo: make([]float64, n), hi: make([]float64, n)}
	for d := range n {
		s.lo[d], s.hi[d] = bound(lo, d, -1), bound(hi, d, 1)
		if o.Init == nil && (math.IsInf(s.lo[d], 0) || math.IsInf(s.hi[d], 0)) {
			return nil, fmt.Errorf("fit: parameter %d: bounds [%g, %g] are not finite, so start points cannot be sampled in them (give MultiOptions.Init)", d, s.lo[d], s.hi[d])
		}
		if !(s.lo[d] < s.hi[d]) {
			return nil, fmt.Errorf("fit: parameter %d: bounds [%g, %g] are empty", d, s.lo[d], s.hi[d])
		}
	}
	if o.Sampling == LatinHypercube {
		// The strata's order comes from a stream no start uses.
		rng := rand.New(rand.NewPCG(o.Seed, math.MaxUint64))
		s.perm = make([][]int, n)
		for d := range s.perm {
			s.perm[d] = rng.Perm(o.Total)
		}
	}
	return s, nil
}

// first draws start i's first point.
func (s *sampler) first(i int, rng *rand.Rand, dst []float64) {
	if s.perm == nil {
		s.again(i, rng, dst)
		return
	}
	for d := range dst {
		u := (float64(s.perm[d][i]) + rng.Float64()) / float64(s.o.Total)
		dst[d] = s.at(d, u)
	}
	if s.o.Init != nil {
		s.o.Init(i, rng, dst)
	}
}

// again draws a point uniformly in the box (a Latin hypercube's stratum
// is taken; a redraw goes anywhere), then calls Init.
func (s *sampler) again(i int, rng *rand.Rand, dst []float64) {
	for d := range dst {
		dst[d] = s.at(d, rng.Float64())
	}
	if s.o.Init != nil {
		s.o.Init(i, rng, dst)
	}
}

// at maps u in [0, 1) to parameter d's range (NaN if it is infinite).
func (s *sampler) at(d int, u float64) float64 {
	if math.IsInf(s.lo[d], 0) || math.IsInf(s.hi[d], 0) {
		return math.NaN()
	}
	return s.lo[d] + (s.hi[d]-s.lo[d])*u
}

// ErrNoStart is returned by (*MultiResult).BestStart when every start
// failed.
var ErrNoStart = errors.New("fit: every start failed")

// BestStart returns the best start, or ErrNoStart.
func (r *MultiResult) BestStart() (*Start, error) {
	if r.Best < 0 {
		return nil, ErrNoStart
	}
	return &r.Starts[r.Best], nil
}
