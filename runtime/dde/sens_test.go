package dde

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// lin is x' = -a x(t - tau), x = c before the start and at it, with
// p = (a, tau, c): a linear DDE whose solution the method of steps gives
// in closed form, with a delay and a history that depend on p.
type lin struct{}

func (lin) Name() string                { return "lin" }
func (lin) StateNames() []string        { return []string{"x"} }
func (lin) ParamNames() []string        { return []string{"a", "tau", "c"} }
func (lin) DefaultParams(dst []float64) { copy(dst, []float64{0.7, 1.3, 2}) }
func (lin) InitialState(dst, p []float64) {
	dst[0] = p[2]
}
func (lin) InitialSens(dst, p []float64) { copy(dst, []float64{0, 0, 1}) }
func (m lin) F(dst []float64, t float64, x, p []float64) {
	m.FDelayed(dst, t, x, p, []float64{math.NaN()})
}
func (lin) JxPattern() *model.Pattern                   { return &model.Pattern{Rows: 1, Cols: 1, RowPtr: []int{0, 0}} }
func (lin) Jx(dst []float64, t float64, x, p []float64) {}
func (lin) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: 1, Cols: 3, RowPtr: []int{0, 1}, ColIdx: []int{0}}
}
func (lin) Jp(dst []float64, t float64, x, p []float64) { dst[0] = math.NaN() }
func (lin) NumDelays() int                              { return 1 }
func (lin) DelayInfo(k int) model.DelayInfo {
	return model.DelayInfo{Name: "delay(x, tau)", Constant: true}
}
func (lin) DelayArg(k int, t float64, x, p, d []float64) float64         { return x[0] }
func (lin) DelayTime(k int, t float64, x, p, d []float64) float64        { return p[1] }
func (lin) DelayHistory(k int, t float64, p []float64) float64           { return p[2] }
func (lin) FDelayed(dst []float64, t float64, x, p, d []float64)         { dst[0] = -p[0] * d[0] }
func (lin) JxDelayed(dst []float64, t float64, x, p, d []float64)        {}
func (lin) OutputsDelayedTo(dst []float64, t float64, x, p, d []float64) {}
func (lin) JpDelayed(dst []float64, t float64, x, p, d []float64)        { dst[0] = -d[0] }
func (lin) FdPattern() *model.Pattern {
	return &model.Pattern{Rows: 1, Cols: 1, RowPtr: []int{0, 1}, ColIdx: []int{0}}
}
func (lin) FdDelayed(dst []float64, t float64, x, p, d []float64) { dst[0] = -p[0] }
func (lin) DelayArgGrad(k int, t float64, x, p, d, dx, dp, dd []float64) float64 {
	dx[0] = 1
	clear(dp)
	clear(dd)
	return 0
}
func (lin) DelayTimeGrad(k int, t float64, x, p, d, dp []float64) { copy(dp, []float64{0, 1, 0}) }
func (lin) DelayHistoryGrad(k int, t float64, p, dp []float64) float64 {
	copy(dp, []float64{0, 0, 1})
	return 0
}

// linJump is lin with x(0) = 2c against the history c: x' jumps at
// t = tau, a point that moves with tau, so S jumps there.
type linJump struct{ lin }

func (linJump) Name() string                  { return "linJump" }
func (linJump) InitialState(dst, p []float64) { dst[0] = 2 * p[2] }
func (linJump) InitialSens(dst, p []float64)  { copy(dst, []float64{0, 0, 2}) }

// linExact is x and dx/d(a, tau, c) of lin on [0, 2 tau].
func linExact(t float64, p []float64) (x float64, s [3]float64) {
	a, tau, c := p[0], p[1], p[2]
	if t <= tau {
		return c * (1 - a*t), [3]float64{-c * t, 0, 1 - a*t}
	}
	u := t - tau
	x = c*(1-a*tau) - a*c*(u-a*u*u/2)
	return x, [3]float64{-c*tau - c*u + a*c*u*u, -a * a * c * u, x / c}
}

