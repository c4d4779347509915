package events

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// Settings are the options of Solve. A nil *Settings means the defaults;
// a zero field means that field's default.
type Settings struct {
	// ODE are the integrator's settings (nil: ode's defaults).
	// Interpolate is ignored: each segment ends exactly at its end time.
	ODE *ode.Settings
	// TTol is the relative time tolerance of event location: a trigger
	// change is placed within TTol*max(1, |t|) after the true time.
	// Default 1e-12.
	TTol float64
	// MaxEvents bounds the number of event executions at one time
	// (default 10000): events that keep re-triggering each other at one
	// instant would otherwise never let time advance. It also bounds
	// the executions in a row each within 100 TTol of the one before,
	// events that re-trigger each other as time creeps on.
	MaxEvents int
	// Seed seeds the choice among due events of equal priority, which
	// SBML leaves to chance (a PCG generator seeded with (Seed, Seed), so
	// a Solve is reproducible; the zero value is a valid seed).
	Seed uint64
}

// Fired is one execution of an event.
type Fired struct {
	T     float64
	Event int
}

// Result is the state at the output times and the events executed.
type Result struct {
	NX    int
	T     []float64 // the output times
	X     []float64 // len(T)*NX, row i = x(T[i]) after the events at T[i]
	Fired []Fired   // executions in order
}

// XAt returns the state at output i (a view).
func (r *Result) XAt(i int) []float64 { return r.X[i*r.NX : (i+1)*r.NX] }

// ErrTooManyEvents is returned (wrapped) when more than MaxEvents
// executions happen at one time.
var ErrTooManyEvents = errors.New("events: too many event executions")

// pending is a triggered event waiting for its execution time.
type pending struct {
	k      int
	t      float64   // execution time
	vals   []float64 // assigned values computed at the trigger time, or nil
	seq    int       // trigger order, for ties
	cancel bool
	// With sensitivities (SolveSens): the derivative of the execution
	// time in the parameters, and of vals (rows of len(Params)).
	dtex, dvals []float64
}

type solver struct {
	m     model.Model
	ev    model.Events
	info  []model.EventInfo
	p     []float64
	nx    int
	ne    int
	nr    int
	ttol  float64
	maxEv int
	trig  []bool // trigger values at the current point
	tmpT  []bool
	queue []pending
	seq   int
	res   *Result
	nexec int
	xbuf  []float64
	gl    []float64
	gr    []float64
	gc    []float64
	ties  []int // queue indices of the due events of the highest priority
	rng   *rand.Rand
	root  int // the root whose crossing scan located last, -1 if none
	// Switches of f (model.Switches): the last nsw of the nr roots. When
	// scan stops at one, swHit is set and (tl, xl) is the left end of its
	// bracket, the last point known on the old side of the jump, where
	// f- is evaluated.
	nsw   int
	swHit bool
	swOld []float64 // per root: a crossed switch's value before, else 0
	seg   []float64 // the times of a segment's integration (segTimes)
	gprev []float64 // scan's root values before the last crossing
	seg2  []float64 // those of SolveSens's second pass

	// The executions in a row, each within creepSpan tolerances of the
	// time of the one before (creeping, at different times), and the
	// time of the last; haveLast is false at the start of a solve.
	ncreep   int
	lastExec float64
	haveLast bool
	// The stop of the integrations (stopAt, set by arm): hit when a
	// step scanned showed a trigger change or switch, at hitT.
	hit     bool
	hitT    float64
	scanned int // the steps stopAt has scanned
	stopFn  func(*ode.Trajectory) bool
	// oneFS: SolveSens integrates x and S in one pass (FS by BDF,
	// unchecked), S at an event interpolated on its last step.
	oneFS bool
	tl    float64
	xl    []float64
	fl    []float64
	sv    *sensState // SolveSens's jump bookkeeping; nil in Solve
	wide  []float64  // interp's scratch for trajectories longer than the state
	// sensErr is an error of sv met during an execution, returned when
	// the instant ends.
	sensErr error

	// SensSolver's workspaces, kept across solves.
	xw     []float64 // the current state
	xr, sr sens.Result
	st     sens.Start
	stats  sens.Stats
	// free holds buffers of executed or dropped queue entries, for
	// reuse by later ones (take, give).
	free [][]float64
}

