package dde

import (
	"math"
	"slices"
	"testing"

	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// hutchEvS is Hutchinson's x' = -x(t - 1) (x = 1 before the start) with
// states y' = w' = 0 and three events that read the delayed value
// d = x(t-1), p = (T, a, c):
//
//	E0: t >= T      x := x + a d   (an event time that is a parameter,
//	                                an assignment that reads d)
//	E1: d <= c      y := x         (a trigger on the delayed value)
//	E2: d >= 0.2    w := x         (true at the start; fires when E0's
//	                                jump reaches d, at 1 + T)
//
// The method of steps by hand gives x and S in closed form
// (hutchEvSExact): E0's jump of x reaches f at 1 + T, which moves with
// T, E1 fires at 2 - c, where d = 1 - (t - 1), and E2 at 1 + T, its
// trigger changed by the jump of d rather than by a crossing.
type hutchEvS struct{}

var nan1 = []float64{math.NaN()}

func (hutchEvS) Name() string                  { return "hutchEvS" }
func (hutchEvS) StateNames() []string          { return []string{"x", "y", "w"} }
func (hutchEvS) ParamNames() []string          { return []string{"T", "a", "c"} }
func (hutchEvS) DefaultParams(dst []float64)   { copy(dst, []float64{1.25, 0.8, 0.6}) }
func (hutchEvS) InitialState(dst, p []float64) { dst[0], dst[1], dst[2] = 1, 0, 0 }
func (hutchEvS) InitialSens(dst, p []float64)  { clear(dst) }
func (m hutchEvS) F(dst []float64, t float64, x, p []float64) {
	m.FDelayed(dst, t, x, p, nan1)
}
func (hutchEvS) JxPattern() *model.Pattern {
	return &model.Pattern{Rows: 3, Cols: 3, RowPtr: []int{0, 0, 0, 0}}
}
func (hutchEvS) Jx(dst []float64, t float64, x, p []float64) {}
func (hutchEvS) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: 3, Cols: 3, RowPtr: []int{0, 0, 0, 0}}
}
func (hutchEvS) Jp(dst []float64, t float64, x, p []float64) {}
func (hutchEvS) NumDelays() int                              { return 1 }
func (hutchEvS) DelayInfo(k int) model.DelayInfo {
	return model.DelayInfo{Name: "delay(x, 1)", Constant: true}
}
func (hutchEvS) DelayArg(k int, t float64, x, p, d []float64) float64  { return x[0] }
func (hutchEvS) DelayTime(k int, t float64, x, p, d []float64) float64 { return 1 }
func (hutchEvS) DelayHistory(k int, t float64, p []float64) float64    { return 1 }
func (hutchEvS) FDelayed(dst []float64, t float64, x, p, d []float64) {
	dst[0], dst[1], dst[2] = -d[0], 0, 0
}
func (hutchEvS) JxDelayed(dst []float64, t float64, x, p, d []float64)        {}
func (hutchEvS) OutputsDelayedTo(dst []float64, t float64, x, p, d []float64) {}
func (hutchEvS) JpDelayed(dst []float64, t float64, x, p, d []float64)        {}
func (hutchEvS) FdPattern() *model.Pattern {
	return &model.Pattern{Rows: 3, Cols: 1, RowPtr: []int{0, 1, 1, 1}, ColIdx: []int{0}}
}
func (hutchEvS) FdDelayed(dst []float64, t float64, x, p, d []float64) { dst[0] = -1 }
func (hutchEvS) DelayArgGrad(k int, t float64, x, p, d, dx, dp, dd []float64) float64 {
	clear(dx)
	dx[0] = 1
	clear(dp)
	clear(dd)
	return 0
}
func (hutchEvS) DelayTimeGrad(k int, t float64, x, p, d, dp []float64) { clear(dp) }
func (hutchEvS) DelayHistoryGrad(k int, t float64, p, dp []float64) float64 {
	clear(dp)
	return 0
}
func (hutchEvS) NumEvents() int { return 3 }
func (hutchEvS) EventInfo(k int) model.EventInfo {
	return model.EventInfo{Name: [...]string{"E0", "E1", "E2"}[k], Persistent: true, InitialValue: k == 2}
}
func (hutchEvS) NumRoots() int            { return 3 }
func (hutchEvS) EventTargets(k int) []int { return hutchEvSTargets[k] }

