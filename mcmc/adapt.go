package mcmc

import "math"

// stepAdapter tunes a step size during warm-up by Robbins-Monro on its
// logarithm, log ε ← log ε + γ_t (α_t - α*), γ_t = t^(-0.6): the average
// acceptance statistic then converges to α*. Working on log ε keeps ε
// positive and makes the correction multiplicative, so a start that is
// off by orders of magnitude is fixed in tens of iterations. The value
// frozen for sampling is the mean of log ε over the second half of the
// last segment (Polyak-Ruppert averaging), which is less noisy than the
// last iterate.
type stepAdapter struct {
	target float64
	logEps float64
	t      int
	t0     float64   // gain offset: γ_t = (t + t0)^(-0.6)
	hist   []float64 // log ε per iteration since the last restart
}

func newStepAdapter(eps, target float64, capacity int) *stepAdapter {
	// The history is reserved up to maxReservedHist iterations and grows
	// past them (a few amortised allocations in a warm-up of millions):
	// reserving a -warmup of 10^8 up front took 800 MB per chain and,
	// on a loaded machine, seconds of page faults before a cancellation
	// could return (TestCancelFromProgress).
	return &stepAdapter{target: target, logEps: math.Log(eps), hist: make([]float64, 0, min(capacity, maxReservedHist))}
}

// maxReservedHist bounds the step-size history reserved before the
// warm-up starts (8 MB).
const maxReservedHist = 1 << 20

func (a *stepAdapter) eps() float64 { return math.Exp(a.logEps) }

func (a *stepAdapter) update(acceptStat float64) {
	a.t++
	a.logEps += (acceptStat - a.target) / math.Pow(float64(a.t)+a.t0, 0.6)
	// Keep ε representable; a target that rejects everything would
	// otherwise drive it to zero.
	a.logEps = math.Max(-40, math.Min(a.logEps, 20))
	a.hist = append(a.hist, a.logEps)
}

// restart begins a new segment from the averaged step size (after a change
// of preconditioner the old schedule's small gains would adapt too slowly).
// The new segment starts with gain 10^(-0.6) ≈ 0.25 rather than 1: the
// averaged step is already close, and full gains would make the short
// final segment, whose average is the frozen step size, too noisy.
func (a *stepAdapter) restart() {
	a.logEps = a.averaged()
	a.t = 0
	a.t0 = 10
	a.hist = a.hist[:0]
}

func (a *stepAdapter) averaged() float64 {
	h := a.hist
	if len(h) == 0 {
		return a.logEps
	}
	h = h[len(h)/2:]
	s := 0.0
	for _, v := range h {
		s += v
	}
	return s / float64(len(h))
}

// welford accumulates mean and covariance in one pass (Welford's update),
// stable for draws with a large common offset.
type welford struct {
	n    int
	d    int
	mean []float64
	m2   []float64 // Σ (x-mean)(x-mean)ᵀ, d×d
	dx   []float64
}

func newWelford(d int) *welford {
	return &welford{d: d, mean: make([]float64, d), m2: make([]float64, d*d), dx: make([]float64, d)}
}

func (w *welford) reset() {
	w.n = 0
	clear(w.mean)
	clear(w.m2)
}

func (w *welford) add(x []float64) {
	w.n++
	for i, v := range x {
		w.dx[i] = v - w.mean[i]
		w.mean[i] += w.dx[i] / float64(w.n)
	}
	for i := 0; i < w.d; i++ {
		for j := 0; j < w.d; j++ {
			// dx uses the old mean, x - mean the new one.
			w.m2[i*w.d+j] += w.dx[i] * (x[j] - w.mean[j])
		}
	}
}

// covTo writes the sample covariance, shrunk toward a multiple of the
// identity, into dst: n/(n+5) Σ + 5/(n+5)·1e-3·mean(diag Σ)·I. The
// shrinkage is Stan's windowed-adaptation regulariser made relative to the
// scale of the draws (parameters on a log scale and a linear one differ by
// orders of magnitude), and plays the role of Haario's ε I: it keeps the
// estimate positive definite from few draws.
func (w *welford) covTo(dst []float64) bool {
	if w.n < 3 {
		return false
	}
	d := w.d
	nf := float64(w.n)
	meanDiag := 0.0
	for i := 0; i < d; i++ {
		meanDiag += w.m2[i*d+i] / (nf - 1)
	}
	meanDiag /= float64(d)
	if !(meanDiag > 0) || math.IsInf(meanDiag, 0) {
		return false
	}
	a := nf / (nf + 5)
	for i := range dst[:d*d] {
		dst[i] = a * w.m2[i] / (nf - 1)
	}
	for i := 0; i < d; i++ {
		dst[i*d+i] += (1 - a) * 1e-3 * meanDiag
	}
	return true
}

// windowEnds returns the length of the initial buffer and the warm-up
// iterations (exclusive ends) at which the preconditioner is re-estimated, following Stan's schedule: an initial
// buffer where only the step size adapts (so the chain first reaches the
// typical set), doubling windows each estimating the covariance from its
// own draws (forgetting the transient), and a terminal buffer where the
// step size settles to the final preconditioner. Stan's 75/25/50
// iterations are used for warm-up ≥ 150 and 15%/75%/10% below that.
func windowEnds(warmup int) (initBuf int, ends []int) {
	if warmup < 20 {
		return warmup, nil
	}
	initBuf, base, term := 75, 25, 50
	if warmup < initBuf+base+term {
		initBuf = warmup * 15 / 100
		term = warmup / 10
		base = warmup - initBuf - term
	}
	slowEnd := warmup - term
	for start, size := initBuf, base; start < slowEnd; size *= 2 {
		end := start + size
		if end+2*size > slowEnd {
			end = slowEnd
		}
		ends = append(ends, end)
		start = end
	}
	return initBuf, ends
}
