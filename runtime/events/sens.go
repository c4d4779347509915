package events

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sens"
)

// SensSettings are the options of SolveSens. A nil *SensSettings means
// the defaults.
type SensSettings struct {
	// Events are the event options (TTol, MaxEvents, Seed); their ODE
	// field is ignored: the integrator is Sens.ODE's.
	Events *Settings
	// Sens selects the sensitivity method (FS, PBSR, Exp, PBS), its
	// tolerances, the parameters (columns of S) and the integrator
	// settings, as for sens.NewSolver.
	Sens *sens.Options
}

// SensResult is the state and its sensitivities at the output times and
// the events executed.
type SensResult struct {
	Result
	NS int
	// S is dx/dp at the output times, block i row-major NX x NS (the
	// layout of sens.Result.S), after the events at T[i].
	S []float64
}

// SAt returns the NX x NS block of output i (a view).
func (r *SensResult) SAt(i int) []float64 { b := r.NX * r.NS; return r.S[i*b : (i+1)*b] }

// ErrNoEventDerivs is returned (wrapped) by SolveSens for a model with
// events that does not implement model.EventDerivs.
var ErrNoEventDerivs = errors.New("events: sensitivities across events need the model's event derivatives (model.EventDerivs)")

// ErrTangential is returned (wrapped) when an event's root function
// reaches zero with zero time derivative: the event time then does not
// depend smoothly on the parameters and S has no value after it.
var ErrTangential = errors.New("events: root function reaches zero tangentially: the event time is not differentiable")

// SolveSens is Solve with the sensitivities S = dx/dp carried across the
// events (see the package doc, "Sensitivities"). Between events x and S are
// integrated by a sens.Solver (set.Sens: FS or a Peano-Baker method, the
// same jumps for all); an event is located on FS's integration of x and
// S, or for the others on a state-only one of the same integrator
// settings. x0 nil means m.InitialState(p); s0 nil means
// m.InitialSens(p) when x0 is nil and zero otherwise; s0 has nx x ns
// values (ns = len(set.Sens.Params), or all parameters). x0, s0 and p are
// not modified. For repeated solves of one model, SensSolver keeps the
// workspaces.
func SolveSens(m model.Model, p, x0, s0, ts []float64, set *SensSettings) (*SensResult, error) {
	if m == nil {
		panic("events: nil model")
	}
	v, err := NewSensSolver(m, set)
	if err != nil {
		return nil, err
	}
	nx, np, ns := v.s.nx, model.NumParams(m), v.ns
	if len(p) != np || x0 != nil && len(x0) != nx || s0 != nil && len(s0) != nx*ns {
		return nil, fmt.Errorf("events: p, x0 or s0 has the wrong length (want %d, %d and %d values)", np, nx, nx*ns)
	}
	if len(ts) == 0 {
		return nil, errors.New("events: no output times")
	}
	xs, ss := slices.Clone(x0), slices.Clone(s0)
	if xs == nil {
		xs = make([]float64, nx)
		m.InitialState(xs, p)
		if ss == nil {
			full := make([]float64, nx*np)
			m.InitialSens(full, p)
			ss = make([]float64, nx*ns)
			for i := 0; i < nx; i++ {
				for c, j := range v.params {
					ss[i*ns+c] = full[i*np+j]
				}
			}
		}
	}
	if ss == nil {
		ss = make([]float64, nx*ns)
	}
	var r sens.Result
	err = v.SolveFrom(&r, p, &SensStart{T0: ts[0], X0: xs, S0: ss}, ts)
	if err != nil {
		return nil, err
	}
	return &SensResult{Result: Result{NX: nx, T: slices.Clone(ts), X: r.X, Fired: v.Fired()}, NS: ns, S: r.S}, nil
}

