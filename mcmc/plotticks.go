package mcmc

import (
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
)

// preciseTicks is the tick marker of the plot axes: about n labelled
// ticks at round positions (niceTicks), labelled with as many digits as
// their spacing needs. gonum's DefaultTicks picks the precision from the
// magnitude of the range instead, so a posterior that is narrow relative
// to its mean (3.423 to 3.441) got the labels "3.4 3.4 3.4".
type preciseTicks struct{ n int }

func (t preciseTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := niceTicks(lo, hi, t.n)
	labelTicks(ticks)
	return ticks
}

// niceTicks returns major ticks (labelled "x", for labelTicks to
// rewrite) at the multiples of a round step (1, 2, 2.5 or 5 times a power
// of ten) in [lo, hi], the step chosen to give the count closest to n (at
// least 2), and unlabelled minor ticks between them.
func niceTicks(lo, hi float64, n int) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: "x"}}
	}
	n = max(n, 2)
	var step, minor float64
	best := math.Inf(1)
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/float64(n))))
	for _, m := range []float64{mag / 10, mag, mag * 10} {
		for _, q := range []struct{ step, minor float64 }{{1, 0.2}, {2, 0.5}, {2.5, 0.5}, {5, 1}} {
			s := q.step * m
			count := math.Floor(hi/s) - math.Ceil(lo/s) + 1
			if count < 2 {
				continue
			}
			// Steps of 2.5 need a digit more than the others: chosen
			// only when clearly closer to n. Ties go to fewer labels.
			d := math.Abs(count - float64(n))
			if q.step == 2.5 {
				d++
			}
			if d < best || d == best && s > step {
				best, step, minor = d, s, q.minor*m
			}
		}
	}
	// A range too narrow for two round ticks, or so narrow relative to
	// its values that counting minor steps from 0 would exceed float64's
	// integers: the ends alone.
	if step == 0 || math.Max(math.Abs(lo), math.Abs(hi))/minor > 1e12 {
		return []plot.Tick{{Value: lo, Label: "x"}, {Value: hi, Label: "x"}}
	}
	var out []plot.Tick
	for k := math.Ceil(lo / minor); k*minor <= hi; k++ {
		v := k * minor
		t := plot.Tick{Value: v}
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-9 {
			t.Value, t.Label = math.Round(r)*step, "x"
		}
		out = append(out, t)
	}
	return out
}

// labelTicks rewrites the labels of the major (labelled) ticks in place:
// the fewest digits with which every label is distinct and names its
// tick's value to within a thousandth of the spacing. Fixed notation is
// used unless the values are all large (≥ 1e6) or all small (< 1e-3),
// where fixed labels would be long strings of zeros.
func labelTicks(ticks []plot.Tick) {
	var major []int
	for i, t := range ticks {
		if !t.IsMinor() {
			major = append(major, i)
		}
	}
	if len(major) == 0 {
		return
	}
	vals := make([]float64, len(major))
	maxAbs := 0.0
	for k, i := range major {
		vals[k] = ticks[i].Value
		maxAbs = math.Max(maxAbs, math.Abs(vals[k]))
	}
	sorted := append([]float64(nil), vals...)
	sort.Float64s(sorted)
	spacing := math.Inf(1)
	for k := 1; k < len(sorted); k++ {
		spacing = math.Min(spacing, sorted[k]-sorted[k-1])
	}
	if math.IsInf(spacing, 1) || spacing <= 0 {
		spacing = math.Max(maxAbs, 1) // one tick: its own magnitude
	}
	for k := range vals {
		if math.Abs(vals[k]) < spacing*1e-9 {
			vals[k] = 0 // 1e-17 from accumulated steps is the tick at 0
		}
	}
	fixed := maxAbs < 1e6 && maxAbs >= 1e-3 || maxAbs == 0
	format := func(v float64, prec int) string {
		if fixed {
			return strconv.FormatFloat(v, 'f', prec, 64)
		}
		return strconv.FormatFloat(v, 'e', prec, 64)
	}
	// Fixed: decimals from the spacing's order; exponent: significant
	// digits after the first.
	prec := 0
	if fixed {
		prec = max(0, int(math.Floor(-math.Log10(spacing))))
	}
	labels := make([]string, len(vals))
	for ; prec <= 17; prec++ {
		ok := true
		seen := map[string]bool{}
		for k, v := range vals {
			s := format(v, prec)
			if s == "-0" || (len(s) > 1 && s[0] == '-' && isZero(s)) {
				s = s[1:]
			}
			back, _ := strconv.ParseFloat(s, 64)
			if seen[s] || math.Abs(back-v) > spacing*1e-3 {
				ok = false
				break
			}
			seen[s] = true
			labels[k] = s
		}
		if ok {
			break
		}
	}
	for k, i := range major {
		ticks[i].Label = labels[k]
	}
}

// isZero reports whether the formatted number s is zero ("-0.00").
func isZero(s string) bool {
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && v == 0
}

// iterationTicks marks the iteration axis of a trace plot, which runs
// from the first kept iteration, 1: round positions within [1, n], plus a
// labelled tick at 1 unless a round one is close.
type iterationTicks struct{}

func (iterationTicks) Ticks(lo, hi float64) []plot.Tick {
	out := niceTicks(lo, hi, min(6, int(hi-lo)+1))
	for i, t := range out {
		if t.Value != math.Trunc(t.Value) {
			out[i].Label = "" // no label between iterations
		}
	}
	labelTicks(out)
	first := math.Inf(1)
	for _, t := range out {
		if !t.IsMinor() {
			first = math.Min(first, t.Value)
		}
	}
	if first-lo > 0.04*(hi-lo) {
		out = append(out, plot.Tick{Value: lo, Label: strconv.FormatFloat(lo, 'f', -1, 64)})
	}
	return out
}