var hutchEvSTargets = [][]int{{0}, {1}, {2}}

func (m hutchEvS) TriggersTo(dst []bool, t float64, x, p []float64) {
	m.TriggersDelayedTo(dst, t, x, p, nan1)
}
func (m hutchEvS) RootsTo(dst []float64, t float64, x, p []float64) {
	m.RootsDelayedTo(dst, t, x, p, nan1)
}
func (hutchEvS) Delay(k int, t float64, x, p []float64) float64    { return 0 }
func (hutchEvS) Priority(k int, t float64, x, p []float64) float64 { return 0 }
func (m hutchEvS) EventAssign(k int, t float64, x, p, dst []float64) {
	m.EventAssignDelayed(k, t, x, p, nan1, dst)
}
func (hutchEvS) TriggersDelayedTo(dst []bool, t float64, x, p, d []float64) {
	dst[0], dst[1], dst[2] = t >= p[0], d[0] <= p[2], d[0] >= 0.2
}
func (hutchEvS) RootsDelayedTo(dst []float64, t float64, x, p, d []float64) {
	dst[0], dst[1], dst[2] = t-p[0], p[2]-d[0], d[0]-0.2
}
func (hutchEvS) EventDelayDelayed(k int, t float64, x, p, d []float64) float64 { return 0 }
func (hutchEvS) PriorityDelayed(k int, t float64, x, p, d []float64) float64   { return 0 }
func (hutchEvS) EventAssignDelayed(k int, t float64, x, p, d, dst []float64) {
	if k == 0 {
		dst[0] = x[0] + p[1]*d[0]
	} else {
		dst[0] = x[0] // E1: y := x, E2: w := x
	}
}
func (m hutchEvS) RootGrad(j int, t float64, x, p, dx, dp []float64) float64 {
	return m.RootGradDelayed(j, t, x, p, nan1, dx, dp, make([]float64, 1))
}
func (m hutchEvS) EventDeriv(k int, t float64, x, p []float64, d *model.EventDeriv) {
	m.EventDerivDelayed(k, t, x, p, nan1, d, make([]float64, 2))
}
func (hutchEvS) RootGradDelayed(j int, t float64, x, p, d, dx, dp, dd []float64) float64 {
	clear(dx)
	clear(dp)
	clear(dd)
	switch j {
	case 0:
		dp[0] = -1
		return 1
	case 1:
		dp[2], dd[0] = 1, -1
	default:
		dd[0] = 1
	}
	return 0
}
func (hutchEvS) EventDerivDelayed(k int, t float64, x, p, d []float64, der *model.EventDeriv, dd []float64) {
	clear(der.X)
	clear(der.P)
	clear(der.T)
	clear(dd)
	// Row 0 is the (absent) delay; row 1 the assigned value.
	if k == 0 {
		der.X[3+0], der.P[3+1], dd[1] = 1, d[0], p[1]
	} else {
		der.X[3+0] = 1
	}
}

var _ model.DelayEventDerivs = hutchEvS{}
var _ model.DelaySens = hutchEvS{}