// runSens is run with S from (t0, x0, s0): each segment is integrated
// to the last output or queued execution and ended at the step where a
// trigger changes (stopAt). With s.oneFS (or no columns) that one pass
// gives x (and S, interpolated at the change) and the outputs; else it
// is of x alone (xsol) and x and S are then integrated (sol) from the
// segment's start to the change or the segment's end. The events there
// update S through sensState. The triggers and the queue are s's (set by
// the caller). With open, events at the last output time are not handled
// (see SensStart.Open).
func (s *solver) runSens(sol, xsol *sens.Solver, t0 float64, x0, s0, ts []float64, res *SensResult, open bool) error {
	p := s.p
	t := t0
	x := s.xw
	copy(x, x0)
	S := s0
	if s.sv != nil {
		S = s.sv.sm
		copy(S, s0)
	}
	s.setMode(modeFixed)
	if err := s.handle(t, x); err != nil {
		return err
	}
	last := ts[len(ts)-1]
	// atEnd: the instant at t is left to the next solve.
	atEnd := func(t float64) bool { return open && t >= last-s.tol(last) }
	xr, sr := &s.xr, &s.sr
	iout := 0
	for iout < len(ts) {
		for iout < len(ts) && ts[iout] <= t {
			s.res.X = append(s.res.X, x...)
			res.S = append(res.S, S...)
			iout++
		}
		if iout == len(ts) {
			break
		}
		if tnext := s.segmentEnd(ts[iout]); tnext-t <= s.tol(t) {
			t = tnext
			if atEnd(t) {
				continue
			}
			s.setMode(modeQueue)
			if err := s.handle(t, x); err != nil {
				return err
			}
			continue
		}
		// One segment over the outputs left, or up to the next queued
		// execution, ended at the step where a trigger changes or a
		// switch crosses (stopAt): the solvers restart at events and
		// switches only, and no step is taken past the next event.
		tend := s.segmentEnd(last)
		seg := s.segTimes(ts, iout, t, tend)
		// one: the pass that locates the change also gives the outputs
		// before it (x alone, or x and S by FS), landing on them; else
		// (PBSR, Exp, PBS) it is of x alone and lands on none.
		one := len(S) == 0 || s.oneFS
		ps, pr, pts := xsol, xr, seg[len(seg)-1:]
		s.st = sens.Start{T0: t, X0: x}
		if one {
			pts = seg
			if len(S) > 0 {
				ps, pr, s.st.S0 = sol, sr, S
			}
		}
		s.arm(ps.Integrator())
		err := ps.SolveFrom(pr, p, &s.st, pts)
		ps.Integrator().SetStop(nil)
		if err != nil {
			return err
		}
		tr := ps.Trajectory()
		s.stopAt(tr) // the steps it was not asked about (a model without states)
		s.addStats(pr)
		xend := tr.XAt(tr.Len() - 1)
		tc, xc, found := s.hitT, s.xbuf, s.hit
		if found && atEnd(tc) {
			found = false // the change at the open end is the next solve's
		}
		tseg := tend
		if found {
			tseg = tc
		}
		// At a switch of f, x and S are integrated to the old side of the
		// jump only (no step of sol straddles it) and carried over the
		// bracket with f- (acrossSwitch).
		sw := found && s.swHit
		xl := s.xl
		if sw {
			tseg = s.tl
		}
		// The outputs before tseg are those of the pass that ends there:
		// times outTs, results out.
		outTs, out := pts, pr
		on := false // S solved on the state pass (sens.Solver.SolveOn)
		if len(S) > 0 && !one && !sw && tseg > t {
			outTs = s.cutTimes(seg, tseg)
			if on, err = sol.SolveOn(sr, p, tr, S, outTs); err != nil {
				return err
			}
			out = sr
		}
		if len(S) > 0 && (!one || sw) && !on && tseg > t {
			for try := 0; ; try++ {
				outTs = s.cutTimes(seg, tseg)
				s.st = sens.Start{T0: t, X0: x, S0: S}
				if err := sol.SolveFrom(sr, p, &s.st, outTs); err != nil {
					return err
				}
				s.addStats(sr)
				if !sw {
					break
				}
				// Where sol's x has crossed already at tseg, its last step
				// ends on the new side, and a method without error control
				// of S (Exp, PBS) takes f's derivatives there for the whole
				// step: solve again to the crossing located on sol's x.
				tl := s.tl
				xl, tc = s.oldSide(sol.Trajectory(), tc)
				if s.tl == tl || !(s.tl > t) || try == 3 {
					break
				}
				tseg = s.tl
			}
			out = sr
		} else if sw && tseg > t {
			outTs = s.cutTimes(seg, tseg)
			s.st = sens.Start{T0: t, X0: x}
			if err := xsol.SolveFrom(xr, p, &s.st, outTs); err != nil {
				return err
			}
			s.addStats(xr)
			xl, tc = s.oldSide(xsol.Trajectory(), tc)
			out = xr
		}
		if tseg > t {
			for j := 0; iout < len(ts) && ts[iout] < tseg; iout++ {
				for j < len(outTs)-1 && outTs[j] < ts[iout] {
					j++
				}
				s.res.X = append(s.res.X, out.XAt(j)...)
				if len(S) > 0 {
					res.S = append(res.S, out.SAt(j)...)
				}
			}
			switch {
			case len(S) == 0:
			case one && found && !sw:
				// S at the change, on FS's last step (the step straddles
				// it): its Nordsieck polynomial, as CVODES interpolates S
				// at a root.
				if !sol.Integrator().SensAt(S, tc) {
					return fmt.Errorf("events: no sensitivities to interpolate at t = %g", tc)
				}
			default:
				copy(S, out.SAt(len(outTs)-1))
			}
		}
		if sw {
			var err error
			if tc, err = s.acrossSwitch(xl, tc); err != nil {
				return err
			}
			xc = s.xbuf
		}
		if found {
			t = tc
			copy(x, xc)
			if s.root >= 0 {
				s.setMode(s.root)
			} else {
				s.setMode(modeNearest)
			}
		} else {
			t = tend
			copy(x, xend)
			if atEnd(t) {
				continue
			}
			s.setMode(modeQueue)
		}
		if err := s.handle(t, x); err != nil {
			return err
		}
	}
	return nil
}

