package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sens"
)

// plotData holds the rows that are plotted. Rows arrive chunk by chunk
// (sim streams them); a run with more rows than a plot can show keeps
// every stride-th row plus rows at geometrically growing indices, so that
// a logarithmic time axis still has points near the start. The peak |S|
// of each entry is taken over every row, kept or not, so the choice of
// the largest sensitivities does not depend on the thinning.
type plotData struct {
	n, seen int // rows expected, rows seen
	stride  int
	ratio   float64 // growth of the geometric indices
	nextGeo float64
	nx, ns  int
	withS   bool
	T, X, S []float64
	peak    []float64
}

// plotFloats bounds the floats kept for plotting (32 MB); maxPlotRows
// bounds the rows kept by the uniform stride (the geometric rows add at
// most as many again): more than a plot's width in pixels.
const (
	plotFloats  = 1 << 22
	maxPlotRows = 2000
)

func newPlotData(n, nx, ns int, withS bool) *plotData {
	if !withS {
		ns = 0
	}
	budget := max(16, min(maxPlotRows, plotFloats/(2*nx*(1+ns)+1)))
	d := &plotData{n: n, nx: nx, ns: ns, withS: withS, stride: 1, nextGeo: math.Inf(1)}
	if n > budget {
		d.stride = (n + budget - 1) / budget
		d.ratio = math.Pow(float64(n), 1/float64(budget))
		d.nextGeo = 1
	}
	if withS {
		d.peak = make([]float64, nx*ns)
	}
	return d
}

func (d *plotData) keep(idx int) bool {
	if idx == 0 || idx == d.n-1 || idx%d.stride == 0 {
		return true
	}
	if float64(idx) >= d.nextGeo {
		d.nextGeo = math.Max(float64(idx+1), float64(idx)*d.ratio)
		return true
	}
	return false
}

func (d *plotData) add(res *sens.Result) {
	for k, t := range res.T {
		idx := d.seen
		d.seen++
		if d.withS {
			for e, v := range res.SAt(k) {
				d.peak[e] = math.Max(d.peak[e], math.Abs(v))
			}
		}
		if !d.keep(idx) {
			continue
		}
		d.T = append(d.T, t)
		d.X = append(d.X, res.XAt(k)...)
		if d.withS {
			d.S = append(d.S, res.SAt(k)...)
		}
	}
}

func (d *plotData) xAt(k int) []float64 { return d.X[k*d.nx : (k+1)*d.nx] }
func (d *plotData) sAt(k int) []float64 { return d.S[k*d.nx*d.ns : (k+1)*d.nx*d.ns] }

// writePlots writes states.png and, with sensitivities,
// sensitivity-heatmap.png and sensitivity-top.png into dir; xs names the
// states as the TSV columns do.
func writePlots(dir string, m model.Model, xs []string, p []float64, d *plotData, scaled bool, logt triFlag) error {
	if len(d.T) == 0 {
		return nil
	}
	ax := chooseTimeAxis(d, logt)
	if err := plotStates(filepath.Join(dir, "states.png"), m, xs, d, ax); err != nil {
		return err
	}
	if !d.withS {
		return nil
	}
	if err := plotHeatMap(filepath.Join(dir, "sensitivity-heatmap.png"), m, xs, p, d, scaled); err != nil {
		return err
	}
	return plotTopSens(filepath.Join(dir, "sensitivity-top.png"), m, xs, d, ax, 8)
}

// timeAxis is the plots' time axis: linear, or symmetric-logarithmic
// (linear on [t0, t0+c], logarithmic beyond), which shows a fast
// transient and a long approach to steady state in one plot.
type timeAxis struct {
	log   bool
	t0, c float64
	t1    float64
}

// fastFraction: the time axis is logarithmic when most (half) of the
// change of the states happens in the first fastFraction of the span.
const fastFraction = 0.05

// chooseTimeAxis applies -logt, or decides from the states: the total
// variation of the states is accumulated in time, in the units of the
// plot's y axis (which all states share, so a state whose whole range is
// roundoff, or too small to see, does not count); when half of it is
// reached within the first fastFraction of the span, a linear axis would
// squeeze that half of the visible dynamics into a vertical line at t0,
// while on the logarithmic axis slow changes later on stay visible.
func chooseTimeAxis(d *plotData, logt triFlag) timeAxis {
	n := len(d.T)
	ax := timeAxis{t0: d.T[0], t1: d.T[n-1]}
	if n < 3 || !(ax.t1 > ax.t0) {
		return ax
	}
	// c: the first output interval, so that the points up to it are on
	// the linear part and each later one on the logarithmic part.
	ax.c = d.T[1] - d.T[0]
	if logt.set {
		ax.log = logt.v
		return ax
	}
	tv := make([]float64, n) // cumulative variation up to row k
	for k := 1; k < n; k++ {
		x0, x1 := d.xAt(k-1), d.xAt(k)
		tv[k] = tv[k-1]
		for i := range x1 {
			tv[k] += math.Abs(x1[i] - x0[i])
		}
	}
	total := tv[n-1]
	if !(total > 0) || math.IsInf(total, 0) {
		return ax
	}
	k50 := sort.SearchFloat64s(tv, 0.5*total)
	ax.log = (d.T[k50]-ax.t0)/(ax.t1-ax.t0) <= fastFraction
	return ax
}

