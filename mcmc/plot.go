package mcmc

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// WritePlots writes three PNG files into dir (created if needed):
// trace.png, one trace panel per parameter with a colour per chain (to see
// mixing and stationarity); hist.png, the marginal histogram of each
// parameter over all chains; and pair.png, scatter plots and histograms of
// the (at most maxPair, default 4) parameters with the strongest
// posterior correlations, where samplers struggle and non-identifiability
// shows. It returns the paths written.
func WritePlots(dir string, r *Result, maxPair int) ([]string, error) {
	if len(r.Chains) == 0 || len(r.Chains[0].LogPost) == 0 {
		return nil, fmt.Errorf("mcmc: no draws to plot")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if maxPair <= 0 {
		maxPair = 4
	}
	var paths []string
	for _, f := range []struct {
		name string
		fn   func(string, *Result, int) error
	}{{"trace.png", plotTrace}, {"hist.png", plotHist}, {"pair.png", plotPair}} {
		p := filepath.Join(dir, f.name)
		if err := f.fn(p, r, maxPair); err != nil {
			return paths, fmt.Errorf("mcmc: %s: %w", p, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// thinStep returns a stride that keeps at most max of n points, so plots
// of long chains stay readable and small.
func thinStep(n, max int) int {
	return max1((n + max - 1) / max)
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

func plotTrace(path string, r *Result, _ int) error {
	d := r.Dim
	plots := make([][]*plot.Plot, d)
	for j := 0; j < d; j++ {
		p := plot.New()
		p.Y.Label.Text = r.Names[j]
		if j == d-1 {
			p.X.Label.Text = "iteration after warm-up"
		}
		for c, x := range r.Param(j) {
			step := thinStep(len(x), 2000)
			xy := make(plotter.XYs, 0, len(x)/step+1)
			for i := 0; i < len(x); i += step {
				xy = append(xy, plotter.XY{X: float64(i + 1), Y: x[i]})
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return err
			}
			l.Color = plotutil.Color(c)
			l.Width = vg.Points(0.6)
			p.Add(l)
		}
		plots[j] = []*plot.Plot{p}
	}
	return saveGrid(path, plots, 8*vg.Inch, vg.Length(max(2, 1.4*float64(d)))*vg.Inch)
}

// flat returns all draws of parameter j and whether they vary (a
// histogram of a constant has no bin width).
func flat(r *Result, j int) ([]float64, bool) {
	var all []float64
	for _, x := range r.Param(j) {
		all = append(all, x...)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range all {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return all, hi > lo
}

func histPlot(r *Result, j int) (*plot.Plot, error) {
	p := plot.New()
	p.X.Label.Text = r.Names[j]
	all, varies := flat(r, j)
	if !varies {
		p.Title.Text = fmt.Sprintf("constant %g", all[0])
		return p, nil
	}
	bins := max(10, min(60, int(math.Sqrt(float64(len(all))))))
	h, err := plotter.NewHist(plotter.Values(all), bins)
	if err != nil {
		return nil, err
	}
	h.Normalize(1)
	h.FillColor = plotutil.Color(0)
	p.Add(h)
	return p, nil
}

func plotHist(path string, r *Result, _ int) error {
	d := r.Dim
	cols := int(math.Ceil(math.Sqrt(float64(d))))
	rows := (d + cols - 1) / cols
	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, cols)
	}
	for j := 0; j < d; j++ {
		p, err := histPlot(r, j)
		if err != nil {
			return err
		}
		plots[j/cols][j%cols] = p
	}
	return saveGrid(path, plots, vg.Length(3*cols)*vg.Inch, vg.Length(2.4*float64(rows))*vg.Inch)
}

// correlation returns the posterior correlation matrix of the pooled draws.
func correlation(r *Result) []float64 {
	d := r.Dim
	w := newWelford(d)
	for _, c := range r.Chains {
		for i := range c.LogPost {
			w.add(c.Draw(i, d))
		}
	}
	out := make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			out[i*d+j] = w.m2[i*d+j] / math.Sqrt(w.m2[i*d+i]*w.m2[j*d+j])
		}
	}
	return out
}

// pairParams picks up to k parameters, taking pairs in order of
// decreasing |correlation| until k distinct parameters are chosen.
func pairParams(r *Result, k int) []int {
	d := r.Dim
	if d <= k {
		out := make([]int, d)
		for i := range out {
			out[i] = i
		}
		return out
	}
	cor := correlation(r)
	type pair struct {
		i, j int
		c    float64
	}
	var ps []pair
	for i := 0; i < d; i++ {
		for j := i + 1; j < d; j++ {
			c := math.Abs(cor[i*d+j])
			if math.IsNaN(c) {
				c = 0
			}
			ps = append(ps, pair{i, j, c})
		}
	}
	sort.SliceStable(ps, func(a, b int) bool { return ps[a].c > ps[b].c })
	var out []int
	seen := map[int]bool{}
	for _, p := range ps {
		for _, i := range []int{p.i, p.j} {
			if !seen[i] && len(out) < k {
				seen[i] = true
				out = append(out, i)
			}
		}
		if len(out) == k {
			break
		}
	}
	sort.Ints(out)
	return out
}

func plotPair(path string, r *Result, k int) error {
	idx := pairParams(r, k)
	n := len(idx)
	plots := make([][]*plot.Plot, n)
	cols := make([][]float64, n)
	for a, j := range idx {
		cols[a], _ = flat(r, j)
	}
	cor := correlation(r)
	for a := range plots {
		plots[a] = make([]*plot.Plot, n)
		for b := 0; b <= a; b++ {
			if a == b {
				p, err := histPlot(r, idx[a])
				if err != nil {
					return err
				}
				plots[a][b] = p
				continue
			}
			x, y := cols[b], cols[a]
			step := thinStep(len(x), 2000)
			xy := make(plotter.XYs, 0, len(x)/step+1)
			for i := 0; i < len(x); i += step {
				xy = append(xy, plotter.XY{X: x[i], Y: y[i]})
			}
			s, err := plotter.NewScatter(xy)
			if err != nil {
				return err
			}
			s.GlyphStyle.Radius = vg.Points(1)
			s.GlyphStyle.Color = plotutil.Color(0)
			p := plot.New()
			p.Add(s)
			p.X.Label.Text = r.Names[idx[b]]
			p.Y.Label.Text = r.Names[idx[a]]
			p.Title.Text = fmt.Sprintf("corr %.2f", cor[idx[a]*r.Dim+idx[b]])
			plots[a][b] = p
		}
	}
	side := vg.Length(2.6*float64(n)) * vg.Inch
	return saveGrid(path, plots, side, side)
}

// saveGrid draws the plots (nil entries stay empty) aligned on a grid and
// writes a PNG.
func saveGrid(path string, plots [][]*plot.Plot, w, h vg.Length) error {
	img := vgimg.New(w, h)
	dc := draw.New(img)
	t := draw.Tiles{Rows: len(plots), Cols: len(plots[0]), PadX: vg.Millimeter, PadY: vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 2 * vg.Millimeter}
	canvases := plot.Align(plots, t, dc)
	for i, row := range plots {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = vgimg.PngCanvas{Canvas: img}.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