// addStats adds a segment's integrator work to the solve's.
func (s *solver) addStats(r *sens.Result) {
	st, o := &s.stats.ODE, r.Stats.ODE
	st.Steps += o.Steps
	st.Rejected += o.Rejected
	st.ErrFails += o.ErrFails
	st.FEvals += o.FEvals
	st.JacEvals += o.JacEvals
	st.LUs += o.LUs
	st.NewtonIters += o.NewtonIters
	st.NewtonFails += o.NewtonFails
	st.SensJacEvals += o.SensJacEvals
	st.SensNewtonIters += o.SensNewtonIters
	st.SensNewtonFails += o.SensNewtonFails
}

// Modes of an event instant's time dependence (sensState.mode); a
// non-negative mode is the index of the root function whose crossing
// located the instant.
const (
	modeFixed = -2 // the start time: independent of p
	modeQueue = -1 // an output or queued execution time
	// modeNearest: a trigger change found without a root crossing (a
	// root touching zero); the root nearest zero is taken as the cause.
	modeNearest = -3
)

func (s *solver) setMode(m int) {
	if s.sv != nil {
		s.sv.mode, s.sv.begun = m, false
	}
}

// sensState carries S through the event instants. At an instant tau(p)
// it works with D, the total derivative of the state at the instant,
// d/dp[x(tau(p), p)] = S + f dtau/dp: D = S- + f(x-) dtau before the
// first execution, each execution x := h(t, x, p) maps the rows of its
// targets to h_x D + h_t dtau + h_p (the others keep theirs: h = x there),
// and after the last one S+ = D - f(x+) dtau, since x(t) = x+ + the
// integral of f from tau to t. Events triggered at the instant take
// their execution time's derivative dtau + d_x D + d_t dtau + d_p from
// their delay d and, with values from the trigger time, those values'
// derivatives.
type sensState struct {
	s        *solver
	ed       model.EventDerivs
	params   []int
	ns       int
	mode     int
	begun    bool
	jumped   bool      // an instant was finished since the caller cleared it (Instants.DTau)
	moves    []float64 // the next instant's dtau/dp, when the caller knows it (Instants.MovesWith)
	movesBuf []float64
	dtau     []float64 // ns
	sm       []float64 // S, nx x ns
	d        []float64 // D, nx x ns
	f        []float64
	gx, gp   []float64
	rows     []float64
	der      model.EventDeriv
}

