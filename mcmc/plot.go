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
	"gonum.org/v1/plot/text"
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
// shows. Parameter names are horizontal titles above the panels,
// shortened in the middle when wider than a panel. It returns the paths
// written.
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

// Layout of the plots. Names go into horizontal titles above the panels,
// never into rotated axis labels: a rotated label longer than its panel is
// tall overlaps the neighbours and makes plot.Align squash the panel.
const (
	traceWidth  = 8 * vg.Inch
	tracePanel  = 1.3 * vg.Inch // height of one trace panel with its title
	legendStrip = 0.3 * vg.Inch // the chain legend above the trace panels
	histPanel   = 3 * vg.Inch   // side of one histogram panel
	pairPanel   = 2.6 * vg.Inch // side of one pair-plot panel
	titleSize   = 11            // points
)

// newPanel returns a plot whose axes use the tick markers of this file and
// whose title is the text above the panel, fitted to the panel's width.
func newPanel(title string, width vg.Length) *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font.Size = titleSize
	p.Title.Text = fitText(p.Title.TextStyle, title, textWidth(width))
	p.Title.Padding = vg.Points(3)
	p.X.Tick.Marker = preciseTicks{4}
	p.Y.Tick.Marker = preciseTicks{3}
	return p
}

// textWidth is the width a title or axis label of a panel width wide
// may take: about the width of its data area. A wider x-axis label is
// worse than cut: gonum narrows the data area until the label fits.
func textWidth(panel vg.Length) vg.Length { return panel - 0.6*vg.Inch }

// fitText shortens s by replacing its middle with "…" until it is at most
// width wide in style sty, so a long parameter name never runs into the
// next panel; the start and the end of a name are what tell names apart.
func fitText(sty text.Style, s string, width vg.Length) string {
	r := []rune(s)
	for len(r) > 3 && sty.Width(string(r)) > width {
		mid := len(r) / 2
		r = append(append(r[:mid-1:mid-1], '…'), r[mid+1:]...)
	}
	return string(r)
}

func plotTrace(path string, r *Result, _ int) error {
	d := r.Dim
	plots := make([][]*plot.Plot, d)
	n := len(r.Chains[0].LogPost)
	for j := 0; j < d; j++ {
		p := newPanel(r.Names[j], traceWidth)
		p.X.Tick.Marker = iterationTicks{}
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
		// The axis spans the kept iterations exactly, 1 to n, rather than
		// the range gonum would pad to round numbers.
		p.X.Min, p.X.Max = 1, float64(max(n, 2))
		plots[j] = []*plot.Plot{p}
	}
	legend := make([]string, len(r.Chains))
	for c, ch := range r.Chains {
		legend[c] = fmt.Sprintf("chain %d", ch.Index+1)
	}
	// The last panel also holds the axis label: give it that height more,
	// or a single panel is mostly axis.
	return saveGrid(path, plots, traceWidth, vg.Length(d)*tracePanel+0.3*vg.Inch, legend)
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

// histPlot is the marginal histogram of parameter j, titled with its name.
// The density axis is hidden: its scale is the inverse of the parameter's
// units and says nothing the shape does not, and hiding it leaves the
// width to the bars.
func histPlot(r *Result, j int, width vg.Length) (*plot.Plot, error) {
	all, varies := flat(r, j)
	if !varies {
		p := newPanel(fmt.Sprintf("%s: constant %g", r.Names[j], all[0]), width)
		p.HideY()
		return p, nil
	}
	p := newPanel(r.Names[j], width)
	bins := max(10, min(60, int(math.Sqrt(float64(len(all))))))
	h, err := plotter.NewHist(plotter.Values(all), bins)
	if err != nil {
		return nil, err
	}
	h.Normalize(1)
	h.FillColor = plotutil.Color(0)
	h.LineStyle.Width = vg.Points(0.5)
	p.Add(h)
	p.HideY()
	return p, nil
}

func plotHist(path string, r *Result, _ int) error {
	d := r.Dim
	cols := min(4, int(math.Ceil(math.Sqrt(float64(d)))))
	rows := (d + cols - 1) / cols
	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, cols)
	}
	for j := 0; j < d; j++ {
		p, err := histPlot(r, j, histPanel)
		if err != nil {
			return err
		}
		plots[j/cols][j%cols] = p
	}
	return saveGrid(path, plots, vg.Length(cols)*histPanel, vg.Length(rows)*histPanel*0.8, nil)
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

