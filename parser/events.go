package parser

import (
	"strconv"

	"github.com/pbgen/pbgen/symbolic"
)

// Event is an SBML <event>. Trigger, Delay and Priority are math over
// SBML ids (nil when absent: no delay, no priority; a trigger without
// math never fires). The flags take SBML Level 3's meaning; a Level 2
// document, which has no initialValue or persistent, reads as
// initialValue and persistent true (an L2 event fires only on a
// transition of its trigger, and once triggered it executes), and
// useValuesFromTriggerTime is true unless an L2v4 document says
// otherwise.
type Event struct {
	ID, Name                 string
	Line                     int
	Trigger                  *symbolic.Node
	TriggerLine              int
	InitialValue, Persistent bool
	UseValuesFromTriggerTime bool
	Delay, Priority          *symbolic.Node
	Assignments              []*EventAssignment
}

// EventAssignment is an <eventAssignment>: Variable := Math when the
// event executes, Math evaluated with the values before the event (or at
// the trigger time, when UseValuesFromTriggerTime).
type EventAssignment struct {
	Variable string
	Line     int
	Math     *symbolic.Node
}

// label is how messages name the event: its id, or its position.
func (e *Event) label(k int) string {
	if e.ID != "" {
		return e.ID
	}
	return "event#" + strconv.Itoa(k+1)
}

// event reads one <event>, read whole.
func (r *reader) event(e *elem) {
	id, ok := r.id(e, false)
	if !ok {
		return
	}
	if id != "" && !r.declare(id, "event", e.line) {
		return
	}
	ev := &Event{ID: id, Line: e.line, InitialValue: true, Persistent: true, UseValuesFromTriggerTime: true}
	ev.Name, _ = e.attr("name")
	label := ev.label(len(r.m.Events))
	ev.UseValuesFromTriggerTime = r.boolAttr(e, label, "useValuesFromTriggerTime", true)
	r.checkKids(e, label, "trigger", "delay", "priority", "listOfEventAssignments")
	var trig *elem
	for _, k := range e.kids {
		if k.space != r.ns {
			continue
		}
		switch k.local {
		case "trigger":
			trig = k
			r.checkKids(k, label, "math")
			ev.TriggerLine = k.line
			if r.m.Level >= 3 {
				if _, ok := k.attr("initialValue"); !ok {
					r.errorf(k.line, "event", label, "trigger has no initialValue (required in Level 3)")
				}
				if _, ok := k.attr("persistent"); !ok {
					r.errorf(k.line, "event", label, "trigger has no persistent (required in Level 3)")
				}
			}
			ev.InitialValue = r.boolAttr(k, label, "initialValue", true)
			ev.Persistent = r.boolAttr(k, label, "persistent", true)
			r.queue(k, &ev.Trigger, nil, "event", label)
		case "delay":
			r.checkKids(k, label, "math")
			r.queue(k, &ev.Delay, nil, "event", label)
		case "priority":
			r.checkKids(k, label, "math")
			r.queue(k, &ev.Priority, nil, "event", label)
		case "listOfEventAssignments":
			r.kidsOf(k, "eventAssignment", func(a *elem) {
				v := r.idRef(a, label, "variable")
				if v == "" {
					r.errorf(a.line, "eventAssignment", label, "missing variable")
					return
				}
				r.checkKids(a, label, "math")
				ea := &EventAssignment{Variable: v, Line: a.line}
				r.queue(a, &ea.Math, nil, "eventAssignment", label)
				ev.Assignments = append(ev.Assignments, ea)
			})
		}
	}
	// L3v2 made the trigger optional (an event without one never fires).
	if trig == nil && !(r.m.Level == 3 && r.m.Version >= 2) {
		r.errorf(e.line, "event", label, "no trigger")
	}
	r.m.Events = append(r.m.Events, ev)
}

// validateEvents checks the targets of event assignments: each an
// existing compartment, species, parameter or species reference that is
// not constant and not set by an assignment rule, at most once per event.
func (r *reader) validateEvents(constant map[string]bool, assigned map[string]bool) {
	for k, ev := range r.m.Events {
		label := ev.label(k)
		seen := make(map[string]int)
		for _, a := range ev.Assignments {
			switch r.ids[a.Variable].kind {
			case "compartment", "species", "parameter", "speciesReference":
			case "":
				r.errorf(a.Line, "eventAssignment", label, "variable %q does not exist", a.Variable)
				continue
			default:
				r.errorf(a.Line, "eventAssignment", label, "cannot assign to the %s %q", r.ids[a.Variable].kind, a.Variable)
				continue
			}
			if prev, dup := seen[a.Variable]; dup {
				r.errorf(a.Line, "eventAssignment", label, "second assignment to %q in the event (first on line %d)", a.Variable, prev)
			}
			seen[a.Variable] = a.Line
			if constant[a.Variable] {
				r.errorf(a.Line, "eventAssignment", label, "assignment to the constant %s %q", r.ids[a.Variable].kind, a.Variable)
			}
			if assigned[a.Variable] {
				r.errorf(a.Line, "eventAssignment", label, "assignment to %q, which an assignment rule sets", a.Variable)
			}
		}
	}
}

