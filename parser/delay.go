package parser

// csymbol delay: delay(e, tau) is the value of e at time t - tau. The
// reader turns each distinct use (argument and delay, after function
// expansion) into a KindOther symbol named "delay#k", which is not an
// SId and cannot collide with an id of the model, and remembers its math
// (delayUse). Lowering gives that symbol the value of a symbolic.KindDelay
// symbol, the delayed value a solver supplies (runtime/dde), and lowers
// the argument and the delay like any other math into ODE.Delays, sorted
// so that each reads only delayed values listed before it.
//
// Before the start the history is SBML's: every variable has its initial
// value, with time in it (the test suite's cases 00938 and 00941 give a
// variable sin(10 t) by an initial assignment and read it 0.2 before the
// start). So the history of e is e with every variable replaced by its
// initial-value math, time left free (hist), a nested delay by its own
// history at time - tau, and rateOf by the time derivative of its
// target's history. A delay's initial value (an initial assignment or a
// rule at t = 0 that reads one) is its history at -tau(0).
//
// Events may read delayed values anywhere (triggers, delays,
// priorities, assignments): their math is lowered like any other, with
// the delay symbols in it, and runtime/dde solves the model
// (model.DelayEvents).

import (
	"fmt"
	"math"
	"strconv"

	"github.com/pbgen/pbgen/symbolic"
)

// delayUse is one distinct csymbol delay of the model.
type delayUse struct {
	name     string         // "delay#k", k from 1 in reading order
	label    string         // readable, for messages: "delay(x, 0.2)"
	arg, tau *symbolic.Node // over SBML ids (KindOther) and time
	line     int
	el, id   string // the element holding its first use
}

// delayApply parses <apply><csymbol delay/> e tau</apply>.
func (p *mathParser) delayApply(e, head *elem, args []*elem) *mnode {
	if len(head.kids) > 0 {
		p.errorf(head.line, "operator <csymbol> must be empty")
		return nil
	}
	if len(args) != 2 {
		p.errorf(e.line, "csymbol delay takes two arguments (the expression and the delay), not %d", len(args))
		return nil
	}
	a, t := p.expr(args[0]), p.expr(args[1])
	if a == nil || t == nil {
		return nil
	}
	return &mnode{kind: mDelay, args: []*mnode{a, t}, line: e.line}
}

// delay converts a use of csymbol delay into its symbol.
func (r *reader) delay(n *mnode, sc *scope) *symbolic.Node {
	b := r.m.B
	arg, tau := r.conv(n.args[0], sc), r.conv(n.args[1], sc)
	if sc.el == "functionDefinition" && sc.bvars != nil {
		// Checking the body of a definition: each call is converted
		// again when expanded, with its arguments.
		return b.Add(arg, tau)
	}
	key := [2]*symbolic.Node{arg, tau}
	if du, ok := r.m.delayIdx[key]; ok {
		return b.Sym(du.name, symbolic.KindOther)
	}
	if r.m.delayIdx == nil {
		r.m.delayIdx = make(map[[2]*symbolic.Node]*delayUse)
	}
	du := &delayUse{
		name: "delay#" + strconv.Itoa(len(r.m.delays)+1),
		arg:  arg, tau: tau, line: n.line, el: sc.el, id: sc.id,
	}
	du.label = "delay(" + short(arg) + ", " + short(tau) + ")"
	r.m.delays = append(r.m.delays, du)
	r.m.delayIdx[key] = du
	return b.Sym(du.name, symbolic.KindOther)
}