// hutchExact3 is Hutchinson's solution (hutchExact) extended: on [2, 3]
// its third piece.
//
// hutchEvSExact is x, y, w and S = d(x, y, w)/d(T, a, c) of hutchEvS at
// t in [0, 3] for 1 < T < 2 - c and 0 < c < 1 (t not at an event time
// or 1 + T). Before T, x is Hutchinson's; E0 adds a d = a (2 - T) at T,
// and since x' = -x(t - 1) reads the state before T until 1 + T, x is
// Hutchinson's plus a (2 - T) there; after 1 + T the delayed value
// carries the jump too: x = hutch + a (2 - T)(2 + T - t). E1 fires at
// 2 - c (d = 2 - t there), y := x(2 - c). E2's trigger d >= 0.2, true
// at the start, turns false at 1.8 and true again when d jumps from
// hutch(T) < 0.2 to hutch(T) + a (2 - T) at 1 + T: w := x(1 + T), whose
// derivative in T is x'(1+T-) + S_x = -hutch(T) - a.
func hutchEvSExact(t float64, p []float64) (x, y, w float64, sx, sy, sw [3]float64) {
	T, a, c := p[0], p[1], p[2]
	t1 := 2 - c
	x = hutchExact(t)
	switch {
	case t < T:
	case t < 1+T:
		x += a * (2 - T)
		sx = [3]float64{-a, 2 - T, 0}
	default:
		x += a * (2 - T) * (2 + T - t)
		sx = [3]float64{a * (t - 2*T), (2 - T) * (2 + T - t), 0}
	}
	if t >= t1 {
		// x(t1) with t1 in (T, 1 + T); its derivative in c through t1
		// is -x'(t1) = d(t1) = c.
		y = hutchExact(t1) + a*(2-T)
		sy = [3]float64{-a, 2 - T, c}
	}
	if t > 1+T {
		w = hutchExact(1+T) + a*(2-T)
		sw = [3]float64{-hutchExact(T) - a, 2 - T, 0}
	}
	return x, y, w, sx, sy, sw
}

// TestEventsSensExact: S of hutchEvS through both events and the jump
// of the delayed value at 1 + T, against the method of steps by hand.
func TestEventsSensExact(t *testing.T) {
	p := []float64{1.25, 0.8, 0.6}
	ts := []float64{0, 0.5, 1.1, 1.3, 1.5, 2, 2.2, 2.3, 2.5, 2.9}
	for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
		set := &Settings{ODE: &ode.Settings{Method: meth, RTol: 1e-10, ATol: 1e-12}}
		r, err := SolveSens(hutchEvS{}, p, []float64{1, 0, 0}, nil, ts, set)
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		worst := 0.0
		for i, ti := range ts {
			x, y, w, sx, sy, sw := hutchEvSExact(ti, p)
			if got := r.XAt(i); math.Abs(got[0]-x) > 1e-8 || math.Abs(got[1]-y) > 1e-8 || math.Abs(got[2]-w) > 1e-8 {
				t.Errorf("%v: (x, y, w)(%g) = %.12g, want (%.12g, %.12g, %.12g)", meth, ti, got, x, y, w)
			}
			S := r.SAt(i)
			for j := 0; j < 3; j++ {
				e := math.Max(math.Abs(S[j]-sx[j]), math.Max(math.Abs(S[3+j]-sy[j]), math.Abs(S[6+j]-sw[j])))
				worst = math.Max(worst, e)
				if e > 1e-8 {
					t.Errorf("%v: S(%g) column %d = (%.12g, %.12g, %.12g), want (%.12g, %.12g, %.12g)", meth, ti, j, S[j], S[3+j], S[6+j], sx[j], sy[j], sw[j])
				}
			}
		}
		if len(r.Fired) != 3 || r.Fired[2].Event != 2 || math.Abs(r.Fired[2].T-(1+p[0])) > 1e-12 {
			t.Errorf("%v: fired %v, want E0, E1 and E2 at 1 + T", meth, r.Fired)
		}
		t.Logf("%v: worst |S - exact| %.2g at rtol 1e-10", meth, worst)
	}
}

// linEv is lin (x' = -a x(t - tau), x = c before the start, p = (a, tau,
// c)) with an event whose functions read no delayed value (no
// model.DelayEvents, only model.EventDerivs): when x falls to 1,
// x := x + 1. The event's time moves with every parameter, and so does
// t_e + tau, where its jump reaches f.
type linEv struct{ lin }

