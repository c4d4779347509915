package dde

import (
	"math"
	"slices"

	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// evModel is the model handed to events.Instants: the event functions
// with the delayed values looked up in the history at the time and
// state they are evaluated at (model.DelayEvents), or the plain ones
// for a model whose events read no delayed value. It does not
// implement model.Switches: Solve steps over switches of f, with or
// without events.
type evModel struct {
	model.Model
	ev model.Events
	de model.DelayEvents // nil: the plain methods
	h  *history
	d  []float64
}

func (e *evModel) NumEvents() int                  { return e.ev.NumEvents() }
func (e *evModel) EventInfo(k int) model.EventInfo { return e.ev.EventInfo(k) }
func (e *evModel) NumRoots() int                   { return e.ev.NumRoots() }
func (e *evModel) EventTargets(k int) []int        { return e.ev.EventTargets(k) }
func (e *evModel) lookup(t float64, x []float64)   { e.h.delayedTo(e.d, t, x, nil) }
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
// are added to the segment ends.
type evLoop struct {
	m         model.Model
	h         *history
	r         model.Model // the right-hand side handed to the integrator
	ig        *ode.Solver
	oset      ode.Settings
	eset      *events.Settings
	res       *Result
	ts, p     []float64
	consts    []float64 // the constant delays that f reads (breaking points)
	maxOrder  int
	maxBreaks int
	restartH0 bool
	in        *events.Instants
	span      int // outputs the next segment covers (as runtime/events)
}

func (l *evLoop) run(z0 []float64) error {
	h, res, ts := l.h, l.res, l.ts
	ev := l.m.(model.Events)
	em := &evModel{Model: l.m, ev: ev, h: h, d: make([]float64, h.nd)}
	if de, ok := l.m.(model.DelayEvents); ok {
		em.de = de
	}
	l.consts = l.readByF(l.consts)
	l.in = events.NewInstants(em, l.p, l.eset)
	l.span = 1
	t := ts[0]
	x := slices.Clone(z0)
	nfired := 0
	if err := l.in.Start(t, x); err != nil {
		return err
	}
	if h.err != nil {
		return h.err
	}
	// The solution at t0 is the state after the events there: the
	// history's value at t0 (its left limit is DelayHistory).
	copy(h.x0, x)
	nfired = l.addBreaks(t, nfired)
	iout, ib := 0, 0
	var tout []float64
	for iout < len(ts) {
		for iout < len(ts) && ts[iout] <= t {
			res.X = append(res.X, x...)
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
			if err := l.handle(t, x); err != nil {
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
		err := l.ig.Integrate(tr, l.p, x, t, tout)
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
		if found {
			tcut = tc
		}
		n := 0
		for j := first; j < len(ts) && ts[j] <= tend && ts[j] < tcut; j++ {
			res.X = append(res.X, tr.XAt(tr.Out[j-first])...)
			n++
		}
		iout = first + n
		if found {
			l.span = max(1, n+n/4+1)
		} else {
			l.span = min(2*l.span, len(ts))
		}
		h.done = append(h.done, tr)
		h.starts = append(h.starts, t)
		h.cur = nil
		if found {
			t = tc
			copy(x, xc)
		} else {
			t = tend
			copy(x, tr.XAt(tr.Len()-1))
		}
		if err := l.handle(t, x); err != nil {
			return err
		}
		nfired = l.addBreaks(t, nfired)
	}
	res.Fired = append(res.Fired[:0], l.in.Fired()...)
	return nil
}

// handle handles the events at (t, x), the history's lookups failing
// on an invalid delay included.
func (l *evLoop) handle(t float64, x []float64) error {
	err := l.in.Handle(t, x)
	if l.h.err != nil {
		return l.h.err
	}
	return err
}

// addBreaks adds the breaking points of the executions at t (if any
// happened since nfired): the state jumped, so f jumps at t + tau, its
// derivative at t + 2 tau, ... It returns the number of executions so
// far.
func (l *evLoop) addBreaks(t float64, nfired int) int {
	n := len(l.in.Fired())
	if n == nfired || len(l.consts) == 0 {
		return n
	}
	end := l.ts[len(l.ts)-1]
	for _, b := range breaks(t, end, slices.Clone(l.consts), l.maxOrder, l.maxBreaks) {
		i, _ := slices.BinarySearch(l.res.Breaks, b)
		if i < len(l.res.Breaks) && l.res.Breaks[i]-b <= near(b) || i > 0 && b-l.res.Breaks[i-1] <= near(b) {
			continue
		}
		l.res.Breaks = slices.Insert(l.res.Breaks, i, b)
	}
	return n
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