// logistic is Hutchinson's delayed logistic equation x' = r x (1 -
// x(t - tau)/K), x = x0 before the start and at it, p = (r, K, tau, x0):
// nonlinear, with a parameter-dependent delay and history.
type logistic struct{ lin }

func (logistic) Name() string                { return "logistic" }
func (logistic) ParamNames() []string        { return []string{"r", "K", "tau", "x0"} }
func (logistic) DefaultParams(dst []float64) { copy(dst, []float64{1.2, 2, 0.9, 0.3}) }
func (logistic) InitialState(dst, p []float64) {
	dst[0] = p[3]
}
func (logistic) InitialSens(dst, p []float64) { copy(dst, []float64{0, 0, 0, 1}) }
func (m logistic) F(dst []float64, t float64, x, p []float64) {
	m.FDelayed(dst, t, x, p, []float64{math.NaN()})
}
func (logistic) JxPattern() *model.Pattern {
	return &model.Pattern{Rows: 1, Cols: 1, RowPtr: []int{0, 1}, ColIdx: []int{0}}
}
func (logistic) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: 1, Cols: 4, RowPtr: []int{0, 2}, ColIdx: []int{0, 1}}
}
func (logistic) Jx(dst []float64, t float64, x, p []float64) { dst[0] = math.NaN() }
func (logistic) Jp(dst []float64, t float64, x, p []float64) { dst[0], dst[1] = math.NaN(), math.NaN() }
func (logistic) DelayTime(k int, t float64, x, p, d []float64) float64 {
	return p[2]
}
func (logistic) DelayHistory(k int, t float64, p []float64) float64 { return p[3] }
func (logistic) FDelayed(dst []float64, t float64, x, p, d []float64) {
	dst[0] = p[0] * x[0] * (1 - d[0]/p[1])
}
func (logistic) JxDelayed(dst []float64, t float64, x, p, d []float64) {
	dst[0] = p[0] * (1 - d[0]/p[1])
}
func (logistic) JpDelayed(dst []float64, t float64, x, p, d []float64) {
	dst[0] = x[0] * (1 - d[0]/p[1])
	dst[1] = p[0] * x[0] * d[0] / (p[1] * p[1])
}
func (logistic) FdDelayed(dst []float64, t float64, x, p, d []float64) {
	dst[0] = -p[0] * x[0] / p[1]
}
func (logistic) DelayTimeGrad(k int, t float64, x, p, d, dp []float64) {
	copy(dp, []float64{0, 0, 1, 0})
}
func (logistic) DelayHistoryGrad(k int, t float64, p, dp []float64) float64 {
	copy(dp, []float64{0, 0, 0, 1})
	return 0
}

// fdStep is the largest relative step of fdSens.
const fdStep = 1e-2

// fdSettings are those of the solves behind fdSens: DOPRI5 at a fixed
// step of 1e-3 (the error test never rejects at rtol 0.5, and HMax caps
// the step), so that the computed solution is a smooth function of p
// and its differences are not the noise of a changing step sequence;
// its error, O(h^5), is below 1e-14. BDF at rtol 1e-13 instead gave
// differences 5e-9 off on the delayed logistic equation (order and step
// changes), adaptive DOPRI5 at 1e-13 4e-11.
var fdSettings = &Settings{ODE: &ode.Settings{Method: ode.DOPRI5, RTol: 0.5, ATol: 1, HMax: 1e-3, H0: 1e-3}}

