//go:build cvodes

package cvodes

/*
#include <stdint.h>
#include "events_bridge.h"
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/pbgen/pbgen/runtime/model"
)

// EventSolver integrates a model with events (model.EventDerivs) through
// CVODES's own root finding: CVodeRootInit on the model's root
// functions, and at every root CVode returns, the events whose triggers
// went from false to true execute, S jumps, and CVODES restarts there
// (CVodeReInit, CVodeSensReInit), as AMICI drives it. It is the peer of
// runtime/events in benchmarks, so it covers the events that benchmarks
// use and refuses the rest at NewEvents: no delays and no priorities
// (events true at one instant execute in document order, their triggers
// re-evaluated after each). Switches of the right-hand side
// (model.Switches) are roots too: CVODES stops there, S jumps by
// (f- - f+) dtau (see cross) and it restarts on the new side. Like
// Solver it is not safe for concurrent use; Close frees it.
//
// At an event at tau where root g crosses zero S jumps as in
// runtime/events: dtau/dp = -(g_x S + g_p)/(g_x f + g_t), D = S- + f- dtau,
// an assignment x := h maps its targets' rows of D to h_x D + h_t dtau +
// h_p, and S+ = D - f+ dtau.
//
// CVODES reports a root where its function has changed sign or is
// exactly zero, and at an exact zero a strict relation (X > c at X = c)
// has not changed yet. A root function that is zero where CVODES starts
// or restarts (CVodeRootInit's cvRcheck1 and the check after a returned
// root) is masked until it leaves zero, and that move is never reported
// as a root, so the event would be lost for good (statetrigger.xml once
// fired none of its harvests). After every instant a root exactly zero
// is therefore followed a moment on, where the trigger changes, and the
// instant happens there, as runtime/events does (see lookAhead).
type EventSolver struct {
	s    *Solver
	ev   model.EventDerivs
	info []model.EventInfo
	ne   int
	nr   int
	nsw  int // switches of f: the last nsw roots

	// per solve, preallocated
	found           []C.int
	trig, now       []bool
	x, sm, d        []float64
	f, gx, gp, dtau []float64
	vals, rows      []float64
	der, cur        model.EventDeriv
	fired           int
	log             []Execution // the executions of the last solve
	xa              []float64   // the state looked ahead to
	g               []float64   // root function values
	xm, fm          []float64   // the old side of a switch: x and f there
	tret            []C.double  // CVode's time reached, on the heap: cgo would move a local there
	begun           bool
	root            int
	xb              []float64 // e.x before lookAhead moved it
	look            bool      // an instant just ended: look for a trigger change just after it
	start           EventStart
	tEnd            float64   // the last output time of the last solve, NaN if it failed or was Open
	base, last      Stats     // CVODES's counters at the last tally (since the restart); this solve's
	x0, s0          []float64 // EventSensSolver's start buffers, made on first use
	swDtau          []float64 // ns: dtau of the last switch crossed (cross), at time swT
	swT             float64
}

// NewEvents creates a CVODES solver with root finding for m, which must
// implement model.EventDerivs; opt as for New (opt.Sens: sensitivities
// with respect to all parameters, carried across the events).
func NewEvents(m model.Model, opt Options) (*EventSolver, error) {
	ev, ok := m.(model.EventDerivs)
	if !ok {
		return nil, fmt.Errorf("cvodes: model %q has no events with derivatives (model.EventDerivs)", m.Name())
	}
	e := &EventSolver{ev: ev, ne: ev.NumEvents(), nr: ev.NumRoots()}
	if sw, ok := m.(model.Switches); ok {
		e.nsw = min(max(sw.NumSwitches(), 0), e.nr)
	}
	maxT := 0
	for k := 0; k < e.ne; k++ {
		inf := ev.EventInfo(k)
		if inf.HasDelay || inf.HasPriority {
			return nil, fmt.Errorf("cvodes: model %q: event %q has a delay or priority, which the CVODES event loop does not support", m.Name(), inf.Name)
		}
		e.info = append(e.info, inf)
		maxT = max(maxT, len(ev.EventTargets(k)))
	}
	s, err := New(m, opt)
	if err != nil {
		return nil, err
	}
	e.s = s
	if e.nr > 0 {
		if flag := C.pbcv_ev_rootinit(s.pb, C.int(e.nr)); flag < 0 {
			err := s.flagError(flag, 0, math.NaN())
			s.Close()
			return nil, err
		}
	}
	nx, np, ns := s.nx, s.np, s.ns
	e.found = make([]C.int, max(e.nr, 1))
	e.tret = make([]C.double, 1)
	e.trig, e.now = make([]bool, e.ne), make([]bool, e.ne)
	e.xa, e.xb, e.g = make([]float64, nx), make([]float64, nx), make([]float64, e.nr)
	e.tEnd = math.NaN()
	e.xm, e.fm = make([]float64, nx), make([]float64, nx)
	e.x, e.sm, e.d = make([]float64, nx), make([]float64, max(nx*ns, 1)), make([]float64, nx*ns)
	e.f, e.gx, e.gp, e.dtau = make([]float64, nx), make([]float64, nx), make([]float64, np), make([]float64, ns)
	e.swDtau, e.swT = make([]float64, ns), math.NaN()
	e.vals, e.rows = make([]float64, maxT), make([]float64, maxT*ns)
	e.der = model.EventDeriv{X: make([]float64, (maxT+1)*nx), P: make([]float64, (maxT+1)*np), T: make([]float64, maxT+1)}
	return e, nil
}

// Fired is the number of event executions of the last solve.
func (e *EventSolver) Fired() int { return e.fired }

// Execution is one event execution: its time and the event's index.
type Execution struct {
	T     float64
	Event int
}

// Executions returns the executions of the last solve in order (a view,
// valid until the next solve), for comparison with runtime/events.
func (e *EventSolver) Executions() []Execution { return e.log }

// Stats returns CVODES's counters summed over all solves; those of one
// solve restart at every event (CVodeReInit resets them), so LastStats
// of the underlying solver would count the last stretch only.
func (e *EventSolver) Stats() Stats { return e.s.Stats() }

// Close frees the C memory.
func (e *EventSolver) Close() { e.s.Close() }

// EventStart is where EventSolver.SolveFrom starts, as
// runtime/events.SensStart for runtime/events: so that a simulation cut
// into pieces (a PEtab experiment's pre-equilibration, periods and
// steady-state chunks) runs on CVODES as it does on our event solver.
type EventStart struct {
	T0 float64
	// X0 is x(T0); S0 is dx(T0)/dp (nx x ns row-major), nil meaning
	// InitialSens(p). Both are ignored with Continue.
	X0, S0 []float64
	// Triggers are the trigger values just before T0 (one per event), nil
	// meaning the events' initial values: events whose triggers are true
	// at (T0, X0) and false here execute at T0.
	Triggers []bool
	// Continue goes on from where the last solve ended (T0 must be its
	// last output time, p the same): CVODES steps on from its own state,
	// history and order, with the triggers as they were, as a simulation
	// to a steady state in chunks does, and X0, S0 and Triggers are
	// ignored.
	Continue bool
	// Open leaves an instant at the last output time (within 1e-12
	// max(1, |t|), runtime/events' tolerance) to the next solve: the
	// state and S reported there are those before it and Triggers()
	// returns the values before it, so that a solve that starts there
	// after a change of condition (a PEtab period) executes it with the
	// new values.
	Open bool
}

// Triggers returns the trigger values where the last solve ended (a
// view, valid until the next solve).
func (e *EventSolver) Triggers() []bool { return e.trig }

// LastStats returns CVODES's counters of the last solve, summed over its
// restarts.
func (e *EventSolver) LastStats() Stats { return e.last }

// Solve integrates from x(t0) = x0 with parameters p, S(t0) =
// InitialSens(p), through the events, and writes x and (with Sens) S at
// tout into dstX and dstS as Solver.Solve does; outputs at an event time
// report the state after it. It allocates nothing on success.
func (e *EventSolver) Solve(p, x0 []float64, t0 float64, tout []float64, dstX, dstS []float64) error {
	e.start = EventStart{T0: t0, X0: x0}
	return e.SolveFrom(p, &e.start, tout, dstX, dstS)
}

// SolveFrom is Solve from st (see EventStart): a given S0 and trigger
// values before T0, the continuation of the last solve, an open end. It
// allocates nothing on success.
func (e *EventSolver) SolveFrom(p []float64, st *EventStart, tout []float64, dstX, dstS []float64) error {
	s := e.s
	e.swT = math.NaN()
	nx, np, ns, nt := s.nx, s.np, s.ns, len(tout)
	t0 := st.T0
	if len(p) != np || !st.Continue && len(st.X0) != nx || len(dstX) != nt*nx || ns > 0 && len(dstS) != nt*nx*np ||
		ns > 0 && st.S0 != nil && !st.Continue && len(st.S0) != nx*ns || st.Triggers != nil && len(st.Triggers) != e.ne {
		panic("cvodes: EventSolver.SolveFrom: argument length mismatch")
	}
	prev := t0
	for _, t := range tout {
		if !(t >= prev) || math.IsInf(t, 0) {
			panic("cvodes: output times must be finite, non-decreasing and not before t0")
		}
		prev = t
	}
	e.last = Stats{Solves: 1}
	defer func() { s.last = e.last }()
	if st.Continue {
		if !(t0 == e.tEnd) {
			return fmt.Errorf("cvodes: EventSolver: cannot continue at t=%g: the last solve ended at %g", t0, e.tEnd)
		}
		for j, v := range p {
			if v != s.p[j] {
				return fmt.Errorf("cvodes: EventSolver: cannot continue with other parameters (p[%d] = %g, was %g)", j, v, s.p[j])
			}
		}
	}
	e.tEnd = math.NaN() // until this solve succeeds
	s.total.Solves++
	s.cbErr = nil
	e.fired = 0
	e.log = e.log[:0]
	t := t0
	if !st.Continue {
		copy(s.p, p)
		copy(e.x, st.X0)
		if ns > 0 {
			if st.S0 != nil {
				copy(e.sm, st.S0)
			} else {
				s.m.InitialSens(e.sm, s.p)
			}
		}
		if st.Triggers != nil {
			copy(e.trig, st.Triggers)
		} else {
			// Before t0 every trigger has its initial value.
			for k := range e.trig {
				e.trig[k] = e.info[k].InitialValue
			}
		}
		if err := e.instant(t, -1); err != nil {
			return err
		}
		if err := e.reinit(t); err != nil {
			return err
		}
		e.look = true // an instant just ended: look for a trigger change just after it
	}
	last := t0
	if nt > 0 {
		last = tout[nt-1]
	}
	// atEnd: an instant at t is the next solve's.
	atEnd := func(t float64) bool { return st.Open && t >= last-1e-12*math.Max(1, math.Abs(last)) }
	var sp *C.double
	if ns > 0 {
		sp = (*C.double)(unsafe.Pointer(&e.sm[0]))
	}
	chain := 0 // instants looked ahead to since CVODES last stepped
	for k := 0; k < nt; {
		if tout[k] <= t {
			copy(dstX[k*nx:(k+1)*nx], e.x)
			if ns > 0 {
				copy(dstS[k*nx*ns:(k+1)*nx*ns], e.sm)
			}
			k++
			continue
		}
		if e.look {
			e.look = false
			if j := e.zeroRoot(t); j >= 0 {
				if ta, moved := e.lookAhead(t); moved && !atEnd(ta) {
					// Assignments that keep putting a state back on its
					// threshold would otherwise creep on by dt for ever.
					if chain++; chain > 10000 {
						return fmt.Errorf("cvodes: more than 10000 instants just after one another at t=%g", t)
					}
					t = ta
					if err := e.instant(t, j); err != nil {
						return err
					}
					if err := e.reinit(t); err != nil {
						return err
					}
					e.look = true
					continue
				} else if moved {
					// The change is the next solve's: x is back where
					// it was (lookAhead moved it).
					copy(e.x, e.xb)
				}
			}
		}
		flag := C.pbcv_ev_step(s.pb, C.double(tout[k]), &e.tret[0], &e.found[0],
			(*C.double)(unsafe.Pointer(&e.x[0])), sp)
		chain = 0
		if flag < 0 {
			e.tally()
			return s.flagError(flag, float64(s.pb.tcur), tout[k])
		}
		t = float64(e.tret[0])
		if flag != C.CV_ROOT_RETURN {
			continue // at tout[k]: written by the next pass
		}
		if atEnd(t) {
			// The instant (and a switch) at the open end are the next
			// solve's, which starts from this state.
			t = math.Max(t, last)
			continue
		}
		root := -1
		for j := 0; j < e.nr-e.nsw; j++ {
			if e.found[j] != 0 {
				root = j
				break
			}
		}
		switched := false
		for j := e.nr - e.nsw; j < e.nr; j++ {
			if e.found[j] != 0 {
				var err error
				if t, switched, err = e.cross(t, j, int(e.found[j])); err != nil {
					return err
				}
				break
			}
		}
		before := e.fired
		if err := e.instant(t, root); err != nil {
			return err
		}
		// Without an execution or a switch the state is CVODES's own,
		// which goes on from there; a restart would only cost it its
		// order and step.
		if switched || e.fired > before {
			if err := e.reinit(t); err != nil {
				return err
			}
		}
		e.look = true
	}
	e.tally()
	if st.Open {
		// The next solve starts afresh at the open end.
		e.tEnd = math.NaN()
	} else {
		e.tEnd = last
	}
	return nil
}

// tally adds CVODES's counters since the last tally or restart to the
// solve's (e.last) and the solver's (Stats): CVodeReInit resets them,
// and a solve may have several restarts, or none since the last solve
// (Continue).
func (e *EventSolver) tally() {
	cur := e.s.counters()
	d := cur
	d.sub(e.base)
	d.Solves = 0
	e.base = cur
	e.last.add(d)
	e.s.total.add(d)
}

// cross carries x and S across switch j of f, which CVODES located at t
// rising (dir 1) or falling (dir -1): f jumps from f- to f+ there, and
// with the crossing time tau(p), dtau = -(g_x S + g_p)/(g_x f- + g_t),
// S+ = S- + (f- - f+) dtau. f- and f+ are taken a moment either side,
// at t -+ dt with the states an Euler step away, dt from 1e-12 max(1,
// |t|) up to 1e-8 max(1, |t|) until the switch has its old sign before
// and its new one after; the solve goes on from t+dt (where f is f+, so
// that CVODES restarts on the new side), its time returned. (CVODES's
// own step across the switch keeps x to its tolerance; S in a step that
// straddles it would lack the jump.) A root that only touches zero, with
// the same sign on both sides, switches nothing: it returns t and false.
func (e *EventSolver) cross(t float64, j, dir int) (float64, bool, error) {
	s := e.s
	nx, ns := s.nx, s.ns
	s.m.F(e.f, t, e.x, s.p)
	scale := math.Max(1, math.Abs(t))
	dt, ok := 0.0, false
	for dt = 1e-12 * scale; dt <= 1.0000001e-8*scale; dt *= 10 {
		for i, v := range e.x {
			e.xm[i] = v - dt*e.f[i]
			e.xa[i] = v + dt*e.f[i]
		}
		e.ev.RootsTo(e.g, t-dt, e.xm, s.p)
		gm := e.g[j]
		e.ev.RootsTo(e.g, t+dt, e.xa, s.p)
		if gm*float64(dir) < 0 && e.g[j]*float64(dir) > 0 {
			ok = true
			break
		}
	}
	if !ok {
		return t, false, nil
	}
	if ns > 0 {
		s.m.F(e.fm, t-dt, e.xm, s.p)
		s.m.F(e.f, t+dt, e.xa, s.p)
		gt := e.ev.RootGrad(j, t, e.x, s.p, e.gx, e.gp)
		den := gt
		for i := 0; i < nx; i++ {
			den += e.gx[i] * e.fm[i]
		}
		if den == 0 || math.IsNaN(den) {
			return t, false, fmt.Errorf("cvodes: switch root %d reaches zero tangentially at t=%g", j, t)
		}
		for c := 0; c < ns; c++ {
			num := e.gp[c]
			for i := 0; i < nx; i++ {
				num += e.gx[i] * e.sm[i*ns+c]
			}
			dtau := -num / den
			for i := 0; i < nx; i++ {
				e.sm[i*ns+c] += (e.fm[i] - e.f[i]) * dtau
			}
			e.swDtau[c] = dtau
		}
		e.swT = t + dt
	}
	copy(e.x, e.xa)
	return t + dt, true, nil
}

// zeroRoot returns the first root function exactly zero at (t, e.x), -1
// if none: CVODES masks such a root when it starts or restarts there
// and never reports it leaving zero.
func (e *EventSolver) zeroRoot(t float64) int {
	if e.nr == 0 {
		return -1
	}
	e.ev.RootsTo(e.g, t, e.x, e.s.p)
	for j, g := range e.g {
		if g == 0 {
			return j
		}
	}
	return -1
}

// changed reports whether a trigger at (t, x) differs from e.trig.
func (e *EventSolver) changed(t float64, x []float64) bool {
	e.ev.TriggersTo(e.now, t, x, e.s.p)
	for j, now := range e.now {
		if now != e.trig[j] {
			return true
		}
	}
	return false
}

// lookAhead is called where a root function is exactly zero at (t, e.x)
// after an instant (CVODES's root finder often lands on the exact zero
// of X - c, and a start or an assignment can put a state on a
// threshold): X > c is still false there and changes just after, which
// CVODES will not report. It looks at t+dt with dt = 1e-12 max(1, |t|),
// the location tolerance of runtime/events, and up to 1e-8 max(1, |t|)
// in steps of 10 for a root whose function moves too slowly to leave
// zero in floating point at first, with the state an Euler step on (its
// error, dt^2/2 times the second derivative, is far below the
// tolerance). If a trigger changes, e.x moves there and it returns the
// new time and true; S is kept, off by dt |dS/dt|, as far below.
// Otherwise nothing moves: the zero changes no trigger.
func (e *EventSolver) lookAhead(t float64) (float64, bool) {
	s := e.s
	s.m.F(e.f, t, e.x, s.p)
	scale := math.Max(1, math.Abs(t))
	for dt := 1e-12 * scale; dt <= 1.0000001e-8*scale; dt *= 10 {
		for i, v := range e.x {
			e.xa[i] = v + dt*e.f[i]
		}
		if e.changed(t+dt, e.xa) {
			copy(e.xb, e.x)
			copy(e.x, e.xa)
			return t + dt, true
		}
	}
	return t, false
}

func (e *EventSolver) reinit(t float64) error {
	e.tally()
	e.base = Stats{}
	var sp *C.double
	if e.s.ns > 0 {
		sp = (*C.double)(unsafe.Pointer(&e.sm[0]))
	}
	if flag := C.pbcv_ev_reinit(e.s.pb, C.double(t), (*C.double)(unsafe.Pointer(&e.x[0])), sp); flag < 0 {
		return e.s.flagError(flag, t, math.NaN())
	}
	return nil
}

// instant executes, at (t, e.x), the events whose triggers went from
// false to true, in document order with the triggers evaluated again
// after each, and moves S across (root: the root function that located
// the instant, -1 for the start time, whose instant does not move).
func (e *EventSolver) instant(t float64, root int) error {
	s := e.s
	nx, ns := s.nx, s.ns
	e.begun, e.root = false, root
	for n := 0; ; n++ {
		if n > 10000 {
			return fmt.Errorf("cvodes: more than 10000 event executions at t=%g", t)
		}
		e.ev.TriggersTo(e.now, t, e.x, s.p)
		k := -1
		for j, now := range e.now {
			if now && !e.trig[j] && k < 0 {
				k = j
			}
			if !now {
				e.trig[j] = false
			}
		}
		if k < 0 {
			break
		}
		e.trig[k] = true
		if err := e.begin(t); err != nil {
			return err
		}
		e.log = append(e.log, Execution{T: t, Event: k})
		tg := e.ev.EventTargets(k)
		vals := e.vals[:len(tg)]
		e.ev.EventAssign(k, t, e.x, s.p, vals)
		if ns > 0 {
			e.deriv(k, t, len(tg))
		}
		for i, j := range tg {
			e.x[j] = vals[i]
			if ns > 0 {
				copy(e.d[j*ns:(j+1)*ns], e.rows[i*ns:(i+1)*ns])
			}
		}
		e.fired++
	}
	if e.begun {
		s.m.F(e.f, t, e.x, s.p)
		for i := 0; i < nx; i++ {
			for c := 0; c < ns; c++ {
				e.sm[i*ns+c] = e.d[i*ns+c] - e.f[i]*e.dtau[c]
			}
		}
	}
	return nil
}

// begin starts the instant at (t, e.x-) before its first execution:
// dtau from the root that located it (0 at the start) and D = S + f dtau.
func (e *EventSolver) begin(t float64) error {
	s := e.s
	nx, ns := s.nx, s.ns
	if e.begun || ns == 0 {
		return nil
	}
	e.begun = true
	clear(e.dtau)
	s.m.F(e.f, t, e.x, s.p)
	if e.root >= 0 {
		gt := e.ev.RootGrad(e.root, t, e.x, s.p, e.gx, e.gp)
		den := gt
		for i := 0; i < nx; i++ {
			den += e.gx[i] * e.f[i]
		}
		switch {
		case den == 0 && t == e.swT:
			// A switch of f crossed at this instant took the trigger's
			// root to a standstill (PEtab v2 case 0023: p' = dpdt while
			// p <= 500, the trigger p >= 500). With S already across the
			// switch, num = -(g_x f+ + g_t) dtau is 0 too; the instant's
			// time moves with the dynamics before the switch, as the
			// switch's did: its dtau, exactly when both roots are one
			// function.
			copy(e.dtau, e.swDtau)
		case den == 0 || math.IsNaN(den):
			return fmt.Errorf("cvodes: root %d reaches zero tangentially at t=%g", e.root, t)
		default:
			for c := 0; c < ns; c++ {
				num := e.gp[c]
				for i := 0; i < nx; i++ {
					num += e.gx[i] * e.sm[i*ns+c]
				}
				e.dtau[c] = -num / den
			}
		}
	}
	for i := 0; i < nx; i++ {
		for c := 0; c < ns; c++ {
			e.d[i*ns+c] = e.sm[i*ns+c] + e.f[i]*e.dtau[c]
		}
	}
	return nil
}

// deriv writes into e.rows the total derivatives of event k's n assigned
// values at the instant: h_x D + h_t dtau + h_p.
func (e *EventSolver) deriv(k int, t float64, n int) {
	s := e.s
	nx, np, ns := s.nx, s.np, s.ns
	// e.cur, not a local: a pointer passed to an interface method escapes.
	e.cur = model.EventDeriv{X: e.der.X[:(n+1)*nx], P: e.der.P[:(n+1)*np], T: e.der.T[:n+1]}
	d := &e.cur
	e.ev.EventDeriv(k, t, e.x, s.p, d)
	for i := 0; i < n; i++ {
		r := i + 1
		for c := 0; c < ns; c++ {
			a := d.T[r]*e.dtau[c] + d.P[r*np+c]
			for l := 0; l < nx; l++ {
				a += d.X[r*nx+l] * e.d[l*ns+c]
			}
			e.rows[i*ns+c] = a
		}
	}
}
