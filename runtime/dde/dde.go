package dde

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// Settings are the options of Solve. A nil *Settings means the defaults;
// a zero field means that field's default.
type Settings struct {
	// ODE are the integrator's settings (nil: ode's defaults).
	// Interpolate is ignored (each segment lands on its outputs); HMax is
	// lowered to the shortest constant delay.
	ODE *ode.Settings
	// MaxOrder is the number of generations of breaking points tracked:
	// t0 + sums of up to MaxOrder constant delays (default 5). SolveSens
	// adds the times where S jumps (a jump of the state reaching f, through
	// nested delays too) whatever MaxOrder and MaxBreaks say.
	MaxOrder int
	// MaxBreaks bounds the number of breaking points (default 10000):
	// a delay much shorter than the time span would otherwise restart the
	// integrator at every one of its multiples. Each event execution may
	// add as many again (its own t_e + sums of delays).
	MaxBreaks int
	// Events are the settings of event location and handling (TTol,
	// MaxEvents, Seed; nil: the defaults) for a model with events.
	Events *events.Settings
}

// Result is the solution at the output times.
type Result struct {
	NX, ND int
	// NS is the number of sensitivity parameters: NumParams with
	// SolveSens, 0 with Solve.
	NS     int
	T      []float64 // the output times
	X      []float64 // len(T)*NX, row i = x(T[i])
	D      []float64 // len(T)*ND, row i = the delayed values at T[i]
	S      []float64 // len(T)*NX*NS, block i = S(T[i]) = dx/dp, row-major NX x NS (SolveSens)
	Breaks []float64 // the breaking points the integrator stopped at
	// Fired are the event executions in order (a model with events).
	Fired []events.Fired
}

// SAt returns the sensitivities at output i (a view), row-major NX x NS.
func (r *Result) SAt(i int) []float64 { b := r.NX * r.NS; return r.S[i*b : (i+1)*b] }

// XAt returns the state at output i (a view).
func (r *Result) XAt(i int) []float64 { return r.X[i*r.NX : (i+1)*r.NX] }

// DAt returns the delayed values at output i (a view), for
// model.Delays.OutputsDelayedTo.
func (r *Result) DAt(i int) []float64 { return r.D[i*r.ND : (i+1)*r.ND] }

// ErrDelay is wrapped by the error of a solve in which a delay was
// negative or not finite (SBML requires delays >= 0).
var ErrDelay = errors.New("dde: invalid delay")

// ErrSens is wrapped by the error of SolveSens for a model whose
// sensitivities it cannot compute: one without model.DelaySens, or with
// a delay whose length depends on the state or time.
var ErrSens = errors.New("dde: sensitivities not supported")

// Solve integrates m from (ts[0], x0) with parameters p and returns the
// state and the delayed values at every time of ts (ascending, starting
// at the start time). A model without delays is solved as an ODE (by
// runtime/events where its rates switch, model.Switches). x0 and
// p are not modified. Errors of the integrator are returned as they are
// (a *ode.StepError, or one wrapping ode.ErrInvalid); a delay that is
// negative or not finite is an error wrapping ErrDelay.
func Solve(m model.Model, p, x0, ts []float64, set *Settings) (*Result, error) {
	return solve(m, p, x0, nil, ts, set, false)
}