// fdSens is dx/dp at ts by central differences of Solve, Richardson-
// extrapolated twice from steps h, h/2 and h/4 (h = fdStep |p_j|, error
// O(h^6)), each solve with fdSettings: the reference the sensitivities
// are checked against. One extrapolation was not enough: on the delayed
// logistic equation at t = 7 the derivative in tau changes by 3e-2
// between h = 1e-2 and h -> 0 (its higher derivatives in tau are large),
// and h small enough for O(h^4) lets the solves' rounding through.
func fdSens(t *testing.T, m model.Model, p, ts []float64) []float64 {
	t.Helper()
	nx, np := model.NumStates(m), len(p)
	set := fdSettings
	x := func(q []float64) []float64 {
		x0 := make([]float64, nx)
		m.InitialState(x0, q)
		r, err := Solve(m, q, x0, ts, set)
		if err != nil {
			t.Fatal(err)
		}
		return r.X
	}
	out := make([]float64, len(ts)*nx*np)
	for j := range p {
		cd := func(h float64) []float64 {
			q := append([]float64(nil), p...)
			q[j] = p[j] + h
			xp := x(q)
			q[j] = p[j] - h
			xm := x(q)
			for i := range xp {
				xp[i] = (xp[i] - xm[i]) / (2 * h)
			}
			return xp
		}
		h := fdStep * math.Max(math.Abs(p[j]), 1e-3)
		d1, d2, d3 := cd(h), cd(h/2), cd(h/4)
		for k := range ts {
			for i := 0; i < nx; i++ {
				e := k*nx + i
				r1, r2 := (4*d2[e]-d1[e])/3, (4*d3[e]-d2[e])/3
				out[k*nx*np+i*np+j] = (16*r2 - r1) / 15
			}
		}
	}
	return out
}

// worst is max |got - want| / (rtol max(1, |want|)) over all entries.
func worst(got, want []float64, rtol float64) (float64, int) {
	w, at := 0.0, -1
	for i := range want {
		if e := math.Abs(got[i]-want[i]) / (rtol * math.Max(1, math.Abs(want[i]))); e > w || math.IsNaN(e) {
			w, at = e, i
			if math.IsNaN(e) {
				return math.Inf(1), i
			}
		}
	}
	return w, at
}

func TestSensLinearExact(t *testing.T) {
	m := lin{}
	p := make([]float64, 3)
	m.DefaultParams(p)
	ts := []float64{0, 0.4, 1.3, 1.7, 2.2, 2.6}
	for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
		r, err := SolveSens(m, p, []float64{p[2]}, nil, ts, &Settings{ODE: &ode.Settings{Method: meth, RTol: 1e-10, ATol: 1e-12}})
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		var got, want []float64
		for i, ti := range ts {
			x, s := linExact(ti, p)
			want = append(want, x, s[0], s[1], s[2])
			got = append(got, r.XAt(i)[0])
			got = append(got, r.SAt(i)...)
		}
		w, at := worst(got, want, 1e-10)
		t.Logf("%v: worst error %.2g x rtol 1e-10 (entry %d: %.12g, exact %.12g)", meth, w, at, got[at], want[at])
		if w > 10 {
			t.Errorf("%v: worst error %.3g x rtol, want <= 10", meth, w)
		}
	}
}

func TestSensFiniteDifferences(t *testing.T) {
	if testing.Short() {
		t.Skip("finite differences at rtol 1e-13")
	}
	for _, c := range []struct {
		m  model.Model
		ts []float64
	}{
		{lin{}, []float64{0, 0.5, 1.2, 2, 3.1, 4.5, 6}},
		{logistic{}, []float64{0, 1, 2.5, 4, 7, 10}},
		{linJump{}, []float64{0, 0.5, 1.2, 2, 3.1, 4.5, 6}},
	} {
		m := c.m
		p := make([]float64, model.NumParams(m))
		m.DefaultParams(p)
		x0 := make([]float64, model.NumStates(m))
		m.InitialState(x0, p)
		want := fdSens(t, m, p, c.ts)
		// The bounds: DOPRI5 within 10x of rtol; BDF's global error is
		// larger (28x on the delayed logistic equation at t = 7, the
		// integrator's own: the sensitivities converge to the reference
		// as rtol falls, DOPRI5 at the same rtol is within 1x, and the
		// states alone, by Solve with BDF at rtol 1e-10, are 41x off).
		for _, mb := range []struct {
			meth  ode.Method
			bound float64
		}{{ode.BDF, 50}, {ode.DOPRI5, 10}} {
			r, err := SolveSens(m, p, x0, nil, c.ts, &Settings{ODE: &ode.Settings{Method: mb.meth, RTol: 1e-10, ATol: 1e-12}})
			if err != nil {
				t.Fatalf("%s: %v", m.Name(), err)
			}
			w, at := worst(r.S, want, 1e-10)
			t.Logf("%s %v: worst S error against finite differences %.2g x rtol 1e-10 (entry %d: %.12g, fd %.12g)", m.Name(), mb.meth, w, at, r.S[at], want[at])
			if w > mb.bound {
				t.Errorf("%s %v: worst error %.3g x rtol, want <= %g", m.Name(), mb.meth, w, mb.bound)
			}
		}
	}
}

