package testmodels

import (
	"fmt"

	"github.com/pbgen/pbgen/runtime/model"
)

// Dosing is a model with repeated bolus doses added: N events, event k at
// t >= T_k = T0 + k Period (T0 = p[TParam] when TParam >= 0, so that the
// dose times move with a parameter), each adding Scale p[Param] to state
// State. It makes any model an event-heavy one (daily doses on a network
// of PKA's size in cmd/pbbench's events section) with the events'
// derivatives exact, for runtime/events and CVODES's event loop alike.
// Build it with NewDosing; it is immutable and safe for concurrent use.
type Dosing struct {
	model.Model
	state, param, tparam int
	scale, t0, period    float64
	n                    int
	target               []int
	nx, np               int
}

var _ model.EventDerivs = (*Dosing)(nil)

// NewDosing wraps m with n doses of scale p[param] into state, at t0 +
// k period (t0 replaced by p[tparam] when tparam >= 0). Indices out of
// range, n < 1 or period <= 0 are an error.
func NewDosing(m model.Model, state, param, tparam int, scale, t0, period float64, n int) (*Dosing, error) {
	nx, np := model.NumStates(m), model.NumParams(m)
	if state < 0 || state >= nx || param < 0 || param >= np || tparam >= np || n < 1 || !(period > 0) {
		return nil, fmt.Errorf("testmodels: dosing of %q: bad state %d, parameter %d or %d, %d doses or period %g", m.Name(), state, param, tparam, n, period)
	}
	return &Dosing{Model: m, state: state, param: param, tparam: tparam, scale: scale, t0: t0, period: period,
		n: n, target: []int{state}, nx: nx, np: np}, nil
}

func (d *Dosing) start(p []float64) float64 {
	if d.tparam >= 0 {
		return p[d.tparam]
	}
	return d.t0
}

// NumEvents is the number of doses.
func (d *Dosing) NumEvents() int { return d.n }

// EventInfo names dose k; its trigger is false before the start.
func (d *Dosing) EventInfo(k int) model.EventInfo {
	return model.EventInfo{Name: fmt.Sprint("dose", k), InitialValue: true, Persistent: true, UseValuesFromTriggerTime: true}
}

// TriggersTo writes t >= T_k for each dose.
func (d *Dosing) TriggersTo(dst []bool, t float64, x, p []float64) {
	t0 := d.start(p)
	for k := range dst {
		dst[k] = t >= t0+float64(k)*d.period
	}
}

// NumRoots is one root per dose.
func (d *Dosing) NumRoots() int { return d.n }

// RootsTo writes t - T_k.
func (d *Dosing) RootsTo(dst []float64, t float64, x, p []float64) {
	t0 := d.start(p)
	for k := range dst {
		dst[k] = t - (t0 + float64(k)*d.period)
	}
}

// Delay is 0: doses have none.
func (d *Dosing) Delay(k int, t float64, x, p []float64) float64 { return 0 }

// Priority is 0: doses have none.
func (d *Dosing) Priority(k int, t float64, x, p []float64) float64 { return 0 }

// EventTargets is the dosed state.
func (d *Dosing) EventTargets(k int) []int { return d.target }

// EventAssign writes x[state] + scale p[param].
func (d *Dosing) EventAssign(k int, t float64, x, p, dst []float64) {
	dst[0] = x[d.state] + d.scale*p[d.param]
}

// RootGrad: d(t - T_k) is 1 in t and -1 in p[tparam].
func (d *Dosing) RootGrad(j int, t float64, x, p, dx, dp []float64) float64 {
	clear(dx)
	clear(dp)
	if d.tparam >= 0 {
		dp[d.tparam] = -1
	}
	return 1
}

// EventDeriv: no delay (row 0 zero); the new value has derivative 1 in
// the state and scale in p[param].
func (d *Dosing) EventDeriv(k int, t float64, x, p []float64, dd *model.EventDeriv) {
	clear(dd.X)
	clear(dd.P)
	clear(dd.T)
	dd.X[d.nx+d.state] = 1
	dd.P[d.np+d.param] = d.scale
}
