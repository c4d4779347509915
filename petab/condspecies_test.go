package petab

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/sens"
)

// csVals are the values testdata/condspecies' experiments see: the
// condition targets M, B, C, D, cell, the rate constants, and the changes
// of B at later times (v2 periods).
type csVals struct {
	M, B, C, D, cell, k, kb float64
	a0                      float64   // [A](t0); 0 means the declared 1/cell
	noEvent                 bool      // the model without its event
	bAt                     []float64 // times at which B becomes bTo
	bTo                     []float64
}

// a is testdata/condspecies' closed form of [A](t) (see model.xml): on
// each piece between the event at 3M and the changes of B,
// [A] = beta/lambda + ([A](t0) - beta/lambda) exp(-lambda (t - t0)).
func (v csVals) a(t float64) float64 {
	type brk struct {
		at    float64
		event bool
		b     float64
	}
	var brks []brk
	if !v.noEvent {
		brks = append(brks, brk{at: 3 * v.M, event: true})
	}
	for i, at := range v.bAt {
		brks = append(brks, brk{at: at, b: v.bTo[i]})
	}
	sort.SliceStable(brks, func(i, j int) bool { return brks[i].at < brks[j].at })
	x, t0, b := v.a0, 0.0, v.B
	if x == 0 {
		x = 1 / v.cell
	}
	lam := v.k * v.M * v.C
	step := func(t1 float64) {
		eq := v.kb * b * v.D / lam
		x = eq + (x-eq)*math.Exp(-lam*(t1-t0))
		t0 = t1
	}
	for _, k := range brks {
		if k.at > t {
			break
		}
		step(k.at)
		if k.event {
			x += b
		} else {
			b = k.b
		}
	}
	step(t)
	return x
}

// obs is observable id of testdata/condspecies at time t.
func (v csVals) obs(id string, t float64) float64 {
	switch id {
	case "obsA":
		return v.a(t)
	case "obsAmt":
		return v.a(t) * v.cell
	case "obsMD":
		return v.M*v.D + v.C
	}
	panic(id)
}

// csCondition gives the values of testdata/condspecies' condition c at
// the estimated parameters th (by id, linear scale); bAmount is the
// variant where B is declared by amount 1 instead of concentration 0.5.
func csCondition(c string, th map[string]float64, bAmount bool) csVals {
	v := csVals{M: 1, B: 0.5, C: 2, D: 2 * th["kd"], cell: 2, k: th["k"], kb: 0.4}
	switch c {
	case "c1":
		v.M, v.B, v.C, v.cell = th["M_ext"], 0.8, 3, 4
	case "c2":
		v.M, v.B, v.D, v.cell = 1.5, th["B_ext"], 1.2, th["cell_ext"]
	case "c3":
		v.cell = 2.5
		if bAmount {
			v.B = 1 / v.cell // declared by amount: the concentration follows the size
		}
	}
	return v
}

// csLLH is the normal log-likelihood (sigma 0.1) of p's measurements
// under the closed form, with vals giving each measurement's values.
func csLLH(p *Problem, vals func(m *Measurement) csVals) (llh float64, sim []float64) {
	const sigma = 0.1
	for i := range p.Measurements {
		m := &p.Measurements[i]
		h := vals(m).obs(m.ObservableID, m.Time)
		sim = append(sim, h)
		r := (m.Value - h) / sigma
		llh -= 0.5*math.Log(2*math.Pi*sigma*sigma) + 0.5*r*r
	}
	return llh, sim
}

// csVariant copies testdata/condspecies into a temporary folder with the
// replacements (old, new pairs) made in model.xml, and loads it.
func csVariant(t *testing.T, repl ...string) *Problem {
	return csVariantFiles(t, nil, repl...)
}