// linState is lin with its delay declared state-dependent.
type linState struct{ lin }

func (linState) DelayInfo(k int) model.DelayInfo { return model.DelayInfo{Name: "delay(x, tau)"} }

// A model without model.DelaySens, or with a state-dependent delay, is
// refused by name.
func TestSensRefused(t *testing.T) {
	if _, err := SolveSens(hutch{}, []float64{1}, []float64{1}, nil, []float64{0, 1}, nil); !errors.Is(err, ErrSens) || !strings.Contains(err.Error(), "DelaySens") {
		t.Errorf("hutch: err = %v, want ErrSens naming DelaySens", err)
	}
	p := []float64{0.7, 1.3, 2}
	if _, err := SolveSens(linState{}, p, []float64{2}, nil, []float64{0, 1}, nil); !errors.Is(err, ErrSens) || !strings.Contains(err.Error(), "delay(x, tau)") {
		t.Errorf("state-dependent delay: err = %v, want ErrSens naming the delay", err)
	}
	if _, err := SolveSens(lin{}, p, []float64{2}, []float64{1}, []float64{0, 1}, nil); err == nil {
		t.Error("s0 of the wrong length accepted")
	}
}

// The right-hand side of SolveSens allocates nothing, nested lookups
// and derivatives in time included.
func TestSensRHSAllocs(t *testing.T) {
	m := logistic{}
	p := []float64{1.2, 2, 0.9, 0.3}
	z0 := []float64{0.3, 0, 0, 0, 1}
	h := newHistory(m, m, p, z0, 0)
	r := newSensRHS(m, m, h, p, []float64{0.9})
	dst := make([]float64, len(z0))
	z := []float64{0.5, 0.1, 0.2, 0.3, 1.1}
	jx := make([]float64, r.JxPattern().NNZ())
	if n := testing.AllocsPerRun(100, func() {
		r.F(dst, 0.5, z, p) // before the start: the history
		r.F(dst, 1.5, z, p) // in the solution: e' through x' = f
		r.Jx(jx, 0.5, z, p)
	}); n != 0 {
		t.Errorf("F and Jx allocate %v times", n)
	}
}

// A history that does not meet x0 (linJump: x(0) = 4, history 2) is
// read as the history at the end of the segment before t0 + tau: the
// integrator's last stage lands there, and reading the solution instead
// was an O(h) error (1.8e-3 at a fixed step of 1e-2).
func TestHistoryLeftLimit(t *testing.T) {
	p := []float64{0.7, 1.3, 2}
	exact := func(tt float64) float64 {
		a, c := p[0], p[2]
		if tt <= p[1] {
			return 2*c - a*c*tt
		}
		u := tt - p[1]
		return 2*c - a*c*p[1] - 2*c*a*u + a*a*c*u*u/2
	}
	ts := []float64{0, 1, 1.3, 1.31, 2}
	for _, set := range []*Settings{
		{ODE: &ode.Settings{Method: ode.DOPRI5, RTol: 0.5, ATol: 1, HMax: 1e-2, H0: 1e-2}},
		{ODE: &ode.Settings{RTol: 1e-10, ATol: 1e-12}},
	} {
		r, err := Solve(linJump{}, p, []float64{4}, ts, set)
		if err != nil {
			t.Fatal(err)
		}
		for i, ti := range ts {
			if got, want := r.X[i], exact(ti); math.Abs(got-want) > 1e-8 {
				t.Errorf("%v: x(%g) = %.12g, want %.12g", set.ODE.Method, ti, got, want)
			}
		}
	}
}