// apply sets the plot's x axis.
func (ax timeAxis) apply(pl *plot.Plot) {
	pl.X.Label.Text = "t"
	if !ax.log {
		return
	}
	pl.X.Scale = symLog{t0: ax.t0, c: ax.c}
	pl.X.Tick.Marker = symLogTicks{t0: ax.t0, c: ax.c}
	pl.X.Label.Text = fmt.Sprintf("t (logarithmic; linear from %g to %g)", ax.t0, ax.t0+ax.c)
}

// symLog is the normaliser of a symmetric-log axis: u = t - t0 maps to
// log10(1 + u/c), so that t0 itself is on the axis.
type symLog struct{ t0, c float64 }

func (s symLog) f(t float64) float64 { return math.Log10(1 + math.Max(t-s.t0, 0)/s.c) }
func (s symLog) Normalize(min, max, x float64) float64 {
	a, b := s.f(min), s.f(max)
	if b == a {
		return 0
	}
	return (s.f(x) - a) / (b - a)
}

// symLogTicks labels t0 and t0 + 10^k, with unlabelled ticks at
// t0 + m 10^k (m = 2..9) on the logarithmic part.
type symLogTicks struct{ t0, c float64 }

func (s symLogTicks) Ticks(min, max float64) []plot.Tick {
	ticks := []plot.Tick{{Value: s.t0, Label: strconv.FormatFloat(s.t0, 'g', 4, 64)}}
	span := max - s.t0
	if !(span > 0) || !(s.c > 0) {
		return ticks
	}
	for e := math.Floor(math.Log10(s.c)); e <= math.Ceil(math.Log10(span)); e++ {
		base := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			u := m * base
			if u < s.c || u > span {
				continue
			}
			t := plot.Tick{Value: s.t0 + u}
			if m == 1 {
				t.Label = strconv.FormatFloat(s.t0+u, 'g', 4, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// legendItem is one entry of a legend drawn beside the plot.
type legendItem struct {
	name  string
	thumb plot.Thumbnailer
}

// saveWithLegend draws pl in a w x h area and its legend in columns to
// the right, outside the data, so that no entry covers a curve.
func saveWithLegend(pl *plot.Plot, items []legendItem, w, h vg.Length, path string) error {
	leg := plot.NewLegend()
	sty := leg.TextStyle
	entryH := sty.Rectangle("Xg").Max.Y + leg.Padding
	const margin = vg.Length(12)
	perCol := max(1, int((h-2*margin)/entryH))
	ncol := (len(items) + perCol - 1) / perCol
	var textW vg.Length
	for _, it := range items {
		textW = max(textW, sty.Rectangle(" "+it.name).Max.X)
	}
	colW := leg.ThumbnailWidth + textW + margin
	legendW := vg.Length(ncol)*colW + margin
	img := vgimg.New(w+legendW, h)
	dc := draw.New(img)
	pl.Draw(draw.Crop(dc, 0, -legendW, 0, 0))
	for c := 0; c < ncol; c++ {
		l := plot.NewLegend()
		l.Top, l.Left = true, true
		for _, it := range items[c*perCol : min(len(items), (c+1)*perCol)] {
			l.Add(it.name, it.thumb)
		}
		left := w + vg.Length(c)*colW
		l.Draw(draw.Crop(dc, left, -(legendW - vg.Length(c+1)*colW), 0, -margin))
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// addLine adds the i-th curve of a plot, styled as plotutil.AddLines
// styles it, and returns its legend entry.
func addLine(pl *plot.Plot, i int, name string, xy plotter.XYs) (legendItem, error) {
	l, err := plotter.NewLine(xy)
	if err != nil {
		return legendItem{}, fmt.Errorf("plot of %s: %v", name, err)
	}
	l.Color = plotutil.Color(i)
	l.Dashes = plotutil.Dashes(i)
	pl.Add(l)
	return legendItem{name, l}, nil
}

func plotStates(path string, m model.Model, xs []string, d *plotData, ax timeAxis) error {
	pl := plot.New()
	pl.Title.Text = m.Name() + ": states"
	ax.apply(pl)
	pl.Y.Label.Text = "x"
	var items []legendItem
	for i, name := range xs {
		it, err := addLine(pl, i, name, series(d.T, func(k int) float64 { return d.xAt(k)[i] }))
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	return saveWithLegend(pl, items, 8*vg.Inch, 6*vg.Inch, path)
}

func series(ts []float64, y func(k int) float64) plotter.XYs {
	xy := make(plotter.XYs, len(ts))
	for k, t := range ts {
		xy[k] = plotter.XY{X: t, Y: y(k)}
	}
	return xy
}

// sensGrid is S at one time as a plotter.GridXYZ: columns = parameters,
// rows = states.
type sensGrid struct {
	nx, np int
	v      []float64
}

func (g sensGrid) Dims() (c, r int)   { return g.np, g.nx }
func (g sensGrid) Z(c, r int) float64 { return g.v[r*g.np+c] }
func (g sensGrid) X(c int) float64    { return float64(c) }
func (g sensGrid) Y(r int) float64    { return float64(r) }

func plotHeatMap(path string, m model.Model, xs []string, p []float64, d *plotData, scaled bool) error {
	nx, np := d.nx, d.ns
	if np == 0 || nx == 0 {
		return nil
	}
	last := len(d.T) - 1
	v := append([]float64(nil), d.sAt(last)...)
	x := d.xAt(last)
	title := fmt.Sprintf("%s: S at t = %g", m.Name(), d.T[last])
	if scaled {
		title = fmt.Sprintf("%s: p_j S_ij / x_i at t = %g", m.Name(), d.T[last])
		// States that are numerically zero have no meaningful relative
		// sensitivity: their row is left at zero.
		xmax := 0.0
		for i := 0; i < nx; i++ {
			xmax = math.Max(xmax, math.Abs(x[i]))
		}
		for i := 0; i < nx; i++ {
			for j := 0; j < np; j++ {
				if math.Abs(x[i]) > 1e-9*xmax {
					v[i*np+j] *= p[j] / x[i]
				} else {
					v[i*np+j] = 0
				}
			}
		}
	}
	lim := 0.0
	for _, z := range v {
		lim = math.Max(lim, math.Abs(z))
	}
	if lim == 0 || math.IsInf(lim, 0) || math.IsNaN(lim) {
		lim = 1
	}
	pal := moreland.SmoothBlueRed()
	pal.SetMin(-lim)
	pal.SetMax(lim)
	hm := plotter.NewHeatMap(sensGrid{nx, np, v}, pal.Palette(255))
	hm.Min, hm.Max = -lim, lim
	pl := plot.New()
	pl.Title.Text = fmt.Sprintf("%s (blue -%.3g, red +%.3g)", title, lim, lim)
	pl.X.Label.Text = "parameter"
	pl.Y.Label.Text = "state"
	pl.Add(hm)
	pl.X.Tick.Marker = nameTicks(m.ParamNames())
	pl.Y.Tick.Marker = nameTicks(xs)
	pl.X.Tick.Label.Rotation = math.Pi / 2
	pl.X.Tick.Label.XAlign = -1.0
	return pl.Save(vg.Length(6+0.2*float64(np))*vg.Inch, vg.Length(4+0.25*float64(nx))*vg.Inch, path)
}

type nameTicks []string

func (n nameTicks) Ticks(min, max float64) []plot.Tick {
	t := make([]plot.Tick, len(n))
	for i, s := range n {
		t[i] = plot.Tick{Value: float64(i), Label: s}
	}
	return t
}

// plotTopSens plots the time courses of the k entries of S with the
// largest maximum magnitude (over every output row).
func plotTopSens(path string, m model.Model, xs []string, d *plotData, ax timeAxis, k int) error {
	nx, np := d.nx, d.ns
	if nx*np == 0 {
		return nil
	}
	idx := make([]int, nx*np)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return d.peak[idx[a]] > d.peak[idx[b]] })
	k = min(k, len(idx))
	pl := plot.New()
	pl.Title.Text = m.Name() + ": largest sensitivities"
	ax.apply(pl)
	pl.Y.Label.Text = "dx_i/dp_j"
	pnames := m.ParamNames()
	var items []legendItem
	for c, e := range idx[:k] {
		i, j := e/np, e%np
		it, err := addLine(pl, c, xs[i]+" / "+pnames[j], series(d.T, func(t int) float64 { return d.sAt(t)[e] }))
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	return saveWithLegend(pl, items, 8*vg.Inch, 6*vg.Inch, path)
}
