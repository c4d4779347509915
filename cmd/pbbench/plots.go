package main

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plotErrors draws the relative error of S against t per method on a log
// axis, with the start times of the exponential steps of PBSR (paper)
// marked below the curves (the paper's Figures 2, 3 and 5).
func plotErrors(path string, mr *ModelResult) error {
	pl := plot.New()
	pl.Title.Text = mr.Model + ": ||S - S_ref||_F / ||S_ref||_F"
	pl.X.Label.Text = "t"
	pl.Y.Label.Text = "relative error"
	pl.Y.Scale = plot.LogScale{}
	pl.Y.Tick.Marker = plot.LogTicks{Prec: 1}
	var lines []interface{}
	lo := math.Inf(1)
	for _, r := range mr.Methods {
		if r.ErrT == nil {
			continue
		}
		// Errors above maxPlotted (a diverged method) are left out so the
		// axis stays readable; the legend says so.
		const maxPlotted = 10
		var xy plotter.XYs
		clipped := false
		for k, e := range r.ErrT {
			switch {
			case e > maxPlotted || math.IsInf(e, 0):
				clipped = true
			case e > 0:
				xy = append(xy, plotter.XY{X: mr.T[k], Y: e})
				lo = math.Min(lo, e)
			}
		}
		name := r.Name
		if clipped {
			name += " (error > 10 not shown)"
		}
		if len(xy) > 0 {
			lines = append(lines, name, xy)
		}
	}
	if err := plotutil.AddLines(pl, lines...); err != nil {
		return err
	}
	if r := mr.find("PBSR (paper)"); r != nil && len(r.ExpTimes) > 0 && lo < math.Inf(1) {
		marks := make(plotter.XYs, len(r.ExpTimes))
		for i, t := range r.ExpTimes {
			marks[i] = plotter.XY{X: t, Y: lo / 3}
		}
		sc, err := plotter.NewScatter(marks)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Shape = draw.PlusGlyph{}
		sc.GlyphStyle.Radius = vg.Points(2)
		pl.Add(sc)
		pl.Legend.Add("exp step (PBSR paper)", sc)
	}
	pl.Legend.Top = true
	return pl.Save(9*vg.Inch, 6*vg.Inch, path)
}

// plotLinear draws time against n on log-log axes with the fitted power
// laws (the paper's Figure 4).
func plotLinear(path string, lr *LinearResult) error {
	pl := plot.New()
	pl.Title.Text = "random linear system: time per solve"
	pl.X.Label.Text = "n"
	pl.Y.Label.Text = "seconds"
	pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = plot.LogTicks{Prec: 1}, plot.LogTicks{Prec: 1}
	for i, name := range linearMethods {
		pts := make(plotter.XYs, len(lr.N))
		fit := make(plotter.XYs, len(lr.N))
		for k, n := range lr.N {
			pts[k] = plotter.XY{X: float64(n), Y: lr.Times[name][k]}
			fit[k] = plotter.XY{X: float64(n), Y: lr.Prefac[name] * math.Pow(float64(n), lr.Exponent[name])}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color = plotutil.Color(i)
		ln, err := plotter.NewLine(fit)
		if err != nil {
			return err
		}
		ln.Color = plotutil.Color(i)
		ln.Dashes = plotutil.Dashes(1)
		pl.Add(sc, ln)
		pl.Legend.Add(fmt.Sprintf("%s, fit n^%.2f", name, lr.Exponent[name]), sc)
	}
	pl.Legend.Top, pl.Legend.Left = true, true
	return pl.Save(7*vg.Inch, 5*vg.Inch, path)
}

// plotScale draws the scaling section's times against n on log-log axes
// with the fitted power laws, and n^1.5 through the first states-only
// point as the bound to compare the slopes with.
func plotScale(path string, sr *ScaleResult) error {
	pl := plot.New()
	pl.Title.Text = "scalenet chains: time per solve"
	pl.X.Label.Text = "states n"
	pl.Y.Label.Text = "seconds"
	pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = plot.LogTicks{Prec: 1}, plot.LogTicks{Prec: 1}
	for i, s := range sr.Series {
		if len(s.N) == 0 {
			continue
		}
		pts := make(plotter.XYs, len(s.N))
		fit := make(plotter.XYs, len(s.N))
		for k, n := range s.N {
			pts[k] = plotter.XY{X: float64(n), Y: float64(s.Median[k])}
			fit[k] = plotter.XY{X: float64(n), Y: float64(s.Prefac) * math.Pow(float64(n), float64(s.Exponent))}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color = plotutil.Color(i)
		pl.Add(sc)
		label := s.Method
		if len(s.N) >= 2 {
			ln, err := plotter.NewLine(fit)
			if err != nil {
				return err
			}
			ln.Color = plotutil.Color(i)
			ln.Dashes = plotutil.Dashes(1)
			pl.Add(ln)
			label = fmt.Sprintf("%s, fit n^%.2f", s.Method, float64(s.Exponent))
		}
		pl.Legend.Add(label, sc)
	}
	if s := sr.series(scaleStates); s != nil && len(s.N) >= 2 {
		n0, n1 := float64(s.N[0]), float64(s.N[len(s.N)-1])
		y0 := float64(s.Median[0])
		ln, err := plotter.NewLine(plotter.XYs{{X: n0, Y: y0}, {X: n1, Y: y0 * math.Pow(n1/n0, scaleBound)}})
		if err != nil {
			return err
		}
		ln.Dashes = plotutil.Dashes(2)
		pl.Add(ln)
		pl.Legend.Add(fmt.Sprintf("n^%.1f (target bound)", scaleBound), ln)
	}
	pl.Legend.Top, pl.Legend.Left = true, true
	return pl.Save(7*vg.Inch, 5*vg.Inch, path)
}