// SolveSens is Solve with the forward sensitivities S = dx/dp through
// the delays (see the package documentation, "Sensitivities"): S at
// every output time in Result.S, from S(ts[0]) = s0 (row-major NX x
// NumParams; nil means the model's InitialSens at p). m must implement
// model.DelaySens and every delay's length must depend on the parameters
// only (DelayInfo.Constant); otherwise the error wraps ErrSens (a model
// without parameters is solved as by Solve: S is nx x 0). The
// sensitivities are in the integrator's error test, with the states'
// tolerances.
func SolveSens(m model.Model, p, x0, s0, ts []float64, set *Settings) (*Result, error) {
	if m == nil {
		return nil, errors.New("dde: nil model")
	}
	nx, np := model.NumStates(m), model.NumParams(m)
	if s0 == nil {
		if len(p) != np {
			return nil, fmt.Errorf("dde: p has %d values, want %d", len(p), np)
		}
		s0 = make([]float64, nx*np)
		m.InitialSens(s0, p)
	} else if len(s0) != nx*np {
		return nil, fmt.Errorf("dde: s0 has %d values, want nx*np = %d", len(s0), nx*np)
	}
	if np == 0 && model.HasDelays(m) {
		// S is nx x 0: Solve's states are all there is (whatever the
		// model gives or lacks for sensitivities, events included).
		return solve(m, p, x0, nil, ts, set, false)
	}
	if ds, ok := m.(model.DelaySens); ok {
		// A hand-written model's pattern is checked here, once: a wrong
		// one is an error, and newSensRHS relies on it.
		fd := ds.FdPattern()
		if fd == nil {
			return nil, fmt.Errorf("dde: model %q: FdPattern is nil", m.Name())
		}
		if err := fd.Validate(); err != nil {
			return nil, fmt.Errorf("dde: model %q: FdPattern: %v", m.Name(), err)
		}
		if nd := ds.NumDelays(); fd.Rows != nx || fd.Cols != nd {
			return nil, fmt.Errorf("dde: model %q: FdPattern is %d x %d, want %d x %d", m.Name(), fd.Rows, fd.Cols, nx, nd)
		}
	}
	return solve(m, p, x0, s0, ts, set, true)
}

