package events

import (
	"math/rand/v2"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// Instants is the event handling of Solve for a caller that integrates
// the state itself: it locates trigger changes on the caller's
// integration (an ode.Trajectory) and applies the SBML semantics at the
// instants the caller stops at (see "SBML semantics"). runtime/dde uses
// it for models with delays, whose right-hand side and event functions
// read the solution's history, which only that solver keeps.
//
// The switches of the model's right-hand side (model.Switches) are not
// handled: the model handed to NewInstants should not implement it.
// An Instants is for one solve and one goroutine.
type Instants struct {
	s   solver
	res Result
}

// NewInstants returns the event handling of m (which must implement
// model.Events) with parameters p (kept, not modified). Settings: TTol,
// MaxEvents and Seed as in Solve; ODE is ignored.
func NewInstants(m model.Model, p []float64, set *Settings) *Instants {
	if m == nil {
		panic("events: nil model")
	}
	v := &Instants{}
	s := &v.s
	*s = solver{m: m, p: p, nx: model.NumStates(m), ttol: 1e-12, maxEv: 10000}
	var seed uint64
	if set != nil {
		seed = set.Seed
		if set.TTol > 0 {
			s.ttol = set.TTol
		}
		if set.MaxEvents > 0 {
			s.maxEv = set.MaxEvents
		}
	}
	s.rng = rand.New(rand.NewPCG(seed, seed))
	s.setup(m)
	s.nsw = 0
	v.res.NX = s.nx
	s.res = &v.res
	return v
}

// Start sets the triggers to their values before t0
// (EventInfo.InitialValue) and handles the events at (t0, x0); x0 is
// modified by the executions there.
func (v *Instants) Start(t0 float64, x0 []float64) error {
	s := &v.s
	if s.ev == nil {
		return nil
	}
	for k := range s.trig {
		s.trig[k] = s.info[k].InitialValue
	}
	return s.handle(t0, x0)
}

// Locate looks for the first trigger change in the integration tr, step
// by step with its dense output (as Solve does). It returns the time and
// the state there (a view, valid until the next call) and whether one was
// found.
func (v *Instants) Locate(tr *ode.Trajectory) (float64, []float64, bool) {
	return v.s.scan(tr)
}

// Handle applies the events at (t, x): trigger changes queue or cancel
// executions, due executions run by priority (x is modified). It returns
// ErrTooManyEvents (wrapped) or an invalid event delay as an error.
func (v *Instants) Handle(t float64, x []float64) error { return v.s.handle(t, x) }

// Next is where an integration that would end at tout must stop: tout,
// or the earliest queued execution before it.
func (v *Instants) Next(tout float64) float64 { return v.s.segmentEnd(tout) }

// Tol is the location tolerance at t: times closer than it are one.
func (v *Instants) Tol(t float64) float64 { return v.s.tol(t) }

// Fired returns the executions so far, in order (a view).
func (v *Instants) Fired() []Fired { return v.res.Fired }
