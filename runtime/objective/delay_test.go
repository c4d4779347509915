package objective_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// lag is x' = -k x(t - tau), x = a before and at t = 0 (parameters k,
// tau, a), observed as y = x with sigma 0.1. By the method of steps
//
//	[0, tau]:    x = a (1 - k t)
//	[tau, 2tau]: x = a (1 - k t + k^2 (t - tau)^2 / 2)
//
// so the likelihood, its gradient and the FIM are in closed form, dtau/dp
// and the history's dH/da included. It implements model.DelaySens by
// hand; the plain F and Jp are NaN, as model.Delays asks.
type lag struct{ jx, jp, fd *model.Pattern }

func newLag() *lag {
	return &lag{jx: pattern(1, 1, []int{1}), jp: pattern(1, 3, []int{1, 0, 0}), fd: pattern(1, 1, []int{1})}
}

func (*lag) Name() string                                { return "lag" }
func (*lag) StateNames() []string                        { return []string{"x"} }
func (*lag) ParamNames() []string                        { return []string{"k", "tau", "a"} }
func (*lag) DefaultParams(dst []float64)                 { copy(dst, []float64{0.5, 0.8, 1.2}) }
func (*lag) InitialState(dst, p []float64)               { dst[0] = p[2] }
func (*lag) InitialSens(dst, p []float64)                { copy(dst, []float64{0, 0, 1}) }
func (*lag) F(dst []float64, _ float64, x, p []float64)  { dst[0] = math.NaN() }
func (m *lag) JxPattern() *model.Pattern                 { return m.jx }
func (*lag) Jx(dst []float64, _ float64, x, p []float64) { dst[0] = 0 }
func (m *lag) JpPattern() *model.Pattern                 { return m.jp }
func (*lag) Jp(dst []float64, _ float64, x, p []float64) { dst[0] = math.NaN() }

func (*lag) NumDelays() int { return 1 }
func (*lag) DelayInfo(int) model.DelayInfo {
	return model.DelayInfo{Name: "delay(x, tau)", Constant: true}
}
func (*lag) DelayArg(_ int, _ float64, x, _, _ []float64) float64  { return x[0] }
func (*lag) DelayTime(_ int, _ float64, _, p, _ []float64) float64 { return p[1] }
func (*lag) DelayHistory(_ int, _ float64, p []float64) float64    { return p[2] }
func (*lag) FDelayed(dst []float64, _ float64, _, p, d []float64)  { dst[0] = -p[0] * d[0] }
func (*lag) JxDelayed(dst []float64, _ float64, _, _, _ []float64) { dst[0] = 0 }
func (*lag) OutputsDelayedTo([]float64, float64, []float64, []float64, []float64) {
}
func (*lag) JpDelayed(dst []float64, _ float64, _, _, d []float64) { dst[0] = -d[0] }
func (m *lag) FdPattern() *model.Pattern                           { return m.fd }
func (*lag) FdDelayed(dst []float64, _ float64, _, p, _ []float64) { dst[0] = -p[0] }
func (*lag) DelayArgGrad(_ int, _ float64, _, _, _, dx, dp, dd []float64) float64 {
	dx[0] = 1
	clear(dp)
	clear(dd)
	return 0
}
func (*lag) DelayTimeGrad(_ int, _ float64, _, _, _, dp []float64) { copy(dp, []float64{0, 1, 0}) }
func (*lag) DelayHistoryGrad(_ int, _ float64, _, dp []float64) float64 {
	copy(dp, []float64{0, 0, 1})
	return 0
}

func (*lag) ObservableIDs() []string     { return []string{"y"} }
func (*lag) Placeholders(int) (int, int) { return 0, 0 }
func (*lag) Observe(_ int, _ float64, x, _, _ []float64, d *model.ObsDeriv) (float64, float64) {
	if d != nil {
		d.HX[0], d.SX[0] = 1, 0
		clear(d.HP)
		clear(d.SP)
	}
	return x[0], 0.1
}

