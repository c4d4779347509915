package parser

import (
	"math"
	"strconv"
	"strings"

	"github.com/pbgen/pbgen/symbolic"
)

// Delayed events that use their trigger time's values and set what the
// fast reactions' conserved pools (or held amounts) are formed from: fast
// species, a stoichiometry of the fast reactions, or a factor that
// switches one off.
//
// The fast species are algebraic, so such an event sets the pools, y =
// L(s) a n, from the species after its assignments: the assigned ones at
// the values computed at the trigger time, the others at their
// equilibrium at the execution time, when the fast reactions take the
// new values to their new equilibrium at once (SBML L3V2 core, sections
// 4.11.7 and 4.12: every assignment's value is computed at the trigger
// time, the fast reactions hold their quasi-steady state at all times).
// One event of the runtime computes all its values either at the trigger
// time or at the execution time, not both, so the event is split in two:
//
//   - the event itself (its trigger, delay, priority and flags) assigns,
//     with the values of its trigger time as any such event, only saved
//     states: one per assignment (the value it will give its target) and
//     one per fast species assigned, and sets a due flag to 1;
//   - its execution, an event without delay whose trigger is that flag
//     and whose priority is +Inf, so that it executes right after the
//     event at the same instant, before anything else can run, sets the
//     targets to their saved values, the pools and held amounts from the
//     saved fast species and stoichiometries and the other fast species
//     as they are (runtime/dae solves them from the state, which the
//     first event left unchanged but for saved states), and the flag to
//     0.
//
// Each queued execution carries its own trigger-time values in the
// runtime, so executions pending together are exact, and sensitivities
// follow through the saved states (their S is set at the first event
// from the trigger time's derivatives, as for any event of this kind).

// splitEvents collects the saved states and execution events of the
// split events while events are lowered.
type splitEvents struct {
	states []symbolic.State // saved values and due flags, inserted before the algebraic states
	after  []symbolic.Event // the execution events, after the model's own
	names  map[string]bool  // the names of states
}

// savedRef is the placeholder state index of saved state j until insert
// knows where the saved states go.
func savedRef(j int) int { return -1 - j }

// insert puts the saved states among the differential states, after the
// others (before the algebraic ones), and the execution events after the
// model's own events, resolving the placeholder indices. It runs once,
// when every event is lowered.
func (sp *splitEvents) insert(ode *symbolic.ODE) {
	if len(sp.states) == 0 {
		return
	}
	at, n := len(ode.States)-ode.Algebraic, len(sp.states)
	ode.Events = append(ode.Events, sp.after...)
	for k := range ode.Events {
		for j := range ode.Events[k].Assign {
			switch a := &ode.Events[k].Assign[j]; {
			case a.State < 0:
				a.State = at - 1 - a.State
			case a.State >= at:
				a.State += n
			}
		}
	}
	ode.States = append(ode.States[:at], append(sp.states, ode.States[at:]...)...)
}

// touchesFast reports whether an event assigning vals (fastNew: the fast
// species among them, their new states) sets anything the pools or held
// amounts are formed from: the conditions under which fastEvent forms
// any assignment.
func (l *lowering) touchesFast(vals, fastNew map[*variable]*symbolic.Node) bool {
	fs := l.fast
	if fs == nil {
		return false
	}
	if len(fastNew) > 0 {
		return true
	}
	for v := range vals {
		if fs.stoichVar[v] {
			return true
		}
		for _, h := range fs.held {
			if h.switches[v] {
				return true
			}
		}
	}
	return false
}

// lateFast splits se, the lowered event ev with its regular assignments
// in se.Assign, as described above, into se itself and an execution
// event added to sp. It reports false when the pools could not be
// formed (reported).
func (l *lowering) lateFast(sp *splitEvents, ev *Event, se *symbolic.Event, vals, fastNew map[*variable]*symbolic.Node, idx map[string]int) bool {
	b := l.b
	meta := make(map[string]string, len(se.Meta)+1)
	for k, v := range se.Meta {
		meta[k] = v
	}
	meta["split"] = "execution of " + se.Name
	post := symbolic.Event{Name: se.Name + " (execution)", InitialValue: true, Persistent: true,
		Priority: b.Const(math.Inf(1)), Meta: meta}
	var pre []symbolic.EventAssign
	newState := func(suffix, about string, held bool) (int, *symbolic.Node) {
		j := len(sp.states)
		name := sp.name(l, se.Name, suffix, idx)
		sp.states = append(sp.states, symbolic.State{Name: name, Rate: b.Const(0), Init: b.Const(0), Held: held,
			Meta: map[string]string{"sbml": "event_saved", "event": se.Name, "about": about}})
		return savedRef(j), b.Sym(name, symbolic.KindState)
	}
	save := func(target string, v *symbolic.Node) *symbolic.Node {
		ref, sym := newState("saved_"+target, "the value delayed event "+se.Name+" computed for "+target+" at its trigger time", false)
		pre = append(pre, symbolic.EventAssign{State: ref, Value: v})
		return sym
	}
	savedAt := make(map[int]*symbolic.Node, len(se.Assign))
	for _, a := range se.Assign {
		m := save(l.stateName(a.State, idx), a.Value)
		savedAt[a.State] = m
		post.Assign = append(post.Assign, symbolic.EventAssign{State: a.State, Value: m})
	}
	// In document order, so that the saved states are in a fixed order.
	fastSaved := make(map[*variable]*symbolic.Node, len(fastNew))
	for _, a := range ev.Assignments {
		if v := l.vars[a.Variable]; v != nil && fastNew[v] != nil && fastSaved[v] == nil {
			fastSaved[v] = save(v.id, fastNew[v])
		}
	}
	// The stoichiometries the pools read are targets saved above; the
	// other keys only say what the event sets (a species value is never
	// read as a stoichiometry).
	keys := make(map[*variable]*symbolic.Node, len(vals))
	for v := range vals {
		keys[v] = nil
		if i, isState := idx[v.id]; isState && v.kind != vSpecies {
			keys[v] = savedAt[i]
		}
	}
	pools, ok := l.fastEvent(keys, fastSaved, idx)
	if !ok {
		return false
	}
	post.Assign = append(post.Assign, pools...)
	due, dueSym := newState("due", "1 from the execution of delayed event "+se.Name+" until its assignments are made", true)
	pre = append(pre, symbolic.EventAssign{State: due, Value: b.Const(1)})
	post.Assign = append(post.Assign, symbolic.EventAssign{State: due, Value: b.Const(0)})
	post.Trigger = b.Rel(symbolic.OpGt, dueSym, b.Const(0.5))
	se.Assign = pre
	sp.after = append(sp.after, post)
	return true
}

// stateName is the name of state i (a key of idx).
func (l *lowering) stateName(i int, idx map[string]int) string {
	for name, j := range idx {
		if j == i {
			return name
		}
	}
	return strconv.Itoa(i)
}

// name is the name of a state event label adds, label_suffix (an
// anonymous event's "event#k" as eventk), unique against the SBML ids,
// the states (keys of states) and the names it gave before.
func (sp *splitEvents) name(l *lowering, label, suffix string, states map[string]int) string {
	name := strings.ReplaceAll(label, "#", "") + "_" + suffix
	for _, taken := states[name]; taken || l.vars[name] != nil || sp.names[name]; _, taken = states[name] {
		name += "_"
	}
	if sp.names == nil {
		sp.names = make(map[string]bool)
	}
	sp.names[name] = true
	return name
}
