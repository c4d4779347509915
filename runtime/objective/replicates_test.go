package objective_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
)

// Replicates (data of one output of one observable with the same
// placeholder values) are observed once per group. The oracle is the same
// experiments with the m-th datum of each group moved to the m-th copy of
// its observable (manyObs: the same functions under other ids), so that
// nothing is shared but the integration is the same: llh, gradient, FIM
// and the per-datum values must agree to rounding, for normal and Laplace
// noise, lin and log observables, finite times and steady states.
func TestReplicates(t *testing.T) {
	grouped := abcProblem()
	th := func(a int) objective.Value { return objective.Value{Theta: a} }
	k := func(v float64) objective.Value { return objective.Value{Theta: -1, Const: v} }
	ex := &grouped.Experiments[0]
	ex.Data = []objective.Datum{
		{Obs: 0, T: 0.5, Y: 1.3, U: []objective.Value{th(7), th(8)}},
		{Obs: 0, T: 1, Y: 1.1, U: []objective.Value{k(2), th(8)}},
		{Obs: 1, T: 1, Y: 0.45, U: []objective.Value{k(0.05), th(9)}}, // Laplace, log
		{Obs: 0, T: 1, Y: 1.2, U: []objective.Value{th(7), th(8)}},
		{Obs: 1, T: 1, Y: 0.52, U: []objective.Value{k(0.05), th(9)}}, // replicate of 2
		{Obs: 0, T: 1, Y: 1.15, U: []objective.Value{k(2), th(8)}},    // replicate of 1
		{Obs: 1, T: 1, Y: 0.4, U: []objective.Value{k(0.06), th(9)}},  // not: another constant
		{Obs: 2, T: 3, Y: 0.5},
		{Obs: 2, T: 3, Y: 0.55}, // normal, log10, no placeholders
		{Obs: 3, T: 3, Y: 1.0, U: []objective.Value{k(0.1)}},
		{Obs: 1, T: posInf, Y: 0.6, U: []objective.Value{k(0.05), th(9)}},
		{Obs: 0, T: posInf, Y: 1.4, U: []objective.Value{th(7), th(8)}},
		{Obs: 1, T: posInf, Y: 0.66, U: []objective.Value{k(0.05), th(9)}},
		{Obs: 0, T: posInf, Y: 1.38, U: []objective.Value{th(7), th(8)}},
		{Obs: 0, T: posInf, Y: 1.45, U: []objective.Value{th(7), th(8)}},
	}
	const copies = 3 // the largest group
	m := &manyObs{abc: newABC(), n: copies}
	grouped.Observables = slices.Repeat(grouped.Observables, copies)
	for k, id := range m.ObservableIDs() {
		grouped.Observables[k].ID = id
	}
	split := *grouped
	split.Experiments = slices.Clone(grouped.Experiments)
	for e := range split.Experiments {
		data := slices.Clone(split.Experiments[e].Data)
		for i := range data {
			for j := range data[:i] {
				if data[j].Obs%4 == data[i].Obs && data[j].T == data[i].T && slices.Equal(data[j].U, data[i].U) {
					data[i].Obs = data[j].Obs + 4
				}
			}
		}
		split.Experiments[e].Data = data
	}
	for _, meth := range methods {
		opt := &objective.Options{Method: meth, Grad: true, FIM: true}
		og, err := objective.New(m, grouped, opt)
		if err != nil {
			t.Fatal(err)
		}
		os, err := objective.New(m, &split, opt)
		if err != nil {
			t.Fatal(err)
		}
		theta := og.Nominal()
		theta[2] += 0.1
		g, s := evalAt(t, og, theta), evalAt(t, os, theta)
		near := func(what string, i int, a, b float64) {
			if math.Abs(a-b) > 1e-13*(1+math.Abs(b)) {
				t.Errorf("%v: %s[%d]: grouped %.15g, apart %.15g", meth, what, i, a, b)
			}
		}
		near("llh", 0, g.LLH, s.LLH)
		near("chi2", 0, g.Chi2, s.Chi2)
		for i := range g.Grad {
			near("grad", i, g.Grad[i], s.Grad[i])
		}
		for i := range g.FIM {
			near("fim", i, g.FIM[i], s.FIM[i])
		}
		for i := range g.Sim {
			near("sim", i, g.Sim[i], s.Sim[i])
			near("sigma", i, g.Sigma[i], s.Sigma[i])
			near("res", i, g.Res[i], s.Res[i])
		}
		og.Close()
		os.Close()
	}
}

// manyObs is abc with its observables repeated n times under new ids.
type manyObs struct {
	*abc
	n int
}

func (m *manyObs) ObservableIDs() []string {
	var ids []string
	for c := 0; c < m.n; c++ {
		for _, id := range m.abc.ObservableIDs() {
			ids = append(ids, fmt.Sprint(id, "_", c))
		}
	}
	return ids
}
func (m *manyObs) Placeholders(k int) (int, int) { return m.abc.Placeholders(k % 4) }
func (m *manyObs) Observe(k int, t float64, x, p, u []float64, d *model.ObsDeriv) (float64, float64) {
	return m.abc.Observe(k%4, t, x, p, u, d)
}