func solve(m model.Model, p, x0, s0, ts []float64, set *Settings, withS bool) (*Result, error) {
	if m == nil {
		return nil, errors.New("dde: nil model")
	}
	nx, np := model.NumStates(m), model.NumParams(m)
	if len(x0) != nx || len(p) != np {
		return nil, fmt.Errorf("dde: x0 has %d values and p %d, want %d and %d", len(x0), len(p), nx, np)
	}
	if len(ts) == 0 {
		return nil, errors.New("dde: no output times")
	}
	for i := range ts {
		if math.IsNaN(ts[i]) || math.IsInf(ts[i], 0) || i > 0 && ts[i] < ts[i-1] {
			return nil, fmt.Errorf("dde: output times must be finite and ascending (time %d is %g)", i, ts[i])
		}
	}
	// Events, or switches of f alone (model.Switches), go through the
	// event loop, which stops at both.
	hasEvents := events.Needed(m)
	var oset ode.Settings
	maxOrder, maxBreaks := 5, 10000
	if set != nil {
		if set.ODE != nil {
			oset = *set.ODE
		}
		if set.MaxOrder > 0 {
			maxOrder = set.MaxOrder
		}
		if set.MaxBreaks > 0 {
			maxBreaks = set.MaxBreaks
		}
	}
	oset.Interpolate = false
	dm, _ := m.(model.Delays)
	nd := 0
	if dm != nil {
		nd = dm.NumDelays()
	}
	ns := 0
	if withS {
		ns = np
	}
	res := &Result{NX: nx, ND: nd, NS: ns, T: slices.Clone(ts), X: make([]float64, 0, len(ts)*nx), D: make([]float64, len(ts)*nd), S: make([]float64, 0, len(ts)*nx*ns)}
	if ev, ok := m.(model.Events); nd == 0 && !withS && hasEvents && ok && ev.NumEvents() == 0 {
		// Switches of f alone, no delay: runtime/events stops at them.
		var eset events.Settings
		if set != nil && set.Events != nil {
			eset = *set.Events
		}
		eset.ODE = &oset
		r, err := events.Solve(m, p, x0, ts, &eset)
		if err != nil {
			return nil, err
		}
		res.X = r.X
		return res, nil
	}
	if nd == 0 && !withS && !hasEvents {
		var tr ode.Trajectory
		if err := ode.NewSolver(m, &oset).Integrate(&tr, p, x0, ts[0], ts); err != nil {
			return nil, err
		}
		for _, k := range tr.Out {
			res.X = append(res.X, tr.XAt(k)...)
		}
		return res, nil
	}
	if nd == 0 && withS {
		return nil, fmt.Errorf("%w: model %q has no csymbol delay: runtime/sens computes its sensitivities", ErrSens, m.Name())
	}
	if nd == 0 {
		return nil, fmt.Errorf("dde: model %q has events or switches and no csymbol delay: runtime/events solves it", m.Name())
	}
	var ds model.DelaySens
	if withS {
		var ok bool
		if ds, ok = m.(model.DelaySens); !ok {
			return nil, fmt.Errorf("%w: model %q does not give the derivatives through its delays (model.DelaySens)", ErrSens, m.Name())
		}
		for k := 0; k < nd; k++ {
			if i := dm.DelayInfo(k); !i.Constant {
				return nil, fmt.Errorf("%w: model %q: the length of %s depends on the state or time (only delays of parameters are supported)", ErrSens, m.Name(), i.Name)
			}
		}
		if hasEvents {
			if _, ok := m.(model.EventDerivs); !ok {
				return nil, fmt.Errorf("%w: model %q has events or switches of f but not the derivatives of their root functions (model.EventDerivs)", ErrSens, m.Name())
			}
			if _, ok := m.(model.DelayEvents); ok {
				if _, ok := m.(model.DelayEventDerivs); !ok {
					return nil, fmt.Errorf("%w: model %q: its events may read delayed values, and it does not give their derivatives in them (model.DelayEventDerivs)", ErrSens, m.Name())
				}
			}
		}
	}
	// The integrated vector z: x, then with sensitivities S column by
	// column (z[nx+j*nx+i] = S_ij), so that the Newton matrix is block
	// diagonal.
	nz := nx * (1 + ns)
	z0 := make([]float64, nz)
	copy(z0, x0)
	for i := 0; i < nx; i++ {
		for j := 0; j < ns; j++ {
			z0[nx+j*nx+i] = s0[i*ns+j]
		}
	}
	h := newHistory(m, dm, p, z0, ts[0])
	// The delays at the start: the constant ones give the breaking points
	// and bound the step.
	tau := make([]float64, nd)
	d0 := make([]float64, nd)
	h.delayedTo(d0, ts[0], x0, tau)
	if h.err != nil {
		return nil, h.err
	}
	if withS && hasEvents {
		for k := 0; k < nd; k++ {
			if tau[k] == 0 {
				// The delayed value is e_k(t, x(t)) itself, which jumps
				// with the state at an event: the instant's derivatives
				// would need S on both sides of it (and the derivatives
				// at an instant read S from the history only).
				return nil, fmt.Errorf("%w: model %q: %s has length zero, with events or switches of f", ErrSens, m.Name(), dm.DelayInfo(k).Name)
			}
		}
	}
	var consts []float64
	for k := 0; k < nd; k++ {
		if dm.DelayInfo(k).Constant && tau[k] > 0 {
			consts = append(consts, tau[k])
		}
	}
	// Steps no longer than the shortest constant delay read the history
	// in accepted steps only. A delay far shorter than the time span
	// would make that a crawl (a stiff model at rest takes long steps):
	// then the steps overlap the delay, and the last step's polynomial is
	// extrapolated, to the order of the method.
	if len(consts) > 0 {
		tmin := slices.Min(consts)
		if span := ts[len(ts)-1] - ts[0]; tmin >= 1e-3*span && (oset.HMax == 0 || oset.HMax > tmin) {
			oset.HMax = tmin
		}
	}
	res.Breaks = breaks(ts[0], ts[len(ts)-1], consts, maxOrder, maxBreaks)
	var r model.Model = &rhs{Model: m, dm: dm, h: h, d: make([]float64, nd)}
	var sr *sensRHS
	ip := p // the parameters the integrator passes (none to sensRHS)
	if withS {
		sr = newSensRHS(m, ds, h, p, tau)
		if err := sr.unlocatedJumps(m.Name(), ts[0], ts[len(ts)-1]); err != nil {
			return nil, err
		}
		sr.d0 = d0
		sr.brk, sr.tend = &res.Breaks, ts[len(ts)-1]
		sr.startSource()
		r, ip = sr, nil
	}
	ig := ode.NewSolver(r, &oset)
	// DOPRI5's initial step guess (Hairer's) collapses at a restart where
	// the state is at rounding-level distance from zero (x' = -x(t-1)
	// restarts at x(1) = 0): later segments start from the previous
	// segment's last step instead, with a solver of their own.
	restartH0 := oset.Method == ode.DOPRI5 && oset.H0 == 0

	if hasEvents {
		el := &evLoop{m: m, h: h, r: r, sr: sr, ig: ig, ip: ip, oset: oset, res: res, ts: ts, p: p, consts: consts,
			maxOrder: maxOrder, maxBreaks: maxBreaks, restartH0: restartH0}
		if set != nil {
			el.eset = set.Events
		}
		if err := el.run(z0); err != nil {
			return nil, err
		}
		return res, h.outputsDelayed(res, tau)
	}
	t := ts[0]
	z := slices.Clone(z0)
	iout, ib := 0, 0
	lastJ := ts[0] // S has taken the jumps up to here (sensRHS.jump)
	var tout []float64
	emit := res.emit
	for iout < len(ts) && ts[iout] <= t {
		emit(z)
		iout++
	}
	for iout < len(ts) {
		for ib < len(res.Breaks) && res.Breaks[ib] <= t+near(t) {
			ib++
		}
		tend := ts[len(ts)-1]
		if ib < len(res.Breaks) && res.Breaks[ib] < tend {
			tend = res.Breaks[ib]
			// A breaking point within rounding of an output is that
			// output: a segment of a few ulps would only make the
			// integrator fail.
			j, _ := slices.BinarySearch(ts, tend-near(tend))
			if j < len(ts) && ts[j] > t && ts[j] <= tend+near(tend) {
				tend = ts[j]
			}
		}
		tout = tout[:0]
		first := iout
		for iout < len(ts) && ts[iout] <= tend {
			tout = append(tout, ts[iout])
			iout++
		}
		if len(tout) == 0 || tout[len(tout)-1] < tend {
			tout = append(tout, tend)
		}
		if sr != nil && t > ts[0] {
			sr.jump(t, z, lastJ)
			lastJ = t
		}
		tr := &ode.Trajectory{}
		if restartH0 && len(h.done) > 0 {
			prev := h.done[len(h.done)-1]
			if n := prev.Len(); n >= 2 {
				oset.H0 = math.Min(prev.T[n-1]-prev.T[n-2], tend-t)
				ig = ode.NewSolver(r, &oset)
			}
		}
		h.cur, h.segEnd = tr, tend
		err := ig.Integrate(tr, ip, z, t, tout)
		if h.err != nil {
			return nil, h.err
		}
		if err != nil {
			return nil, err
		}
		for j := first; j < iout; j++ {
			emit(tr.XAt(tr.Out[j-first]))
		}
		h.done = append(h.done, tr)
		h.starts = append(h.starts, t)
		h.cur = nil
		t = tend
		copy(z, tr.XAt(tr.Len()-1))
	}
	return res, h.outputsDelayed(res, tau)
}

