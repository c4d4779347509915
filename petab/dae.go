package petab

import (
	"math"

	"github.com/pbgen/pbgen/symbolic"
)

// Models with algebraic rules, fast reactions or csymbol delay.
//
// Algebraic rules and fast reactions lower to a DAE whose algebraic
// variables are the last states (symbolic.ODE.Algebraic);
// runtime/objective solves it through runtime/dae, z being re-solved
// wherever the model is evaluated, so conditions need nothing special
// except that they cannot set an algebraic variable: its value is
// determined (by the rule, or by the fast reactions' equilibrium with the
// conserved pools), its declared value only a first guess.
//
// A model with csymbol delay is a DDE, evaluated by runtime/objective
// through runtime/dde for the log-likelihood only. What that path does
// not do is refused here with the file and row, so that pbgen petab check
// says it before any evaluation: pre-equilibration, data at steady state
// and periods (objective.ErrDelaySens covers a gradient or FIM request,
// which only an evaluation makes), and observables that read a delayed
// value.

// isAlgebraic reports whether state i is an algebraic variable.
func (l *lowering) isAlgebraic(i int) bool {
	return i >= len(l.ode.States)-l.ode.Algebraic
}

// algebraicOrigin says what determines algebraic variable i, for
// messages.
func (l *lowering) algebraicOrigin(i int) string {
	st := &l.ode.States[i]
	switch {
	case st.Meta["algebraicRule"] != "":
		return "determined by the algebraic rule at " + l.p.SBML.File + ":" + st.Meta["algebraicRule"]
	case st.Meta["fast"] != "":
		return "a species of fast reactions, at their equilibrium with the conserved amounts (states fast_pool...)"
	}
	return "determined by an algebraic equation"
}

// delayNames lists the model's delayed values.
func (l *lowering) delayNames() string {
	s := ""
	for k, d := range l.ode.Delays {
		if k > 0 {
			s += ", "
		}
		s += d.Label
	}
	return s
}

// delayIn returns the label of a delayed value n reads, or "".
func (l *lowering) delayIn(n *symbolic.Node) string {
	if n == nil || len(l.ode.Delays) == 0 {
		return ""
	}
	for _, s := range symbolic.FreeSymbols(n) {
		if s.Kind == symbolic.KindDelay {
			for _, d := range l.ode.Delays {
				if d.Name == s.Name {
					return d.Label
				}
			}
			return s.Name
		}
	}
	return ""
}

// checkDelays refuses, in a model with delays, the experiments the delay
// path cannot evaluate (see above).
func (l *lowering) checkDelays() {
	if len(l.ode.Delays) == 0 {
		return
	}
	names := l.delayNames()
	for _, d := range l.exps {
		for _, r := range d.rows {
			m := &l.p.Measurements[r]
			switch {
			case d.preeq != nil:
				l.e.add(m.File, m.Line, "", "pre-equilibration of a model with csymbol delay (%s) is not supported", names)
			case len(d.periods) > 0:
				l.e.add(m.File, m.Line, "", "an experiment with several periods in a model with csymbol delay (%s) is not supported", names)
			case math.IsInf(m.Time, 1):
				l.e.add(m.File, m.Line, "time", "data at steady state (inf) in a model with csymbol delay (%s) are not supported", names)
			default:
				continue
			}
			break // one error per experiment
		}
	}
}
