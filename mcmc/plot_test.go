package mcmc

import (
	"context"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

func TestWritePlots(t *testing.T) {
	mu, cov := rand5()
	res, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil },
		&Options{Sampler: SMMALA, Chains: 2, Warmup: 100, Samples: 300, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("MCMC_PLOT_DIR") // set to keep the images for a look
	if dir == "" {
		dir = t.TempDir()
	}
	paths, err := WritePlots(dir, res, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 {
		t.Fatalf("paths %v", paths)
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
			t.Errorf("%s: %v", p, b)
		}
	}
	if got := pairParams(res, 3); len(got) != 3 {
		t.Errorf("pairParams = %v", got)
	}
}

// TestPlotsManyLongNames writes the plots of 1, 7 and 20 parameters with
// long names and a constant parameter (set MCMC_PLOT_DIR to look at
// them): no error, and the trace plot grows by one equal panel per
// parameter, so panels are not squashed as the count grows.
func TestPlotsManyLongNames(t *testing.T) {
	heights := map[int]int{}
	for _, d := range []int{1, 7, 20} {
		rng := rand.New(rand.NewPCG(uint64(d), 3))
		r := &Result{Dim: d}
		for j := 0; j < d; j++ {
			r.Names = append(r.Names, fmt.Sprintf("KD__CaMKII_CaM_Ca4__Ca_long_parameter_name_%d", j+1))
		}
		for c := 0; c < 3; c++ {
			ch := Chain{Index: c}
			for i := 0; i < 150; i++ {
				ch.LogPost = append(ch.LogPost, rng.NormFloat64())
				for j := 0; j < d; j++ {
					v := 3.43 + 0.005*rng.NormFloat64() // narrow around a large mean
					if j == 1 {
						v = 2 // constant
					}
					ch.Draws = append(ch.Draws, v)
				}
			}
			r.Chains = append(r.Chains, ch)
		}
		dir := os.Getenv("MCMC_PLOT_DIR")
		if dir == "" {
			dir = t.TempDir()
		} else {
			dir = filepath.Join(dir, fmt.Sprintf("d%d", d))
		}
		paths, err := WritePlots(dir, r, 4)
		if err != nil {
			t.Fatalf("%d parameters: %v", d, err)
		}
		f, err := os.Open(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		heights[d] = img.Bounds().Dy()
	}
	// 96 dpi: tracePanel is 1.3 in, so each parameter adds about 125 px.
	per := float64(heights[20]-heights[7]) / 13
	if math.Abs(per-float64(heights[7]-heights[1])/6) > 1 || per < 100 {
		t.Errorf("trace heights %v: not one equal panel per parameter", heights)
	}
}

// TestTickLabels: labels are distinct, name their tick's value to within
// a thousandth of the spacing, and are short, for ranges where gonum's
// default labels repeat ("3.4 3.4 3.4") or are long.
func TestTickLabels(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string // the labels, when checked exactly
	}{
		{3.4231, 3.4412, "3.43 3.44"},
		{3.4231, 3.4312, "3.425 3.430"},
		{3.46, 3.52, "3.46 3.48 3.50 3.52"},
		{-1.7, 1.3, "-1 0 1"},
		{0.99999, 1.00003, ""},
		{1e6, 3.5e6, "1e+06 2e+06 3e+06"},
		{1e-7, 5e-7, ""},
		{-0.002, 0.003, "-0.002 0.000 0.002"},
		{-0.0021, 0.0031, ""},
		{120, 130, "120 125 130"},
		{1e9, 1e9 + 1e-4, "1.0000000000000e+09 1.0000000000001e+09"}, // the ends, and no endless loop
	} {
		var labels []string
		var vals []float64
		for _, tk := range (preciseTicks{3}).Ticks(c.lo, c.hi) {
			if tk.Value < c.lo-1e-12*math.Abs(c.lo) || tk.Value > c.hi+1e-12*math.Abs(c.hi) {
				t.Errorf("[%g, %g]: tick %g outside", c.lo, c.hi, tk.Value)
			}
			if !tk.IsMinor() {
				labels, vals = append(labels, tk.Label), append(vals, tk.Value)
			}
		}
		got := strings.Join(labels, " ")
		if len(labels) < 2 || c.want != "" && got != c.want {
			t.Errorf("[%g, %g]: labels %q, want %q", c.lo, c.hi, got, c.want)
			continue
		}
		spacing := vals[1] - vals[0]
		seen := map[string]bool{}
		for i, l := range labels {
			v, err := strconv.ParseFloat(l, 64)
			if err != nil || math.Abs(v-vals[i]) > spacing*1e-3 || seen[l] || len(l) > 9 && c.lo != 1e9 {
				t.Errorf("[%g, %g]: label %q for tick %g (labels %q)", c.lo, c.hi, l, vals[i], got)
			}
			seen[l] = true
		}
	}
}

// TestIterationTicks: the iteration axis is labelled from 1, the first
// kept iteration, with round ticks after it.
func TestIterationTicks(t *testing.T) {
	for _, c := range []struct {
		n    float64
		want string
	}{{200, "1 50 100 150 200"}, {1000, "1 200 400 600 800 1000"}, {7, "1 2 3 4 5 6 7"}, {2, "1 2"}} {
		var labels []float64
		for _, tk := range (iterationTicks{}).Ticks(1, c.n) {
			if !tk.IsMinor() {
				v, _ := strconv.ParseFloat(tk.Label, 64)
				labels = append(labels, v)
			}
		}
		sort.Float64s(labels)
		if got := strings.Trim(fmt.Sprint(labels), "[]"); got != c.want {
			t.Errorf("1 to %g: labels %s, want %s", c.n, got, c.want)
		}
	}
}

// TestFitText: a name wider than its panel loses its middle, keeping the
// start and end that tell names apart; a short one is unchanged.
func TestFitText(t *testing.T) {
	sty := plot.New().Title.TextStyle
	long := "KD__CaMKII_CaM_Ca4__Ca_a_very_long_parameter_name_indeed_ending_in_42"
	got := fitText(sty, long, 2*vg.Inch)
	if sty.Width(got) > 2*vg.Inch || !strings.Contains(got, "…") || !strings.HasPrefix(got, "KD__") || !strings.HasSuffix(got, "_42") {
		t.Errorf("fitText = %q (%v wide)", got, sty.Width(got))
	}
	if got := fitText(sty, "kf__CaM__Ca", 2*vg.Inch); got != "kf__CaM__Ca" {
		t.Errorf("short name changed to %q", got)
	}
}
