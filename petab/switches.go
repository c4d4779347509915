package petab

import (
	"strconv"

	"github.com/pbgen/pbgen/symbolic"
)

// timeSwitches (unless LoadOptions.KeepTimeRelations) turns the relations of time
// against estimated parameters in the rates (the switching times of piecewise inputs:
// Oliveira_NatCommun2021's beta = piecewise(beta_0, t < t_1, ...)) into
// events, as AMICI does for such Heaviside functions. Left in the rate, a
// relation t < T switches f where the integrator happens to step over it,
// and no sensitivity method sees that the switch moves with T (the
// sensitivities of the smooth pieces say 0; the true derivative is the
// jump of f at T carried forward). With an event the switch is located,
// and the jump of S there, (f- - f+) dtau/dT, comes from runtime/events.
//
// Each such relation R becomes a state h (rate 0) that two events keep
// equal to R: R turning true sets h := 1, R turning false h := 0 (both
// with trigger initial value false, so that exactly one of them sets h at
// the start; after pre-equilibration the one whose trigger changed). In
// the rates R is replaced by h > 1/2. Relations of time against constants
// are left alone: their switching times do not move.
func (l *lowering) timeSwitches() {
	b := l.b
	est := make(map[string]bool)
	for id := range l.theta {
		est[l.resolve(id)] = true
	}
	isSwitch := func(n *symbolic.Node) bool {
		switch n.Op {
		case symbolic.OpLt, symbolic.OpLeq, symbolic.OpGt, symbolic.OpGeq:
		default:
			return false
		}
		hasTime, moves := false, false
		for _, s := range symbolic.FreeSymbols(n) {
			switch s.Kind {
			case symbolic.KindTime:
				hasTime = true
			case symbolic.KindParam:
				moves = moves || est[s.Name]
			default:
				return false // a state: not a switching time
			}
		}
		return hasTime && moves
	}
	var rels []*symbolic.Node
	seen := make(map[*symbolic.Node]bool)
	for i := range l.ode.States {
		stack := []*symbolic.Node{l.ode.States[i].Rate}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == nil || seen[n] {
				continue
			}
			seen[n] = true
			if isSwitch(n) {
				rels = append(rels, n)
				continue
			}
			stack = append(stack, n.Args...)
		}
	}
	if len(rels) == 0 {
		return
	}
	negate := map[symbolic.Op]symbolic.Op{
		symbolic.OpLt: symbolic.OpGeq, symbolic.OpLeq: symbolic.OpGt,
		symbolic.OpGt: symbolic.OpLeq, symbolic.OpGeq: symbolic.OpLt,
	}
	repl := make(map[*symbolic.Node]*symbolic.Node, len(rels))
	for k, r := range rels {
		name := "petab_switch_" + strconv.Itoa(k+1)
		for j := 2; ; j++ {
			_, p := l.paramIdx[name]
			_, s := l.stateIdx[name]
			if !p && !s {
				break
			}
			name = "petab_switch_" + strconv.Itoa(k+1) + "_" + strconv.Itoa(j)
		}
		idx := len(l.ode.States)
		l.ode.States = append(l.ode.States, symbolic.State{Name: name, Rate: b.Const(0), Init: b.Const(0),
			Meta: map[string]string{"petab": "switch " + r.String()}})
		l.stateIdx[name] = idx
		h := b.Sym(name, symbolic.KindState)
		repl[r] = b.Rel(symbolic.OpGt, h, b.Const(0.5))
		set := func(v float64) []symbolic.EventAssign {
			return []symbolic.EventAssign{{State: idx, Value: b.Const(v)}}
		}
		l.ode.Events = append(l.ode.Events,
			symbolic.Event{Name: name + "_on", Trigger: r, Persistent: true, Assign: set(1)},
			symbolic.Event{Name: name + "_off", Trigger: b.Rel(negate[r.Op], r.Args[0], r.Args[1]), Persistent: true, Assign: set(0)})
	}
	for i := range l.ode.States {
		st := &l.ode.States[i]
		st.Rate = b.Substitute(st.Rate, repl)
	}
}