// short prints n for a message, cut at 60 bytes.
func short(n *symbolic.Node) string {
	s := n.String()
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// delayLowering is the lowering's state for delays.
type delayLowering struct {
	histMemo  map[*variable]*symbolic.Node
	histState map[*variable]uint8
}

// collectDelays adds a variable for each delay. They are not in l.list:
// they are neither states nor outputs.
func (l *lowering) collectDelays() {
	l.dl = &delayLowering{histMemo: make(map[*variable]*symbolic.Node), histState: make(map[*variable]uint8)}
	for _, du := range l.m.delays {
		l.vars[du.name] = &variable{id: du.name, kind: vParameter, line: du.line, rule: du.line, delay: du}
	}
}

func (l *lowering) delayError(du *delayUse, format string, args ...any) {
	l.errs.add(l.m.File, du.line, du.el, du.id, "csymbol %s: %s", du.label, fmt.Sprintf(format, args...))
}

// delays lowers every delay into ode.Delays, sorted so that each reads
// only delayed values listed before it.
func (l *lowering) delays(ode *symbolic.ODE) {
	if len(l.m.delays) == 0 {
		return
	}
	type lowered struct {
		d    symbolic.Delay
		du   *delayUse
		deps []int
	}
	index := make(map[string]int, len(l.m.delays))
	for k, du := range l.m.delays {
		index[du.name] = k
	}
	all := make([]lowered, 0, len(l.m.delays))
	for _, du := range l.m.delays {
		v := l.vars[du.name]
		l.cur = v
		e, tau := l.subst(v, du.arg, l.value, false), l.subst(v, du.tau, l.value, false)
		// The history of the argument (hist(v) is that of the delayed
		// value: the argument's at time - tau).
		eh := l.histOf(v, du.arg)
		if e == nil || tau == nil || eh == nil {
			why := l.undef[v]
			if why == "" {
				continue // a cycle, reported
			}
			l.delayError(du, "depends on %q, which has no value", why)
			continue
		}
		lw := lowered{d: symbolic.Delay{Name: du.name, Label: du.label, Expr: e, Tau: tau, History: eh}, du: du}
		for _, s := range append(symbolic.FreeSymbols(e), symbolic.FreeSymbols(tau)...) {
			if s.Kind == symbolic.KindDelay {
				lw.deps = append(lw.deps, index[s.Name])
			}
		}
		all = append(all, lw)
	}
	if len(all) != len(l.m.delays) {
		return
	}
	// Kahn's algorithm, taking the first ready delay in reading order.
	placed := make([]bool, len(all))
	for len(ode.Delays) < len(all) {
		next := -1
		for k := range all {
			if placed[k] {
				continue
			}
			ready := true
			for _, j := range all[k].deps {
				if !placed[j] {
					ready = false
					break
				}
			}
			if ready {
				next = k
				break
			}
		}
		if next < 0 {
			for k := range all {
				if !placed[k] {
					l.delayError(all[k].du, "its value depends on itself through csymbol delay (a cycle of delayed values)")
					return
				}
			}
		}
		placed[next] = true
		ode.Delays = append(ode.Delays, all[next].d)
	}
}

// delayValue is the value of a delay's symbol in math: the delayed value.
func (l *lowering) delayValue(v *variable) *symbolic.Node {
	return l.b.Sym(v.id, symbolic.KindDelay)
}

// delayInit is a delay's value at t = 0: its argument's history at
// -tau(0).
func (l *lowering) delayInit(v *variable) *symbolic.Node {
	b := l.b
	tau := l.subst(v, v.delay.tau, l.init, true)
	h := l.histOf(v, v.delay.arg)
	if tau == nil || h == nil {
		return nil
	}
	return b.Substitute(h, map[*symbolic.Node]*symbolic.Node{b.Time(): b.Neg(tau)})
}

// histOf is n before the start: every variable at its initial value as
// an expression of time (and p).
func (l *lowering) histOf(owner *variable, n *symbolic.Node) *symbolic.Node {
	return l.subst(owner, n, l.hist, false)
}

// hist is v's value before the start, as an expression of time and p.
func (l *lowering) hist(v *variable) *symbolic.Node {
	d := l.dl
	if d.histState[v] == done {
		return d.histMemo[v]
	}
	if !l.enter(v, d.histState, "initial values") {
		return nil
	}
	b := l.b
	var r *symbolic.Node
	switch {
	case v.delay != nil:
		a, tau := l.histOf(v, v.delay.arg), l.histOf(v, v.delay.tau)
		if a != nil && tau != nil {
			r = b.Substitute(a, map[*symbolic.Node]*symbolic.Node{b.Time(): b.Sub(b.Time(), tau)})
		}
	case v.rateOf != nil:
		// The rate of the history: 0 for a constant one.
		if h := l.hist(v.rateOf); h != nil {
			var err error
			if r, err = b.Diff(h, b.Time()); err != nil {
				r = b.Const(math.NaN())
			}
		} else {
			l.undef[v] = firstUndef(l, v.rateOf)
		}
	case v.param != nil:
		r = v.param
	case v.ia != nil:
		r = l.histOf(v, v.ia)
	case v.ar != nil:
		r = l.histOf(v, v.ar)
	case v.kind == vReaction:
		r = l.histOf(v, v.law)
	case v.initParam != nil:
		r = v.initParam
	default:
		r = l.declInit(v)
	}
	return l.leave(v, d.histState, d.histMemo, r)
}