// take returns a buffer of n values, reusing a freed one if one is large
// enough.
func (s *solver) take(n int) []float64 {
	for i := len(s.free) - 1; i >= 0; i-- {
		if b := s.free[i]; cap(b) >= n {
			s.free[i] = s.free[len(s.free)-1]
			s.free = s.free[:len(s.free)-1]
			return b[:n]
		}
	}
	return make([]float64, n)
}

// release gives q's buffers back to the free list.
func (s *solver) release(q *pending) {
	for _, b := range [...][]float64{q.vals, q.dtex, q.dvals} {
		if b != nil {
			s.free = append(s.free, b[:0])
		}
	}
	q.vals, q.dtex, q.dvals = nil, nil, nil
}

// Solve integrates m from (ts[0], x0) with parameters p and returns the
// state at every time of ts (ascending, starting at the start time),
// handling m's events if it implements model.Events (see the package
// doc). x0 and p are not modified. Errors of the integrator are returned
// as they are (a *ode.StepError, or one wrapping ode.ErrInvalid);
// ts empty or not ascending is an error.
func Solve(m model.Model, p, x0, ts []float64, set *Settings) (*Result, error) {
	if m == nil {
		panic("events: nil model")
	}
	nx := model.NumStates(m)
	if len(x0) != nx || len(p) != model.NumParams(m) {
		return nil, fmt.Errorf("events: x0 has %d values and p %d, want %d and %d", len(x0), len(p), nx, model.NumParams(m))
	}
	if len(ts) == 0 {
		return nil, errors.New("events: no output times")
	}
	for i := range ts {
		if math.IsNaN(ts[i]) || math.IsInf(ts[i], 0) || i > 0 && ts[i] < ts[i-1] {
			return nil, fmt.Errorf("events: output times must be finite and ascending (time %d is %g)", i, ts[i])
		}
	}
	s := &solver{m: m, p: p, nx: nx, ttol: 1e-12, maxEv: 10000}
	var oset ode.Settings
	var seed uint64
	if set != nil {
		seed = set.Seed
		if set.ODE != nil {
			oset = *set.ODE
		}
		if set.TTol > 0 {
			s.ttol = set.TTol
		}
		if set.MaxEvents > 0 {
			s.maxEv = set.MaxEvents
		}
	}
	oset.Interpolate = false
	s.rng = rand.New(rand.NewPCG(seed, seed))
	s.setup(m)
	s.res = &Result{NX: nx, T: slices.Clone(ts), X: make([]float64, 0, len(ts)*nx)}
	return s.res, s.run(ode.NewSolver(m, &oset), x0, ts)
}

// setup takes m's events and switches, if it has any, and allocates the
// root and trigger buffers.
func (s *solver) setup(m model.Model) {
	if ev, ok := m.(model.Events); ok && (ev.NumEvents() > 0 || numSwitches(ev) > 0) {
		s.ev, s.ne, s.nr, s.nsw = ev, ev.NumEvents(), ev.NumRoots(), numSwitches(ev)
		for k := 0; k < s.ne; k++ {
			s.info = append(s.info, ev.EventInfo(k))
		}
	}
	s.trig, s.tmpT = make([]bool, s.ne), make([]bool, s.ne)
	s.gl, s.gr, s.gc = make([]float64, s.nr), make([]float64, s.nr), make([]float64, s.nr)
	s.xbuf, s.xl, s.fl = make([]float64, s.nx), make([]float64, s.nx), make([]float64, s.nx)
	s.swOld, s.gprev = make([]float64, s.nr), make([]float64, s.nr)
}

// numSwitches is ev's number of switch roots (model.Switches), 0 if it
// has none.
func numSwitches(ev model.Events) int {
	if sw, ok := ev.(model.Switches); ok {
		return min(max(sw.NumSwitches(), 0), ev.NumRoots())
	}
	return 0
}

// Needed reports whether m has events or switches of its right-hand side
// (model.Events, model.Switches) that Solve and SolveSens handle and a
// plain integration would step over.
func Needed(m model.Model) bool {
	ev, ok := m.(model.Events)
	return ok && (ev.NumEvents() > 0 || numSwitches(ev) > 0)
}

