package dde

import (
	"fmt"
	"math"
	"slices"

	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// evModel is the model handed to events.Instants: the event functions
// with the delayed values looked up in the history at the time and
// state they are evaluated at (model.DelayEvents), or the plain ones
// for a model whose events read no delayed value, and the switches of f
// (model.Switches: the last NumSwitches roots), at which the
// integration stops as at an event.
type evModel struct {
	model.Model
	ev model.Events
	de model.DelayEvents // nil: the plain methods
	h  *history
	d  []float64
	// fFrom, when after the time F is evaluated at, is where F looks the
	// delayed values up instead (evLoop.run sets it for the instant of a
	// switch whose bracket holds a jump of a delayed value).
	fFrom float64
}

func (e *evModel) NumEvents() int                  { return e.ev.NumEvents() }
func (e *evModel) EventInfo(k int) model.EventInfo { return e.ev.EventInfo(k) }
func (e *evModel) NumRoots() int                   { return e.ev.NumRoots() }
func (e *evModel) EventTargets(k int) []int        { return e.ev.EventTargets(k) }
func (e *evModel) lookup(t float64, x []float64)   { e.h.delayedTo(e.d, t, x, nil) }

// NumSwitches is the model's (model.Switches), 0 without it.
func (e *evModel) NumSwitches() int {
	if sw, ok := e.ev.(model.Switches); ok {
		return sw.NumSwitches()
	}
	return 0
}

func (e *evModel) TriggersTo(dst []bool, t float64, x, p []float64) {
	if e.de == nil {
		e.ev.TriggersTo(dst, t, x, p)
		return
	}
	e.lookup(t, x)
	e.de.TriggersDelayedTo(dst, t, x, p, e.d)
}

func (e *evModel) RootsTo(dst []float64, t float64, x, p []float64) {
	if e.de == nil {
		e.ev.RootsTo(dst, t, x, p)
		return
	}
	e.lookup(t, x)
	e.de.RootsDelayedTo(dst, t, x, p, e.d)
}

func (e *evModel) Delay(k int, t float64, x, p []float64) float64 {
	if e.de == nil {
		return e.ev.Delay(k, t, x, p)
	}
	e.lookup(t, x)
	return e.de.EventDelayDelayed(k, t, x, p, e.d)
}

func (e *evModel) Priority(k int, t float64, x, p []float64) float64 {
	if e.de == nil {
		return e.ev.Priority(k, t, x, p)
	}
	e.lookup(t, x)
	return e.de.PriorityDelayed(k, t, x, p, e.d)
}

// F is f with the delayed values looked up: runtime/events' sensitivity
// update evaluates f- and f+ at an instant through it (f- on the old side
// of a switch, at the left end of its bracket; with fFrom after it, the
// delayed values are those after a jump at fFrom, which S has taken
// first: see evLoop.run).
func (e *evModel) F(dst []float64, t float64, x, p []float64) {
	e.lookup(max(t, e.fFrom), x)
	e.h.dm.FDelayed(dst, t, x, p, e.d)
}

func (e *evModel) EventAssign(k int, t float64, x, p, dst []float64) {
	if e.de == nil {
		e.ev.EventAssign(k, t, x, p, dst)
		return
	}
	e.lookup(t, x)
	e.de.EventAssignDelayed(k, t, x, p, e.d, dst)
}

// evLoop is Solve's integration of a model with events: segments end at
// breaking points, queued executions and output times; each is scanned
// for trigger changes (events.Instants.Locate, with the history as it
// stands: the segment being scanned is its last piece), cut at the
// first, and the events are handled there. The history keeps the
// segment before the instant up to it and the one after from it, so a
// delayed value of a time before an event sees the value before it; the
// executions' breaking points t_e + sums of the constant delays f reads
// are added to the segment ends. A switch of f (model.Switches) cuts the
// segment too: integrated again to the old side of it and carried across
// (events.Instants.Switched, Across), it adds its breaking points as an
// execution does.
type evLoop struct {
	m         model.Model
	h         *history
	r         model.Model // the right-hand side handed to the integrator
	sr        *sensRHS    // r with sensitivities (SolveSens), or nil
	ig        *ode.Solver
	ip        []float64 // the parameters passed to the integrator (nil with sr)
	oset      ode.Settings
	eset      *events.Settings
	res       *Result
	ts, p     []float64
	consts    []float64 // the constant delays that f reads (breaking points)
	maxOrder  int
	maxBreaks int
	restartH0 bool
	in        *events.Instants
	span      int       // outputs the next segment covers (as runtime/events)
	xm        []float64 // the state before an instant (sensitivities)
	lastJ     float64   // S has taken the jumps up to here (sensRHS.jump)
}

func (l *evLoop) run(z0 []float64) error {
	h, res, ts := l.h, l.res, l.ts
	nx := h.nx
	ev := l.m.(model.Events)
	em := &evModel{Model: l.m, ev: ev, h: h, d: make([]float64, h.nd), fFrom: math.Inf(-1)}
	if de, ok := l.m.(model.DelayEvents); ok {
		em.de = de
	}
	l.consts = l.readByF(l.consts)
	l.in = events.NewInstants(em, l.p, l.eset)
	if l.sr != nil {
		l.in.Sens(newEvSens(em, l.sr))
		l.xm = make([]float64, nx)
		l.lastJ = l.ts[0]
	}
	l.span = 1
	t := ts[0]
	// z is the integrated vector: x, and with sensitivities S column by
	// column after it; the events see x = z[:nx].
	z := slices.Clone(z0)
	x := z[:nx]
	nfired := 0
	l.toS(z)
	if err := l.in.Start(t, x); err != nil {
		return err
	}
	if h.err != nil {
		return h.err
	}
	l.fromS(z)
	// The solution at t0 is the state after the events there: the
	// history's value at t0 (its left limit is DelayHistory).
	copy(h.x0, z)
	if l.sr != nil {
		l.sr.startSource()
	}
	nfired = l.addBreaks(t, nfired)
	iout, ib := 0, 0
	var tout []float64
	for iout < len(ts) {
		for iout < len(ts) && ts[iout] <= t {
			res.emit(z)
			iout++
		}
		if iout == len(ts) {
			break
		}
		for ib < len(res.Breaks) && res.Breaks[ib] <= t+near(t) {
			ib++
		}
		tend := ts[min(iout+l.span, len(ts))-1]
		if ib < len(res.Breaks) && res.Breaks[ib] < tend {
			tend = res.Breaks[ib]
			// A breaking point within rounding of an output is that output.
			j, _ := slices.BinarySearch(ts, tend-near(tend))
			if j < len(ts) && ts[j] > t && ts[j] <= tend+near(tend) {
				tend = ts[j]
			}
		}
		tend = l.in.Next(tend)
		if tend-t <= l.in.Tol(t) {
			// Closer than the location tolerance: the state does not move.
			t = tend
			if err := l.handle(t, z); err != nil {
				return err
			}
			nfired = l.addBreaks(t, nfired)
			continue
		}
		tout = tout[:0]
		first := iout
		for j := iout; j < len(ts) && ts[j] <= tend; j++ {
			tout = append(tout, ts[j])
		}
		if len(tout) == 0 || tout[len(tout)-1] < tend {
			tout = append(tout, tend)
		}
		tr := &ode.Trajectory{}
		if l.restartH0 && len(h.done) > 0 {
			prev := h.done[len(h.done)-1]
			if n := prev.Len(); n >= 2 {
				l.oset.H0 = math.Min(prev.T[n-1]-prev.T[n-2], tend-t)
				l.ig = ode.NewSolver(l.r, &l.oset)
			}
		}
		h.cur, h.segEnd = tr, tend
		err := l.ig.Integrate(tr, l.ip, z, t, tout)
		if h.err != nil {
			return h.err
		}
		if err != nil {
			return err
		}
		// Trigger changes, with the segment as the history's last piece.
		tc, xc, found := l.in.Locate(tr)
		if h.err != nil {
			return h.err
		}
		tcut := tend
		tl, sw := l.in.Switched()
		if found {
			tcut = tc
		}
		if sw {
			// A switch of f: the steps scanned straddle its jump.
			// Integrate again up to the old side (x and S: no step of
			// the history straddles it), then across (Across).
			// The outputs before tl by more than the location tolerance
			// come from that integration; the others, at the instant.
			tcut = tl - l.in.Tol(tl)
			if tl > t {
				tout = tout[:0]
				for j := first; j < len(ts) && ts[j] < tcut; j++ {
					tout = append(tout, ts[j])
				}
				tout = append(tout, tl)
				tr = &ode.Trajectory{}
				h.cur, h.segEnd = tr, tl
				if l.restartH0 && l.oset.H0 > tl-t {
					l.oset.H0 = tl - t
					l.ig = ode.NewSolver(l.r, &l.oset)
				}
				err := l.ig.Integrate(tr, l.ip, z, t, tout)
				if h.err != nil {
					return h.err
				}
				if err != nil {
					return err
				}
			}
		}
		n := 0
		for j := first; j < len(ts) && ts[j] <= tend && ts[j] < tcut; j++ {
			res.emit(tr.XAt(tr.Out[j-first]))
			n++
		}
		iout = first + n
		if found {
			l.span = max(1, n+n/4+1)
		} else {
			l.span = min(2*l.span, len(ts))
		}
		if !sw || tl > t {
			h.done = append(h.done, tr)
			h.starts = append(h.starts, t)
		}
		h.cur = nil
		switch {
		case sw:
			// x from the old side across with f- to where the switch is
			// strictly on its new side; S as it is at the old side's
			// time (the instant moves it by (f- - f+) dtau/dp).
			var xs []float64
			var err error
			if tl > t {
				tc, xs, err = l.in.Across(tr, tc)
				tl, _ = l.in.Switched()
				tr.InterpTo(z, tl)
			} else {
				tc, xs, err = l.in.Across(nil, tc)
			}
			if h.err != nil {
				return h.err
			}
			if err != nil {
				return fmt.Errorf("dde: model %q: %w (a delayed value it reads jumping back where it crosses?): not solved", l.m.Name(), err)
			}
			t = tc
			copy(z[:nx], xs)
			if l.sr != nil {
				// A delayed value that jumps within the bracket (a
				// switch within the location tolerance of the time a
				// jump of the state reaches f): S takes that jump first
				// (handle, sensRHS.jump, with f on the new side), and the
				// switch's f- is then the old side's with the delayed
				// values after it, so that each jump is counted once.
				if b, k, ok := l.sr.jumpIn(tl, t); ok {
					if l.switchReads(k, t, z[:nx]) {
						// Its f- with the value after the jump may be on
						// its new side already.
						return fmt.Errorf("%w: model %q: a switch of f on %s crosses at t = %g, within the location tolerance of t = %g where that delayed value jumps: S across both is not computed", ErrSens, l.m.Name(), h.info[k].Name, t, b)
					}
					em.fFrom = b
				}
			}
		case found:
			// x and S at the change, on the step Locate found it in
			// (the state as Locate's, which is this interpolation's).
			t = tc
			tr.InterpTo(z, tc)
			copy(z[:nx], xc)
		default:
			t = tend
			copy(z, tr.XAt(tr.Len()-1))
		}
		err = l.handle(t, z)
		em.fFrom = math.Inf(-1)
		if err != nil {
			return err
		}
		nfired = l.addBreaks(t, nfired)
		if sw {
			// f jumped: x' jumps at t, and f reads that a delay later.
			l.breaksFrom(t)
		}
	}
	res.Fired = append(res.Fired[:0], l.in.Fired()...)
	return nil
}

// switchReads reports whether a switch root of f reads d_k at (t, x)
// (its derivative in d_k, model.DelayEventDerivs, is not zero there).
func (l *evLoop) switchReads(k int, t float64, x []float64) bool {
	de, ok := l.m.(model.DelayEventDerivs)
	if !ok {
		return false // the roots read no delayed value
	}
	ev := l.m.(model.Events)
	nr, nsw := ev.NumRoots(), 0
	if sw, ok := ev.(model.Switches); ok {
		nsw = sw.NumSwitches()
	}
	h := l.h
	d := make([]float64, h.nd)
	h.delayedTo(d, t, x, nil)
	dx, dp, dd := make([]float64, h.nx), make([]float64, len(l.p)), make([]float64, h.nd)
	for j := nr - nsw; j < nr; j++ {
		de.RootGradDelayed(j, t, x, l.p, d, dx, dp, dd)
		if dd[k] != 0 {
			return true
		}
	}
	return false
}

// toS hands S in z to the instants' sensitivities (row-major), fromS
// takes it back: the integrator keeps S column by column.
func (l *evLoop) toS(z []float64) { l.moveS(z, true) }

func (l *evLoop) fromS(z []float64) { l.moveS(z, false) }

// moveS copies S between z's columns and the instants' rows, into the
// instants' when in.
func (l *evLoop) moveS(z []float64, in bool) {
	S := l.in.SensView()
	if S == nil {
		return
	}
	nx, np := l.h.nx, l.sr.np
	for i := 0; i < nx; i++ {
		for j := 0; j < np; j++ {
			if in {
				S[i*np+j] = z[nx+j*nx+i]
			} else {
				z[nx+j*nx+i] = S[i*np+j]
			}
		}
	}
}

// handle handles the events at t on z (x and, with sensitivities, S:
// the instants update S across them, runtime/events' jumps), the
// history's lookups failing on an invalid delay included.
//
// With sensitivities, S first takes the jumps of the delayed values that
// reach f at t (sensRHS.jump: a jump source's t_s + tau_k), so that an
// event there starts from S on the left of the instant with f on its
// right, D = S- + f(x-, d-) dtau; an event whose trigger changes there
// because such a value jumped (it reads d_k) moves with that time,
// dt_s/dp + dtau_k/dp (Instants.MovesWith), not with its root function,
// which jumps rather than crosses. An instant that moved the state is
// recorded as a jump source (sensRHS.eventSource).
func (l *evLoop) handle(t float64, z []float64) error {
	x := z[:l.h.nx]
	if l.sr != nil {
		if t > l.lastJ {
			l.sr.jump(t, z, l.lastJ)
			l.lastJ = t
		}
		l.in.MovesWith(l.sr.jumpTime(t, 2*l.in.Tol(t)))
		copy(l.xm, x)
		l.toS(z)
	}
	err := l.in.Handle(t, x)
	if l.h.err != nil {
		return l.h.err
	}
	if err != nil || l.sr == nil {
		return err
	}
	l.fromS(z)
	if dt, ok := l.in.DTau(); ok && !slices.Equal(l.xm, x) {
		l.sr.eventSource(t, l.xm, x, dt)
	}
	return nil
}

// addBreaks adds the breaking points of the executions at t (if any
// happened since nfired): the state jumped, so f jumps at t + tau, its
// derivative at t + 2 tau, ... It returns the number of executions so
// far.
func (l *evLoop) addBreaks(t float64, nfired int) int {
	n := len(l.in.Fired())
	if n != nfired {
		l.breaksFrom(t)
	}
	return n
}

// breaksFrom adds the breaking points t + sums of the constant delays
// that f reads, of a jump of the state or of x' at t.
func (l *evLoop) breaksFrom(t float64) {
	if len(l.consts) == 0 {
		return
	}
	end := l.ts[len(l.ts)-1]
	for _, b := range breaks(t, end, slices.Clone(l.consts), l.maxOrder, l.maxBreaks) {
		i, _ := slices.BinarySearch(l.res.Breaks, b)
		if i < len(l.res.Breaks) && l.res.Breaks[i]-b <= near(b) || i > 0 && b-l.res.Breaks[i-1] <= near(b) {
			continue
		}
		l.res.Breaks = slices.Insert(l.res.Breaks, i, b)
	}
}

// readByF keeps, of the constant delays, those whose delayed values f
// reads (directly or through a nested delay), when the model says which
// (model.DelaySens.FdPattern): a jump of the state moves f only through
// them. Without that, all are kept.
func (l *evLoop) readByF(consts []float64) []float64 {
	ds, ok := l.m.(model.DelaySens)
	if !ok || len(consts) == 0 {
		return consts
	}
	h := l.h
	pat := ds.FdPattern()
	read := make([]bool, h.nd)
	for _, c := range pat.ColIdx {
		if c >= 0 && c < h.nd {
			read[c] = true
		}
	}
	for k := h.nd - 1; k >= 0; k-- {
		if read[k] {
			for j := 0; j < min(h.info[k].Reads, k); j++ {
				read[j] = true
			}
		}
	}
	var out []float64
	tau := make([]float64, h.nd)
	d := make([]float64, h.nd)
	h.delayedTo(d, l.ts[0], h.x0[:h.nx], tau)
	for k := 0; k < h.nd; k++ {
		if read[k] && h.info[k].Constant && tau[k] > 0 {
			out = append(out, tau[k])
		}
	}
	return out
}

// evSens is the event derivatives handed to the instants' sensitivities
// (events.Instants.Sens) for a model whose events read delayed values:
// the derivatives in d fold into those in p and t, since at an instant
// t_e(p) the delayed value d_k(t_e) moves by
//
//	D_k + d_k' dtau/dp,
//
// D_k = dd_k/dp at fixed t (sensRHS.sensAt: S of the history at
// t - tau_k, less e_k' dtau_k/dp) and d_k' its derivative along the
// solution. So a root g(t, x, p, d) gives g_p + g_d D as its derivative
// in p and g_t + g_d d' as its derivative in t, and an assigned value or
// an event delay alike: runtime/events' formulas, dtau/dp = -(g_x S +
// g_p) / (g_x f + g_t) and h_x D + h_t dtau + h_p, are then the total
// ones. Every delay is longer than zero (SolveSens checks), so D and d'
// at t_e come from the history before t_e alone: the state at t_e, which
// the executions change, is not read.
type evSens struct {
	*evModel
	ed model.EventDerivs
	de model.DelayEventDerivs // nil: the events read no delayed value
	sr *sensRHS
	z  []float64 // x at the instant, and S (unread: see above)
	dd []float64 // the derivatives in d
}

func newEvSens(em *evModel, sr *sensRHS) *evSens {
	e := &evSens{evModel: em, ed: em.ev.(model.EventDerivs), sr: sr, z: make([]float64, sr.nx*(1+sr.np))}
	if em.de != nil {
		e.de = em.de.(model.DelayEventDerivs) // SolveSens checked
		n := 0
		for k := 0; k < em.ev.NumEvents(); k++ {
			n = max(n, len(em.ev.EventTargets(k)))
		}
		e.dd = make([]float64, (n+1)*sr.nd)
	}
	return e
}

// at computes the delayed values at (t, x), their derivatives D in p
// and d' in t, into sr.lv[0].
func (e *evSens) at(t float64, x []float64) *sensLevel {
	copy(e.z, x)
	e.sr.sensAt(t, e.z, e.sr.nd, true, 0)
	return &e.sr.lv[0]
}

// RootGrad is root j's gradient with the delayed values' folded in.
func (e *evSens) RootGrad(j int, t float64, x, p, dx, dp []float64) float64 {
	if e.de == nil {
		return e.ed.RootGrad(j, t, x, p, dx, dp)
	}
	lv := e.at(t, x)
	nd, np := e.sr.nd, e.sr.np
	dd := e.dd[:nd]
	gt := e.de.RootGradDelayed(j, t, x, p, lv.d, dx, dp, dd)
	for k, w := range dd {
		if w != 0 {
			Dk := lv.D[k*np : (k+1)*np]
			for c := range dp {
				dp[c] += w * Dk[c]
			}
			gt += w * lv.dt[k]
		}
	}
	return gt
}

// EventDeriv is event k's derivatives with the delayed values' folded in.
func (e *evSens) EventDeriv(k int, t float64, x, p []float64, der *model.EventDeriv) {
	if e.de == nil {
		e.ed.EventDeriv(k, t, x, p, der)
		return
	}
	lv := e.at(t, x)
	nd, np := e.sr.nd, e.sr.np
	rows := len(e.ev.EventTargets(k)) + 1
	dd := e.dd[:rows*nd]
	e.de.EventDerivDelayed(k, t, x, p, lv.d, der, dd)
	for r := 0; r < rows; r++ {
		for q, w := range dd[r*nd : (r+1)*nd] {
			if w != 0 {
				Dq := lv.D[q*np : (q+1)*np]
				P := der.P[r*np : (r+1)*np]
				for c := range P {
					P[c] += w * Dq[c]
				}
				der.T[r] += w * lv.dt[q]
			}
		}
	}
}
