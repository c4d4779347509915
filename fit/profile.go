package fit

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// ProfileOptions configures Profile. A nil *ProfileOptions means all
// defaults; a zero field means that field's default.
type ProfileOptions struct {
	// Options configure the minimisation at each point (Fixed is set by
	// Profile).
	Options *Options
	// Threshold is the rise of f above its minimum where the profile
	// stops and its confidence bound lies (default 1.92: half the 95%
	// quantile of chi-squared with one degree of freedom, so that f, a
	// negative log-likelihood, gives the 95% profile-likelihood interval;
	// Raue et al. 2009).
	Threshold float64
	// Step is the first step from the optimum, in the parameter's units
	// (default 1% of its range, or 0.01 when the range is infinite). The
	// step then adapts: halved while a step raises f by more than a
	// quarter of Threshold, doubled while it raises f by less than 1/20.
	Step float64
	// MaxPoints bounds the points on each side (default 100).
	MaxPoints int
}

// ProfilePoint is one point of a profile: the profiled parameter's value,
// the minimum of f over the other parameters there, the minimiser and its
// Status.
type ProfilePoint struct {
	Value, F float64
	X        []float64
	Status   Status
}

// ProfileResult is the profile of one parameter.
type ProfileResult struct {
	Index int
	// Points in increasing Value, the optimum among them.
	Points []ProfilePoint
	// Lower and Upper are where f - F(optimum) crosses Threshold (linear
	// interpolation between the points on either side), -Inf or +Inf
	// where the profile stays below it up to the bound or MaxPoints: the
	// parameter is not identifiable on that side.
	Lower, Upper float64
}

// Profile computes the profile of parameter k of obj through the
// minimiser best: from best, in each direction, it fixes x_k at a
// sequence of values and minimises over the others (warm-started from the
// previous point), until f rises Threshold above f(best), or x_k reaches
// its bound, or MaxPoints. If a point improves on f(best) by more than the
// optimiser's tolerance, best was not a minimum; the profile is still
// returned and the improvement shows in Points.
func Profile(ctx context.Context, obj Objective, best []float64, k int, opt *ProfileOptions) (*ProfileResult, error) {
	n := obj.Dim()
	if k < 0 || k >= n {
		return nil, fmt.Errorf("fit: profile of parameter %d of %d", k, n)
	}
	var po ProfileOptions
	if opt != nil {
		po = *opt
	}
	if po.Threshold <= 0 {
		po.Threshold = 1.92
	}
	if po.MaxPoints <= 0 {
		po.MaxPoints = 100
	}
	var base Options
	if po.Options != nil {
		base = *po.Options
	}
	base.Fixed = make([]bool, n)
	base.Fixed[k] = true
	lo, hi := obj.Bounds()
	l, h := bound(lo, k, -1), bound(hi, k, 1)
	if po.Step <= 0 {
		po.Step = 0.01
		if !math.IsInf(l, 0) && !math.IsInf(h, 0) {
			po.Step = 0.01 * (h - l)
		}
	}
	// The optimum itself, minimised with x_k fixed (so that its f is on
	// the same footing as the other points).
	r0, err := Minimize(ctx, obj, best, &base)
	if err != nil {
		return nil, err
	}
	if r0.Status == StartFailed {
		return nil, fmt.Errorf("fit: profile of parameter %d: the objective fails at the optimum: %v", k, r0.Err)
	}
	res := &ProfileResult{Index: k, Lower: math.Inf(-1), Upper: math.Inf(1)}
	res.Points = append(res.Points, ProfilePoint{Value: best[k], F: r0.F, X: r0.X, Status: r0.Status})
	for _, dir := range []float64{-1, 1} {
		edge, pts, err := profileSide(ctx, obj, r0, k, dir, l, h, &po, &base)
		if err != nil {
			return nil, err
		}
		res.Points = append(res.Points, pts...)
		if dir < 0 {
			res.Lower = edge
		} else {
			res.Upper = edge
		}
	}
	sort.Slice(res.Points, func(a, b int) bool { return res.Points[a].Value < res.Points[b].Value })
	return res, nil
}

// profileSide walks from the optimum r0 in direction dir and returns the
// confidence bound on that side (±Inf if not reached) and the points.
func profileSide(ctx context.Context, obj Objective, r0 *Result, k int, dir, l, h float64, po *ProfileOptions, base *Options) (float64, []ProfilePoint, error) {
	var pts []ProfilePoint
	prev := ProfilePoint{Value: r0.X[k], F: r0.F, X: r0.X}
	step := po.Step
	for range po.MaxPoints {
		if ctx.Err() != nil {
			break
		}
		v := prev.Value + dir*step
		atBound := false
		if v <= l || v >= h {
			v, atBound = min(max(v, l), h), true
		}
		if v == prev.Value {
			break
		}
		x0 := append([]float64(nil), prev.X...)
		x0[k] = v
		r, err := Minimize(ctx, obj, x0, base)
		if err != nil {
			return 0, nil, err
		}
		if r.Status == StartFailed {
			// The objective fails here: the profile cannot go on.
			break
		}
		p := ProfilePoint{Value: v, F: r.F, X: r.X, Status: r.Status}
		pts = append(pts, p)
		if rise := p.F - r0.F; rise > po.Threshold {
			edge, more, err := refineEdge(ctx, obj, r0.F, prev, p, k, po.Threshold, base)
			return edge, append(pts, more...), err
		}
		if atBound {
			break
		}
		switch d := math.Abs(p.F - prev.F); {
		case d > po.Threshold/4:
			step /= 2
		case d < po.Threshold/20:
			step *= 2
		}
		prev = p
	}
	return math.Inf(int(dir)), pts, nil
}

// refineEdge narrows the crossing of f - f0 = thr between in (below) and
// out (above) by the Illinois variant of regula falsi, each step a
// minimisation warm-started from the inner point, until a point is within
// 1e-5 of the threshold (at most 30 steps), and returns the final linear
// interpolation and the points it computed.
func refineEdge(ctx context.Context, obj Objective, f0 float64, in, out ProfilePoint, k int, thr float64, base *Options) (float64, []ProfilePoint, error) {
	var pts []ProfilePoint
	gi, gout := in.F-f0-thr, out.F-f0-thr
	side := 0
	for range 30 {
		if math.Abs(gi) <= 1e-5 || math.Abs(gout) <= 1e-5 {
			break
		}
		t := gi / (gi - gout)
		v := in.Value + t*(out.Value-in.Value)
		if !(v != in.Value && v != out.Value) || ctx.Err() != nil {
			break
		}
		x0 := append([]float64(nil), in.X...)
		x0[k] = v
		r, err := Minimize(ctx, obj, x0, base)
		if err != nil {
			return 0, nil, err
		}
		if r.Status == StartFailed {
			break
		}
		p := ProfilePoint{Value: v, F: r.F, X: r.X, Status: r.Status}
		pts = append(pts, p)
		if g := p.F - f0 - thr; g > 0 {
			out, gout = p, g
			if side == 1 {
				gi /= 2
			}
			side = 1
		} else {
			in, gi = p, g
			if side == -1 {
				gout /= 2
			}
			side = -1
		}
	}
	ga, gb := in.F-f0-thr, out.F-f0-thr
	switch {
	case math.Abs(ga) <= 1e-5:
		return in.Value, pts, nil
	case math.Abs(gb) <= 1e-5:
		return out.Value, pts, nil
	}
	return in.Value + ga/(ga-gb)*(out.Value-in.Value), pts, nil
}
