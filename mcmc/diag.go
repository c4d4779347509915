package mcmc

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Diagnostics after Vehtari, Gelman, Simpson, Carpenter and Bürkner (2021),
// "Rank-normalization, folding, and localization: an improved R-hat for
// assessing convergence of MCMC". Every function takes one slice of draws
// per chain; chains of unequal length are truncated to the shortest. A
// quantity that is undefined for the input (fewer than 4 draws per chain,
// constant draws) is NaN.

// SplitRhat returns the rank-normalised split R-hat: the larger of the
// split R-hat of the rank-normalised draws (sensitive to different
// locations) and of the rank-normalised draws folded about the median
// (sensitive to different scales). Values above 1.01 suggest the chains
// have not mixed.
func SplitRhat(chains [][]float64) float64 {
	s := splitChains(chains)
	if s == nil {
		return math.NaN()
	}
	// Fold about the median of all draws before splitting, as posterior
	// does (for an odd length the split drops the middle draw).
	bulk := rhatBasic(rankNormalise(s))
	tail := rhatBasic(rankNormalise(splitChains(fold(sameLength(chains)))))
	if math.IsNaN(bulk) || math.IsNaN(tail) {
		return math.NaN()
	}
	return math.Max(bulk, tail)
}

// ESSBulk returns the bulk effective sample size: the ESS of the
// rank-normalised split chains, which measures how well the centre of the
// distribution is explored and is defined even for heavy tails.
func ESSBulk(chains [][]float64) float64 {
	s := splitChains(chains)
	if s == nil {
		return math.NaN()
	}
	return ess(rankNormalise(s))
}

// ESSTail returns the tail effective sample size: the smaller ESS of the
// indicators I(x ≤ q5%) and I(x ≤ q95%) over the split chains, which
// measures how well the 5% and 95% quantiles are determined.
func ESSTail(chains [][]float64) float64 {
	x := sameLength(chains)
	if splitChains(x) == nil {
		return math.NaN()
	}
	// Quantiles and indicators over all draws, then split.
	all := pooledSorted(x)
	r := math.Inf(1)
	for _, p := range []float64{0.05, 0.95} {
		q := quantileSorted(all, p)
		ind := make([][]float64, len(x))
		for c, xc := range x {
			ind[c] = make([]float64, len(xc))
			for i, v := range xc {
				if v <= q {
					ind[c][i] = 1
				}
			}
		}
		e := ess(splitChains(ind))
		if math.IsNaN(e) {
			return math.NaN()
		}
		r = math.Min(r, e)
	}
	return r
}

// ESSMean returns the effective sample size of the mean: the ESS of the
// split chains without rank normalisation, the one that belongs in the
// Monte Carlo standard error of the mean.
func ESSMean(chains [][]float64) float64 {
	s := splitChains(chains)
	if s == nil {
		return math.NaN()
	}
	return ess(s)
}

// MCSEMean returns the Monte Carlo standard error of the posterior mean,
// sd/√ESSMean.
func MCSEMean(chains [][]float64) float64 {
	s := splitChains(chains)
	if s == nil {
		return math.NaN()
	}
	_, sd := meanSD(sameLength(chains)) // all draws, as posterior does
	return sd / math.Sqrt(ess(s))
}

// Quantile returns the p-quantile of all draws (R's type 7: linear
// interpolation between order statistics, as the posterior package uses).
func Quantile(chains [][]float64, p float64) float64 {
	all := pooledSorted(chains)
	if len(all) == 0 || !allFinite(all) || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	return quantileSorted(all, p)
}

// sameLength truncates the chains to the shortest one's length.
func sameLength(chains [][]float64) [][]float64 {
	if len(chains) == 0 {
		return nil
	}
	n := len(chains[0])
	for _, c := range chains {
		n = min(n, len(c))
	}
	out := make([][]float64, len(chains))
	for i, c := range chains {
		out[i] = c[:n]
	}
	return out
}