// emit appends the state and S at an output from z = (x, S column by
// column).
func (r *Result) emit(z []float64) {
	nx, ns := r.NX, r.NS
	r.X = append(r.X, z[:nx]...)
	for i := 0; i < nx; i++ {
		for j := 0; j < ns; j++ {
			r.S = append(r.S, z[nx+j*nx+i])
		}
	}
}

// outputsDelayed writes the delayed values at the outputs into res.D,
// from the whole history (tau is scratch).
func (h *history) outputsDelayed(res *Result, tau []float64) error {
	for i, ti := range res.T {
		h.delayedTo(res.DAt(i), ti, res.XAt(i), tau)
		if h.err != nil {
			return h.err
		}
	}
	return nil
}

// breaks returns the breaking points in (t0, tend): t0 plus sums of up to
// order of the constant delays, sorted, without points closer than a
// relative 1e-12, at most maxn of them.
func breaks(t0, tend float64, taus []float64, order, maxn int) []float64 {
	if len(taus) == 0 {
		return nil
	}
	slices.Sort(taus)
	taus = slices.Compact(taus)
	gen := []float64{t0}
	var out []float64
	for g := 0; g < order && len(gen) > 0 && len(out) < maxn; g++ {
		var next []float64
		for _, b := range gen {
			for _, tau := range taus {
				if nb := b + tau; nb < tend && len(next) < maxn {
					next = append(next, nb)
				}
			}
		}
		slices.Sort(next)
		next = compactTol(next)
		out = append(out, next...)
		gen = next
	}
	slices.Sort(out)
	out = compactTol(out)
	if len(out) > maxn {
		out = out[:maxn]
	}
	return out
}

