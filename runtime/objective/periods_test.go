package objective_test

import (
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// swap is A <-> B (A -> B at k1 A, B -> A at k2 B) with parameters k1, k2,
// a0 (A's initial value; B starts at 1) and inc, and two assignment sets
// (model.Assigner):
//
//	set 0: A := A + inc
//	set 1: A := k2 B, B := (1 + inc) A   (simultaneous)
//
// Observables: obsA = A with noise placeholder sigma, obsB = B with
// sigma 0.3. Within a period A + B = T is conserved and
// A(t) = Aeq + (A0 - Aeq) exp(-(k1+k2)(t-t0)), Aeq = k2 T/(k1+k2): the
// closed form the tests compare against.
type swap struct{ jx, jp *model.Pattern }

func newSwap() *swap {
	return &swap{jx: pattern(2, 2, []int{1, 1}, []int{1, 1}), jp: pattern(2, 4, []int{1, 1, 0, 0}, []int{1, 1, 0, 0})}
}

func (*swap) Name() string                  { return "swap" }
func (*swap) StateNames() []string          { return []string{"A", "B"} }
func (*swap) ParamNames() []string          { return []string{"k1", "k2", "a0", "inc"} }
func (*swap) DefaultParams(dst []float64)   { copy(dst, []float64{1, 0.5, 2, 5}) }
func (*swap) InitialState(dst, p []float64) { dst[0], dst[1] = p[2], 1 }
func (*swap) InitialSens(dst, _ []float64)  { clear(dst); dst[2] = 1 }
func (m *swap) JxPattern() *model.Pattern   { return m.jx }
func (m *swap) JpPattern() *model.Pattern   { return m.jp }
func (*swap) ObservableIDs() []string       { return []string{"obsA", "obsB"} }
func (*swap) Placeholders(k int) (int, int) { return 0, 1 - k }
func (*swap) NumAssignments() int           { return 2 }
func (*swap) AssignTargets(k int) []int     { return [][]int{{0}, {0, 1}}[k] }
func (*swap) Jx(dst []float64, _ float64, _, p []float64) {
	dst[0], dst[1], dst[2], dst[3] = -p[0], p[1], p[0], -p[1]
}
func (*swap) F(dst []float64, _ float64, x, p []float64) {
	v := p[0]*x[0] - p[1]*x[1]
	dst[0], dst[1] = -v, v
}
func (*swap) Jp(dst []float64, _ float64, x, _ []float64) {
	dst[0], dst[1], dst[2], dst[3] = -x[0], x[1], x[0], -x[1]
}
func (*swap) Observe(k int, _ float64, x, _, u []float64, d *model.ObsDeriv) (float64, float64) {
	if d != nil {
		for _, s := range [][]float64{d.HX, d.HP, d.HU, d.SX, d.SP, d.SU} {
			clear(s)
		}
		d.HX[k] = 1
		if k == 0 {
			d.SU[0] = 1
		}
	}
	if k == 0 {
		return x[0], u[0]
	}
	return x[1], 0.3
}
func (*swap) Assign(k int, _ float64, x, p, dst []float64, d *model.AssignDeriv) {
	if d != nil {
		clear(d.X)
		clear(d.P)
	}
	if k == 0 {
		dst[0] = x[0] + p[3]
		if d != nil {
			d.X[0], d.P[3] = 1, 1
		}
		return
	}
	dst[0], dst[1] = p[1]*x[1], (1+p[3])*x[0]
	if d != nil {
		d.X[1], d.P[1] = p[1], x[1] // row A
		d.X[2], d.P[4+3] = 1+p[3], x[0]
	}
}

// swapProblem: theta = log10 k1, k2, a0, log inc, log10 k1' (k1 from the
// second period on), sigma. Experiment 0 runs condition c0 from 0, c1 from
// 10 (k1 changes, A := A + inc) and c2 from 20 (k1 = 0.5, set 1), with
// data on both period boundaries and at steady state; experiment 1
// pre-equilibrates in c2, re-initialises A and switches to c1 with set 1
// at 3; experiment 2 has no periods; experiment 3 pre-equilibrates in c2
// and applies set 0 to the pre-equilibrated state at its start (a period
// of length 0).
func swapProblem() *objective.Problem {
	th := func(a int) objective.Value { return objective.Value{Theta: a} }
	num := func(v float64) objective.Value { return objective.Value{Theta: -1, Const: v} }
	sig := []objective.Value{th(5)}
	var d0 []objective.Datum
	for i, tt := range []float64{0, 5, 10, 15, 20, 25, math.Inf(1)} {
		d0 = append(d0, objective.Datum{Obs: 0, T: tt, Y: 1 + 0.3*float64(i), U: sig}, objective.Datum{Obs: 1, T: tt, Y: 2 - 0.1*float64(i)})
	}
	return &objective.Problem{
		Params: []objective.Param{
			{ID: "k1", Scale: objective.Log10, Lower: 1e-3, Upper: 1e3, Nominal: 0.3, Estimate: true},
			{ID: "k2", Scale: objective.Lin, Lower: 0, Upper: 10, Nominal: 0.2, Estimate: true},
			{ID: "a0", Scale: objective.Lin, Lower: 0, Upper: 10, Nominal: 2, Estimate: true},
			{ID: "inc", Scale: objective.Log, Lower: 1e-3, Upper: 1e3, Nominal: 1.5, Estimate: true},
			{ID: "k1b", Scale: objective.Log10, Lower: 1e-3, Upper: 1e3, Nominal: 0.05, Estimate: true},
			{ID: "sigma", Scale: objective.Lin, Lower: 0, Upper: 10, Nominal: 0.4, Estimate: true},
		},
		Estimated:   []int{0, 1, 2, 3, 4, 5},
		Observables: []objective.Observable{{ID: "obsA"}, {ID: "obsB"}},
		Conditions: []objective.Condition{
			{ID: "c0", P: []objective.Value{th(0), th(1), th(2), th(3)}},
			{ID: "c1", P: []objective.Value{th(4), th(1), th(2), th(3)}},
			{ID: "c2", P: []objective.Value{num(0.5), th(1), th(2), th(3)}},
		},
		Experiments: []objective.Experiment{
			{Preeq: -1, Sim: 0, Data: d0, Periods: []objective.Period{{T0: 10, Cond: 1, Assign: 0}, {T0: 20, Cond: 2, Assign: 1}}},
			{Preeq: 2, Sim: 0, Reinit: []int{0}, Periods: []objective.Period{{T0: 3, Cond: 1, Assign: 1}},
				Data: []objective.Datum{{Obs: 0, T: 1, Y: 1, U: sig}, {Obs: 1, T: 3, Y: 1.2}, {Obs: 0, T: 8, Y: 0.7, U: sig}}},
			{Preeq: -1, Sim: 0, Data: []objective.Datum{{Obs: 0, T: 4, Y: 1.1, U: sig}, {Obs: 1, T: 4, Y: 1.9}}},
			{Preeq: 2, Sim: 0, Periods: []objective.Period{{T0: 0, Cond: 0, Assign: 0}},
				Data: []objective.Datum{{Obs: 0, T: 0, Y: 1.5, U: sig}, {Obs: 1, T: 2, Y: 0.8}}},
		},
	}
}

// The simulated values of experiment 0 follow the closed form through
// both switches, a datum on a boundary seeing the state after the change.
func TestPeriodsClosedForm(t *testing.T) {
	prob := swapProblem()
	k1, k2, a0, inc, k1b := 0.3, 0.2, 2.0, 1.5, 0.05
	step := func(a, b, k1, k2, dt float64) (float64, float64) {
		tot, k := a+b, k1+k2
		eq := k2 * tot / k
		a = eq + (a-eq)*math.Exp(-k*dt)
		return a, tot - a
	}
	type state struct{ a, b float64 }
	want := map[float64]state{}
	a, b := a0, 1.0
	want[0] = state{a, b}
	want[5] = state(func() state { x, y := step(a, b, k1, k2, 5); return state{x, y} }())
	a, b = step(a, b, k1, k2, 10)
	a += inc // set 0 at 10, then k1b
	want[10] = state{a, b}
	want[15] = state(func() state { x, y := step(a, b, k1b, k2, 5); return state{x, y} }())
	a, b = step(a, b, k1b, k2, 10)
	a, b = k2*b, (1+inc)*a // set 1 at 20 with the parameters before 20
	want[20] = state{a, b}
	want[25] = state(func() state { x, y := step(a, b, 0.5, k2, 5); return state{x, y} }())
	tot := a + b
	want[math.Inf(1)] = state{k2 * tot / (0.5 + k2), 0.5 * tot / (0.5 + k2)}
	// Experiment 3: steady state of c2 from (a0, 1), then A += inc at 0.
	tot = a0 + 1
	a3, b3 := k2*tot/(0.5+k2)+inc, 0.5*tot/(0.5+k2)
	want3 := []float64{a3, 0}
	_, want3[1] = step(a3, b3, k1, k2, 2)
	for _, meth := range methods {
		o, err := objective.New(newSwap(), prob, &objective.Options{Method: meth, RTol: 1e-10, ATol: 1e-12, Grad: true})
		if err != nil {
			t.Fatal(err)
		}
		r := evalAt(t, o, o.Nominal())
		for i, d := range prob.Experiments[0].Data {
			w := want[d.T]
			v := w.a
			if d.Obs == 1 {
				v = w.b
			}
			if !close(r.Sim[i], v, 1e-7) {
				t.Errorf("%v: datum %d (obs %d, t = %g): %.10g, closed form %.10g", meth, i, d.Obs, d.T, r.Sim[i], v)
			}
		}
		off := r.Sim[len(r.Sim)-2:]
		for i, v := range want3 {
			if !close(off[i], v, 1e-7) {
				t.Errorf("%v: experiment 3 datum %d: %.10g, closed form %.10g", meth, i, off[i], v)
			}
		}
		o.Close()
	}
}

// The gradient through parameter changes, state-dependent assignments
// (dg/dx S + dg/dp), pre-equilibration and steady state against fourth-
// order central differences of the llh. The methods run at rtol 1e-12:
// Exp has no error control of its own (its steps are the state's), and at
// 1e-10 its error here is 8e-6, at 1e-12 2e-6 (FS and PBSR 4e-8 at both),
// which shows the remainder is discretisation.
func TestPeriodsGradientFD(t *testing.T) {
	prob := swapProblem()
	ref, err := objective.New(newSwap(), prob, &objective.Options{Method: sens.FS, RTol: 1e-12, ATol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	theta := ref.Nominal()
	th := append([]float64(nil), theta...)
	llh := func(a int, h float64) float64 {
		th[a] = theta[a] + h
		defer func() { th[a] = theta[a] }()
		return evalAt(t, ref, th).LLH
	}
	fd := make([]float64, len(theta))
	for a := range theta {
		h := fdStep(theta[a])
		fd[a] = (8*(llh(a, h)-llh(a, -h)) - (llh(a, 2*h) - llh(a, -2*h))) / (12 * h)
	}
	for _, meth := range methods {
		o, err := objective.New(newSwap(), prob, &objective.Options{Method: meth, RTol: 1e-12, ATol: 1e-14, Grad: true, FIM: true})
		if err != nil {
			t.Fatal(err)
		}
		r := evalAt(t, o, theta)
		worst := 0.0
		for a := range fd {
			e := math.Abs(r.Grad[a]-fd[a]) / (1 + math.Abs(fd[a]))
			worst = math.Max(worst, e)
			if e > 1e-5 || fd[a] == 0 {
				t.Errorf("%v: grad[%d] (%s) %.9g, finite differences %.9g", meth, a, o.Params()[a], r.Grad[a], fd[a])
			}
		}
		t.Logf("%v: worst gradient error %.2e; llh %.10g", meth, worst, r.LLH)
		o.Close()
	}
}

// clonedPatterns returns a fresh copy of its patterns on every call, as
// interp does.
type clonedPatterns struct{ *swap }

func (m clonedPatterns) JxPattern() *model.Pattern { return clonePattern(m.swap.JxPattern()) }
func (m clonedPatterns) JpPattern() *model.Pattern { return clonePattern(m.swap.JpPattern()) }

func clonePattern(p *model.Pattern) *model.Pattern {
	q := *p
	q.RowPtr = append([]int(nil), p.RowPtr...)
	q.ColIdx = append([]int(nil), p.ColIdx...)
	return &q
}

// Periods keep Eval allocation-free and independent of Workers, also with
// a model whose pattern methods allocate (the objective fetches them once).
func TestPeriodsWorkersAndAllocs(t *testing.T) {
	prob := swapProblem()
	var first []float64
	for _, w := range []int{1, 2} {
		o, err := objective.New(clonedPatterns{newSwap()}, prob, &objective.Options{Workers: w, Grad: true, FIM: true})
		if err != nil {
			t.Fatal(err)
		}
		theta := o.Nominal()
		var r objective.Result
		if err := o.Eval(theta, &r); err != nil {
			t.Fatal(err)
		}
		got := append(append([]float64{r.LLH}, r.Grad...), r.Sim...)
		if first == nil {
			first = got
		} else {
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(first[i]) {
					t.Errorf("Workers %d: value %d is %.17g, with 1 worker %.17g", w, i, got[i], first[i])
				}
			}
		}
		if n := testing.AllocsPerRun(3, func() { o.Eval(theta, &r) }); n != 0 {
			t.Errorf("Workers %d: %v allocations per Eval", w, n)
		}
		o.Close()
	}
}

// Bad periods are errors at New, naming the experiment and period.
func TestPeriodsNewErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		m    model.Model
		edit func(p *objective.Problem)
		want string
	}{
		{"condition", newSwap(), func(p *objective.Problem) { p.Experiments[0].Periods[0].Cond = 7 }, "period 1: condition index 7 out of range"},
		{"order", newSwap(), func(p *objective.Problem) { p.Experiments[0].Periods[1].T0 = 10 }, "period 2: start time 10 not finite or not after the previous start 10"},
		{"start", newSwap(), func(p *objective.Problem) { p.Experiments[0].Periods[0].T0 = -1 }, "period 1: start time -1"},
		{"second at start", newSwap(), func(p *objective.Problem) {
			p.Experiments[0].Periods[0].T0 = 0
			p.Experiments[0].Periods[1].T0 = 0
		}, "period 2: start time 0 not finite or not after the previous start 0"},
		{"nan", newSwap(), func(p *objective.Problem) { p.Experiments[0].Periods[0].T0 = math.NaN() }, "period 1: start time NaN"},
		{"set", newSwap(), func(p *objective.Problem) { p.Experiments[0].Periods[0].Assign = 2 }, "assignment set 2 out of range"},
		{"no assigner", noAssign{newSwap()}, func(*objective.Problem) {}, "does not implement model.Assigner"},
	} {
		p := swapProblem()
		c.edit(p)
		_, err := objective.New(c.m, p, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// noAssign hides swap's model.Assigner.
type noAssign struct{ model.Model }

func (n noAssign) ObservableIDs() []string       { return n.Model.(*swap).ObservableIDs() }
func (n noAssign) Placeholders(k int) (int, int) { return n.Model.(*swap).Placeholders(k) }
func (n noAssign) Observe(k int, t float64, x, p, u []float64, d *model.ObsDeriv) (float64, float64) {
	return n.Model.(*swap).Observe(k, t, x, p, u, d)
}
