package petab

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// testdata/alg (an algebraic rule) and testdata/fast (a fast reaction) are
// DAEs, each beside model_ode.xml, the same model written by hand as an
// explicit ODE (assignment rules instead of the algebraic equations):
// problem_ode.yaml is the same problem on it. Both have observables on a
// differential state and on an algebraic variable, two conditions, one
// experiment pre-equilibrated, data at steady state. The DAE's llh,
// simulated values and gradient must be the ODE's (which never touches
// runtime/dae) for every method, and its gradient must pass the
// finite-difference check (checkGradients: the llh at rtol 1e-10 by
// central differences, the methods at their defaults).
func TestAlgebraicProblems(t *testing.T) {
	for _, name := range []string{"alg", "fast"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", name)
			p, err := Load(filepath.Join(dir, "problem.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			q, err := Load(filepath.Join(dir, "problem_ode.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if p.System.ODE.Algebraic == 0 || q.System.ODE.Algebraic != 0 {
				t.Fatalf("algebraic variables: %d in the DAE, %d in the ODE; want some and none", p.System.ODE.Algebraic, q.System.ODE.Algebraic)
			}
			th, err := p.Theta(nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
				opt := &EvalOptions{Method: m, RTol: 1e-10, ATol: 1e-12, Grad: true, FIM: true}
				a, err := p.Evaluate(th, opt)
				if err != nil {
					t.Fatalf("%v: DAE: %v", m, err)
				}
				b, err := q.Evaluate(th, opt)
				if err != nil {
					t.Fatalf("%v: ODE: %v", m, err)
				}
				if math.Abs(a.LLH-b.LLH) > 1e-8*(1+math.Abs(b.LLH)) {
					t.Errorf("%v: llh %.12g, the explicit ODE's %.12g", m, a.LLH, b.LLH)
				}
				for i := range a.Sim {
					if math.Abs(a.Sim[i]-b.Sim[i]) > 1e-8*(1+math.Abs(b.Sim[i])) {
						t.Errorf("%v: row %d: simulated %.12g, the explicit ODE's %.12g", m, i, a.Sim[i], b.Sim[i])
					}
				}
				for k := range a.Grad {
					if math.Abs(a.Grad[k]-b.Grad[k]) > 1e-6*(1+math.Abs(b.Grad[k])) {
						t.Errorf("%v: gradient %s: %.10g, the explicit ODE's %.10g", m, p.EstimatedIDs()[k], a.Grad[k], b.Grad[k])
					}
					for l := range a.FIM[k] {
						if math.Abs(a.FIM[k][l]-b.FIM[k][l]) > 1e-6*(1+math.Abs(b.FIM[k][l])) {
							t.Errorf("%v: FIM[%d][%d]: %.10g, the explicit ODE's %.10g", m, k, l, a.FIM[k][l], b.FIM[k][l])
						}
					}
				}
			}
			checkGradients(t, dir, p)
		})
	}
}

