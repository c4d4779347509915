package interp

import (
	"fmt"
	"slices"
	"sync"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

// evProg holds a model's events compiled: the triggers (one root each,
// 1 or 0), the root functions of all triggers, and per event a program
// whose roots are its delay, its priority and its assigned values.
type evProg struct {
	info    []model.EventInfo
	targets [][]int
	trig    *symbolic.Compiled
	roots   *symbolic.Compiled
	each    []*symbolic.Compiled
	pool    sync.Pool // *evScratch
	// Derivatives (model.EventDerivs): of the root functions, and per
	// event of its delay and assigned values.
	rootDeriv *derivProg
	deriv     []*derivProg
	nsw       int // the last nsw roots are switches of f (model.Switches)
}

type evScratch struct{ slots, trig, out []float64 }

var (
	_ model.Events      = (*Model)(nil)
	_ model.Switches    = (*Model)(nil)
	_ model.DelayEvents = (*Model)(nil)
)

// NumSwitches returns the number of root functions, the last ones, that
// are switches of the right-hand side (model.Switches): the relations
// in the rates, compiled by NewWithEvents only (New's model, for solvers
// that ignore events, has none).
func (m *Model) NumSwitches() int {
	if m.ev == nil {
		return 0
	}
	return m.ev.nsw
}

// compileEvents compiles sys.ODE.Events (nothing when there are none).
func (m *Model) compileEvents() error {
	evs := m.sys.ODE.Events
	b := m.sys.B
	switches := b.Switches(m.sys.F)
	if len(evs) == 0 && len(switches) == 0 {
		return nil
	}
	ep := &evProg{nsw: len(switches)}
	// Events may read delayed values (model.DelayEvents): compiled with
	// them as inputs, NaN in the plain methods, as F is.
	dnames := delayNames(m.sys)
	var trig, roots []*symbolic.Node
	seenRoot := make(map[*symbolic.Node]bool)
	nslots, nout := 0, 0
	for _, e := range evs {
		if e.Trigger == nil {
			return fmt.Errorf("interp: model %q: event %q has no trigger", m.sys.ODE.Name, e.Name)
		}
		trig = append(trig, e.Trigger)
		for _, g := range b.Roots(e.Trigger) {
			if !seenRoot[g] {
				seenRoot[g] = true
				roots = append(roots, g)
			}
		}
		ep.info = append(ep.info, model.EventInfo{
			Name: e.Name, InitialValue: e.InitialValue, Persistent: e.Persistent,
			UseValuesFromTriggerTime: e.UseValuesFromTriggerTime,
			HasDelay:                 e.Delay != nil, HasPriority: e.Priority != nil,
		})
		as := slices.Clone(e.Assign)
		slices.SortFunc(as, func(a, c symbolic.EventAssign) int { return a.State - c.State })
		zero := b.Const(0)
		prog := []*symbolic.Node{zero, zero}
		if e.Delay != nil {
			prog[0] = e.Delay
		}
		if e.Priority != nil {
			prog[1] = e.Priority
		}
		var tg []int
		for _, a := range as {
			if a.State < 0 || a.State >= m.nx || len(tg) > 0 && tg[len(tg)-1] == a.State {
				return fmt.Errorf("interp: model %q: event %q: bad or repeated target state %d", m.sys.ODE.Name, e.Name, a.State)
			}
			tg = append(tg, a.State)
			prog = append(prog, a.Value)
		}
		ep.targets = append(ep.targets, tg)
		c, err := symbolic.CompileDelayed(prog, m.stateNames, m.paramNames, dnames)
		if err != nil {
			return fmt.Errorf("interp: model %q: event %q: %w", m.sys.ODE.Name, e.Name, err)
		}
		ep.each = append(ep.each, c)
		nslots, nout = max(nslots, c.ScratchLen()), max(nout, len(prog))
		// Row 0 the delay, then the values: prog without the priority.
		d, err := m.compileDerivs(append([]*symbolic.Node{prog[0]}, prog[2:]...))
		if err != nil {
			return fmt.Errorf("interp: model %q: event %q: derivatives: %w", m.sys.ODE.Name, e.Name, err)
		}
		ep.deriv = append(ep.deriv, d)
	}
	// The switches of f come last, even where one is also a trigger's
	// root: root j is a switch for j >= NumRoots()-NumSwitches().
	roots = append(roots, switches...)
	var err error
	if ep.trig, err = symbolic.CompileDelayed(trig, m.stateNames, m.paramNames, dnames); err != nil {
		return fmt.Errorf("interp: model %q: event triggers: %w", m.sys.ODE.Name, err)
	}
	if ep.roots, err = symbolic.CompileDelayed(roots, m.stateNames, m.paramNames, dnames); err != nil {
		return fmt.Errorf("interp: model %q: event roots: %w", m.sys.ODE.Name, err)
	}
	if ep.rootDeriv, err = m.compileDerivs(roots); err != nil {
		return fmt.Errorf("interp: model %q: derivatives of event roots: %w", m.sys.ODE.Name, err)
	}
	nslots = max(nslots, ep.trig.ScratchLen(), ep.roots.ScratchLen())
	ntrig := len(trig)
	ep.pool.New = func() any {
		return &evScratch{slots: make([]float64, nslots), trig: make([]float64, ntrig), out: make([]float64, nout)}
	}
	m.ev = ep
	return nil
}

// NumEvents returns the number of events.
func (m *Model) NumEvents() int {
	if m.ev == nil {
		return 0
	}
	return len(m.ev.info)
}

// EventInfo returns event k's name and flags.
func (m *Model) EventInfo(k int) model.EventInfo { return m.ev.info[k] }

// EventTargets returns the states event k sets, ascending (do not modify).
func (m *Model) EventTargets(k int) []int { return m.ev.targets[k] }

// NumRoots returns the number of root functions of the triggers.
func (m *Model) NumRoots() int {
	if m.ev == nil {
		return 0
	}
	return m.ev.roots.NumRoots()
}

// TriggersTo writes the trigger values at (t, x, p) into dst (a
// delayed value read by a trigger is NaN: see TriggersDelayedTo).
func (m *Model) TriggersTo(dst []bool, t float64, x, p []float64) {
	m.TriggersDelayedTo(dst, t, x, p, nil)
}

// TriggersDelayedTo writes the trigger values at (t, x, p) with the
// delayed values d (nil: every one NaN) into dst (model.DelayEvents).
func (m *Model) TriggersDelayedTo(dst []bool, t float64, x, p, d []float64) {
	if len(dst) != m.NumEvents() || len(x) != m.nx || len(p) != m.np || d != nil && len(d) != m.NumDelays() {
		panic("interp: TriggersTo: dst, x, p or d length mismatch")
	}
	if m.ev == nil {
		return
	}
	s := m.ev.pool.Get().(*evScratch)
	m.ev.trig.EvalDelayedTo(s.trig, s.slots, t, x, p, d)
	for k, v := range s.trig {
		dst[k] = v != 0 && v == v // NaN is false
	}
	m.ev.pool.Put(s)
}

// RootsTo writes the root functions at (t, x, p) into dst.
func (m *Model) RootsTo(dst []float64, t float64, x, p []float64) {
	m.RootsDelayedTo(dst, t, x, p, nil)
}

// RootsDelayedTo writes the root functions at (t, x, p) with the delayed
// values d (nil: every one NaN) into dst (model.DelayEvents).
func (m *Model) RootsDelayedTo(dst []float64, t float64, x, p, d []float64) {
	if len(dst) != m.NumRoots() || len(x) != m.nx || len(p) != m.np || d != nil && len(d) != m.NumDelays() {
		panic("interp: RootsTo: dst, x, p or d length mismatch")
	}
	if m.ev == nil {
		return
	}
	s := m.ev.pool.Get().(*evScratch)
	m.ev.roots.EvalDelayedTo(dst, s.slots, t, x, p, d)
	m.ev.pool.Put(s)
}

// evalEvent evaluates event k's program at (t, x, p, d) and passes its
// values to f.
func (m *Model) evalEvent(k int, t float64, x, p, d []float64, f func(out []float64)) {
	if len(x) != m.nx || len(p) != m.np || d != nil && len(d) != m.NumDelays() {
		panic("interp: event: x, p or d length mismatch")
	}
	c := m.ev.each[k]
	s := m.ev.pool.Get().(*evScratch)
	out := s.out[:c.NumRoots()]
	c.EvalDelayedTo(out, s.slots, t, x, p, d)
	f(out)
	m.ev.pool.Put(s)
}

// Delay returns event k's delay at (t, x, p) (0 without a delay).
func (m *Model) Delay(k int, t float64, x, p []float64) float64 {
	return m.EventDelayDelayed(k, t, x, p, nil)
}

// EventDelayDelayed returns event k's delay at (t, x, p, d)
// (model.DelayEvents).
func (m *Model) EventDelayDelayed(k int, t float64, x, p, d []float64) (v float64) {
	m.evalEvent(k, t, x, p, d, func(out []float64) { v = out[0] })
	return v
}

// Priority returns event k's priority at (t, x, p).
func (m *Model) Priority(k int, t float64, x, p []float64) float64 {
	return m.PriorityDelayed(k, t, x, p, nil)
}

// PriorityDelayed returns event k's priority at (t, x, p, d)
// (model.DelayEvents).
func (m *Model) PriorityDelayed(k int, t float64, x, p, d []float64) (pr float64) {
	m.evalEvent(k, t, x, p, d, func(out []float64) { pr = out[1] })
	return pr
}

// EventAssign writes the new values of event k's targets at (t, x, p)
// into dst.
func (m *Model) EventAssign(k int, t float64, x, p, dst []float64) {
	m.EventAssignDelayed(k, t, x, p, nil, dst)
}

// EventAssignDelayed writes the new values of event k's targets at
// (t, x, p, d) into dst (model.DelayEvents).
func (m *Model) EventAssignDelayed(k int, t float64, x, p, d, dst []float64) {
	if len(dst) != len(m.ev.targets[k]) {
		panic("interp: EventAssign: dst length mismatch")
	}
	m.evalEvent(k, t, x, p, d, func(out []float64) { copy(dst, out[2:]) })
}

// derivProg is a list of expressions' derivatives compiled: root r of c
// is the derivative of expression row[r] in t (kind 't'), a state, a
// parameter or a delayed value (kind 'x', 'p' or 'd', index col[r]).
type derivProg struct {
	c    *symbolic.Compiled
	row  []int
	kind []byte
	col  []int
	pool sync.Pool // *evScratch (slots, out)
}

// compileDerivs forms the non-zero first derivatives of exprs in t, the
// states and the parameters.
func (m *Model) compileDerivs(exprs []*symbolic.Node) (*derivProg, error) {
	b := m.sys.B
	stateIdx := make(map[string]int, m.nx)
	for i, s := range m.stateNames {
		stateIdx[s] = i
	}
	paramIdx := make(map[string]int, m.np)
	for j, s := range m.paramNames {
		paramIdx[s] = j
	}
	delayIdx := m.sys.ODE.DelayIndex()
	dp := &derivProg{}
	var roots []*symbolic.Node
	for r, e := range exprs {
		for _, s := range symbolic.FreeSymbols(e) {
			var kind byte
			var col int
			switch s.Kind {
			case symbolic.KindTime:
				kind = 't'
			case symbolic.KindState:
				kind, col = 'x', stateIdx[s.Name]
			case symbolic.KindParam:
				kind, col = 'p', paramIdx[s.Name]
			case symbolic.KindDelay:
				kind, col = 'd', delayIdx[s.Name]
			default:
				continue
			}
			d, err := b.Diff(e, s)
			if err != nil {
				return nil, err
			}
			if d.IsConst(0) {
				continue
			}
			roots = append(roots, d)
			dp.row, dp.kind, dp.col = append(dp.row, r), append(dp.kind, kind), append(dp.col, col)
		}
	}
	// The derivatives read the delayed values: NaN through the plain
	// methods (RootGrad, EventDeriv), the solver's through the Delayed
	// ones (model.DelayEventDerivs).
	c, err := symbolic.CompileDelayed(roots, m.stateNames, m.paramNames, delayNames(m.sys))
	if err != nil {
		return nil, err
	}
	dp.c = c
	return dp, nil
}

// eval evaluates the derivatives at (t, x, p) with the delayed values d
// (nil: NaN) and passes each non-zero one to f.
func (dp *derivProg) eval(t float64, x, p, d []float64, f func(row int, kind byte, col int, v float64)) {
	s, _ := dp.pool.Get().(*evScratch)
	if s == nil {
		s = &evScratch{out: make([]float64, dp.c.NumRoots()), slots: make([]float64, dp.c.ScratchLen())}
	}
	dp.c.EvalDelayedTo(s.out, s.slots, t, x, p, d)
	for r, v := range s.out {
		f(dp.row[r], dp.kind[r], dp.col[r], v)
	}
	dp.pool.Put(s)
}

var (
	_ model.EventDerivs      = (*Model)(nil)
	_ model.DelayEventDerivs = (*Model)(nil)
)

// RootGrad writes the gradient of root function j in x and p into dx and
// dp and returns its derivative in t. Scratch space is pooled: after the first
// calls it allocates nothing.
func (m *Model) RootGrad(j int, t float64, x, p, dx, dp []float64) float64 {
	return m.rootGrad(j, t, x, p, nil, dx, dp, nil)
}

// RootGradDelayed is RootGrad with the delayed values d, writing the
// gradient in them into dd (model.DelayEventDerivs).
func (m *Model) RootGradDelayed(j int, t float64, x, p, d, dx, dp, dd []float64) float64 {
	if len(d) != m.NumDelays() || len(dd) != m.NumDelays() {
		panic("interp: RootGradDelayed: d or dd length mismatch")
	}
	return m.rootGrad(j, t, x, p, d, dx, dp, dd)
}

func (m *Model) rootGrad(j int, t float64, x, p, d, dx, dp, dd []float64) float64 {
	if len(x) != m.nx || len(p) != m.np || len(dx) != m.nx || len(dp) != m.np {
		panic("interp: RootGrad: x, p, dx or dp length mismatch")
	}
	clear(dx)
	clear(dp)
	clear(dd)
	var dt float64
	m.ev.rootDeriv.eval(t, x, p, d, func(row int, kind byte, col int, v float64) {
		if row != j {
			return
		}
		switch kind {
		case 't':
			dt = v
		case 'x':
			dx[col] = v
		case 'p':
			dp[col] = v
		case 'd':
			if dd != nil {
				dd[col] = v
			}
		}
	})
	return dt
}

// EventDeriv writes the derivatives of event k's delay and assigned
// values into d (model.EventDerivs).
func (m *Model) EventDeriv(k int, t float64, x, p []float64, d *model.EventDeriv) {
	m.eventDeriv(k, t, x, p, nil, d, nil)
}

// EventDerivDelayed is EventDeriv with the delayed values d, writing the
// derivatives in them into dd, (n+1) x NumDelays (model.DelayEventDerivs).
func (m *Model) EventDerivDelayed(k int, t float64, x, p, d []float64, der *model.EventDeriv, dd []float64) {
	if len(d) != m.NumDelays() || len(dd) != (len(m.ev.targets[k])+1)*m.NumDelays() {
		panic("interp: EventDerivDelayed: d or dd length mismatch")
	}
	m.eventDeriv(k, t, x, p, d, der, dd)
}

func (m *Model) eventDeriv(k int, t float64, x, p, dl []float64, d *model.EventDeriv, dd []float64) {
	n := len(m.ev.targets[k]) + 1
	if len(x) != m.nx || len(p) != m.np || len(d.X) != n*m.nx || len(d.P) != n*m.np || len(d.T) != n {
		panic("interp: EventDeriv: x, p or derivative slice length mismatch")
	}
	clear(d.X)
	clear(d.P)
	clear(d.T)
	clear(dd)
	nd := m.NumDelays()
	m.ev.deriv[k].eval(t, x, p, dl, func(row int, kind byte, col int, v float64) {
		switch kind {
		case 't':
			d.T[row] = v
		case 'x':
			d.X[row*m.nx+col] = v
		case 'p':
			d.P[row*m.np+col] = v
		case 'd':
			if dd != nil {
				dd[row*nd+col] = v
			}
		}
	})
}