// lagProblem: theta = (log10 k, ln tau, a); condition "c1" maps all
// three, "c2" fixes k = 0.3 (a second column group, of two columns).
// The data lie within two delays of the start.
func lagProblem() *objective.Problem {
	th := func(a int) objective.Value { return objective.Value{Theta: a} }
	d := func(t, y float64) objective.Datum { return objective.Datum{Obs: 0, T: t, Y: y} }
	return &objective.Problem{
		Params: []objective.Param{
			{ID: "k", Scale: objective.Log10, Lower: 0.01, Upper: 10, Nominal: 0.5, Estimate: true},
			{ID: "tau", Scale: objective.Log, Lower: 0.1, Upper: 10, Nominal: 0.8, Estimate: true},
			{ID: "a", Scale: objective.Lin, Lower: 0.1, Upper: 10, Nominal: 1.2, Estimate: true},
		},
		Estimated:   []int{0, 1, 2},
		Observables: []objective.Observable{{ID: "y"}},
		Conditions: []objective.Condition{
			{ID: "c1", P: []objective.Value{th(0), th(1), th(2)}},
			{ID: "c2", P: []objective.Value{{Theta: -1, Const: 0.3}, th(1), th(2)}},
		},
		Experiments: []objective.Experiment{
			{Preeq: -1, Sim: 0, Data: []objective.Datum{d(0.4, 0.9), d(0.7, 0.75), d(1.2, 0.45), d(1.55, 0.3)}},
			{Preeq: -1, Sim: 1, Data: []objective.Datum{d(0.5, 1.0), d(1.5, 0.8)}},
		},
	}
}

// The objective through runtime/dde against the closed form: llh,
// gradient (theta on log10, ln and linear scales: dp/dtheta chained) and
// FIM at rtol 1e-10, the same for every method (dde.SolveSens for all).
func TestDelayClosedForm(t *testing.T) {
	prob := lagProblem()
	k1, tau, a := 0.5, 0.8, 1.2
	theta := []float64{math.Log10(k1), math.Log(tau), a}
	const sg = 0.1
	var llh float64
	grad := make([]float64, 3)
	fim := make([]float64, 9)
	for e, ks := range []float64{k1, 0.3} {
		for _, dt := range prob.Experiments[e].Data {
			tt := dt.T
			var x, dk, dtau float64
			if tt <= tau {
				x, dk = a*(1-ks*tt), -a*tt
			} else {
				s := tt - tau
				x, dk, dtau = a*(1-ks*tt+ks*ks*s*s/2), a*(-tt+ks*s*s), -a*ks*ks*s
			}
			// d/dtheta: k = 10^theta0 (c1 only), tau = e^theta1.
			dth := []float64{dk * ks * math.Ln10, dtau * tau, x / a}
			if e == 1 {
				dth[0] = 0
			}
			r := (x - dt.Y) / sg
			llh += -math.Log(math.Sqrt(2*math.Pi)*sg) - r*r/2
			for i := range dth {
				grad[i] += -r / sg * dth[i]
				for j := range dth {
					fim[i*3+j] += dth[i] * dth[j] / (sg * sg)
				}
			}
		}
	}
	for _, m := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
		o, err := objective.New(newLag(), prob, &objective.Options{Method: m, RTol: 1e-10, ATol: 1e-12, Grad: true, FIM: true})
		if err != nil {
			t.Fatal(err)
		}
		r := evalAt(t, o, theta)
		o.Close()
		if !close(r.LLH, llh, 1e-8) {
			t.Errorf("%v: llh %.12g, exact %.12g", m, r.LLH, llh)
		}
		for i := range grad {
			if !close(r.Grad[i], grad[i], 1e-7) {
				t.Errorf("%v: grad[%d] %.12g, exact %.12g", m, i, r.Grad[i], grad[i])
			}
		}
		for i := range fim {
			if !close(r.FIM[i], fim[i], 1e-7) {
				t.Errorf("%v: FIM[%d,%d] %.12g, exact %.12g", m, i/3, i%3, r.FIM[i], fim[i])
			}
		}
	}
}

// lagNoSens is lag without model.DelaySens.
type lagNoSens struct {
	model.Model
	model.Observables
	model.Delays
}

