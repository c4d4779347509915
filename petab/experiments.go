package petab

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/pbgen/pbgen/runtime/objective"
)

// experiments groups the measurements into experiments: v1 by
// (pre-equilibration, simulation) condition pair, v2 by experiment id, in
// order of first appearance.
func (l *lowering) experiments() {
	p, e := l.p, l.e
	cond := func(id string, m *Measurement, col string) *Condition {
		k, ok := l.condIdx[id]
		if !ok {
			e.add(m.File, m.Line, col, "unknown condition %q", id)
			return nil
		}
		return &p.Conditions[k]
	}
	idx := make(map[string]int)
	empty := &Condition{ID: ""}
	var v2 map[string]*expDef
	if p.Version == 2 {
		v2 = l.experimentsV2()
	}
	for i := range p.Measurements {
		m := &p.Measurements[i]
		var key string
		var d expDef
		if p.Version == 1 {
			key = m.Preeq + ":" + m.Sim
			if m.Preeq == "" {
				key = m.Sim
			}
			if _, ok := idx[key]; !ok {
				d = expDef{id: key, sim: cond(m.Sim, m, "simulationConditionId")}
				if m.Preeq != "" {
					d.preeq = cond(m.Preeq, m, "preequilibrationConditionId")
				}
				if d.sim == nil || m.Preeq != "" && d.preeq == nil {
					continue
				}
			}
		} else {
			key = m.Experiment
			if _, ok := idx[key]; !ok {
				if key == "" {
					d = expDef{sim: empty}
				} else if x, ok := v2[key]; ok {
					d = *x
				} else {
					e.add(m.File, m.Line, "experimentId", "unknown experiment %q", key)
					continue
				}
			}
		}
		k, ok := idx[key]
		if !ok {
			k = len(l.exps)
			idx[key] = k
			l.exps = append(l.exps, d)
		}
		if m.Time < l.exps[k].t0 {
			e.add(m.File, m.Line, "time", "time %g is before the experiment's start %g", m.Time, l.exps[k].t0)
			continue
		}
		l.exps[k].rows = append(l.exps[k].rows, i)
	}
}

// experimentsV2 turns the experiment table into a pre-equilibration
// condition, a simulation condition with its start time and the later
// periods (the conditions applied at each later time). Conditions applied
// at the same time are merged; periods.go lowers the later ones.
func (l *lowering) experimentsV2() map[string]*expDef {
	p := l.p
	byExp := make(map[string][]Period)
	var order []string
	for _, q := range p.Periods {
		if _, ok := byExp[q.Experiment]; !ok {
			order = append(order, q.Experiment)
		}
		byExp[q.Experiment] = append(byExp[q.Experiment], q)
	}
	out := make(map[string]*expDef)
	for _, id := range order {
		ps := byExp[id]
		slices.SortStableFunc(ps, func(a, b Period) int { return cmp.Compare(a.Time, b.Time) })
		d := &expDef{id: id}
		var times []float64
		groups := make(map[float64][]Period)
		for _, q := range ps {
			if _, ok := groups[q.Time]; !ok {
				times = append(times, q.Time)
			}
			groups[q.Time] = append(groups[q.Time], q)
		}
		ok := true
		for _, t := range times {
			c := l.merge(groups[t])
			if c == nil {
				ok = false
				break
			}
			switch {
			case math.IsInf(t, -1):
				d.preeq = c
			case d.sim != nil:
				d.periods = append(d.periods, periodDef{t: t, set: c, pos: groups[t][0].Pos})
			default:
				d.sim, d.t0 = c, t
			}
		}
		if !ok {
			continue
		}
		if d.sim == nil {
			d.sim = &Condition{}
		}
		out[id] = d
	}
	return out
}

