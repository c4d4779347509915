package parser

import (
	"math"

	"github.com/pbgen/pbgen/symbolic"
)

// Override makes the value of one SBML symbol that lowering would fold
// into a constant a sensitivity parameter, so that a caller can set it
// per run: PEtab lets a condition set any species, compartment or
// parameter, including a species no reaction changes (a boundary or
// constant species, one that only appears as a modifier), a compartment
// or parameter with an initial assignment, and one without a value.
//
// Value names a sensitivity parameter that is the symbol's value at
// t = 0 in its units in math (a species' concentration unless
// hasOnlySubstanceUnits or its compartment is 0-dimensional). Every
// expression that reads the symbol (rates, assignment and initial
// assignment rules, events, delays' histories, outputs) reads that value
// instead of the declared one or the initial assignment's; species
// declared by amount or concentration in an overridden compartment
// follow its value as SBML says, and a species in a compartment whose
// size changes keeps its amount (its concentration is Value*size(0) /
// size(t)). Its default is the model's own value at the default
// parameters (0 where that is undefined or not finite, and without a
// Switch where an initial assignment gives it: the assignment is not
// formed then, so that its dependencies need no value).
//
// Switch, if not empty, names a second sensitivity parameter (default 0)
// that chooses between Value (1) and the model's own initial value (0):
// the symbol's initial value is Switch*Value + (1-Switch)*own, so that one
// system serves runs that set the symbol and runs that keep the model's
// value, and the derivatives with respect to the parameters of own stay.
//
// Both parameters come after all others, in the order of the overrides.
// An ID whose symbol is a state (its initial value is the caller's to
// replace in ODE.States) or already a sensitivity parameter is left
// alone; an id that is no species, compartment or parameter, one an
// assignment rule sets, a parameter name that is an SBML id or another
// parameter's, and an ID listed twice are errors.
type Override struct {
	ID     string
	Value  string
	Switch string
}

// override is a variable's Override during lowering.
type override struct {
	value, sw *symbolic.Node // KindParam symbols; sw nil without Switch
	own       *symbolic.Node // the model's own initial value, formed with sw
	names     Override
}

// markOverrides validates the overrides and marks the variables they
// apply to; names are the other sensitivity parameters' (taken).
func (l *lowering) markOverrides(list []Override, names []string) {
	taken := make(map[string]bool, len(names))
	for _, n := range names {
		taken[n] = true
	}
	seen := make(map[string]bool)
	bad := func(id, format string, args ...any) {
		l.errs.add(l.m.File, 0, "option Overrides", id, format, args...)
	}
	name := func(id, n string) bool {
		switch {
		case n == "":
			bad(id, "no parameter name given")
		case l.vars[n] != nil:
			bad(id, "parameter name %q is an SBML id", n)
		case taken[n]:
			bad(id, "parameter name %q is taken by another parameter", n)
		default:
			taken[n] = true
			return true
		}
		return false
	}
	for _, o := range list {
		v := l.vars[o.ID]
		switch {
		case seen[o.ID]:
			bad(o.ID, "listed twice")
			continue
		case v == nil:
			bad(o.ID, "not an SBML id of the model")
			continue
		case v.kind != vSpecies && v.kind != vCompartment && v.kind != vParameter:
			bad(o.ID, "a %s, which only its rules set (overrides apply to species, compartments and parameters)", kindElem[v.kind])
			continue
		case v.ar != nil:
			l.errorf(v, v.rule, "an assignment rule sets it at every time, so no value can override it")
			continue
		}
		seen[o.ID] = true
		if v.isState || v.param != nil {
			continue
		}
		if !name(o.ID, o.Value) || o.Switch != "" && !name(o.ID, o.Switch) {
			continue
		}
		ov := &override{value: l.b.Sym(o.Value, symbolic.KindParam), names: o}
		if o.Switch != "" {
			ov.sw = l.b.Sym(o.Switch, symbolic.KindParam)
			l.paramValue[o.Switch] = 0
		}
		v.over = ov
		l.overList = append(l.overList, v)
	}
}

// overrideParams forms the overridden variables' parameters with their
// defaults: the model's own values at the default parameters, which may
// read other overrides' defaults (a species declared by amount in an
// overridden compartment), so they are evaluated again until none
// changes.
func (l *lowering) overrideParams() []symbolic.Param {
	own := make([]*symbolic.Node, len(l.overList))
	for i, v := range l.overList {
		if v.over.sw != nil {
			l.init(v)
			own[i] = v.over.own
		} else if v.ia == nil {
			own[i] = l.declInit(v)
		}
	}
	def := make([]float64, len(l.overList))
	for range l.overList {
		changed := false
		for i, v := range l.overList {
			d := l.evalDefault(own[i])
			if math.IsNaN(d) || math.IsInf(d, 0) {
				d = 0
			}
			changed = changed || d != def[i]
			def[i] = d
			l.paramValue[v.over.names.Value] = d
		}
		if !changed {
			break
		}
	}
	var out []symbolic.Param
	for i, v := range l.overList {
		o := v.over.names
		out = append(out, symbolic.Param{Name: o.Value, Value: def[i], Meta: map[string]string{"sbml": "override", "id": v.id}})
		if o.Switch != "" {
			out = append(out, symbolic.Param{Name: o.Switch, Value: 0, Meta: map[string]string{"sbml": "overrideSwitch", "id": v.id}})
		}
	}
	return out
}

// overridden is the initial value of an overridden variable: its Value
// parameter, or with a Switch the mix of it and the model's own value
// (nil, with the reason in l.undef, when the latter is undefined).
func (l *lowering) overridden(v *variable) *symbolic.Node {
	o := v.over
	if o.sw == nil {
		return o.value
	}
	var own *symbolic.Node
	if v.ia != nil {
		own = l.subst(v, v.ia, l.init, true)
	} else {
		own = l.declInit(v)
	}
	o.own = own
	if own == nil {
		return nil
	}
	b := l.b
	return b.Add(b.Mul(o.sw, o.value), b.Mul(b.Sub(b.Const(1), o.sw), own))
}
