package petab

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

const (
	periodsYAML = "testdata/periods/problem.yaml"
	volumeYAML  = "testdata/volume/problem.yaml"
)

// The lowering of a v2 problem with several periods: e1 applies c0 (k1 :=
// kA) at 0, c1 (k1 := kB, A := A + inc) at 10 and c2 (B := B k2 + 2 A,
// cell := 3) at 20; e2 pre-equilibrates in c0, starts at 0 with no
// condition (k1 keeps kA: v2 conditions are changes) and applies c1 at 5;
// e3 applies c1 right after pre-equilibration (A + inc of the
// pre-equilibrated A: a period of length 0 at the start).
func TestLoadPeriods(t *testing.T) {
	p, err := Load(periodsYAML)
	if err != nil {
		t.Fatal(err)
	}
	ob := p.Objective
	theta := make(map[string]int)
	for a, id := range p.EstimatedIDs() {
		theta[id] = a
	}
	names := p.Model.ParamNames()
	param := func(c objective.Condition, id string) objective.Value {
		for j, n := range names {
			if n == id {
				return c.P[j]
			}
		}
		t.Fatalf("no model parameter %s in %v", id, names)
		return objective.Value{}
	}
	if len(ob.Experiments) != 3 {
		t.Fatalf("%d experiments, want 3", len(ob.Experiments))
	}
	if e3 := ob.Experiments[2]; e3.Preeq < 0 || len(e3.Periods) != 1 || e3.Periods[0].T0 != 0 || e3.Periods[0].Assign < 0 || len(e3.Reinit) != 0 {
		t.Errorf("e3: preeq %d, reinit %v, periods %+v; want A + inc as an assignment at 0, not a re-initialisation", e3.Preeq, e3.Reinit, e3.Periods)
	}
	e1, e2 := ob.Experiments[0], ob.Experiments[1]
	if len(e1.Periods) != 2 || e1.Periods[0].T0 != 10 || e1.Periods[1].T0 != 20 || e1.Preeq != -1 {
		t.Fatalf("e1: preeq %d, periods %+v; want none and periods at 10, 20", e1.Preeq, e1.Periods)
	}
	// Conditions are changes: k1 keeps kB in the period of c2, which does
	// not set it.
	for k, pd := range e1.Periods {
		if got := param(ob.Conditions[pd.Cond], "k1"); got != (objective.Value{Theta: theta["kB"]}) {
			t.Errorf("e1 period %d: k1 = %+v, want theta %d (kB)", k+1, got, theta["kB"])
		}
	}
	if got := param(ob.Conditions[e1.Periods[1].Cond], "cell"); got != (objective.Value{Theta: -1, Const: 3}) {
		t.Errorf("e1 period 2: cell = %+v, want 3", got)
	}
	if got := param(ob.Conditions[e1.Periods[0].Cond], "cell"); got != (objective.Value{Theta: -1, Const: 2}) {
		t.Errorf("e1 period 1: cell = %+v, want the model's 2", got)
	}
	states := p.Model.StateNames()
	for k, want := range []string{"A", "B"} {
		a := e1.Periods[k].Assign
		if a < 0 || a >= p.Model.NumAssignments() {
			t.Fatalf("e1 period %d: assignment set %d", k+1, a)
		}
		if tg := p.Model.AssignTargets(a); len(tg) != 1 || states[tg[0]] != want {
			t.Errorf("e1 period %d assigns %v, want %s", k+1, tg, want)
		}
	}
	if e2.Preeq < 0 || len(e2.Periods) != 1 || e2.Periods[0].T0 != 5 || e2.T0 != 0 {
		t.Errorf("e2: preeq %d, T0 %g, periods %+v", e2.Preeq, e2.T0, e2.Periods)
	}
	if got := param(ob.Conditions[e2.Sim], "k1"); got != (objective.Value{Theta: theta["kA"]}) {
		t.Errorf("e2 after pre-equilibration: k1 = %+v, want theta %d (kA, carried over)", got, theta["kA"])
	}
}