// After the first Eval, an Eval of a DAE problem allocates nothing, as
// for an ODE: the reduction's scratch is pooled.
func TestAlgebraicNoAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under -race")
	}
	for _, name := range []string{"alg", "fast"} {
		p, err := Load(filepath.Join("testdata", name, "problem.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		o, err := objective.New(p.Model, p.Objective, &objective.Options{Method: sens.FS, Grad: true, FIM: true})
		if err != nil {
			t.Fatal(err)
		}
		th := o.Nominal()
		var r objective.Result
		if err := o.Eval(th, &r); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(3, func() { o.Eval(th, &r) }); n != 0 {
			t.Errorf("%s: Eval allocates %v times", name, n)
		}
		o.Close()
	}
}

// A condition cannot set a variable an algebraic rule determines: it is
// refused by name, with the rule's line.
func TestAlgebraicTargetRefused(t *testing.T) {
	for _, c := range []struct{ dir, cond, want string }{
		{"testdata/alg", "conditionId\tT\tB\nc0\t1\t0.5\nc1\t2\t0.2\n", `condition target "B" is an algebraic variable of the model (determined by the algebraic rule at`},
	} {
		dir := t.TempDir()
		copyDir(t, c.dir, dir)
		if err := os.WriteFile(filepath.Join(dir, "conditions.tsv"), []byte(c.cond), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(filepath.Join(dir, "problem.yaml"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.dir, err, c.want)
		}
	}
}

// testdata/delay: A' = -k A(t - 1), A = 1 up to t = 0 (the history),
// A(0) = a (A0 in condition c0, 1 in c1), observed as scale*A. By the
// method of steps, with s = t - j on [j, j + 1],
//
//	[0, 1]: A = a - k s
//	[1, 2]: A = a - k - k a s + k^2 s^2/2
//	[2, 3]: A = A(2) - k ((a - k) s - k a s^2/2 + k^2 s^3/6), A(2) = a - k - k a + k^2/2
//
// The llh from these exact values must be the objective's (through
// runtime/dde) at a tight tolerance, at the nominal k1 = 0.8, tau = 1,
// A0 = 1 and at k1 = 0.7, A0 = 1.3: a condition's initial value sets
// A(0) and leaves the history before 0 at the model's initial value
// (gradients and FIM: delay_test.go).
func TestDelayProblem(t *testing.T) {
	p, err := Load("testdata/delay/problem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	exact := func(k, a, t float64) float64 {
		switch {
		case t <= 1:
			return a - k*t
		case t <= 2:
			s := t - 1
			return a - k - k*a*s + k*k*s*s/2
		default:
			s := t - 2
			return a - k - k*a + k*k/2 - k*((a-k)*s-k*a*s*s/2+k*k*s*s*s/6)
		}
	}
	var llh float64
	for _, c := range []struct{ k1, a0 float64 }{{0.8, 1}, {0.7, 1.3}} {
		th, err := p.Theta(map[string]float64{"scale": 1.7, "sd": 0.2, "k1": c.k1, "A0": c.a0})
		if err != nil {
			t.Fatal(err)
		}
		ks := map[string]float64{"c0": 0.5, "c1": c.k1}
		as := map[string]float64{"c0": c.a0, "c1": 1}
		llh = 0.0
		var want []float64
		for _, m := range p.Measurements {
			h := 1.7 * exact(ks[m.Sim], as[m.Sim], m.Time)
			want = append(want, h)
			r := (h - m.Value) / 0.2
			llh += -math.Log(math.Sqrt(2*math.Pi)*0.2) - r*r/2
		}
		r, err := p.Evaluate(th, &EvalOptions{RTol: 1e-10, ATol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if math.Abs(r.Sim[i]-w) > 1e-8 {
				t.Errorf("k1 %g, A0 %g, row %d: simulated %.12g, exact %.12g", c.k1, c.a0, i, r.Sim[i], w)
			}
		}
		if math.Abs(r.LLH-llh) > 1e-7*math.Abs(llh) {
			t.Errorf("k1 %g, A0 %g: llh %.12g, exact %.12g", c.k1, c.a0, r.LLH, llh)
		}
	}
	th, err := p.Theta(map[string]float64{"scale": 1.7, "sd": 0.2, "k1": 0.7, "A0": 1.3})
	if err != nil {
		t.Fatal(err)
	}
	// At the default tolerances (rtol 1e-6) too, within a few of them.
	r, err := p.Evaluate(th, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.LLH-llh) > 1e-4*math.Abs(llh) {
		t.Errorf("default tolerances: llh %.12g, exact %.12g", r.LLH, llh)
	}
}

// What the delay path does not do is refused at load, by row: an
// observable reading a delayed value, pre-equilibration, data at steady
// state.
func TestDelayRefused(t *testing.T) {
	meas := "observableId\tpreequilibrationConditionId\tsimulationConditionId\ttime\tmeasurement\n"
	for _, c := range []struct{ file, text, want string }{
		{"measurements.tsv", meas + "obs_A\tc0\tc1\t1\t1\n", "pre-equilibration of a model with csymbol delay (delay(A, tau)) is not supported"},
		{"measurements.tsv", meas + "obs_A\t\tc1\tinf\t1\n", "data at steady state (inf) in a model with csymbol delay (delay(A, tau)) are not supported"},
		// Ad is delay(A, tau) by an assignment rule (added below).
		{"observables.tsv", "observableId\tobservableFormula\tnoiseFormula\nobs_A\tscale*A\tsd\nobs_B\tAd\t1\n", "column observableFormula: reads a delayed value (csymbol delay: delay(A, tau))"},
	} {
		dir := t.TempDir()
		copyDir(t, "testdata/delay", dir)
		if err := os.WriteFile(filepath.Join(dir, c.file), []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		sb, err := os.ReadFile(filepath.Join(dir, "model.xml"))
		if err != nil {
			t.Fatal(err)
		}
		rule := `<parameter id="Ad" constant="false"/></listOfParameters><listOfRules><assignmentRule variable="Ad"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><csymbol definitionURL="http://www.sbml.org/sbml/symbols/delay">delay</csymbol><ci>A</ci><ci>tau</ci></apply></math></assignmentRule></listOfRules>`
		sb = []byte(strings.Replace(string(sb), "</listOfParameters>", rule, 1))
		if err := os.WriteFile(filepath.Join(dir, "model.xml"), sb, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = Load(filepath.Join(dir, "problem.yaml"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.file, err, c.want)
		}
	}
}

// A PEtab v2 experiment with periods on the algebraic-rule model: the
// second period's condition assigns A := A + inc B, B being the algebraic
// variable, and changes T, so the assignment's derivative goes through z
// and z is re-solved after it. As above, against the explicit ODE and
// finite differences.
func TestAlgebraicPeriods(t *testing.T) {
	files := map[string]string{
		"problem.yaml":    "format_version: 2.0.0\nmodel_files:\n  model_0:\n    language: sbml\n    location: MODEL\nparameter_files:\n- parameters.tsv\ncondition_files:\n- conditions.tsv\nexperiment_files:\n- experiments.tsv\nmeasurement_files:\n- measurements.tsv\nobservable_files:\n- observables.tsv\n",
		"experiments.tsv": "experimentId\ttime\tconditionId\ne1\t0\tc0\ne1\t3\tc1\ne2\t-inf\tc0\ne2\t0\tc1\n",
		"conditions.tsv":  "conditionId\ttargetId\ttargetValue\nc0\tT\t1\nc1\tT\t2\nc1\tA\tA + inc * B\n",
		"measurements.tsv": "observableId\texperimentId\ttime\tmeasurement\n" +
			"obsA\te1\t1\t1.1\nobsB\te1\t1\t0.4\nobsA\te1\t3\t1.3\nobsB\te1\t3\t0.5\nobsA\te1\t5\t2.0\nobsB\te1\t6\t0.7\n" +
			"obsA\te2\t0\t2.1\nobsB\te2\t2\t0.6\nobsA\te2\tinf\t2.4\n",
		"observables.tsv": "observableId\tobservableFormula\tnoiseFormula\tnoiseDistribution\nobsA\tscale * A\tsd\tnormal\nobsB\tB\t0.1\tnormal\n",
		"parameters.tsv":  "parameterId\tlowerBound\tupperBound\tnominalValue\testimate\nkin\t0.01\t100\t1\ttrue\nk1\t0.01\t100\t0.5\ttrue\nK\t0.01\t100\t0.4\ttrue\ninc\t0\t10\t0.8\ttrue\nscale\t0.1\t10\t2\ttrue\nsd\t0.01\t10\t0.2\ttrue\n",
	}
	load := func(model string) *Problem { return loadTwin(t, files, "testdata/alg", model) }
	p, q := load("model.xml"), load("model_ode.xml")
	if len(p.AssignExprs) == 0 || p.System.ODE.Algebraic == 0 {
		t.Fatalf("%d assignment sets, %d algebraic variables; want some of each", len(p.AssignExprs), p.System.ODE.Algebraic)
	}
	th, err := p.Theta(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
		opt := &EvalOptions{Method: m, RTol: 1e-10, ATol: 1e-12, Grad: true}
		a, err := p.Evaluate(th, opt)
		if err != nil {
			t.Fatalf("%v: DAE: %v", m, err)
		}
		b, err := q.Evaluate(th, opt)
		if err != nil {
			t.Fatalf("%v: ODE: %v", m, err)
		}
		if math.Abs(a.LLH-b.LLH) > 1e-8*(1+math.Abs(b.LLH)) {
			t.Errorf("%v: llh %.12g, the explicit ODE's %.12g", m, a.LLH, b.LLH)
		}
		for k := range a.Grad {
			if math.Abs(a.Grad[k]-b.Grad[k]) > 1e-6*(1+math.Abs(b.Grad[k])) {
				t.Errorf("%v: gradient %s: %.10g, the explicit ODE's %.10g", m, p.EstimatedIDs()[k], a.Grad[k], b.Grad[k])
			}
		}
	}
	checkGradients(t, "alg periods", p)
}

// The events path on a DAE: testdata/alg with an SBML event whose trigger
// reads the algebraic variable (B < 0.41, which B crosses once as A
// rises) and that adds 0.3 to A, so that the event time's sensitivity
// goes through z (runtime/dae's reduced root gradient). Experiment c0
// crosses it during the simulation, the pre-equilibrated one during
// pre-equilibration. Against the explicit ODE with the same event and
// finite differences.
func TestAlgebraicEvents(t *testing.T) {
	event := `<listOfEvents><event id="bump" useValuesFromTriggerTime="true"><trigger initialValue="false" persistent="true"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><lt/><ci>B</ci><cn>0.41</cn></apply></math></trigger>` +
		`<listOfEventAssignments><eventAssignment variable="A"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><plus/><ci>A</ci><cn>0.3</cn></apply></math></eventAssignment></listOfEventAssignments></event></listOfEvents></model>`
	load := func(yaml string) *Problem {
		dir := t.TempDir()
		copyDir(t, "testdata/alg", dir)
		for _, m := range []string{"model.xml", "model_ode.xml"} {
			sb, err := os.ReadFile(filepath.Join(dir, m))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, m), []byte(strings.Replace(string(sb), "</model>", event, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := Load(filepath.Join(dir, yaml))
		if err != nil {
			t.Fatal(err)
		}
		if p.Model.NumEvents() != 1 {
			t.Fatalf("%d events, want 1", p.Model.NumEvents())
		}
		return p
	}
	p, q := load("problem.yaml"), load("problem_ode.yaml")
	th, err := p.Theta(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
		opt := &EvalOptions{Method: m, RTol: 1e-10, ATol: 1e-12, Grad: true}
		a, err := p.Evaluate(th, opt)
		if err != nil {
			t.Fatalf("%v: DAE: %v", m, err)
		}
		b, err := q.Evaluate(th, opt)
		if err != nil {
			t.Fatalf("%v: ODE: %v", m, err)
		}
		if math.Abs(a.LLH-b.LLH) > 1e-8*(1+math.Abs(b.LLH)) {
			t.Errorf("%v: llh %.12g, the explicit ODE's %.12g", m, a.LLH, b.LLH)
		}
		for k := range a.Grad {
			if math.Abs(a.Grad[k]-b.Grad[k]) > 1e-6*(1+math.Abs(b.Grad[k])) {
				t.Errorf("%v: gradient %s: %.10g, the explicit ODE's %.10g", m, p.EstimatedIDs()[k], a.Grad[k], b.Grad[k])
			}
		}
	}
	// The event fired: without it the llh differs.
	plain, err := Load("testdata/alg/problem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Evaluate(th, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := plain.Evaluate(th, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.LLH-b.LLH) < 1e-3 {
		t.Errorf("llh %.10g with the event, %.10g without: the event did not fire", a.LLH, b.LLH)
	}
	checkGradients(t, "alg events", p)
}

// Algebraic equations without a solution at a condition's start are an
// error of the evaluation naming the condition and the variable (0 = B^2
// + T has none for T > 0).
func TestAlgebraicNoSolution(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "testdata/alg", dir)
	sb, err := os.ReadFile(filepath.Join(dir, "model.xml"))
	if err != nil {
		t.Fatal(err)
	}
	rule := `<apply><minus/><apply><times/><ci>B</ci><apply><plus/><cn>1</cn><apply><divide/><ci>A</ci><ci>K</ci></apply></apply></apply><ci>T</ci></apply>`
	s := strings.Replace(string(sb), rule, `<apply><plus/><apply><times/><ci>B</ci><ci>B</ci></apply><ci>T</ci></apply>`, 1)
	if s == string(sb) {
		t.Fatal("fixture changed: no algebraic rule B (1 + A/K) - T")
	}
	if err := os.WriteFile(filepath.Join(dir, "model.xml"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(filepath.Join(dir, "problem.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	th, err := p.Theta(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Evaluate(th, &EvalOptions{Grad: true})
	if err == nil || !strings.Contains(err.Error(), `condition "c0": dae: model "alg": the algebraic equations for "B" have no solution`) {
		t.Errorf("err = %v", err)
	}
}

// BenchmarkAlgebraic times an Eval (llh and gradient, FS and PBSR at the
// defaults) of the DAE problems and of the same models written as
// explicit ODEs: the cost of solving z by Newton inside every f, Jx, Jp
// and Observe. cpu-ns/op is CPU time (getrusage).
func BenchmarkAlgebraic(b *testing.B) {
	for _, name := range []string{"alg", "fast"} {
		for _, yaml := range []string{"problem.yaml", "problem_ode.yaml"} {
			for _, m := range []sens.Method{sens.FS, sens.PBSR} {
				b.Run(name+"/"+strings.TrimSuffix(yaml, ".yaml")+"/"+m.String(), func(b *testing.B) {
					p, err := Load(filepath.Join("testdata", name, yaml))
					if err != nil {
						b.Fatal(err)
					}
					o, err := objective.New(p.Model, p.Objective, &objective.Options{Method: m, Grad: true})
					if err != nil {
						b.Fatal(err)
					}
					defer o.Close()
					th := o.Nominal()
					var r objective.Result
					if err := o.Eval(th, &r); err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					b.ResetTimer()
					c0 := cpuTime()
					for range b.N {
						o.Eval(th, &r)
					}
					b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
					b.ReportMetric(float64(r.Stats.Steps), "steps")
				})
			}
		}
	}
}

// objective.New refuses what its delay path does not do even when the
// problem did not come through Load's checks: pre-equilibration, periods,
// data at steady state, Options.NewSolver, each naming the delay.
func TestDelayObjectiveRefuses(t *testing.T) {
	p, err := Load("testdata/delay/problem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		edit func(pr *objective.Problem, o *objective.Options)
		want string
	}{
		{"preeq", func(pr *objective.Problem, _ *objective.Options) { pr.Experiments[0].Preeq = 1 }, "pre-equilibration is not supported with delays"},
		{"periods", func(pr *objective.Problem, _ *objective.Options) {
			pr.Experiments[0].Periods = []objective.Period{{T0: 1, Cond: 1, Assign: -1}}
		}, "periods (condition changes during a simulation) are not supported with delays"},
		{"inf", func(pr *objective.Problem, _ *objective.Options) {
			ds := pr.Experiments[0].Data
			ds[len(ds)-1].T = math.Inf(1)
		}, "data at steady state (time inf) are not supported with delays"},
		{"NewSolver", func(_ *objective.Problem, o *objective.Options) {
			o.NewSolver = func(model.Model, *sens.Options) (objective.Solver, error) { return nil, errors.New("unused") }
		}, "Options.NewSolver cannot solve it"},
	} {
		pr := *p.Objective
		pr.Experiments = append([]objective.Experiment(nil), pr.Experiments...)
		pr.Experiments[0].Data = append([]objective.Datum(nil), pr.Experiments[0].Data...)
		opt := &objective.Options{}
		c.edit(&pr, opt)
		_, err := objective.New(p.Model, &pr, opt)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "delay(A, tau)") {
			t.Errorf("%s: err = %v, want %q naming delay(A, tau)", c.what, err, c.want)
		}
	}
}

// A condition may set a fast species at the start of an experiment: the
// conserved pool A + B starts from the condition's A and the declared B,
// and the species start at their equilibrium. testdata/fast with c0
// setting A = 2 (the first experiment's start and the second's
// pre-equilibration; c1 leaves it, NaN) against the explicit ODE whose
// pool starts at A0 + B0, c0 setting A0 = 2.
func TestFastSpeciesCondition(t *testing.T) {
	load := func(yaml, cond string, edit func(string) string) *Problem {
		dir := t.TempDir()
		copyDir(t, "testdata/fast", dir)
		if err := os.WriteFile(filepath.Join(dir, "conditions.tsv"), []byte(cond), 0o644); err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			sb, err := os.ReadFile(filepath.Join(dir, "model_ode.xml"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "model_ode.xml"), []byte(edit(string(sb))), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := Load(filepath.Join(dir, yaml))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := load("problem.yaml", "conditionId\tu\tC\tA\nc0\t1\t0\t2\nc1\t2\t0.5\tNaN\n", nil)
	q := load("problem_ode.yaml", "conditionId\tu\tC\tA0\nc0\t1\t0\t2\nc1\t2\t0.5\t2\n", func(s string) string {
		s = strings.Replace(s, `<parameter id="u" value="1" constant="true"/>`, `<parameter id="u" value="1" constant="true"/><parameter id="A0" value="1" constant="true"/><parameter id="B0" value="0" constant="true"/>`, 1)
		return strings.Replace(s, "<listOfRules>", `<listOfInitialAssignments><initialAssignment symbol="P"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><plus/><ci>A0</ci><ci>B0</ci></apply></math></initialAssignment></listOfInitialAssignments><listOfRules>`, 1)
	})
	th, err := p.Theta(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
		opt := &EvalOptions{Method: m, RTol: 1e-10, ATol: 1e-12, Grad: true}
		a, err := p.Evaluate(th, opt)
		if err != nil {
			t.Fatalf("%v: DAE: %v", m, err)
		}
		b, err := q.Evaluate(th, opt)
		if err != nil {
			t.Fatalf("%v: ODE: %v", m, err)
		}
		// The first datum: B at t = 0, at equilibrium with A + B = 2:
		// scale * kf/(kf + kr) * 2 = 1.5 * 2/3 * 2.
		if m == sens.FS && math.Abs(a.Sim[0]-2) > 1e-9 {
			t.Errorf("B at the start: simulated %.12g, want 2", a.Sim[0])
		}
		if math.Abs(a.LLH-b.LLH) > 1e-8*(1+math.Abs(b.LLH)) {
			t.Errorf("%v: llh %.12g, the explicit ODE's %.12g", m, a.LLH, b.LLH)
		}
		for k := range a.Grad {
			if math.Abs(a.Grad[k]-b.Grad[k]) > 1e-6*(1+math.Abs(b.Grad[k])) {
				t.Errorf("%v: gradient %s: %.10g, the explicit ODE's %.10g", m, p.EstimatedIDs()[k], a.Grad[k], b.Grad[k])
			}
		}
	}
	checkGradients(t, "fast condition", p)
}

// A fast species set after pre-equilibration and at a later period: the
// conserved pool moves by the change of the species, the other species
// kept (A := 0.5 after pre-equilibration, A := A + 0.3 at t = 2, both
// PEtab v2 experiments), against the explicit ODE whose conditions set
// the pool P := 0.5 + B and P := P + 0.3, and finite differences.
func TestFastSpeciesPeriods(t *testing.T) {
	files := map[string]string{
		"problem.yaml":    "format_version: 2.0.0\nmodel_files:\n  model_0:\n    language: sbml\n    location: MODEL\nparameter_files:\n- parameters.tsv\ncondition_files:\n- conditions.tsv\nexperiment_files:\n- experiments.tsv\nmeasurement_files:\n- measurements.tsv\nobservable_files:\n- observables.tsv\n",
		"experiments.tsv": "experimentId\ttime\tconditionId\ne1\t0\tc0\ne1\t2\tbump\ne2\t-inf\tc0\ne2\t0\tc1\n",
		"measurements.tsv": "observableId\texperimentId\ttime\tmeasurement\n" +
			"obsB\te1\t1\t1.1\nobsC\te1\t1\t0.5\nobsB\te1\t2\t1.5\nobsB\te1\t4\t1.6\n" +
			"obsB\te2\t0\t0.9\nobsC\te2\t1\t1.2\nobsB\te2\t3\t1.8\n",
		"observables.tsv": "observableId\tobservableFormula\tnoiseFormula\tnoiseDistribution\nobsB\tscale * B\tsd\tnormal\nobsC\tC\t0.1\tnormal\n",
		"parameters.tsv":  "parameterId\tlowerBound\tupperBound\tnominalValue\testimate\nkf\t0.01\t100\t2\ttrue\ns\t0.01\t100\t0.5\ttrue\nd\t0.01\t100\t0.3\ttrue\nscale\t0.1\t10\t1.5\ttrue\nsd\t0.01\t10\t0.2\ttrue\n",
	}
	conds := map[string]string{
		"model.xml":     "conditionId\ttargetId\ttargetValue\nc0\tu\t1\nc1\tu\t2\nc1\tA\t0.5\nbump\tA\tA + 0.3\n",
		"model_ode.xml": "conditionId\ttargetId\ttargetValue\nc0\tu\t1\nc1\tu\t2\nc1\tP\t0.5 + B\nbump\tP\tP + 0.3\n",
	}
	load := func(model string) *Problem {
		files["conditions.tsv"] = conds[model]
		return loadTwin(t, files, "testdata/fast", model)
	}
	p, q := load("model.xml"), load("model_ode.xml")
	if len(p.AssignExprs) != 2 {
		t.Fatalf("%d assignment sets, want 2 (after pre-equilibration, at t = 2)", len(p.AssignExprs))
	}
	th, err := p.Theta(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
		opt := &EvalOptions{Method: m, RTol: 1e-10, ATol: 1e-12, Grad: true}
		a, err := p.Evaluate(th, opt)
		if err != nil {
			t.Fatalf("%v: DAE: %v", m, err)
		}
		b, err := q.Evaluate(th, opt)
		if err != nil {
			t.Fatalf("%v: ODE: %v", m, err)
		}
		for i := range a.Sim {
			if math.Abs(a.Sim[i]-b.Sim[i]) > 1e-8*(1+math.Abs(b.Sim[i])) {
				t.Errorf("%v: row %d: simulated %.12g, the explicit ODE's %.12g", m, i, a.Sim[i], b.Sim[i])
			}
		}
		if math.Abs(a.LLH-b.LLH) > 1e-8*(1+math.Abs(b.LLH)) {
			t.Errorf("%v: llh %.12g, the explicit ODE's %.12g", m, a.LLH, b.LLH)
		}
		for k := range a.Grad {
			if math.Abs(a.Grad[k]-b.Grad[k]) > 1e-6*(1+math.Abs(b.Grad[k])) {
				t.Errorf("%v: gradient %s: %.10g, the explicit ODE's %.10g", m, p.EstimatedIDs()[k], a.Grad[k], b.Grad[k])
			}
		}
	}
	checkGradients(t, "fast periods", p)
}

// The experiments of a DAE problem solved on two workers share the
// reduced model (its scratch is pooled; go test -race checks the
// sharing). The result is one worker's to the Newton tolerance, not bit
// for bit: each solve of z starts from the z of the pooled scratch's last
// one, which depends on which experiments a worker solved before (and on
// the garbage collector emptying the pool), and converges to a relative
// step of 1e-13 (on this problem the llh moved by 1.2e-12 relative).
func TestAlgebraicWorkers(t *testing.T) {
	p, err := Load("testdata/fast/problem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var r [2]objective.Result
	for k, w := range []int{1, 2} {
		o, err := objective.New(p.Model, p.Objective, &objective.Options{Method: sens.FS, Grad: true, FIM: true, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Eval(o.Nominal(), &r[k]); err != nil {
			t.Fatal(err)
		}
		o.Close()
	}
	close := func(a, b []float64) bool {
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-9*(1+math.Abs(b[i])) {
				return false
			}
		}
		return len(a) == len(b)
	}
	if !close([]float64{r[0].LLH}, []float64{r[1].LLH}) || !close(r[0].Grad, r[1].Grad) || !close(r[0].FIM, r[1].FIM) {
		t.Errorf("one worker: llh %v grad %v; two: llh %v grad %v", r[0].LLH, r[0].Grad, r[1].LLH, r[1].Grad)
	}
}

// loadTwin writes files (MODEL replaced by model) and the SBML file model
// from src into a temporary folder and loads its problem.yaml: one of
// the twins (a DAE and its explicit ODE) of the tests above.
func loadTwin(t *testing.T, files map[string]string, src, model string) *Problem {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		text = strings.ReplaceAll(text, "MODEL", model)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sb, err := os.ReadFile(filepath.Join(src, model))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, model), sb, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(filepath.Join(dir, "problem.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFastHeldRefused: a fast reaction that events can switch off (here
// "bind", its rate times a parameter "on" an event sets) holds an amount
// that only the model's events take anew, so a condition that sets a
// fast species, pre-equilibration and later periods are refused by the
// reaction's name; the problem without them loads and evaluates.
func TestFastHeldRefused(t *testing.T) {
	load := func(cond, meas string) (*Problem, error) {
		dir := t.TempDir()
		copyDir(t, "testdata/fast", dir)
		sb, err := os.ReadFile(filepath.Join(dir, "model.xml"))
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Replace(string(sb), `<kineticLaw><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><times/><ci>cell</ci><apply><minus/>`,
			`<kineticLaw><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><times/><ci>on</ci><ci>cell</ci><apply><minus/>`, 1)
		s = strings.Replace(s, `<listOfParameters>`, `<listOfParameters><parameter id="on" value="1" constant="false"/>`, 1)
		s = strings.Replace(s, "</listOfReactions>", `</listOfReactions><listOfEvents><event id="off" useValuesFromTriggerTime="true"><trigger initialValue="false" persistent="true"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><gt/><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol><cn>5</cn></apply></math></trigger><listOfEventAssignments><eventAssignment variable="on"><math xmlns="http://www.w3.org/1998/Math/MathML"><cn>0</cn></math></eventAssignment></listOfEventAssignments></event></listOfEvents>`, 1)
		if s == string(sb) || !strings.Contains(s, "<ci>on</ci><ci>cell</ci>") {
			t.Fatal("the model edit did not apply")
		}
		files := map[string]string{"model.xml": s, "conditions.tsv": cond, "measurements.tsv": meas}
		for name, text := range files {
			if text == "" {
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return Load(filepath.Join(dir, "problem.yaml"))
	}
	noPreeq := "observableId\tpreequilibrationConditionId\tsimulationConditionId\ttime\tmeasurement\nobs_B\t\tc0\t1\t1.1\nobs_B\t\tc1\t6\t0.9\n"
	p, err := load("", noPreeq)
	if err != nil {
		t.Fatalf("without conditions on fast species or periods: %v", err)
	}
	th, err := p.Theta(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Evaluate(th, &EvalOptions{Method: sens.FS, RTol: 1e-8, ATol: 1e-10}); err != nil {
		t.Fatalf("evaluate: %v", err)
	}
	_, err = load("conditionId\tu\tC\tA\nc0\t1\t0\t2\nc1\t2\t0.5\tNaN\n", noPreeq)
	if want := `condition sets fast species "A" of a model with fast reaction "bind", which events can switch off`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("condition on a fast species: error %v, want one containing %q", err, want)
	}
	_, err = load("", "observableId\tpreequilibrationConditionId\tsimulationConditionId\ttime\tmeasurement\nobs_B\tc0\tc1\t1\t1.1\n")
	if want := `has pre-equilibration or conditions applied after its start, in a model with fast reaction "bind"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("pre-equilibration: error %v, want one containing %q", err, want)
	}
}

// TestFastEventStoichiometryCondition: with a stoichiometry of the fast
// reaction that an event sets, the conserved amounts' coefficients are
// states (parser/fast.go), so a condition's initial value of a fast
// species cannot move them at t0, and a condition that sets the
// stoichiometry would leave them formed with the old one: both refused
// by name; the model itself loads.
func TestFastEventStoichiometryCondition(t *testing.T) {
	load := func(cond string) error {
		dir := t.TempDir()
		copyDir(t, "testdata/fast", dir)
		sb, err := os.ReadFile(filepath.Join(dir, "model.xml"))
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Replace(string(sb), `<reaction id="bind" reversible="true" fast="true">
        <listOfReactants><speciesReference species="A" stoichiometry="1" constant="true"/>`, `<reaction id="bind" reversible="true" fast="true">
        <listOfReactants><speciesReference id="sA" species="A" stoichiometry="1" constant="false"/>`, 1)
		s = strings.Replace(s, "</listOfReactions>", `</listOfReactions><listOfEvents><event id="twice" useValuesFromTriggerTime="true"><trigger initialValue="false" persistent="true"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><gt/><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol><cn>5</cn></apply></math></trigger><listOfEventAssignments><eventAssignment variable="sA"><math xmlns="http://www.w3.org/1998/Math/MathML"><cn>2</cn></math></eventAssignment></listOfEventAssignments></event></listOfEvents>`, 1)
		if !strings.Contains(s, `id="sA"`) || !strings.Contains(s, "listOfEvents") {
			t.Fatal("the model edit did not apply")
		}
		if err := os.WriteFile(filepath.Join(dir, "model.xml"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if cond != "" {
			if err := os.WriteFile(filepath.Join(dir, "conditions.tsv"), []byte(cond), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, err = Load(filepath.Join(dir, "problem.yaml"))
		return err
	}
	if err := load(""); err != nil {
		t.Fatalf("without a condition on a fast species: %v", err)
	}
	err := load("conditionId\tu\tC\tA\nc0\t1\t0\t2\nc1\t2\t0.5\tNaN\n")
	if want := `condition sets fast species "A", whose conserved amounts depend on "sA", a stoichiometry that events set: not supported`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
	err = load("conditionId\tu\tC\tsA\nc0\t1\t0\t2\nc1\t2\t0.5\t1\n")
	if want := `condition sets "sA", a stoichiometry of the fast reactions that events set: not supported`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
}