func (linEv) Name() string                                        { return "linEv" }
func (linEv) NumEvents() int                                      { return 1 }
func (linEv) EventInfo(int) model.EventInfo                       { return model.EventInfo{Name: "E", Persistent: true} }
func (linEv) NumRoots() int                                       { return 1 }
func (linEv) EventTargets(int) []int                              { return linEvTargets }
func (linEv) TriggersTo(dst []bool, t float64, x, p []float64)    { dst[0] = x[0] <= 1 }
func (linEv) RootsTo(dst []float64, t float64, x, p []float64)    { dst[0] = x[0] - 1 }
func (linEv) Delay(int, float64, []float64, []float64) float64    { return 0 }
func (linEv) Priority(int, float64, []float64, []float64) float64 { return 0 }
func (linEv) EventAssign(_ int, _ float64, x, _, dst []float64)   { dst[0] = x[0] + 1 }
func (linEv) RootGrad(_ int, _ float64, _, _, dx, dp []float64) float64 {
	dx[0] = 1
	clear(dp)
	return 0
}
func (linEv) EventDeriv(_ int, _ float64, _, _ []float64, d *model.EventDeriv) {
	clear(d.X)
	clear(d.P)
	clear(d.T)
	d.X[1] = 1
}

var linEvTargets = []int{0}

var (
	_ model.EventDerivs = linEv{}
	_ model.DelaySens   = linEv{}
)

// TestEventsSensNoDelayReads: S through an event whose functions read
// no delayed value (the model's plain event derivatives), against
// fourth-order central differences of Solve (h = 1e-3 max(|p_j|, 1),
// DOPRI5 at rtol 1e-13, good to about 1e-8: fdSens's steps, 1e-2 |p_j|,
// move the breaking points t_e + tau across the outputs here), within
// 1e-7 of each column's largest entry. A missing jump of S is a
// fraction of the column.
func TestEventsSensNoDelayReads(t *testing.T) {
	m := linEv{}
	p := []float64{0.7, 1.3, 2}
	ts := []float64{0, 0.5, 1, 1.5, 2.2, 2.8, 3.5}
	set := &Settings{ODE: &ode.Settings{Method: ode.DOPRI5, RTol: 1e-13, ATol: 1e-15, MaxSteps: 1000000}, Events: &events.Settings{TTol: 1e-14}}
	np := len(p)
	want := make([]float64, len(ts)*np)
	for j := range p {
		h := 1e-3 * math.Max(math.Abs(p[j]), 1)
		var xs [4][]float64
		for s, sg := range []float64{2, 1, -1, -2} {
			q := slices.Clone(p)
			q[j] += sg * h
			r, err := Solve(m, q, []float64{q[2]}, ts, set)
			if err != nil {
				t.Fatal(err)
			}
			xs[s] = r.X
		}
		for k := range ts {
			want[k*np+j] = (-xs[0][k] + 8*xs[1][k] - 8*xs[2][k] + xs[3][k]) / (12 * h)
		}
	}
	for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
		r, err := SolveSens(m, p, []float64{p[2]}, nil, ts, &Settings{ODE: &ode.Settings{Method: meth, RTol: 1e-10, ATol: 1e-12}})
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		for j := 0; j < np; j++ {
			scale, e := 0.0, 0.0
			for k := range ts {
				scale = math.Max(scale, math.Abs(want[k*np+j]))
				e = math.Max(e, math.Abs(r.S[k*np+j]-want[k*np+j]))
			}
			t.Logf("%v: column %s: worst %.2g of its largest entry (events at %v)", meth, m.ParamNames()[j], e/scale, r.Fired)
			if e > 1e-7*scale {
				t.Errorf("%v: column %s: worst error %.3g of its largest entry, want <= 1e-7", meth, m.ParamNames()[j], e/scale)
			}
		}
	}
}