// near is the distance within which two times are taken as one.
func near(t float64) float64 { return 1e-12 * math.Max(1, math.Abs(t)) }

// compactTol removes from sorted v the points within a relative 1e-12 of
// the previous one.
func compactTol(v []float64) []float64 {
	if len(v) == 0 {
		return v
	}
	w := 1
	for _, x := range v[1:] {
		if x-v[w-1] > near(x) {
			v[w] = x
			w++
		}
	}
	return v[:w]
}

// rhs is the model handed to runtime/ode: F and Jx with the delayed
// values looked up in the history. It is one solve's and not safe for
// concurrent use. It does not implement model.Delays, so runtime/ode
// integrates it.
type rhs struct {
	model.Model
	dm model.Delays
	h  *history
	d  []float64
}

func (r *rhs) F(dst []float64, t float64, x, p []float64) {
	r.h.delayedTo(r.d, t, x, nil)
	r.dm.FDelayed(dst, t, x, p, r.d)
}

func (r *rhs) Jx(dst []float64, t float64, x, p []float64) {
	r.h.delayedTo(r.d, t, x, nil)
	r.dm.JxDelayed(dst, t, x, p, r.d)
}

// history is the solution so far: the finished segments' trajectories
// and the one being integrated.
//
// The trajectories are of the integrated vector z: the states x (nx), and
// with sensitivities after them S column by column (nz = nx (1 + np));
// the model's methods are handed z[:nx].
type history struct {
	dm         model.Delays
	p          []float64
	nx, nz, nd int
	t0         float64
	x0         []float64         // z at t0
	done       []*ode.Trajectory // finished segments, in time order
	starts     []float64         // their start times
	cur        *ode.Trajectory   // the segment being integrated, or nil
	segEnd     float64           // the end of the segment being integrated
	info       []model.DelayInfo
	// levels[l] is the scratch of a lookup at nesting depth l: a state
	// and the delayed values at the time looked up.
	levels [][]float64
	left   bool // the point evaluated is a segment's end (setLeft)
	err    error
}

func newHistory(m model.Model, dm model.Delays, p, z0 []float64, t0 float64) *history {
	nx, nz, nd := model.NumStates(m), len(z0), dm.NumDelays()
	h := &history{dm: dm, p: p, nx: nx, nz: nz, nd: nd, t0: t0, x0: slices.Clone(z0)}
	for k := 0; k < nd; k++ {
		h.info = append(h.info, dm.DelayInfo(k))
	}
	h.levels = make([][]float64, nd+1)
	for l := range h.levels {
		h.levels[l] = make([]float64, nz+nd)
	}
	return h
}

// delayedTo writes the delayed values at (t, x) into d; when tau is not
// nil also the delays. On an invalid delay it records h.err and writes
// NaN, which makes the integrator fail.
func (h *history) delayedTo(d []float64, t float64, x, tau []float64) {
	h.setLeft(t)
	h.delayed(d, h.nd, t, x, tau, 0)
}

// setLeft records whether the point (t, x) being evaluated is the end of
// the segment being integrated, whose lookups then read left limits
// (lookup). The nested lookups of a left limit are left limits too: a
// jump of the state at t_s reaches a nested delayed value at t_s + tau_j
// + tau_k, a breaking point whose segment must see the value before it
// to its end.
func (h *history) setLeft(t float64) {
	h.left = h.cur != nil && t >= h.segEnd-near(h.segEnd)
}