func (s *solver) run(ig *ode.Solver, x0, ts []float64) error {
	var tr ode.Trajectory
	if s.ev == nil {
		// No events: one integration landing on every output time.
		if err := ig.Integrate(&tr, s.p, x0, ts[0], ts); err != nil {
			return err
		}
		for _, k := range tr.Out {
			s.res.X = append(s.res.X, tr.XAt(k)...)
		}
		return nil
	}
	t := ts[0]
	x := slices.Clone(x0)
	// Before the start every trigger has its initial value.
	for k := range s.trig {
		s.trig[k] = s.info[k].InitialValue
	}
	s.haveLast = false
	if err := s.handle(t, x); err != nil {
		return err
	}
	iout := 0
	for iout < len(ts) {
		for iout < len(ts) && ts[iout] <= t {
			s.res.X = append(s.res.X, x...)
			iout++
		}
		if iout == len(ts) {
			break
		}
		if tnext := s.segmentEnd(ts[iout]); tnext-t <= s.tol(t) {
			// Closer than the location tolerance: the state does not move.
			t = tnext
			if err := s.handle(t, x); err != nil {
				return err
			}
			continue
		}
		// One integration over the outputs left (or up to the next queued
		// execution), landing on each and ended at the step where a
		// trigger changes or a switch crosses: the integrator restarts
		// at events and switches only.
		tend := s.segmentEnd(ts[len(ts)-1])
		seg := s.segTimes(ts, iout, t, tend)
		tc, xc, found, err := s.integrate(ig, &tr, x, t, seg)
		if err != nil {
			return err
		}
		tcut := tend
		if found {
			tcut = tc
			if s.swHit {
				tcut = s.tl
			}
		}
		// Outputs before the cut, from the steps before the crossing
		// (the integrator landed on each).
		for j := 0; iout < len(ts) && ts[iout] < tcut; iout++ {
			for j < len(seg)-1 && seg[j] < ts[iout] {
				j++
			}
			s.res.X = append(s.res.X, tr.XAt(tr.Out[j])...)
		}
		if found && s.swHit {
			// f jumps at tc: the scanned steps straddle it. Integrate
			// again up to the old side and step over the bracket with f-.
			xl := s.xl
			if s.tl > t {
				if err := ig.Integrate(&tr, s.p, x, t, []float64{s.tl}); err != nil {
					return err
				}
				xl, tc = s.oldSide(&tr, tc)
			}
			if tc, err = s.acrossSwitch(xl, tc); err != nil {
				return err
			}
			xc = s.xbuf
		}
		if found {
			t = tc
			copy(x, xc)
		} else {
			t = tend
			copy(x, tr.XAt(tr.Len()-1))
		}
		if err := s.handle(t, x); err != nil {
			return err
		}
	}
	return nil
}

// cutTimes fills s.seg2 with the times of seg before tseg by more than
// the location tolerance, then tseg.
func (s *solver) cutTimes(seg []float64, tseg float64) []float64 {
	s.seg2 = s.seg2[:0]
	for _, u := range seg {
		if u >= tseg-s.tol(tseg) {
			break
		}
		s.seg2 = append(s.seg2, u)
	}
	s.seg2 = append(s.seg2, tseg)
	return s.seg2
}

// segTimes fills s.seg with the distinct output times of ts from iout on
// that lie after t and before tend by more than the location tolerance,
// then tend: the times an integration from t lands on.
func (s *solver) segTimes(ts []float64, iout int, t, tend float64) []float64 {
	s.seg = s.seg[:0]
	for k := iout; k < len(ts) && ts[k] < tend-s.tol(tend); k++ {
		if ts[k] > t && (len(s.seg) == 0 || ts[k] > s.seg[len(s.seg)-1]) {
			s.seg = append(s.seg, ts[k])
		}
	}
	s.seg = append(s.seg, tend)
	return s.seg
}

func (s *solver) tol(t float64) float64 { return s.ttol * math.Max(1, math.Abs(t)) }

