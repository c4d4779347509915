package mcmc

import (
	"fmt"
	"math"
	"unsafe"
)

// Footprint is the memory, in bytes, that Run and the reports on its
// Result take, estimated before anything is allocated so that a caller
// can refuse a run that would not fit instead of ending in an allocation
// failure (Run keeps every kept draw: the diagnostics rank and
// autocorrelate all of them, so the draws cannot be streamed away).
// The figures are float64 so that no product of counts overflows.
type Footprint struct {
	// Draws is what the Result holds: Chains × Samples × (Dim + 2)
	// numbers (the draws, lp__ and accept_stat__), the warm-up's with
	// SaveWarmup, and each chain's initial point, preconditioner and
	// statistics.
	Draws float64
	// Workers is each worker's kernel and adaptation scratch (a few
	// Dim × Dim matrices, and the step size of every warm-up iteration,
	// which the step size frozen for sampling averages) and goroutine,
	// plus targetBytes for its Target.
	Workers float64
	// Reports is the most that WriteSummary, or with plots WritePlots,
	// allocates at once on top of the Result: copies, sorts, ranks and
	// transforms of one quantity's draws over all chains (several times
	// Chains × Samples numbers), and the images of the plots.
	Reports float64
}

// Total is the sum of the parts.
func (f Footprint) Total() float64 { return f.Draws + f.Workers + f.Reports }

// String gives the parts in GB, for a message that explains a refusal.
func (f Footprint) String() string {
	return fmt.Sprintf("draws %.3g GB, workers %.3g GB, summary and plots %.3g GB", f.Draws/1e9, f.Workers/1e9, f.Reports/1e9)
}

// EstimateFootprint returns the footprint of Run with opt (nil: defaults,
// as Run fills them in) on a target of dimension dim, each worker's
// Target taking targetBytes (which only the caller can know: pbgen sample
// measures the heap its first objective takes), and of the reports, with
// plots those of WritePlots too.
func EstimateFootprint(opt *Options, dim int, targetBytes float64, plots bool) Footprint {
	o := opt.withDefaults(max(dim, 1))
	n, chains := float64(max(dim, 1)), float64(o.Chains)
	workers := float64(o.Workers)
	if o.Workers <= 0 || o.Workers > o.Chains {
		workers = chains
	}
	const word = 8
	perChain := float64(unsafe.Sizeof(Chain{})) + word*(n+n*n+3) // Init, Preconditioner, progress counters
	draws := float64(o.Samples) * (n + 2)
	if o.SaveWarmup {
		draws += float64(o.Warmup) * (n + 3)
	}
	var f Footprint
	f.Draws = chains * (word*draws + perChain)
	// Two states (theta, gradient, drift, metric, Cholesky factor), the
	// kernel's vectors and matrices and runChain's identity, metric,
	// inverse and covariance: at most 10 Dim × Dim matrices and 12
	// vectors; the step-size history of the warm-up; a goroutine's stack
	// starts at 8 KiB.
	f.Workers = workers * (word*(10*n*n+12*n+float64(o.Warmup)) + 8<<10 + targetBytes)
	// A quantity's diagnostics: its draws copied out of the chains, pooled
	// and sorted, ranked (an index pair a draw), rank-normalised and
	// folded, and the FFTs of the autocovariances (padded to a power of
	// two, complex): measured at 10 to 19 numbers a draw above a few MB
	// (TestEstimateFootprint; the peak depends on when the collector
	// runs), counted as 20 and 4 MB. The plots add
	// their copies of the draws and, mostly, images: a trace panel and a
	// histogram of about 0.4 MB each a parameter, the pair plot and the
	// plotting library's fonts about 16 MB.
	perDraw, fixed := 20.0, 4e6
	if plots {
		perDraw, fixed = 24, 16e6+1e6*n
	}
	f.Reports = word*perDraw*chains*float64(o.Samples) + fixed
	return f
}

// checkCounts refuses iteration counts whose buffers cannot even be
// indexed: Samples × (Dim + 3) and Warmup + Samples must fit an int (the
// caller's memory limit, if it has one, comes long before; see
// EstimateFootprint).
func checkCounts(o *Options, dim int) error {
	perDraw := dim + 3
	switch {
	case o.Samples > math.MaxInt/perDraw:
		return fmt.Errorf("mcmc: %d samples of %d parameters do not fit in memory", o.Samples, dim)
	case o.SaveWarmup && o.Warmup > math.MaxInt/perDraw:
		return fmt.Errorf("mcmc: %d saved warm-up iterations of %d parameters do not fit in memory", o.Warmup, dim)
	case o.Warmup > math.MaxInt-o.Samples:
		return fmt.Errorf("mcmc: %d warm-up and %d kept iterations: the count overflows", o.Warmup, o.Samples)
	case o.Chains > math.MaxInt/max(1, o.Warmup+o.Samples):
		return fmt.Errorf("mcmc: %d chains of %d iterations: the count overflows", o.Chains, o.Warmup+o.Samples)
	}
	return nil
}