// splitChains truncates the chains to a common length, halves each (the
// middle draw of an odd length is dropped) and returns 2M chains; nil when
// there are fewer than 4 draws per chain or a draw is not finite. Splitting lets R-hat and ESS see
// a trend within a chain, not only differences between chains.
func splitChains(chains [][]float64) [][]float64 {
	if len(chains) == 0 {
		return nil
	}
	for _, c := range chains {
		// Ranks and autocovariances of NaN or ±Inf mean nothing; the
		// diagnostics are then NaN, as posterior's are NA.
		if !allFinite(c) {
			return nil
		}
	}
	n := len(chains[0])
	for _, c := range chains {
		n = min(n, len(c))
	}
	if n < 4 {
		return nil
	}
	h := n / 2
	out := make([][]float64, 0, 2*len(chains))
	for _, c := range chains {
		out = append(out, c[:h], c[n-h:n])
	}
	return out
}

func pooledSorted(chains [][]float64) []float64 {
	var all []float64
	for _, c := range chains {
		all = append(all, c...)
	}
	sort.Float64s(all)
	return all
}

func quantileSorted(x []float64, p float64) float64 {
	h := float64(len(x)-1) * p
	i := int(math.Floor(h))
	if i >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[i] + (h-float64(i))*(x[i+1]-x[i])
}

// fold returns |x - median| over all chains.
func fold(chains [][]float64) [][]float64 {
	med := quantileSorted(pooledSorted(chains), 0.5)
	out := make([][]float64, len(chains))
	for c, x := range chains {
		out[c] = make([]float64, len(x))
		for i, v := range x {
			out[c][i] = math.Abs(v - med)
		}
	}
	return out
}

// rankNormalise replaces each draw by Φ⁻¹((r - 3/8)/(S + 1/4)) with r its
// rank among all S draws (ties get their average rank, Blom's offset), so
// the diagnostics do not depend on the scale or tails of the draws.
func rankNormalise(chains [][]float64) [][]float64 {
	type idx struct{ c, i int }
	var ids []idx
	for c, x := range chains {
		for i := range x {
			ids = append(ids, idx{c, i})
		}
	}
	sort.Slice(ids, func(a, b int) bool {
		return chains[ids[a].c][ids[a].i] < chains[ids[b].c][ids[b].i]
	})
	out := make([][]float64, len(chains))
	for c, x := range chains {
		out[c] = make([]float64, len(x))
	}
	s := float64(len(ids))
	for a := 0; a < len(ids); {
		b := a + 1
		v := chains[ids[a].c][ids[a].i]
		for b < len(ids) && chains[ids[b].c][ids[b].i] == v {
			b++
		}
		r := float64(a+1+b) / 2 // average of the ranks a+1..b
		z := math.Sqrt2 * math.Erfinv(2*(r-0.375)/(s+0.25)-1)
		for k := a; k < b; k++ {
			out[ids[k].c][ids[k].i] = z
		}
		a = b
	}
	return out
}

func meanSD(chains [][]float64) (mean, sd float64) {
	n := 0
	for _, x := range chains {
		for _, v := range x {
			mean += v
			n++
		}
	}
	mean /= float64(n)
	ss := 0.0
	for _, x := range chains {
		for _, v := range x {
			ss += (v - mean) * (v - mean)
		}
	}
	return mean, math.Sqrt(ss / float64(n-1))
}

// chainMoments returns the chains' means and unbiased variances.
func chainMoments(chains [][]float64) (means, vars []float64) {
	means = make([]float64, len(chains))
	vars = make([]float64, len(chains))
	for c, x := range chains {
		m := 0.0
		for _, v := range x {
			m += v
		}
		m /= float64(len(x))
		s := 0.0
		for _, v := range x {
			s += (v - m) * (v - m)
		}
		means[c] = m
		vars[c] = s / float64(len(x)-1)
	}
	return means, vars
}