// events lowers the model's events into ode.Events: trigger, delay,
// priority and assigned values as expressions of (t, x, p) with rules
// substituted, like the rates. A value assigned to a species is in the
// species' units in math; when its state is an amount (its compartment
// changes) the amount is the value times the compartment's size before
// the event, even when the same event resizes the compartment: every
// assignment sees the values before the event (SBML Test Suite 01779).
func (l *lowering) events(ode *symbolic.ODE) {
	b := l.b
	idx := make(map[string]int, len(ode.States))
	for i, s := range ode.States {
		idx[s.Name] = i
	}
	sp := &splitEvents{}
	defer sp.insert(ode)
	for k, ev := range l.m.Events {
		label := ev.label(k)
		owner := &variable{id: label, kind: vParameter, line: ev.Line}
		fail := func(line int, what string) {
			why := l.undef[owner]
			if why == "" {
				why = "?"
			}
			l.errs.add(l.m.File, line, "event", label, "%s depends on %q, which has no value", what, why)
		}
		se := symbolic.Event{
			Name: label, InitialValue: ev.InitialValue, Persistent: ev.Persistent,
			UseValuesFromTriggerTime: ev.UseValuesFromTriggerTime,
			Meta:                     map[string]string{"file": l.m.File, "line": strconv.Itoa(ev.Line)},
		}
		if ev.ID == "" {
			se.Meta["anonymous"] = "true"
		}
		ok := true
		expr := func(n *symbolic.Node, line int, what string) *symbolic.Node {
			if n == nil {
				return nil
			}
			r := l.subst(owner, n, l.value, false)
			if r == nil {
				fail(line, what)
				ok = false
			}
			return r
		}
		se.Trigger = b.Const(0) // an L3v2 trigger without math never fires
		if ev.Trigger != nil {
			se.Trigger = expr(ev.Trigger, ev.TriggerLine, "trigger")
		}
		se.Delay = expr(ev.Delay, ev.Line, "delay")
		se.Priority = expr(ev.Priority, ev.Line, "priority")
		vals := make(map[*variable]*symbolic.Node, len(ev.Assignments))
		for _, a := range ev.Assignments {
			if a.Math == nil { // L3v2: no math, no effect
				continue
			}
			v := l.vars[a.Variable]
			if v == nil {
				l.errs.add(l.m.File, a.Line, "eventAssignment", label, "variable %q does not exist", a.Variable)
				ok = false
				continue
			}
			if _, isState := idx[v.id]; !isState {
				ok = false // its state could not be formed: already reported
				continue
			}
			if r := expr(a.Math, a.Line, "assignment to "+strconv.Quote(v.id)); r != nil {
				vals[v] = r
			}
		}
		fastNew := make(map[*variable]*symbolic.Node) // fast species assigned: their new states
		for _, a := range ev.Assignments {
			v := l.vars[a.Variable]
			val, has := vals[v]
			if v == nil || !has {
				continue
			}
			if v.kind == vSpecies && v.stateIsAmount && !v.valueIsAmount {
				size := l.value(v.comp)
				if size == nil {
					l.errs.add(l.m.File, a.Line, "event", label, "the size of compartment %q is undefined", v.comp.id)
					ok = false
					continue
				}
				val = b.Mul(val, size)
			} else if newSize, resized := vals[v.comp]; v.kind == vSpecies && !v.valueIsAmount && resized {
				// A concentration state: the amount assigned is val times
				// the old size, in the new size (01506).
				if old := l.value(v.comp); old != nil {
					val = b.Div(b.Mul(val, old), newSize)
				}
			}
			if v.fast {
				fastNew[v] = val
				continue
			}
			se.Assign = append(se.Assign, symbolic.EventAssign{State: idx[v.id], Value: val})
		}
		// A delayed event that uses its trigger time's values and sets what
		// the fast reactions' pools are formed from is split (lateFast).
		late := se.Delay != nil && se.UseValuesFromTriggerTime && l.touchesFast(vals, fastNew)
		if !late {
			pools, done := l.fastEvent(vals, fastNew, idx)
			ok = ok && done
			se.Assign = append(se.Assign, pools...)
		}
		// A species whose state is a concentration (a rate rule sets it)
		// keeps its amount when the event resizes its compartment (01505).
		for _, v := range l.list {
			if v.kind != vSpecies || v.stateIsAmount || v.valueIsAmount || !v.isState {
				continue
			}
			newSize, resized := vals[v.comp]
			if _, assigned := vals[v]; !resized || assigned {
				continue
			}
			i, isState := idx[v.id]
			old := l.value(v.comp)
			if !isState || old == nil {
				continue
			}
			se.Assign = append(se.Assign, symbolic.EventAssign{State: i, Value: b.Div(b.Mul(l.value(v), old), newSize)})
		}
		if ok && late {
			ok = l.lateFast(sp, ev, &se, vals, fastNew, idx)
		}
		if ok {
			ode.Events = append(ode.Events, se)
		}
	}
}
