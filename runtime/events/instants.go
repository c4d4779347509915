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
// The switches of the model's right-hand side (model.Switches) end
// Locate's scan as in Solve; the caller integrates again up to the old
// side of the jump (Switched) and steps across it (Across), and the
// instant Handle then handles moves S by (f- - f+) dtau/dp.
// An Instants is for one solve and one goroutine.
type Instants struct {
	s   solver
	res Result
	// The instant Locate found, for the sensitivities' dtau at Handle:
	// located, its time and the root that crossed (or modeNearest).
	located bool
	locT    float64
	locMode int
	jumped  bool // the last Handle's instant moved S
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
	v.located = false
	s.haveLast = false
	s.setMode(modeFixed)
	return v.doHandle(t0, x0)
}

// Sens makes the instants carry the sensitivities S = dx/dp (all of the
// model's parameters) across the events, as SolveSens does (see
// "Sensitivities"), with ed's derivatives and the model's F for f- and
// f+: the caller writes S (SensView) before Start or Handle and reads it
// after. A caller whose event functions read values only it knows (the
// delayed values of runtime/dde) passes an ed that folds their
// derivatives in: dg/dp and dg/dt of the totals along the solution.
func (v *Instants) Sens(ed model.EventDerivs) {
	s := &v.s
	if s.ev == nil {
		return
	}
	params := make([]int, len(s.p))
	for j := range params {
		params[j] = j
	}
	s.sv = newSensState(s, ed, params)
}

// SensView is S, nx x NumParams row-major, that Handle updates (a view;
// nil without Sens).
func (v *Instants) SensView() []float64 {
	if v.s.sv == nil {
		return nil
	}
	return v.s.sv.sm
}

// DTau returns dtau/dp of the last instant handled (a view) and whether
// S moved there (an execution, which also moves the state); false when
// nothing executed or without Sens.
func (v *Instants) DTau() ([]float64, bool) {
	if v.s.sv == nil {
		return nil, false
	}
	return v.s.sv.dtau, v.jumped
}

// MovesWith sets the time derivative dtau/dp (NumParams values, copied)
// of the next instant Handle handles, for a caller that knows why the
// triggers change there: runtime/dde, where a delayed value that a
// trigger reads jumps at t_s + tau_k, a time that moves with p by its own
// derivative, not by the root function's crossing (whose formula assumes
// a continuous root). A queued execution due there keeps its own, and
// an instant Locate found where a root crossed moves with that root. nil
// (or a Handle) clears it.
func (v *Instants) MovesWith(dtau []float64) {
	sv := v.s.sv
	if sv == nil {
		return
	}
	if dtau == nil {
		sv.moves = nil
		return
	}
	if cap(sv.movesBuf) < len(dtau) {
		sv.movesBuf = make([]float64, len(dtau))
	}
	sv.moves = sv.movesBuf[:len(dtau)]
	copy(sv.moves, dtau)
}

// doHandle is handle with the sensitivities' record of whether S moved.
func (v *Instants) doHandle(t float64, x []float64) error {
	v.jumped = false
	if sv := v.s.sv; sv != nil {
		sv.jumped = false
		err := v.s.handle(t, x)
		v.jumped, sv.moves = sv.jumped, nil
		return err
	}
	return v.s.handle(t, x)
}

// Locate looks for the first trigger change in the integration tr, step
// by step with its dense output (as Solve does). It returns the time and
// the state there (a view, valid until the next call) and whether one was
// found.
// The points of tr may be longer than the state (x first, then what the
// caller integrates with it, such as S): the model sees the state alone.
func (v *Instants) Locate(tr *ode.Trajectory) (float64, []float64, bool) {
	t, x, ok := v.s.scan(tr)
	v.located, v.locT, v.locMode = ok, t, modeNearest
	if ok && v.s.root >= 0 {
		v.locMode = v.s.root
	}
	return t, x, ok
}

// Switched reports whether the change the last Locate found is a switch
// of f (model.Switches) and the left end of its bracket tl, the last
// time known on the old side of the jump: the steps Locate scanned
// straddle the jump, so the caller integrates again from the segment's
// start up to tl, and steps across with Across.
func (v *Instants) Switched() (float64, bool) {
	if !v.located || !v.s.swHit {
		return 0, false
	}
	return v.s.tl, true
}

// Across carries the state over a switch Locate found at tc (Switched),
// as Solve does: tr is the caller's integration again from the segment's
// start up to tl, or nil where tl is that start (the state there is
// Locate's). If the switch has already crossed on tr, tl moves back to
// the left end of the crossing's bracket on tr (Switched then reports
// it; the caller takes what it integrates with the state, such as S,
// at that tl). The state is carried from tl with f- to a time t+ at
// which the switch is strictly on its new side: Across returns t+ and
// the state there (a view, valid until the next call), and the instant
// at t+ moves, for Handle's sensitivities, with the switch's root. The
// points of tr may be longer than the state, as for Locate. A switch
// that is still not on its new side after its distance from tl has been
// doubled 30 times (it crossed and came back at once: in runtime/dde, a
// root on a delayed value that jumps back where it crosses) is an error
// naming the root and the time: Solve would carry the state that far
// with f-.
func (v *Instants) Across(tr *ode.Trajectory, tc float64) (float64, []float64, error) {
	s := &v.s
	xl := s.xl
	if tr != nil && tr.Len() > 0 {
		xl, tc = s.oldSide(tr, tc)
	}
	tc, err := s.acrossSwitch(xl, tc)
	v.locT = tc
	if err != nil {
		return tc, s.xbuf, err
	}
	return tc, s.xbuf, nil
}

// Handle applies the events at (t, x): trigger changes queue or cancel
// executions, due executions run by priority (x is modified). It returns
// ErrTooManyEvents (wrapped) or an invalid event delay as an error.
// With Sens, an instant at the time Locate returned moves with the root
// that crossed there; any other (a queued execution, a segment's end)
// with the queued execution's time, or not at all.
func (v *Instants) Handle(t float64, x []float64) error {
	if v.located && t == v.locT {
		v.s.setMode(v.locMode)
	} else {
		v.s.setMode(modeQueue)
	}
	v.located = false
	return v.doHandle(t, x)
}

// Next is where an integration that would end at tout must stop: tout,
// or the earliest queued execution before it.
func (v *Instants) Next(tout float64) float64 { return v.s.segmentEnd(tout) }

// Tol is the location tolerance at t: times closer than it are one.
func (v *Instants) Tol(t float64) float64 { return v.s.tol(t) }

// Fired returns the executions so far, in order (a view).
func (v *Instants) Fired() []Fired { return v.res.Fired }