// scan looks for the first trigger change in the segment tr and returns
// its time and state (a copy in s.xbuf).
//
// A crossing of a switch of f (model.Switches) also ends the scan, with
// s.swHit set, the left end of its bracket in (s.tl, s.xl) and the
// values before the crossing of the switches that crossed in s.swOld.
func (s *solver) scan(tr *ode.Trajectory) (float64, []float64, bool) {
	s.swHit = false
	if s.ev == nil {
		return 0, nil, false
	}
	for k := 0; k+1 < tr.Len(); k++ {
		if tc, x, ok := s.scanStep(tr, k); ok {
			return tc, x, true
		}
	}
	return 0, nil, false
}

// scanStep is scan on step k of tr alone.
func (s *solver) scanStep(tr *ode.Trajectory, k int) (float64, []float64, bool) {
	x := s.xbuf
	ta, tb := tr.T[k], tr.T[k+1]
	s.ev.RootsTo(s.gl, ta, s.row(tr, k), s.p)
	for ta < tb {
		s.ev.RootsTo(s.gr, tb, s.row(tr, k+1), s.p)
		tc, tl := math.Inf(1), ta
		s.root = -1
		for j := range s.gl {
			if crossed(s.gl[j], s.gr[j]) {
				if a, c := s.illinois(tr, k, j, ta, tb, s.gl[j], s.gr[j]); c < tc {
					tc, tl, s.root = c, a, j
				}
			}
		}
		if !math.IsInf(tc, 1) {
			s.interp(x, tr, tc, k)
			// The left end of the bracket, for f- at the instant.
			s.tl = tl
			s.interp(s.xl, tr, tl, k)
			if s.nsw > 0 {
				s.ev.RootsTo(s.gc, tc, x, s.p)
				for j := s.nr - s.nsw; j < s.nr; j++ {
					s.swOld[j] = 0
					if crossed(s.gl[j], s.gc[j]) {
						s.swHit = true
						s.swOld[j] = s.gl[j]
					}
				}
				if s.swHit {
					return tc, x, true
				}
			}
			if s.changed(tc, x) {
				return tc, x, true
			}
			// A root exactly 0 at tc leaves a strict relation
			// (k > 3.5 at k = 3.5) unchanged there, and the trigger
			// changes just after: look one location tolerance on,
			// or a trigger true only until another root crosses in
			// the same step is missed (SBML Test Suite 01575).
			if tn := tc + s.tol(tc); tn < tb {
				s.interp(x, tr, tn, k)
				if s.changed(tn, x) {
					return tn, x, true
				}
				s.interp(x, tr, tc, k)
			}
			// A root crossed without changing a trigger: go on from it.
			// A root that is exactly zero there keeps its value from
			// before as the left one: a strict relation (x > c at x = c)
			// changes just after, and a crossing from zero would not
			// count (regula falsi lands exactly on the zero of a root
			// linear in t within a step).
			ta = tc
			copy(s.gprev, s.gl)
			s.ev.RootsTo(s.gl, ta, x, s.p)
			for j, g := range s.gl {
				if g == 0 {
					s.gl[j] = s.gprev[j]
				}
			}
			continue
		}
		// No root crossed; a trigger may still have changed.
		if s.changed(tb, s.row(tr, k+1)) {
			tc, s.root = s.bisect(tr, k, ta, tb), -1
			s.interp(x, tr, tc, k)
			return tc, x, true
		}
		break
	}
	return 0, nil, false
}

// stopAt is the integrators' stop function (ode.Solver.SetStop): it
// scans the steps taken since it last did (the one just taken) and ends
// the integration at the first trigger change or switch, recording it
// in hit and hitT (the state in s.xbuf).
func (s *solver) stopAt(tr *ode.Trajectory) bool {
	for ; !s.hit && s.scanned+1 < tr.Len(); s.scanned++ {
		if tc, _, ok := s.scanStep(tr, s.scanned); ok {
			s.hit, s.hitT = true, tc
		}
	}
	return s.hit
}

// integrate runs ig from (t, x) over seg, ended by stopAt at the first
// trigger change or switch, and reports it as scan does (its state in
// s.xbuf).
func (s *solver) integrate(ig *ode.Solver, tr *ode.Trajectory, x []float64, t float64, seg []float64) (float64, []float64, bool, error) {
	s.arm(ig)
	err := ig.Integrate(tr, s.p, x, t, seg)
	ig.SetStop(nil)
	if err == nil {
		s.stopAt(tr) // the steps it was not asked about (a model without states)
	}
	if err != nil || !s.hit {
		return 0, nil, false, err
	}
	return s.hitT, s.xbuf, true, nil
}