// varianceParts returns W, the mean within-chain variance, and var⁺ =
// (N-1)/N W + B/N, the pooled estimate of the marginal variance, where B/N
// is the variance of the chain means.
func varianceParts(chains [][]float64) (w, varPlus float64) {
	n := float64(len(chains[0]))
	means, vars := chainMoments(chains)
	for _, v := range vars {
		w += v
	}
	w /= float64(len(vars))
	varPlus = (n - 1) / n * w
	if m := len(means); m > 1 {
		mm := 0.0
		for _, v := range means {
			mm += v
		}
		mm /= float64(m)
		b := 0.0
		for _, v := range means {
			b += (v - mm) * (v - mm)
		}
		varPlus += b / float64(m-1)
	}
	return w, varPlus
}

func rhatBasic(chains [][]float64) float64 {
	w, vp := varianceParts(chains)
	if !(w > 0) {
		return math.NaN()
	}
	return math.Sqrt(vp / w)
}

// autocov returns the biased (1/N) autocovariance of x at lags 0..N-1,
// computed by FFT on the zero-padded series, which is O(N log N) where the
// direct sum is O(N²) for slowly mixing chains.
func autocov(x []float64) []float64 {
	n := len(x)
	m := 1
	for m < 2*n {
		m <<= 1
	}
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	seq := make([]float64, m)
	for i, v := range x {
		seq[i] = v - mean
	}
	fft := fourier.NewFFT(m)
	coef := fft.Coefficients(nil, seq)
	for i, c := range coef {
		coef[i] = complex(real(c)*real(c)+imag(c)*imag(c), 0)
	}
	ac := fft.Sequence(seq, coef)
	out := make([]float64, n)
	for i := range out {
		// Sequence is unnormalised (scaled by m).
		out[i] = ac[i] / float64(m) / float64(n)
	}
	return out
}

// ess is the multi-chain effective sample size with Geyer's initial
// monotone sequence estimator of the autocorrelation time: the combined
// autocorrelation ρ_t = 1 - (W - mean_m acov_m(t))/var⁺ is summed in
// pairs ρ_{2k}+ρ_{2k+1} up to the first negative pair, the pair sums made
// non-increasing, and the truncated sum turned into τ = -1 + 2 Σ ρ_t.
func ess(chains [][]float64) float64 {
	m := len(chains)
	n := len(chains[0])
	if n < 4 {
		return math.NaN()
	}
	w, vp := varianceParts(chains)
	if !(w > 0) || !(vp > 0) {
		return math.NaN()
	}
	acm := make([]float64, n)
	for _, x := range chains {
		for t, v := range autocov(x) {
			acm[t] += v / float64(m)
		}
	}
	rhoAt := func(t int) float64 { return 1 - (w-acm[t])/vp }
	rho := make([]float64, n+2)
	rho[0] = 1
	even, odd := 1.0, rhoAt(1)
	rho[1] = odd
	t := 1
	for t < n-4 && even+odd > 0 {
		even, odd = rhoAt(t+1), rhoAt(t+2)
		if even+odd >= 0 {
			rho[t+1], rho[t+2] = even, odd
		}
		t += 2
	}
	// t-1 is now the last even lag computed. Geyer's truncated sum counts
	// the lags before it twice and that lag once (the "improved" estimate,
	// less variable for antithetic chains), with a positive last even
	// lag's value even when its pair was negative.
	lastEven := t - 1
	if even > 0 {
		rho[lastEven] = even
	}
	for s := 1; s <= lastEven-2; s += 2 {
		if rho[s+1]+rho[s+2] > rho[s-1]+rho[s] {
			avg := (rho[s-1] + rho[s]) / 2
			rho[s+1], rho[s+2] = avg, avg
		}
	}
	sum := 0.0
	for _, r := range rho[:lastEven] {
		sum += r
	}
	total := float64(m * n)
	tau := -1 + 2*sum + rho[lastEven]
	// Bound τ below so an antithetic chain cannot claim an absurd ESS.
	tau = math.Max(tau, 1/math.Log10(total))
	return total / tau
}