// merge is the union of the conditions applied at one time.
func (l *lowering) merge(ps []Period) *Condition {
	var cs []*Condition
	for _, q := range ps {
		if q.Condition == "" {
			continue
		}
		k, ok := l.condIdx[q.Condition]
		if !ok {
			l.e.add(q.File, q.Line, "conditionId", "unknown condition %q", q.Condition)
			return nil
		}
		cs = append(cs, &l.p.Conditions[k])
	}
	switch len(cs) {
	case 0:
		return &Condition{}
	case 1:
		return cs[0]
	}
	m := &Condition{Pos: cs[0].Pos, Values: make(map[string]string), Lines: make(map[string]int)}
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
		for _, t := range c.Targets {
			if _, dup := m.Values[t]; dup {
				l.e.add(c.File, c.Lines[t], "targetId", "conditions applied together both set %q", t)
				return nil
			}
			m.Targets = append(m.Targets, t)
			m.Values[t] = c.Values[t]
			m.Lines[t] = c.Lines[t]
		}
	}
	m.ID = strings.Join(ids, "+")
	return m
}

// problem fills in conditions, experiments and data.
func (l *lowering) problem(ob *objective.Problem) {
	p := l.p
	obsIdx := make(map[string]int)
	for k, o := range p.Observables {
		obsIdx[o.ID] = k
	}
	condK := make(map[*Condition]int)
	condOf := func(c *Condition) int {
		if k, ok := condK[c]; ok {
			return k
		}
		k := len(ob.Conditions)
		condK[c] = k
		ob.Conditions = append(ob.Conditions, l.condition(c))
		return k
	}
	for _, d := range l.exps {
		x := objective.Experiment{Preeq: -1, Sim: condOf(d.sim), T0: d.t0}
		for _, q := range d.periods {
			x.Periods = append(x.Periods, objective.Period{T0: q.t, Cond: condOf(q.cond), Assign: q.assign})
		}
		if d.preeq != nil {
			x.Preeq = condOf(d.preeq)
			for i, s := range l.ode.States {
				if l.setsState(d.sim, s.Name) {
					if l.isAlgebraic(i) {
						continue // a fast species: fastAfterPreeq made it an assignment
					}
					x.Reinit = append(x.Reinit, i)
				}
			}
		}
		rows := append([]int(nil), d.rows...)
		slices.SortStableFunc(rows, func(a, b int) int { return cmp.Compare(p.Measurements[a].Time, p.Measurements[b].Time) })
		for _, r := range rows {
			m := &p.Measurements[r]
			k, ok := obsIdx[m.ObservableID]
			if !ok {
				l.e.add(m.File, m.Line, "observableId", "unknown observable %q", m.ObservableID)
				continue
			}
			o := &p.Observables[k]
			dt := objective.Datum{Obs: k, T: m.Time, Y: m.Value}
			if o.Transform != objective.TransformLin && !(m.Value > 0) {
				l.e.add(m.File, m.Line, "measurement", "observable %q is log-transformed, but the measurement %g is not positive", o.ID, m.Value)
			}
			for _, g := range []struct {
				col  string
				vals []string
				phs  []string
			}{{"observableParameters", m.ObsParams, o.ObsPlaceholders}, {"noiseParameters", m.NoiseParams, o.NoisePlaceholders}} {
				vals := g.vals
				if len(g.phs) == 0 && len(vals) == 1 {
					if x, isNum := parseNum(vals[0]); isNum && math.IsNaN(x) {
						vals = nil // v1 files write NaN for "no override"
					}
				}
				if len(vals) != len(g.phs) {
					l.e.add(m.File, m.Line, g.col, "observable %q has %d placeholder(s), found %d value(s)", o.ID, len(g.phs), len(vals))
					continue
				}
				for i, s := range vals {
					v, ok := l.value(s)
					if !ok {
						l.e.add(m.File, m.Line, g.col, "%q is neither a number nor a parameter id", s)
						continue
					}
					if v.Theta < 0 && math.IsNaN(v.Const) {
						l.e.add(m.File, m.Line, g.col, "value %d is NaN; a placeholder needs a number or a parameter id", i+1)
						continue
					}
					if g.col == "noiseParameters" && v.Theta < 0 && strings.TrimSpace(o.Noise) == g.phs[i] && !(v.Const > 0) {
						l.e.add(m.File, m.Line, g.col, "noise must be positive, found %s", s)
					}
					dt.U = append(dt.U, v)
				}
			}
			x.Data = append(x.Data, dt)
		}
		ob.Experiments = append(ob.Experiments, x)
		p.Rows = append(p.Rows, rows)
		p.ExperimentIDs = append(p.ExperimentIDs, d.id)
	}
}