// plotPair draws a corner plot: the histograms of the chosen parameters on
// the diagonal, titled with their names, and below it the scatter plot of
// each pair, titled with its correlation. Panels of one column share the
// x range and those of one row the y range, so the bottom row's axis
// labels name the columns and each row's diagonal title names its y
// parameter; no name has to be rotated.
func plotPair(path string, r *Result, k int) error {
	idx := pairParams(r, k)
	n := len(idx)
	plots := make([][]*plot.Plot, n)
	cols := make([][]float64, n)
	lo, hi := make([]float64, n), make([]float64, n)
	for a, j := range idx {
		cols[a], _ = flat(r, j)
		lo[a], hi[a] = math.Inf(1), math.Inf(-1)
		for _, v := range cols[a] {
			lo[a], hi[a] = math.Min(lo[a], v), math.Max(hi[a], v)
		}
	}
	cor := correlation(r)
	for a := range plots {
		plots[a] = make([]*plot.Plot, n)
		for b := 0; b <= a; b++ {
			var p *plot.Plot
			if a == b {
				var err error
				if p, err = histPlot(r, idx[a], pairPanel); err != nil {
					return err
				}
			} else {
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
				p = newPanel(fmt.Sprintf("corr %.2f", cor[idx[a]*r.Dim+idx[b]]), pairPanel)
				p.Add(s)
				if hi[a] > lo[a] {
					p.Y.Min, p.Y.Max = lo[a], hi[a]
				}
			}
			if hi[b] > lo[b] {
				p.X.Min, p.X.Max = lo[b], hi[b]
			}
			if a == n-1 {
				p.X.Label.Text = fitText(p.X.Label.TextStyle, r.Names[idx[b]], textWidth(pairPanel))
			}
			plots[a][b] = p
		}
	}
	side := vg.Length(n) * pairPanel
	return saveGrid(path, plots, side, side, nil)
}

// saveGrid draws the plots (nil entries stay empty) aligned on a grid and
// writes a PNG. With legend, a strip above the grid shows one line sample
// and name per entry, in the colours plotutil.Color gives the entries'
// indices (the trace plot's chains): once for all panels, and outside the
// data, which gonum's in-panel legend would cover.
func saveGrid(path string, plots [][]*plot.Plot, w, h vg.Length, legend []string) error {
	if legend != nil {
		h += legendStrip
	}
	img := vgimg.New(w, h)
	dc := draw.New(img)
	grid := dc
	if legend != nil {
		grid.Max.Y -= legendStrip
		drawLegend(dc, legend)
	}
	t := draw.Tiles{Rows: len(plots), Cols: len(plots[0]), PadX: 4 * vg.Millimeter, PadY: 2 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	canvases := plot.Align(plots, t, grid)
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

// drawLegend writes the entries in a row along the top of c, each a short
// line in its colour followed by its name.
func drawLegend(c draw.Canvas, entries []string) {
	sty := plot.New().Title.TextStyle
	sty.Font.Size = 10
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	y := c.Max.Y - legendStrip/2
	x := c.Min.X + 0.5*vg.Inch
	for i, e := range entries {
		c.StrokeLine2(draw.LineStyle{Color: plotutil.Color(i), Width: vg.Points(2)}, x, y, x+0.25*vg.Inch, y)
		x += 0.3 * vg.Inch
		c.FillText(sty, vg.Point{X: x, Y: y}, e)
		x += sty.Width(e) + 0.25*vg.Inch
	}
}
