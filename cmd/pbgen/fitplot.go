package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pbgen/pbgen/fit"
)

// plots writes waterfall.png (every start's final objective, sorted),
// parameters.png (the best starts' estimates within the bounds) and
// fit_<observable>.png (data and the best fit's simulation) into dir.
func (r *fitReport) plots(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := r.waterfall(filepath.Join(dir, "waterfall.png")); err != nil {
		return err
	}
	if r.res.Best < 0 {
		return nil
	}
	if err := r.parameterPlot(filepath.Join(dir, "parameters.png"), 10); err != nil {
		return err
	}
	return r.dataPlots(dir)
}

// waterfall plots f - f_best + 1 of the starts from best to worst on a
// log axis (pyPESTO's waterfall offset): the plateau of starts at 1 is
// the best optimum's basin. Starts within -tol are green, converged
// starts blue, the others (iteration or time limits) red.
func (r *fitReport) waterfall(path string) error {
	pl := plot.New()
	pl.Title.Text = fmt.Sprintf("%s: %d starts", r.p.SBML.ID, len(r.res.Starts))
	pl.X.Label.Text = "start (sorted)"
	if r.res.Best < 0 {
		return pl.Save(6*vg.Inch, 4*vg.Inch, path)
	}
	best := r.res.Starts[r.res.Best].F
	// A log axis when the values span decades, as they do when some
	// starts end far from the best; a linear one when all are close.
	worst := best
	for _, s := range r.res.Starts {
		if finite := !math.IsNaN(s.F) && !math.IsInf(s.F, 0); finite {
			worst = max(worst, s.F)
		}
	}
	pl.Y.Label.Text = "-log posterior - best + 1"
	if worst-best+1 > 10 {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	groups := map[string]plotter.XYs{}
	for rank, k := range r.order {
		s := r.res.Starts[k]
		if math.IsNaN(s.F) || math.IsInf(s.F, 0) {
			continue
		}
		g := "other"
		switch {
		case s.F-best <= r.ff.tol:
			g = "best"
		case s.Status.Converged():
			g = "converged"
		}
		groups[g] = append(groups[g], plotter.XY{X: float64(rank + 1), Y: s.F - best + 1})
	}
	colors := map[string]color.Color{"best": color.RGBA{0, 150, 0, 255}, "converged": color.RGBA{30, 80, 200, 255}, "other": color.RGBA{200, 30, 30, 255}}
	labels := map[string]string{"best": fmt.Sprintf("within %g of the best", r.ff.tol), "converged": "converged elsewhere", "other": "stopped (limit)"}
	for _, g := range []string{"best", "converged", "other"} {
		if len(groups[g]) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(groups[g])
		if err != nil {
			return err
		}
		sc.Color = colors[g]
		sc.Shape = draw.CircleGlyph{}
		pl.Add(sc)
		pl.Legend.Add(labels[g], sc)
	}
	pl.Legend.Top = true
	pl.Legend.Left = true
	return pl.Save(6*vg.Inch, 4*vg.Inch, path)
}

// parameterPlot draws the estimates of the best k starts, one line per
// start across the parameters, with the bounds (on the scales) as grey
// bars.
func (r *fitReport) parameterPlot(path string, k int) error {
	pl := plot.New()
	pl.Title.Text = fmt.Sprintf("%s: estimates of the best %d starts (parameter scales)", r.p.SBML.ID, min(k, len(r.order)))
	pl.Y.Label.Text = "value"
	bounds := make(plotter.XYs, 0, 2*len(r.names))
	for a := range r.names {
		bounds = append(bounds, plotter.XY{X: float64(a), Y: r.lo[a]}, plotter.XY{X: float64(a), Y: r.hi[a]})
	}
	bs, err := plotter.NewScatter(bounds)
	if err != nil {
		return err
	}
	bs.Color = color.Gray{160}
	bs.Shape = draw.BoxGlyph{}
	pl.Add(bs)
	pl.Legend.Add("bounds", bs)
	var items []legendItem
	for rank, idx := range r.order[:min(k, len(r.order))] {
		s := r.res.Starts[idx]
		if s.Status == fit.StartFailed {
			continue
		}
		xy := make(plotter.XYs, len(s.X))
		for a, v := range s.X {
			xy[a] = plotter.XY{X: float64(a), Y: v}
		}
		it, err := addLine(pl, rank, fmt.Sprintf("#%d start %d", rank+1, s.Index), xy)
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	pl.X.Tick.Marker = nameTicks(r.names)
	pl.X.Tick.Label.Rotation = math.Pi / 2
	pl.X.Tick.Label.XAlign = -1.0
	return saveWithLegend(pl, items, vg.Length(5+0.25*float64(len(r.names)))*vg.Inch, 5*vg.Inch, path)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// dataPlots writes, per observable, the measurements (points) and the
// best fit's simulated values at the same times (lines), one colour per
// experiment (at most 12 experiments per plot, the rest are left out
// and the title says so).
func (r *fitReport) dataPlots(dir string) error {
	type key struct{ obs, exp string }
	rows := map[key][]int{}
	var obsOrder []string
	expOrder := map[string][]string{}
	for i, m := range r.p.Measurements {
		exp := m.Sim
		if m.Preeq != "" {
			exp = m.Preeq + ":" + m.Sim
		}
		if m.Experiment != "" {
			exp = m.Experiment
		}
		k := key{m.ObservableID, exp}
		if _, ok := rows[k]; !ok {
			if len(expOrder[m.ObservableID]) == 0 {
				obsOrder = append(obsOrder, m.ObservableID)
			}
			expOrder[m.ObservableID] = append(expOrder[m.ObservableID], exp)
		}
		rows[k] = append(rows[k], i)
	}
	const maxExp = 12
	for _, obs := range obsOrder {
		pl := plot.New()
		exps := expOrder[obs]
		pl.Title.Text = fmt.Sprintf("%s: data and best fit", obs)
		if len(exps) > maxExp {
			pl.Title.Text += fmt.Sprintf(" (first %d of %d experiments)", maxExp, len(exps))
			exps = exps[:maxExp]
		}
		pl.X.Label.Text = "time"
		pl.Y.Label.Text = obs
		var items []legendItem
		for c, exp := range exps {
			idx := rows[key{obs, exp}]
			sort.SliceStable(idx, func(a, b int) bool { return r.p.Measurements[idx[a]].Time < r.p.Measurements[idx[b]].Time })
			var data, sim plotter.XYs
			for _, i := range idx {
				t := r.p.Measurements[i].Time
				if math.IsInf(t, 0) {
					continue // steady-state data have no time to plot at
				}
				data = append(data, plotter.XY{X: t, Y: r.p.Measurements[i].Value})
				if v := r.best.Sim[i]; !math.IsNaN(v) {
					sim = append(sim, plotter.XY{X: t, Y: v})
				}
			}
			if len(data) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(data)
			if err != nil {
				return err
			}
			sc.Color = plotutil.Color(c)
			pl.Add(sc)
			if len(sim) > 0 {
				it, err := addLine(pl, c, exp, sim)
				if err != nil {
					return err
				}
				items = append(items, it)
			}
		}
		path := filepath.Join(dir, "fit_"+unsafeName.ReplaceAllString(obs, "_")+".png")
		if err := saveWithLegend(pl, items, 6*vg.Inch, 4*vg.Inch, path); err != nil {
			return err
		}
	}
	return nil
}