// arm clears the last stop and sets stopAt on ig.
func (s *solver) arm(ig *ode.Solver) {
	s.hit, s.swHit, s.scanned = false, false, 0
	if s.stopFn == nil {
		s.stopFn = s.stopAt
	}
	ig.SetStop(s.stopFn)
}

// crossed reports a sign change from a to b, or b reaching zero from a
// non-zero a.
func crossed(a, b float64) bool {
	return a < 0 && b >= 0 || a > 0 && b <= 0
}

// row is the state at grid point k of tr: the first nx entries, since
// a caller that integrates more than the state (runtime/dde's x and S,
// through Instants) stores it first.
func (s *solver) row(tr *ode.Trajectory, k int) []float64 { return tr.XAt(k)[:s.nx] }

// interp writes the state at t on step k of tr into dst (nx), through
// s.wide when tr's points are longer than the state (see row).
func (s *solver) interp(dst []float64, tr *ode.Trajectory, t float64, k int) {
	if tr.NX == s.nx {
		tr.InterpStep(dst, t, k)
		return
	}
	if len(s.wide) < tr.NX {
		s.wide = make([]float64, tr.NX)
	}
	tr.InterpStep(s.wide[:tr.NX], t, k)
	copy(dst, s.wide[:s.nx])
}

// changed reports whether any trigger at (t, x) differs from s.trig.
func (s *solver) changed(t float64, x []float64) bool {
	s.ev.TriggersTo(s.tmpT, t, x, s.p)
	return !slices.Equal(s.tmpT, s.trig)
}

// illinois locates the sign change of root j in [a, b] of step k (fa, fb
// its values at the ends) and returns a bracket no wider than the
// tolerance: its right end is the first time at which the root has
// changed sign, its left end the last at which it has not.
func (s *solver) illinois(tr *ode.Trajectory, k, j int, a, b, fa, fb float64) (float64, float64) {
	x := s.xbuf
	side := 0
	for it := 0; it < 200 && b-a > s.tol(b); it++ {
		c := b - fb*(b-a)/(fb-fa)
		// Safeguard: stay inside and, after a stall, bisect.
		if !(c > a && c < b) || it%8 == 7 {
			c = a + (b-a)/2
		}
		s.interp(x, tr, c, k)
		s.ev.RootsTo(s.gc, c, x, s.p)
		fc := s.gc[j]
		if crossed(fa, fc) {
			b, fb = c, fc
			if side == 1 {
				fa /= 2
			}
			side = 1
		} else {
			a, fa = c, fc
			if side == -1 {
				fb /= 2
			}
			side = -1
		}
	}
	return a, b
}

// oldSide returns the state at s.tl from tr, the integration up to s.tl
// without the steps that straddled the switch: its end, unless a switch
// that crossed has already left its old side there (the crossing was
// located on other steps, to their accuracy); then s.tl moves back to
// the left end of the crossing's bracket on tr, whose last step straddles
// it by that little only, the state is tr's there (in s.xl), and the
// instant moves to the bracket's right end, which it returns (else tc):
// S, solved to s.tl, is carried over the gap to the instant unchanged, so
// the gap is kept to the location tolerance.
func (s *solver) oldSide(tr *ode.Trajectory, tc float64) ([]float64, float64) {
	for k := 0; k+1 < tr.Len(); k++ {
		s.ev.RootsTo(s.gr, tr.T[k+1], s.row(tr, k+1), s.p)
		for j := s.nr - s.nsw; j < s.nr; j++ {
			if s.swOld[j] == 0 || s.gr[j]*s.swOld[j] > 0 {
				continue
			}
			s.ev.RootsTo(s.gl, tr.T[k], s.row(tr, k), s.p)
			if !(s.gl[j]*s.swOld[j] > 0) {
				continue // not on its old side at the step's start either
			}
			a, b := s.illinois(tr, k, j, tr.T[k], tr.T[k+1], s.gl[j], s.gr[j])
			s.tl = a
			s.interp(s.xl, tr, a, k)
			return s.xl, b
		}
	}
	return s.row(tr, tr.Len()-1), tc
}

