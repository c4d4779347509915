package symbolic

import (
	"fmt"
	"math"
)

// Event is a discrete change of the state: when Trigger, a truth-valued
// expression of (t, x, p), goes from false to true, the Assign values are
// written into their states, at once or after Delay. Like the rates it is
// an expression over KindState, KindParam and KindTime symbols only, so
// its derivatives (those of the trigger's root functions and of the
// assignments, which sensitivities across events need) can be formed by
// Diff like any other.
//
// The flags are those of SBML Level 3 events; their meaning is SBML's:
//
//   - InitialValue is the trigger's value just before the start time: an
//     event whose trigger is true at the start fires then only if
//     InitialValue is false.
//   - Persistent: once triggered, a delayed event executes even if its
//     trigger becomes false before then; a non-persistent one is dropped.
//   - UseValuesFromTriggerTime: the assignments are evaluated at the
//     trigger time (and applied at the execution time); otherwise at the
//     execution time.
type Event struct {
	Name    string // the SBML id, or a name made up by the reader
	Trigger *Node
	// Delay is the time from trigger to execution, an expression
	// evaluated at the trigger time; nil means no delay.
	Delay *Node
	// Priority orders events executed at the same time, larger first;
	// it is evaluated when the order is decided. Nil means none (after
	// every event that has one, in document order among themselves).
	Priority                 *Node
	InitialValue, Persistent bool
	UseValuesFromTriggerTime bool
	Assign                   []EventAssign
	Meta                     map[string]string // file and line, for messages; never used in numerics
}

// EventAssign sets state State (an index into ODE.States) to Value, the
// new value of that state itself (for a species whose state is an amount,
// the amount), evaluated with the values before the event.
type EventAssign struct {
	State int
	Value *Node
}

// Roots returns the root functions of a trigger: for each relation
// a op b in it, a - b, in first-seen order and without duplicates. A
// trigger's truth value can change only where one of them changes sign
// (or where the state jumps at an event), so an integrator locates
// trigger changes as zeros of these continuous functions.
func (b *Builder) Roots(trigger *Node) []*Node {
	var out []*Node
	seen := make(map[*Node]bool)
	have := make(map[*Node]bool)
	stack := []*Node{trigger}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		if isRel(n.Op) && len(n.Args) == 2 {
			g := b.Sub(n.Args[0], n.Args[1])
			if g.Op != OpConst && !have[g] {
				have[g] = true
				out = append(out, g)
			}
		}
		for i := len(n.Args) - 1; i >= 0; i-- {
			stack = append(stack, n.Args[i])
		}
	}
	return out
}

// checkEvents validates the events of ode: every expression is set where
// required, owned by the Builder and uses only time, states and
// parameters (checked by check), and assignment targets are states,
// each at most once per event.
func checkEvents(ode *ODE, check func(what, name string, n *Node) error) error {
	seen := make(map[string]bool, len(ode.Events))
	for k, e := range ode.Events {
		name := e.Name
		if name == "" {
			return fmt.Errorf("symbolic: model %q: event %d has no name", ode.Name, k)
		}
		if seen[name] {
			return fmt.Errorf("symbolic: model %q: event %q is defined twice", ode.Name, name)
		}
		seen[name] = true
		if err := check("trigger", name, e.Trigger); err != nil {
			return err
		}
		if e.Delay != nil {
			if err := check("delay", name, e.Delay); err != nil {
				return err
			}
		}
		if e.Priority != nil {
			if err := check("priority", name, e.Priority); err != nil {
				return err
			}
		}
		targets := make(map[int]bool, len(e.Assign))
		for _, a := range e.Assign {
			if a.State < 0 || a.State >= len(ode.States) {
				return fmt.Errorf("symbolic: model %q: event %q assigns state %d of %d", ode.Name, name, a.State, len(ode.States))
			}
			if targets[a.State] {
				return fmt.Errorf("symbolic: model %q: event %q assigns %q twice", ode.Name, name, ode.States[a.State].Name)
			}
			targets[a.State] = true
			if err := check("assignment to "+ode.States[a.State].Name+" by event", name, a.Value); err != nil {
				return err
			}
		}
		if e.Delay != nil && e.Delay.Op == OpConst && (e.Delay.Val < 0 || math.IsNaN(e.Delay.Val)) {
			return fmt.Errorf("symbolic: model %q: event %q has delay %v", ode.Name, name, e.Delay.Val)
		}
	}
	return nil
}