func newSensState(s *solver, ed model.EventDerivs, params []int) *sensState {
	nx, np, ns := s.nx, len(s.p), len(params)
	return &sensState{s: s, ed: ed, params: params, ns: ns,
		dtau: make([]float64, ns), sm: make([]float64, nx*ns), d: make([]float64, nx*ns),
		f: make([]float64, nx), gx: make([]float64, nx), gp: make([]float64, np)}
}

// begin starts an instant at (t, x-) if not yet begun: dtau from the
// instant's mode (q, if not nil, is the queued execution being handled),
// then D = S + f dtau.
func (v *sensState) begin(t float64, x []float64, q *pending) error {
	if v.begun {
		return nil
	}
	s := v.s
	nx, ns := s.nx, v.ns
	clear(v.dtau)
	mode := v.mode
	if mode == modeNearest {
		mode = modeQueue
		if s.nr > 0 {
			s.ev.RootsTo(s.gc, t, x, s.p)
			best := 0
			for j, g := range s.gc {
				if math.Abs(g) < math.Abs(s.gc[best]) {
					best = j
				}
			}
			mode = best
		}
	}
	// f-: at an instant located by a root crossing, on the old side of
	// the bracket (f may jump at the root: a switch of f, or a trigger
	// that is one too); elsewhere at the instant.
	if mode >= 0 && v.mode >= 0 {
		s.m.F(v.f, s.tl, s.xl, s.p)
	} else {
		s.m.F(v.f, t, x, s.p)
	}
	queued := mode == modeQueue && (q != nil && q.dtex != nil || v.dueDtex(t) != nil)
	switch {
	case v.moves != nil && !queued && v.mode < 0:
		// The caller's (Instants.MovesWith): the triggers changed at a
		// time it knows the derivative of. Not at a root Locate found
		// crossing (a switch of f at the time a delayed value jumps,
		// say): that root's own crossing gives the instant's time.
		copy(v.dtau, v.moves)
	case mode >= 0:
		// g(tau, x(tau), p) = 0: dtau = -(g_x S + g_p) / (g_x f- + g_t).
		gt := v.ed.RootGrad(mode, t, x, s.p, v.gx, v.gp)
		den := gt
		for i := 0; i < nx; i++ {
			den += v.gx[i] * v.f[i]
		}
		if den == 0 || math.IsNaN(den) {
			return fmt.Errorf("%w: root %d at t=%g", ErrTangential, mode, t)
		}
		for c, j := range v.params {
			num := v.gp[j]
			for i := 0; i < nx; i++ {
				num += v.gx[i] * v.sm[i*ns+c]
			}
			v.dtau[c] = -num / den
		}
	case mode == modeQueue:
		if q != nil && q.dtex != nil {
			copy(v.dtau, q.dtex)
			break
		}
		if d := v.dueDtex(t); d != nil {
			copy(v.dtau, d)
		}
	}
	for i := 0; i < nx; i++ {
		for c := 0; c < ns; c++ {
			v.d[i*ns+c] = v.sm[i*ns+c] + v.f[i]*v.dtau[c]
		}
	}
	v.begun = true
	return nil
}

// dueDtex is the execution time's derivative of the first queued
// execution due at t that has one, or nil.
func (v *sensState) dueDtex(t float64) []float64 {
	s := v.s
	for _, e := range s.queue {
		if !e.cancel && e.t <= t+s.tol(t) && e.dtex != nil {
			return e.dtex
		}
	}
	return nil
}