// acrossSwitch returns a time t+ at or after tc and sets s.xbuf to the
// state there, just past a switch of f located in [s.tl, tc], from xl,
// the state at s.tl integrated without crossing it: xl + (t+ - tl) f-,
// with f- = f(tl, xl) (kept in s.xl and s.fl for the sensitivities'
// jump). t+ is tc moved on, doubling its distance from tl, until every
// switch that crossed is strictly on its new side in this state: the
// crossing was located on steps that straddle it, xl is more accurate,
// and a restart on the old side (or at zero, where a relation may still
// hold) would cross again at once and jump twice. A switch still not on
// its new side after the distance has been doubled 30 times (it crossed
// and came back at once: f- does not carry its root across) is an error
// naming the root and the time, since going on would carry the state
// that far with f-.
func (s *solver) acrossSwitch(xl []float64, tc float64) (float64, error) {
	copy(s.xl, xl)
	s.m.F(s.fl, s.tl, s.xl, s.p)
	for it := 0; ; it++ {
		h := tc - s.tl
		for i, v := range s.xl {
			s.xbuf[i] = v + h*s.fl[i]
		}
		s.ev.RootsTo(s.gc, tc, s.xbuf, s.p)
		done := true
		for j := s.nr - s.nsw; j < s.nr; j++ {
			if s.swOld[j] != 0 && !(s.gc[j]*s.swOld[j] < 0) {
				done = false
			}
		}
		if done {
			return tc, nil
		}
		if it == 30 {
			for j := s.nr - s.nsw; j < s.nr; j++ {
				if s.swOld[j] != 0 && !(s.gc[j]*s.swOld[j] < 0) {
					return tc, fmt.Errorf("events: switch root %d of f crossed zero at t=%g and does not stay on its new side after it", j, s.tl)
				}
			}
			return tc, fmt.Errorf("events: a switch of f crossed zero at t=%g and does not stay on its new side after it", s.tl)
		}
		tc = s.tl + 2*math.Max(h, s.tol(tc))
	}
}

// bisect locates a change of the triggers in (a, b] (they differ from
// s.trig at b) by bisection on their values.
func (s *solver) bisect(tr *ode.Trajectory, k int, a, b float64) float64 {
	x := s.xbuf
	for it := 0; it < 200 && b-a > s.tol(b); it++ {
		c := a + (b-a)/2
		s.interp(x, tr, c, k)
		if s.changed(c, x) {
			b = c
		} else {
			a = c
		}
	}
	return b
}

// creepSpan is the distance in event-time tolerances (tol) within which
// an execution counts as creeping on from the one before.
const creepSpan = 100

// creep counts an execution of event k at t and refuses more than
// MaxEvents in a row each within creepSpan tolerances of the one before:
// events that re-trigger each other as time creeps on by about a
// tolerance per execution (a sliding mode: a rate with floor(x) that
// drives x back over the integer it has just crossed, whose floor events
// then alternate about 1e12 times per unit of time) would otherwise run
// for hours; the integrator without the events fails there instead.
func (s *solver) creep(t float64, k int) error {
	if s.haveLast && math.Abs(t-s.lastExec) <= creepSpan*s.tol(t) {
		s.ncreep++
	} else {
		s.ncreep = 0
	}
	s.lastExec, s.haveLast = t, true
	if s.ncreep > s.maxEv {
		return fmt.Errorf("%w: more than %d in a row, each within %.3g of the one before, at t=%g (the last: event %q): the events re-trigger each other as time creeps on (a sliding mode)", ErrTooManyEvents, s.maxEv, creepSpan*s.tol(t), t, s.info[k].Name)
	}
	return nil
}