// delayed writes the first n delayed values at (t, z) into d, looking
// the history up at nesting depth level; z is the integrated vector (or
// the state alone: the model sees z[:nx]).
func (h *history) delayed(d []float64, n int, t float64, z, tau []float64, level int) {
	x := z[:h.nx]
	for k := 0; k < n; k++ {
		tk := h.dm.DelayTime(k, t, x, h.p, d[:k])
		if tau != nil {
			tau[k] = tk
		}
		switch {
		case !(tk >= 0) || math.IsInf(tk, 1):
			if h.err == nil {
				h.err = fmt.Errorf("%w: %s is %g at t=%g (SBML requires a finite, non-negative delay)", ErrDelay, h.info[k].Name, tk, t)
			}
			d[k] = math.NaN()
		case tk == 0:
			d[k] = h.dm.DelayArg(k, t, x, h.p, d[:k])
		default:
			d[k] = h.lookup(k, t-tk, t, z, level)
		}
	}
}

// lookup is e_k at time s < t, where (t, x) is the point being
// evaluated (used when s lies beyond the accepted steps).
func (h *history) lookup(k int, s, t float64, x []float64, level int) float64 {
	// At the end of a segment (h.left, see setLeft), t = t0 + tau is a
	// breaking point and the segment is the left side of it: the value
	// there is the history's limit, which differs from the solution's at
	// t0 when the history does not meet x0 (an integrator's last stage
	// lands exactly on the segment's end; the + side there made an O(h)
	// error).
	left := h.left
	if h.beforeStart(s, left) {
		return h.dm.DelayHistory(k, s, h.p)
	}
	buf := h.levels[level]
	zs, ds := buf[:h.nz], buf[h.nz:]
	h.stateAt(zs, s, t, x, left)
	// The delayed values of lower index that e_k may read, at s.
	// (At most k: values of lower index only, which also bounds the
	// nesting by NumDelays whatever a model's DelayInfo says.)
	n := min(h.info[k].Reads, k)
	h.delayed(ds, n, s, zs, nil, level+1)
	return h.dm.DelayArg(k, s, zs[:h.nx], h.p, ds[:k])
}

// beforeStart reports whether a lookup of time s reads the history
// before the start: s before t0, or within rounding of it on its left
// side (left) or before it by more than rounding on its right side (a
// segment that starts at t0 + tau reads x0 at its first point, whatever
// the rounding of t - tau).
func (h *history) beforeStart(s float64, left bool) bool {
	if left {
		return s <= h.t0+near(h.t0)
	}
	return s < h.t0-near(h.t0)
}

// stateAt writes x(s) into dst from the history; (t, x) is the trial
// point, used when s is past the accepted steps. A time s within
// rounding of a segment's start reads, with left, the segment before:
// the left limit, which differs where an event or a switch changed the
// state or S (at the end of a segment ending at t_e + tau, the breaking
// point of the event at t_e, the value before the event is read);
// without left, the segment that starts there, the right limit (the
// first point of the segment starting at t_e + tau reads the value after
// the event even where t - tau rounds to just before t_e).
func (h *history) stateAt(dst []float64, s, t float64, x []float64, left bool) {
	tr := h.cur
	var before bool // s reads a finished segment
	switch {
	case tr == nil || tr.Len() == 0:
		before = true
	case left:
		before = s < tr.T[0] || s <= tr.T[0]+near(s) && len(h.done) > 0
	default:
		before = s < tr.T[0]-near(s)
	}
	if before {
		// A finished segment: the last that starts at or before s.
		i := sort.SearchFloat64s(h.starts, s)
		if i == len(h.starts) || h.starts[i] > s {
			i--
		}
		if left && i > 0 && s-h.starts[i] <= near(s) {
			i--
		}
		if !left && i+1 < len(h.starts) && h.starts[i+1]-s <= near(s) {
			i++
		}
		if i < 0 {
			copy(dst, h.x0)
			return
		}
		tr = h.done[i]
	}
	n := tr.Len()
	if last := tr.T[n-1]; s > last {
		switch {
		case n >= 2:
			tr.InterpStep(dst, s, n-2) // extrapolate the last step
		case t > last:
			// Linear between the last accepted point and the trial.
			w := (s - last) / (t - last)
			xl := tr.XAt(0)
			for i := range dst {
				dst[i] = xl[i] + w*(x[i]-xl[i])
			}
		default:
			copy(dst, tr.XAt(n-1))
		}
		return
	}
	if n == 1 {
		copy(dst, tr.XAt(0))
		return
	}
	tr.InterpTo(dst, s)
}