// deriv evaluates event k's derivatives at (t, x) into v.der.
func (v *sensState) deriv(k int, t float64, x []float64) {
	n := len(v.s.ev.EventTargets(k)) + 1
	nx, np := v.s.nx, len(v.s.p)
	v.der.X = resize(v.der.X, n*nx)
	v.der.P = resize(v.der.P, n*np)
	v.der.T = resize(v.der.T, n)
	v.ed.EventDeriv(k, t, x, v.s.p, &v.der)
}

// rowTo writes the total derivative of row r of v.der (the delay for r =
// 0, target r-1's value otherwise) at the instant, r_x D + r_t dtau +
// r_p, into dst (ns).
func (v *sensState) rowTo(dst []float64, r int) {
	nx, np, ns := v.s.nx, len(v.s.p), v.ns
	for c, j := range v.params {
		a := v.der.T[r]*v.dtau[c] + v.der.P[r*np+j]
		for i := 0; i < nx; i++ {
			a += v.der.X[r*nx+i] * v.d[i*ns+c]
		}
		dst[c] = a
	}
}

// queued records, for event q.k triggered at (t, x), the derivatives of
// its execution time and (values from the trigger time) of its values.
func (v *sensState) queued(q *pending, t float64, x []float64) error {
	if err := v.begin(t, x, nil); err != nil {
		return fmt.Errorf("event %q: %w", v.s.info[q.k].Name, err)
	}
	inf := v.s.info[q.k]
	q.dtex = v.s.take(v.ns)
	copy(q.dtex, v.dtau)
	if !inf.HasDelay && !inf.UseValuesFromTriggerTime {
		return nil
	}
	v.deriv(q.k, t, x)
	if inf.HasDelay {
		v.rowTo(q.dtex, 0)
		for c := range q.dtex {
			q.dtex[c] += v.dtau[c]
		}
	}
	if inf.UseValuesFromTriggerTime {
		n := len(v.s.ev.EventTargets(q.k))
		q.dvals = v.s.take(n * v.ns)
		for i := 0; i < n; i++ {
			v.rowTo(q.dvals[i*v.ns:(i+1)*v.ns], 1+i)
		}
	}
	return nil
}

// execute updates D for the execution of q at (t, x-): the rows of its
// targets become the derivatives of their new values.
func (v *sensState) execute(q pending, t float64, x []float64) {
	// begin cannot fail here unless it failed already in update, whose
	// error ends the solve first; a tangential root is reported there.
	if err := v.begin(t, x, &q); err != nil {
		v.s.sensErr = fmt.Errorf("event %q: %w", v.s.info[q.k].Name, err)
		return
	}
	tg := v.s.ev.EventTargets(q.k)
	ns := v.ns
	v.rows = resize(v.rows, len(tg)*ns)
	if q.dvals != nil {
		copy(v.rows, q.dvals)
	} else {
		v.deriv(q.k, t, x)
		for i := range tg {
			v.rowTo(v.rows[i*ns:(i+1)*ns], 1+i)
		}
	}
	for i, j := range tg {
		copy(v.d[j*ns:(j+1)*ns], v.rows[i*ns:(i+1)*ns])
	}
}

// finish ends an instant at (t, x+): S = D - f(x+) dtau.
func (v *sensState) finish(t float64, x []float64) error {
	if err := v.s.sensErr; err != nil {
		return err
	}
	if !v.begun {
		return nil
	}
	s := v.s
	nx, ns := s.nx, v.ns
	s.m.F(v.f, t, x, s.p)
	for i := 0; i < nx; i++ {
		for c := 0; c < ns; c++ {
			v.sm[i*ns+c] = v.d[i*ns+c] - v.f[i]*v.dtau[c]
		}
	}
	v.begun, v.jumped = false, true
	return nil
}

func resize(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// withoutEvents hides a model's events from sens.Solver, which refuses a
// model with events (it would step over them); SolveSens gives it the
// stretches between events only.
type withoutEvents struct{ model.Model }
