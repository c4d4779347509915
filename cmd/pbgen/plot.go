package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sens"
)

// writePlots writes states.png, sensitivity-heatmap.png and
// sensitivity-top.png into dir; xs names the states as the TSV columns do.
func writePlots(dir string, m model.Model, xs []string, p []float64, res *sens.Result, scaled bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := plotStates(filepath.Join(dir, "states.png"), m, xs, res); err != nil {
		return err
	}
	if err := plotHeatMap(filepath.Join(dir, "sensitivity-heatmap.png"), m, xs, p, res, scaled); err != nil {
		return err
	}
	return plotTopSens(filepath.Join(dir, "sensitivity-top.png"), m, xs, res, 8)
}

func plotStates(path string, m model.Model, xs []string, res *sens.Result) error {
	pl := plot.New()
	pl.Title.Text = m.Name() + ": states"
	pl.X.Label.Text = "t"
	pl.Y.Label.Text = "x"
	nx := model.NumStates(m)
	var lines []interface{}
	for i, name := range xs {
		lines = append(lines, name, series(res.T, func(k int) float64 { return res.X[k*nx+i] }))
	}
	if err := plotutil.AddLines(pl, lines...); err != nil {
		return err
	}
	pl.Legend.Top = true
	return pl.Save(8*vg.Inch, 6*vg.Inch, path)
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

func plotHeatMap(path string, m model.Model, xs []string, p []float64, res *sens.Result, scaled bool) error {
	nx, np := model.NumStates(m), model.NumParams(m)
	if np == 0 || nx == 0 {
		return nil
	}
	last := len(res.T) - 1
	v := make([]float64, nx*np)
	copy(v, res.S[last*nx*np:])
	title := fmt.Sprintf("%s: S at t = %g", m.Name(), res.T[last])
	if scaled {
		title = fmt.Sprintf("%s: p_j S_ij / x_i at t = %g", m.Name(), res.T[last])
		// States that are numerically zero have no meaningful relative
		// sensitivity: their row is left at zero.
		xmax := 0.0
		for i := 0; i < nx; i++ {
			xmax = math.Max(xmax, math.Abs(res.X[last*nx+i]))
		}
		for i := 0; i < nx; i++ {
			x := res.X[last*nx+i]
			for j := 0; j < np; j++ {
				if math.Abs(x) > 1e-9*xmax {
					v[i*np+j] *= p[j] / x
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
	if lim == 0 {
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
// largest maximum magnitude.
func plotTopSens(path string, m model.Model, xs []string, res *sens.Result, k int) error {
	nx, np := model.NumStates(m), model.NumParams(m)
	if nx*np == 0 {
		return nil
	}
	peak := make([]float64, nx*np)
	for t := range res.T {
		for e, v := range res.S[t*nx*np : (t+1)*nx*np] {
			peak[e] = math.Max(peak[e], math.Abs(v))
		}
	}
	idx := make([]int, nx*np)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return peak[idx[a]] > peak[idx[b]] })
	if k > len(idx) {
		k = len(idx)
	}
	pl := plot.New()
	pl.Title.Text = m.Name() + ": largest sensitivities"
	pl.X.Label.Text = "t"
	pl.Y.Label.Text = "dx_i/dp_j"
	var lines []interface{}
	for _, e := range idx[:k] {
		i, j := e/np, e%np
		lines = append(lines, xs[i]+" / "+m.ParamNames()[j],
			series(res.T, func(t int) float64 { return res.S[t*nx*np+e] }))
	}
	if err := plotutil.AddLines(pl, lines...); err != nil {
		return err
	}
	pl.Legend.Top = true
	return pl.Save(8*vg.Inch, 6*vg.Inch, path)
}