// handle applies the SBML rules at time t with state x (modified in
// place): trigger changes queue or cancel events, then due events execute
// by priority, with the triggers re-evaluated after each.
func (s *solver) handle(t float64, x []float64) error {
	if s.ev == nil {
		return nil
	}
	if s.swHit {
		// The jump of f alone moves S (S+ = S- + (f- - f+) dtau): begin
		// the instant even if no event executes.
		s.swHit = false
		if s.sv != nil {
			if err := s.sv.begin(t, x, nil); err != nil {
				return err
			}
		}
	}
	if err := s.update(t, x); err != nil {
		return err
	}
	s.nexec = 0
	for {
		// The due events of the highest priority; one of them at random.
		s.ties = s.ties[:0]
		var bestPr float64
		for i, q := range s.queue {
			if q.cancel || q.t > t+s.tol(t) {
				continue
			}
			inf := s.info[q.k]
			pr := math.Inf(-1)
			if inf.HasPriority {
				pr = s.ev.Priority(q.k, t, x, s.p)
				if math.IsNaN(pr) {
					pr = math.Inf(-1)
				}
			}
			switch {
			case len(s.ties) == 0 || pr > bestPr:
				s.ties, bestPr = append(s.ties[:0], i), pr
			case pr == bestPr:
				s.ties = append(s.ties, i)
			}
		}
		if len(s.ties) == 0 {
			break
		}
		best := s.ties[0]
		if len(s.ties) > 1 {
			best = s.ties[s.rng.IntN(len(s.ties))]
		}
		q := s.queue[best]
		s.queue = slices.Delete(s.queue, best, best+1)
		if s.nexec++; s.nexec > s.maxEv {
			return fmt.Errorf("%w: more than %d at t=%g (the last chosen: event %q)", ErrTooManyEvents, s.maxEv, t, s.info[q.k].Name)
		}
		if err := s.creep(t, q.k); err != nil {
			return err
		}
		tg := s.ev.EventTargets(q.k)
		vals := q.vals
		if vals == nil {
			q.vals = s.take(len(tg))
			vals = q.vals
			s.ev.EventAssign(q.k, t, x, s.p, vals)
		}
		if s.sv != nil {
			s.sv.execute(q, t, x)
		}
		for i, j := range tg {
			x[j] = vals[i]
		}
		s.release(&q)
		s.res.Fired = append(s.res.Fired, Fired{T: t, Event: q.k})
		if err := s.update(t, x); err != nil {
			return err
		}
	}
	// Drop cancelled entries.
	n := 0
	for i := range s.queue {
		if s.queue[i].cancel {
			s.release(&s.queue[i])
			continue
		}
		s.queue[n] = s.queue[i]
		n++
	}
	clear(s.queue[n:])
	s.queue = s.queue[:n]
	if s.sv != nil {
		return s.sv.finish(t, x)
	}
	return nil
}

// update evaluates the triggers at (t, x): an event whose trigger went
// from false to true is queued; one whose trigger went false has its
// queued executions cancelled unless it is persistent.
func (s *solver) update(t float64, x []float64) error {
	s.ev.TriggersTo(s.tmpT, t, x, s.p)
	for k, now := range s.tmpT {
		was := s.trig[k]
		s.trig[k] = now
		switch {
		case now && !was:
			inf := s.info[k]
			q := pending{k: k, t: t, seq: s.seq}
			s.seq++
			if inf.HasDelay {
				d := s.ev.Delay(k, t, x, s.p)
				if !(d >= 0) || math.IsInf(d, 1) {
					return fmt.Errorf("events: event %q triggered at t=%g has delay %g (SBML requires a finite, non-negative one)", inf.Name, t, d)
				}
				q.t = t + d
			}
			if inf.UseValuesFromTriggerTime {
				q.vals = s.take(len(s.ev.EventTargets(k)))
				s.ev.EventAssign(k, t, x, s.p, q.vals)
			}
			if s.sv != nil {
				if err := s.sv.queued(&q, t, x); err != nil {
					return err
				}
			}
			s.queue = append(s.queue, q)
		case was && !now && !s.info[k].Persistent:
			for i := range s.queue {
				if s.queue[i].k == k {
					s.queue[i].cancel = true
				}
			}
		}
	}
	return nil
}

// segmentEnd is where the next integration segment ends: the next output
// time tout, or the earliest pending delayed event before it.
func (s *solver) segmentEnd(tout float64) float64 {
	for _, q := range s.queue {
		if !q.cancel && q.t < tout {
			tout = q.t
		}
	}
	return tout
}