// The simulated values follow the closed form of A <-> B (concentrations;
// the compartment's size does not enter) through the changes: boundary
// data see the state after the change, assignments use the values before
// it, and the steady-state datum is that of the last period.
func TestPeriodsSimulation(t *testing.T) {
	p, err := Load(periodsYAML)
	if err != nil {
		t.Fatal(err)
	}
	th, err := p.Theta(nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Evaluate(th, &EvalOptions{Method: sens.PBSR, RTol: 1e-10, ATol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	kA, kB, k2, inc, scale := 0.3, 0.05, 0.2, 1.5, 1.2
	step := func(a, b, k1, dt float64) (float64, float64) {
		tot, k := a+b, k1+k2
		eq := k2 * tot / k
		a = eq + (a-eq)*math.Exp(-k*dt)
		return a, tot - a
	}
	want := map[string]map[float64][2]float64{"e1": {}, "e2": {}, "e3": {}}
	a, b := 1.0, 0.5
	w := want["e1"]
	w[0] = [2]float64{a, b}
	a5, b5 := step(a, b, kA, 5)
	w[5] = [2]float64{a5, b5}
	a, b = step(a, b, kA, 10)
	a += inc
	w[10] = [2]float64{a, b}
	a15, b15 := step(a, b, kB, 5)
	w[15] = [2]float64{a15, b15}
	a, b = step(a, b, kB, 10)
	b = b*k2 + 2*a
	w[20] = [2]float64{a, b}
	a30, b30 := step(a, b, kB, 10)
	w[30] = [2]float64{a30, b30}
	w = want["e2"]
	a, b = k2*1.5/(kA+k2), kA*1.5/(kA+k2)
	w[0] = [2]float64{a, b}
	a += inc
	w[5] = [2]float64{a, b}
	a8, b8 := step(a, b, kB, 3)
	w[8] = [2]float64{a8, b8}
	w[math.Inf(1)] = [2]float64{k2 * (a + b) / (kB + k2), kB * (a + b) / (kB + k2)}
	w = want["e3"] // A + inc applied to the pre-equilibrated A at 0
	a, b = k2*1.5/(kA+k2)+inc, kA*1.5/(kA+k2)
	w[0] = [2]float64{a, b}
	a4, b4 := step(a, b, kB, 4)
	w[4] = [2]float64{a4, b4}
	for i, m := range p.Measurements {
		s, ok := want[m.Experiment][m.Time]
		if !ok {
			t.Fatalf("no closed form for %s at %g", m.Experiment, m.Time)
		}
		v := s[1]
		if m.ObservableID == "obsA" {
			v = scale * s[0]
		}
		if math.Abs(r.Sim[i]-v) > 1e-7*(1+math.Abs(v)) {
			t.Errorf("%s %s t = %g: simulated %.10g, closed form %.10g", m.Experiment, m.ObservableID, m.Time, r.Sim[i], v)
		}
	}
}

// The gradient through the lowered assignments (interp's symbolic dg/dx
// and dg/dp) against fourth-order central differences of the llh, for FS,
// PBSR and Exp.
func TestPeriodsGradient(t *testing.T) {
	for _, f := range []string{periodsYAML, volumeYAML} {
		t.Run(filepath.Base(filepath.Dir(f)), func(t *testing.T) { periodsGradient(t, f) })
	}
}

func periodsGradient(t *testing.T, path string) {
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var m model.Model = p.Model
	ref, err := objective.New(m, p.Objective, &objective.Options{Method: sens.FS, RTol: 1e-12, ATol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	theta := ref.Nominal()
	th := append([]float64(nil), theta...)
	var res objective.Result
	llh := func(a int, h float64) float64 {
		th[a] = theta[a] + h
		defer func() { th[a] = theta[a] }()
		if err := ref.Eval(th, &res); err != nil {
			t.Fatal(err)
		}
		return res.LLH
	}
	fd := make([]float64, len(theta))
	for a := range theta {
		h := 3e-3 * math.Max(1, math.Abs(theta[a]))
		fd[a] = (8*(llh(a, h)-llh(a, -h)) - (llh(a, 2*h) - llh(a, -2*h))) / (12 * h)
	}
	for _, meth := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
		o, err := objective.New(m, p.Objective, &objective.Options{Method: meth, RTol: 1e-12, ATol: 1e-14, Grad: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Eval(theta, &res); err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for a := range fd {
			e := math.Abs(res.Grad[a]-fd[a]) / (1 + math.Abs(fd[a]))
			worst = math.Max(worst, e)
			if e > 1e-5 || fd[a] == 0 {
				t.Errorf("%v: grad[%s] %.9g, finite differences %.9g", meth, o.Params()[a], res.Grad[a], fd[a])
			}
		}
		t.Logf("%v: worst gradient error %.2e", meth, worst)
		o.Close()
	}
}

// Bad period input is an error naming the file, never a panic; a value
// that becomes non-finite at run time is an evaluation error naming the
// period.
func TestPeriodsErrors(t *testing.T) {
	for _, c := range []struct {
		name, file, content, want string
		eval                      bool
	}{
		{"unknown id", "conditions.tsv", "conditionId\ttargetId\ttargetValue\nc0\tk1\tkA\nc1\tk1\tkB\nc1\tA\tA + zz\nc2\tB\t1\n", `unknown id "zz"`, false},
		{"parameter of a changed parameter", "conditions.tsv", "conditionId\ttargetId\ttargetValue\nc0\tk1\tkA\nc1\tk1\tkB\nc1\tA\tA + inc\nc2\tcell\t2 * k1\n", "is not supported", false},
		{"bad formula", "conditions.tsv", "conditionId\ttargetId\ttargetValue\nc0\tk1\tkA\nc1\tk1\tkB\nc1\tA\tA + \nc2\tB\t1\n", "conditions.tsv", false},
		{"same target twice", "experiments.tsv", "experimentId\ttime\tconditionId\ne1\t0\tc0\ne1\t10\tc1\ne1\t10\tc1\ne2\t-inf\tc0\ne2\t0\tc0\n", "both set", false},
		{"non-finite", "conditions.tsv", "conditionId\ttargetId\ttargetValue\nc0\tk1\tkA\nc1\tk1\tkB\nc1\tA\tlog(A - 10)\nc2\tB\t1\n", `period 1 (condition "e1_period1", t = 10): state "A" assigned NaN`, true},
	} {
		dir := t.TempDir()
		for _, f := range []string{"problem.yaml", "model.xml", "parameters.tsv", "conditions.tsv", "experiments.tsv", "observables.tsv", "measurements.tsv"} {
			data, err := os.ReadFile(filepath.Join("testdata/periods", f))
			if err != nil {
				t.Fatal(err)
			}
			if f == c.file {
				data = []byte(c.content)
			}
			if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := Load(filepath.Join(dir, "problem.yaml"))
		if c.eval {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			th, _ := p.Theta(nil)
			_, err = p.Evaluate(th, nil)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "internal error") {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// A compartment whose size is a state (rate rule) and whose species'
// states are therefore amounts: at t = 1 the size goes from 2 to 4 and A's
// concentration to 5. PEtab v2 keeps B's concentration (its amount
// doubles, unlike an SBML event) and A's amount is 5 times the new size.
func TestPeriodsCompartment(t *testing.T) {
	p, err := Load(volumeYAML)
	if err != nil {
		t.Fatal(err)
	}
	th, err := p.Theta(nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Evaluate(th, &EvalOptions{Method: sens.FS, RTol: 1e-10, ATol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	// Rows: obsA e1 1, obsB e1 1, obsV e1 1, obsB e2 1 (no change), obsA e1 2, obsB e1 2.
	k := 0.3
	b1 := r.Sim[3]
	for i, want := range []float64{5, b1, 4, b1, 5 * math.Exp(-k), b1 + 5*(1-math.Exp(-k))} {
		if math.Abs(r.Sim[i]-want) > 1e-7*(1+math.Abs(want)) {
			t.Errorf("row %d: simulated %.10g, want %.10g", i, r.Sim[i], want)
		}
	}
	if !(b1 > 1.1) {
		t.Errorf("B at 1 without the change is %g: the reference itself is off", b1)
	}
}

// FuzzLoadPeriods replaces the conditions, experiments or measurements of
// the multi-period fixture with arbitrary text: the period lowering must
// fail with errors, never panic.
//
//	go test -run '^$' -fuzz FuzzLoadPeriods -fuzztime 60s ./petab
func FuzzLoadPeriods(f *testing.F) {
	files := []string{"conditions.tsv", "experiments.tsv", "measurements.tsv"}
	all := []string{"problem.yaml", "model.xml", "parameters.tsv", "observables.tsv", "conditions.tsv", "experiments.tsv", "measurements.tsv"}
	for i, name := range files {
		data, err := os.ReadFile(filepath.Join("testdata/periods", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), string(data))
	}
	f.Add(uint8(0), "conditionId\ttargetId\ttargetValue\nc0\tk1\tkA\nc1\tA\tpiecewise(A, time > 3, B)\nc1\tcell\tcell * 2\nc2\tB\tA / cell\n")
	f.Add(uint8(1), "experimentId\ttime\tconditionId\ne1\t0\tc0\ne1\t0\tc1\ne1\t20\tc2\ne2\t-inf\tc1\ne2\t0\tc1\ne2\t0\tc2\ne3\t1e300\tc0\n")
	f.Fuzz(func(t *testing.T, which uint8, content string) {
		if len(content) > 1<<14 {
			return
		}
		dir := t.TempDir()
		for _, name := range all {
			data, _ := os.ReadFile(filepath.Join("testdata/periods", name))
			os.WriteFile(filepath.Join(dir, name), data, 0o644)
		}
		os.WriteFile(filepath.Join(dir, files[int(which)%len(files)]), []byte(content), 0o644)
		p, err := Load(filepath.Join(dir, "problem.yaml"))
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatal(err)
		}
		if err == nil && (p.Model == nil || p.Objective == nil) {
			t.Fatal("no error, but no model or objective")
		}
	})
}