// csVariantFiles is csVariant with some of the problem's files replaced
// (by name, their contents).
func csVariantFiles(t *testing.T, files map[string]string, repl ...string) *Problem {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, "testdata/condspecies", dir)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "model.xml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for i := 0; i < len(repl); i += 2 {
		if !strings.Contains(s, repl[i]) {
			t.Fatalf("model.xml has no %q", repl[i])
		}
		s = strings.Replace(s, repl[i], repl[i+1], 1)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(filepath.Join(dir, "problem.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFoldedConditionTargets: conditions that set a species only a
// reaction's modifier (M), a boundary species (B), a constant species
// (C), a species with an initial assignment (D: the condition wins), and
// a compartment declared constant="false" that nothing changes (cell:
// [A] starts at 1/cell, and a species declared by amount follows it),
// values that reach a rate through an assignment rule (y = M C), an
// event's trigger (time >= 3 M), observables (M D + C) and the amount
// A*cell. The simulated values and the llh agree with the closed form
// (rtol 1e-10 FS), and the gradient, whose components M_ext, B_ext and
// cell_ext enter only as condition values (M_ext also through the event
// time), agrees with central differences of the closed-form llh, for FS
// at tight and default tolerances, PBSR and Exp. The variants, cell
// declared constant (the compartment becomes a plain model parameter), B
// declared by amount (its concentration follows cell in c3) and B
// amount-based (hasOnlySubstanceUnits: the values are amounts), give the
// same closed form.
func TestFoldedConditionTargets(t *testing.T) {
	base, err := Load("testdata/condspecies/problem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	variants := []struct {
		name    string
		p       *Problem
		bAmount bool
	}{
		{"base", base, false},
		{"constant cell", csVariant(t, `size="2" spatialDimensions="3" constant="false"`, `size="2" spatialDimensions="3" constant="true"`), false},
		{"B by amount", csVariant(t, `id="B" compartment="cell" initialConcentration="0.5"`, `id="B" compartment="cell" initialAmount="1"`), true},
		// B amount-based: its value in math, and the conditions', is the
		// amount 0.5, whatever the size (c3).
		{"B amount-based", csVariant(t, `initialConcentration="0.5" hasOnlySubstanceUnits="false"`, `initialAmount="0.5" hasOnlySubstanceUnits="true"`), false},
	}
	for _, vr := range variants {
		t.Run(vr.name, func(t *testing.T) {
			set := map[string]float64{"k": 0.35, "kd": 0.3, "M_ext": 1.1, "B_ext": 0.7, "cell_ext": 1.6}
			csGradCheck(t, vr.p, set, func(m *Measurement, th map[string]float64) csVals {
				return csCondition(m.Sim, th, vr.bAmount)
			})
		})
	}
}

// csGradCheck compares p's llh, simulated values and gradient (FS at
// rtol 1e-10; FS, PBSR and Exp at their defaults) with the closed form
// at the estimated values set (the others at their nominal values).
func csGradCheck(t *testing.T, p *Problem, set map[string]float64, vals func(m *Measurement, th map[string]float64) csVals) {
	t.Helper()
	ids := p.EstimatedIDs()
	th, err := p.Theta(set)
	if err != nil {
		t.Fatal(err)
	}
	closed := func(th []float64) (float64, []float64) {
		byID := make(map[string]float64)
		for a, id := range ids {
			byID[id] = th[a]
		}
		return csLLH(p, func(m *Measurement) csVals { return vals(m, byID) })
	}
	want, wantSim := closed(th)
	r, err := p.Evaluate(th, &EvalOptions{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, Grad: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range p.Measurements {
		if d := math.Abs(r.Sim[i] - wantSim[i]); d > 1e-7*math.Max(1, math.Abs(wantSim[i])) {
			t.Errorf("%s:%d: simulated %.10g, closed form %.10g", m.File, m.Line, r.Sim[i], wantSim[i])
		}
	}
	if math.Abs(r.LLH-want) > 1e-7*math.Abs(want) {
		t.Errorf("llh %.12g, closed form %.12g", r.LLH, want)
	}
	fd := make([]float64, len(th))
	for a := range th {
		h := 1e-6 * math.Max(1, math.Abs(th[a]))
		up := append([]float64(nil), th...)
		dn := append([]float64(nil), th...)
		up[a] += h
		dn[a] -= h
		lu, _ := closed(up)
		ld, _ := closed(dn)
		fd[a] = (lu - ld) / (2 * h)
	}
	check := func(what string, g []float64, rtol float64) {
		for a := range fd {
			if math.Abs(g[a]-fd[a]) > rtol*(1+math.Abs(fd[a])) {
				t.Errorf("%s: dllh/d%s = %.8g, closed-form differences %.8g", what, ids[a], g[a], fd[a])
			}
		}
	}
	check("FS rtol 1e-10", r.Grad, 1e-5)
	for _, m := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
		r, err := p.Evaluate(th, &EvalOptions{Method: m, Grad: true})
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		check(m.String(), r.Grad, gradRTol)
	}
}

// TestFoldedTargetAfterPreeq: v1 pre-equilibration. The simulation
// condition s leaves M alone (NaN), so it keeps the value the
// pre-equilibration condition pre gave it ("the result of the
// pre-equilibration"): 2, not the model's 1, in the rate and in an
// observable; the same condition s without pre-equilibration has the
// model's M. The compartment cell, 3 in pre and NaN in s, is the model's 2
// in s, as a v1 parameter left at NaN is (A*cell observed). [A] starts
// at pre's steady state. The model is testdata/condspecies without its
// event.
func TestFoldedTargetAfterPreeq(t *testing.T) {
	cond := "conditionId\tM\tB\tcell\nsim\tNaN\t1.5\tNaN\npre\t2\tB_ext\t3\n"
	meas := "observableId\tpreequilibrationConditionId\tsimulationConditionId\ttime\tmeasurement\n"
	for _, tm := range []string{"0", "0.5", "1", "3"} {
		meas += "obsA\tpre\tsim\t" + tm + "\t0.3\n"
	}
	meas += "obsMD\tpre\tsim\t1\t2.5\nobsAmt\tpre\tsim\t2\t0.5\nobsA\t\tsim\t1\t0.4\nobsA\t\tsim\t2\t0.3\nobsMD\t\tsim\t1\t2.5\n"
	params := "parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\nk\tlin\t0.01\t10\t0.3\t1\nkb\tlin\t0.01\t10\t0.4\t0\nkd\tlin\t0.01\t10\t0.25\t1\nB_ext\tlin\t0.01\t10\t0.9\t1\n"
	s := string(must(os.ReadFile("testdata/condspecies/model.xml")))
	ev := s[strings.Index(s, "<listOfEvents>") : strings.Index(s, "</listOfEvents>")+len("</listOfEvents>")]
	p := csVariantFiles(t, map[string]string{"conditions.tsv": cond, "measurements.tsv": meas, "parameters.tsv": params}, ev, "")
	csGradCheck(t, p, map[string]float64{"k": 0.35, "kd": 0.3, "B_ext": 0.7}, func(m *Measurement, th map[string]float64) csVals {
		v := csVals{M: 1, B: 1.5, C: 2, D: 2 * th["kd"], cell: 2, k: th["k"], kb: 0.4, noEvent: true}
		if m.Preeq == "pre" {
			v.M = 2
			v.a0 = v.kb * th["B_ext"] * v.D / (v.k * v.M * v.C) // pre's steady state
		}
		return v
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestFoldedTargetsV2: the same targets in PEtab v2: a condition value
// that is an expression of an estimated parameter (M = 2 M_ext, which
// also moves the event), a boundary species changed at a later period
// (B from 0.8 to 1.2 at t = 2.5: a parameter of the model, so from then
// on), a compartment, and an experiment that sets nothing.
func TestFoldedTargetsV2(t *testing.T) {
	files := map[string]string{
		"problem.yaml":    "format_version: 2.0.0\nmodel_files:\n  model_0:\n    language: sbml\n    location: model.xml\nparameter_files:\n- parameters.tsv\ncondition_files:\n- conditions.tsv\nexperiment_files:\n- experiments.tsv\nmeasurement_files:\n- measurements.tsv\nobservable_files:\n- observables.tsv\n",
		"conditions.tsv":  "conditionId\ttargetId\ttargetValue\nc1\tM\t2 * M_ext\nc1\tB\t0.8\nc1\tcell\t4\nlate\tB\t1.2\n",
		"experiments.tsv": "experimentId\ttime\tconditionId\ne1\t0\tc1\ne1\t2.5\tlate\ne2\t0\t\n",
		"parameters.tsv":  "parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\nk\tlin\t0.01\t10\t0.3\ttrue\nkb\tlin\t0.01\t10\t0.4\tfalse\nkd\tlin\t0.01\t10\t0.25\ttrue\nM_ext\tlin\t0.1\t10\t0.6\ttrue\n",
	}
	meas := "observableId\texperimentId\ttime\tmeasurement\n"
	for _, e := range []string{"e1", "e2"} {
		for _, tm := range []string{"1", "2", "3", "4", "6"} {
			meas += "obsA\t" + e + "\t" + tm + "\t0.3\n"
		}
		meas += "obsAmt\t" + e + "\t2\t1.1\nobsMD\t" + e + "\t1\t2.5\n"
	}
	files["measurements.tsv"] = meas
	p := csVariantFiles(t, files)
	t.Run("resize refused", func(t *testing.T) {
		// A later period that resizes cell while B, declared by amount,
		// would have its concentration follow the size.
		dir := t.TempDir()
		copyDir(t, "testdata/condspecies", dir)
		for name, text := range files {
			if name == "conditions.tsv" {
				text += "late\tcell\t3\n"
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(dir, "model.xml")
		s := strings.Replace(string(must(os.ReadFile(path))), `id="B" compartment="cell" initialConcentration="0.5"`, `id="B" compartment="cell" initialAmount="1"`, 1)
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(filepath.Join(dir, "problem.yaml"))
		for _, w := range []string{"conditions.tsv:6: column cell:", `resizes compartment "cell" at a later period, and species "B"`, "not supported"} {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("error %v, want %q", err, w)
			}
		}
	})
	csGradCheck(t, p, map[string]float64{"k": 0.35, "kd": 0.3, "M_ext": 0.55}, func(m *Measurement, th map[string]float64) csVals {
		v := csVals{M: 1, B: 0.5, C: 2, D: 2 * th["kd"], cell: 2, k: th["k"], kb: 0.4}
		if m.Experiment == "e1" {
			v.M, v.B, v.cell = 2*th["M_ext"], 0.8, 4
			v.bAt, v.bTo = []float64{2.5}, []float64{1.2}
		}
		return v
	})
}

// TestFoldedTargetsRefused: what a condition still cannot set, by file,
// row, column and why: an assignment-rule target (PEtab allows constant
// and differential entities only) and a reaction.
func TestFoldedTargetsRefused(t *testing.T) {
	for _, c := range []struct {
		cond string
		want []string
	}{
		{"conditionId\tM\ty\nc0\t1\tNaN\nc1\t2\t3\nc2\t1\t1\nc3\t1\t1\n", []string{"conditions.tsv:2", "column y", `condition target "y" is set by an assignment rule of the model`, "model.xml:"}},
		{"conditionId\tR1\nc0\t1\nc1\t2\nc2\t1\nc3\t1\n", []string{"conditions.tsv:2", "column R1", "not a species, compartment or parameter"}},
	} {
		dir := t.TempDir()
		copyDir(t, "testdata/condspecies", dir)
		if err := os.WriteFile(filepath.Join(dir, "conditions.tsv"), []byte(c.cond), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(filepath.Join(dir, "problem.yaml"))
		if err == nil {
			t.Fatalf("%q: no error", c.cond)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q lacks %q", err, w)
			}
		}
	}
}

// TestFoldedTargetNoValue: a species the model gives no value (M without
// initialConcentration) is fine when every condition in use sets it (no
// switch to the model's value then, and the closed form with M = 1 where
// the conditions say 1); a condition that leaves it to the model is
// refused at its row and column.
func TestFoldedTargetNoValue(t *testing.T) {
	noValue := []string{`id="M" compartment="cell" initialConcentration="1"`, `id="M" compartment="cell"`}
	cond := "conditionId\tM\tB\tC\tD\tcell\nc0\t1\tNaN\tNaN\tNaN\tNaN\nc1\tM_ext\t0.8\t3\t\t4\nc2\t1.5\tB_ext\tNaN\t1.2\tcell_ext\nc3\t1\tNaN\tNaN\tNaN\t2.5\n"
	p := csVariantFiles(t, map[string]string{"conditions.tsv": cond}, noValue...)
	var names []string
	for _, q := range p.System.ODE.Params {
		if strings.HasSuffix(q.Name, "_M") {
			names = append(names, q.Name)
		}
	}
	if got := strings.Join(names, ","); got != "petab_init_M" {
		t.Errorf("parameters for M: %s, want petab_init_M alone", got)
	}
	set := map[string]float64{"k": 0.35, "kd": 0.3, "M_ext": 1.1, "B_ext": 0.7, "cell_ext": 1.6}
	csGradCheck(t, p, set, func(m *Measurement, th map[string]float64) csVals { return csCondition(m.Sim, th, false) })

	dir := t.TempDir()
	copyDir(t, "testdata/condspecies", dir)
	path := filepath.Join(dir, "model.xml")
	s := strings.Replace(string(must(os.ReadFile(path))), noValue[0], noValue[1], 1)
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(filepath.Join(dir, "problem.yaml"))
	for _, w := range []string{"conditions.tsv:2: column M:", `condition "c0" leaves species "M" to the model`, "gives it no value"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v, want %q", err, w)
		}
	}
}