// A gradient that needs S of a model without model.DelaySens is refused
// by New, naming the delay and why; the llh is still evaluated.
func TestDelaySensMissing(t *testing.T) {
	m := newLag()
	bare := lagNoSens{m, m, m}
	_, err := objective.New(bare, lagProblem(), &objective.Options{Grad: true})
	if !errors.Is(err, objective.ErrDelaySens) || !strings.Contains(err.Error(), "delay(x, tau)") || !strings.Contains(err.Error(), "model.DelaySens") {
		t.Fatalf("err = %v, want ErrDelaySens naming delay(x, tau) and model.DelaySens", err)
	}
	o, err := objective.New(bare, lagProblem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if r := evalAt(t, o, o.Nominal()); math.IsNaN(r.LLH) {
		t.Fatal("llh NaN")
	}
}

// lagEv is lag with an event at t >= 0.6 that reads the delayed value,
// x := x + 0.5 d (d = x(t - tau)), as model.DelayEvents, with
// model.EventDerivs but without the derivatives in d
// (model.DelayEventDerivs); lagEvD adds them.
type lagEv struct{ *lag }

func (lagEv) NumEvents() int                                      { return 1 }
func (lagEv) EventInfo(int) model.EventInfo                       { return model.EventInfo{Name: "bump", Persistent: true} }
func (lagEv) NumRoots() int                                       { return 1 }
func (lagEv) EventTargets(int) []int                              { return []int{0} }
func (lagEv) TriggersTo(dst []bool, t float64, _, _ []float64)    { dst[0] = t >= 0.6 }
func (lagEv) RootsTo(dst []float64, t float64, _, _ []float64)    { dst[0] = t - 0.6 }
func (lagEv) Delay(int, float64, []float64, []float64) float64    { return 0 }
func (lagEv) Priority(int, float64, []float64, []float64) float64 { return 0 }
func (lagEv) EventAssign(_ int, _ float64, x, _, dst []float64)   { dst[0] = math.NaN() }
func (e lagEv) TriggersDelayedTo(dst []bool, t float64, x, p, _ []float64) {
	e.TriggersTo(dst, t, x, p)
}
func (e lagEv) RootsDelayedTo(dst []float64, t float64, x, p, _ []float64) {
	e.RootsTo(dst, t, x, p)
}
func (lagEv) EventDelayDelayed(int, float64, []float64, []float64, []float64) float64 { return 0 }
func (lagEv) PriorityDelayed(int, float64, []float64, []float64, []float64) float64   { return 0 }
func (lagEv) EventAssignDelayed(_ int, _ float64, x, _, d, dst []float64)             { dst[0] = x[0] + 0.5*d[0] }
func (lagEv) RootGrad(_ int, _ float64, _, _, dx, dp []float64) float64 {
	clear(dx)
	clear(dp)
	return 1
}
func (lagEv) EventDeriv(_ int, _ float64, _, _ []float64, d *model.EventDeriv) {
	clear(d.X)
	clear(d.P)
	clear(d.T)
	d.X[1] = 1 // row 1, the value: dx/dx (d NaN: its derivative is not here)
}

type lagEvD struct{ lagEv }

func (e lagEvD) RootGradDelayed(j int, t float64, x, p, _, dx, dp, dd []float64) float64 {
	clear(dd)
	return e.RootGrad(j, t, x, p, dx, dp)
}
func (e lagEvD) EventDerivDelayed(k int, t float64, x, p, _ []float64, der *model.EventDeriv, dd []float64) {
	e.EventDeriv(k, t, x, p, der)
	clear(dd)
	dd[1] = 0.5
}

var _ model.DelayEventDerivs = lagEvD{}

// A model with delays and events: without the derivatives in the delayed
// values its events may read, a gradient is refused by name; with them,
// the gradient (dde.SolveSens through the event, S jumping at 0.6 and at
// 0.6 + tau) agrees with central differences of the llh.
func TestDelayEventsGradient(t *testing.T) {
	_, err := objective.New(lagEv{newLag()}, lagProblem(), &objective.Options{Grad: true})
	if !errors.Is(err, objective.ErrDelaySens) || !strings.Contains(err.Error(), "model.DelayEventDerivs") {
		t.Fatalf("err = %v, want ErrDelaySens naming model.DelayEventDerivs", err)
	}
	m := lagEvD{lagEv{newLag()}}
	o, err := objective.New(m, lagProblem(), &objective.Options{Grad: true, RTol: 1e-10, ATol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	ref, err := objective.New(m, lagProblem(), &objective.Options{RTol: 1e-12, ATol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	theta := o.Nominal()
	g := evalAt(t, o, theta).Grad
	scale, worst := 0.0, 0.0
	fd := make([]float64, len(theta))
	for a := range theta {
		h := 1e-4
		th := append([]float64(nil), theta...)
		th[a] = theta[a] + h
		up := evalAt(t, ref, th).LLH
		th[a] = theta[a] - h
		fd[a] = (up - evalAt(t, ref, th).LLH) / (2 * h)
		scale = math.Max(scale, math.Abs(fd[a]))
	}
	for a := range fd {
		e := math.Abs(g[a]-fd[a]) / scale
		worst = math.Max(worst, e)
		if e > 1e-6 {
			t.Errorf("grad[%d] %.10g, central differences %.10g", a, g[a], fd[a])
		}
	}
	t.Logf("worst gradient error %.2g of max |grad| %.4g", worst, scale)
}
