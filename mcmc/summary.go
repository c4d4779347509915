package mcmc

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Summary is one row of the summary table.
type Summary struct {
	Name                string
	Mean, MCSE, StdDev  float64
	Q5, Q50, Q95        float64
	ESSBulk, ESSTail    float64
	ESSBulkPerSec, Rhat float64
}

// Summarize returns a row for lp__, accept_stat__ and each parameter, as
// stansummary does. ESSBulkPerSec divides by the sampling time summed over
// chains, so it measures the sampler's cost independently of how many
// cores ran the chains. It is NaN when a chain's sampling time is unknown
// (zero: chain files merged without their timing sidecars), since a sum
// over some chains only would overstate it.
func Summarize(r *Result) []Summary {
	secs := math.NaN()
	if r.timed() {
		secs = 0
		for _, c := range r.Chains {
			secs += c.SampleTime.Seconds()
		}
	}
	row := func(name string, x [][]float64) Summary {
		s := Summary{Name: name}
		all := pooledSorted(x)
		if len(all) == 0 {
			nan := math.NaN()
			return Summary{name, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan}
		}
		s.Mean, s.StdDev = meanSD(x)
		s.MCSE = MCSEMean(x)
		s.Q5, s.Q50, s.Q95 = quantileSorted(all, 0.05), quantileSorted(all, 0.5), quantileSorted(all, 0.95)
		s.ESSBulk, s.ESSTail = ESSBulk(x), ESSTail(x)
		s.ESSBulkPerSec = s.ESSBulk / secs
		s.Rhat = SplitRhat(x)
		return s
	}
	lp := make([][]float64, len(r.Chains))
	acc := make([][]float64, len(r.Chains))
	for c := range r.Chains {
		lp[c], acc[c] = r.Chains[c].LogPost, r.Chains[c].AcceptStat
	}
	out := []Summary{row("lp__", lp), row("accept_stat__", acc)}
	for j, n := range r.Names {
		out = append(out, row(n, r.Param(j)))
	}
	return out
}

// WriteSummary writes a stansummary-like table of r to w: the run's
// settings, a row per quantity (Mean, MCSE, StdDev, 5%, 50%, 95%,
// ESS_bulk, ESS_tail, ESS_bulk/s, R_hat), and per-chain acceptance,
// failure and timing lines. It warns about parameters outside Vehtari et
// al.'s recommendations, R-hat < 1.01 and bulk and tail ESS of at least
// 100 per chain, since a table of means is misleading without them.
func WriteSummary(w io.Writer, r *Result) error {
	o := &r.Options
	var b strings.Builder
	fmt.Fprintf(&b, "Inference with %v: %d chains, each with warmup=%d, samples=%d; %d draws kept; seed=%d.\n",
		r.Sampler, len(r.Chains), o.Warmup, o.Samples, len(r.Chains)*o.Samples, o.Seed)
	var warm, samp float64
	for _, c := range r.Chains {
		warm += c.WarmupTime.Seconds()
		samp += c.SampleTime.Seconds()
	}
	if r.timed() {
		fmt.Fprintf(&b, "Warmup took %.3g s, sampling %.3g s (summed over chains); wall clock %.3g s.\n\n", warm, samp, r.Elapsed.Seconds())
	} else {
		b.WriteString("Times unavailable (chain files without timing sidecars): no ESS_bulk/s.\n\n")
	}
	rows := Summarize(r)
	width := 8
	for _, s := range rows {
		width = max(width, len(s.Name))
	}
	fmt.Fprintf(&b, "%-*s %10s %9s %9s %10s %10s %10s %8s %8s %10s %6s\n", width, "",
		"Mean", "MCSE", "StdDev", "5%", "50%", "95%", "ESS_bulk", "ESS_tail", "ESS_bulk/s", "R_hat")
	var bad []string
	for i, s := range rows {
		perSec := "n/a"
		if r.timed() {
			perSec = fmt.Sprintf("%.3g", s.ESSBulkPerSec)
		}
		fmt.Fprintf(&b, "%-*s %10.4g %9.2g %9.3g %10.4g %10.4g %10.4g %8.0f %8.0f %10s %6.3f\n", width, s.Name,
			s.Mean, s.MCSE, s.StdDev, s.Q5, s.Q50, s.Q95, s.ESSBulk, s.ESSTail, perSec, s.Rhat)
		minESS := 100 * float64(len(r.Chains))
		if i >= 2 && (!(s.Rhat < 1.01) || !(s.ESSBulk >= minESS) || !(s.ESSTail >= minESS)) {
			bad = append(bad, s.Name)
		}
	}
	b.WriteString("\nchain  step size  accept  warmup accept  out of bounds  failed  evals  time (s)\n")
	for _, c := range r.Chains {
		acc := math.NaN()
		if n := len(c.LogPost); n > 0 {
			acc = float64(c.Accepted) / float64(n)
		}
		secs := "n/a"
		if r.timed() {
			secs = fmt.Sprintf("%.3g", (c.WarmupTime + c.SampleTime).Seconds())
		}
		fmt.Fprintf(&b, "%5d  %9.3g  %6.3f  %13.3f  %13d  %6d  %5d  %8s\n", c.Index+1, c.StepSize, acc, c.WarmupAccept,
			c.OutOfBounds, c.Failed, c.Evals, secs)
	}
	for _, c := range r.Chains {
		if c.FirstFailure != "" {
			fmt.Fprintf(&b, "chain %d first failure: %s\n", c.Index+1, c.FirstFailure)
		}
	}
	if len(bad) > 0 {
		fmt.Fprintf(&b, "\nWarning: R_hat ≥ 1.01 or ESS < 100 per chain for %s: the chains may not have converged; run longer.\n", strings.Join(bad, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// timed reports whether every chain's sampling time is known. A run
// always takes some time, so zero means unknown (merged chain files
// without timing sidecars).
func (r *Result) timed() bool {
	for _, c := range r.Chains {
		if c.SampleTime <= 0 {
			return false
		}
	}
	return len(r.Chains) > 0
}
