package petab

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
)

const conv = "testdata/conv/problem.yaml"

// TestLoadConv checks the lowering of a small problem with every kind of
// value: an estimated log10 parameter, a parameter the model lacks (scale),
// a condition-set parameter and species (NaN in one condition), numeric
// and parameter placeholders, pre-equilibration and a steady-state datum.
func TestLoadConv(t *testing.T) {
	p, err := Load(conv)
	if err != nil {
		t.Fatal(err)
	}
	ob := p.Objective
	if got := strings.Join(p.EstimatedIDs(), ","); got != "k1,scale,sd" {
		t.Fatalf("estimated %s, want k1,scale,sd", got)
	}
	if ob.Params[0].Scale != objective.Log10 || ob.Params[1].Scale != objective.Log {
		t.Errorf("scales %v %v", ob.Params[0].Scale, ob.Params[1].Scale)
	}
	names := p.Model.ParamNames()
	idx := make(map[string]int)
	for j, n := range names {
		idx[n] = j
	}
	for _, n := range []string{"k1", "k2", "scale", "petab_init_A", "petab_set_A"} {
		if _, ok := idx[n]; !ok {
			t.Fatalf("model parameters %v lack %s", names, n)
		}
	}
	if len(ob.Experiments) != 2 || len(ob.Conditions) != 2 {
		t.Fatalf("%d experiments, %d conditions, want 2, 2", len(ob.Experiments), len(ob.Conditions))
	}
	c0, c1 := ob.Conditions[ob.Experiments[0].Sim], ob.Conditions[ob.Experiments[1].Sim]
	check := func(c objective.Condition, name string, want objective.Value) {
		t.Helper()
		if got := c.P[idx[name]]; got != want {
			t.Errorf("condition %s: %s = %+v, want %+v", c.ID, name, got, want)
		}
	}
	check(c0, "k1", objective.Value{Theta: 0})
	check(c0, "scale", objective.Value{Theta: 1})
	check(c0, "k2", objective.Value{Theta: -1, Const: 0.6})
	check(c1, "k2", objective.Value{Theta: -1, Const: 0.3})
	check(c0, "petab_init_A", objective.Value{Theta: -1, Const: 1})
	check(c0, "petab_set_A", objective.Value{Theta: -1, Const: 1})
	check(c1, "petab_set_A", objective.Value{Theta: -1, Const: 0})
	x1 := ob.Experiments[1]
	if x1.Preeq != ob.Experiments[0].Sim || len(x1.Reinit) != 0 {
		t.Errorf("experiment 1: preeq %d, reinit %v; want condition c0 and no re-initialisation (A is NaN in c1)", x1.Preeq, x1.Reinit)
	}
	d := x1.Data[0]
	if d.T != 2 || len(d.U) != 2 || d.U[0] != (objective.Value{Theta: -1, Const: 0.2}) || d.U[1] != (objective.Value{Theta: -1, Const: 0.3}) {
		t.Errorf("first datum of experiment 1: %+v", d)
	}
	if d := ob.Experiments[0].Data[0]; d.U[1] != (objective.Value{Theta: 2}) {
		t.Errorf("noise placeholder sd: %+v, want theta 2", d.U[1])
	}
	if last := x1.Data[len(x1.Data)-1]; !math.IsInf(last.T, 1) {
		t.Errorf("steady-state datum at %g", last.T)
	}
	if ob.Observables[1].Transform != objective.TransformLog || ob.Observables[1].Noise != objective.Laplace {
		t.Errorf("obs_b: %+v", ob.Observables[1])
	}
	if len(p.Warnings) != 0 {
		t.Errorf("warnings on a clean problem: %v", p.Warnings)
	}
	// Rows map data back to measurement rows: every row exactly once.
	seen := make(map[int]bool)
	for _, rs := range p.Rows {
		for _, r := range rs {
			if seen[r] {
				t.Fatalf("row %d twice", r)
			}
			seen[r] = true
		}
	}
	if len(seen) != len(p.Measurements) {
		t.Errorf("%d rows mapped of %d", len(seen), len(p.Measurements))
	}
	// The initial state honours the flag: set -> init parameter, unset ->
	// the model's own initial value (1 for A).
	pv := make([]float64, len(names))
	p.Model.DefaultParams(pv)
	pv[idx["petab_init_A"]], pv[idx["petab_set_A"]] = 7, 1
	x0 := make([]float64, model.NumStates(p.Model))
	p.Model.InitialState(x0, pv)
	if x0[0] != 7 {
		t.Errorf("A0 with the flag set = %g, want 7", x0[0])
	}
	pv[idx["petab_set_A"]] = 0
	p.Model.InitialState(x0, pv)
	if x0[0] != 1 {
		t.Errorf("A0 with the flag clear = %g, want the model's 1", x0[0])
	}
}

// TestObservedDerivatives compares Observe's dh/dx, dh/dp, dh/du and the
// sigma derivatives with central differences.
func TestObservedDerivatives(t *testing.T) {
	p, err := Load(conv)
	if err != nil {
		t.Fatal(err)
	}
	m := p.Model
	nx, np := model.NumStates(m), model.NumParams(m)
	x := []float64{0.7, 0.4}
	pv := make([]float64, np)
	m.DefaultParams(pv)
	for j := range pv {
		pv[j] += 0.1 * float64(j+1)
	}
	for k := range m.ObservableIDs() {
		no, nn := m.Placeholders(k)
		u := make([]float64, no+nn)
		for i := range u {
			u[i] = 0.3 + 0.2*float64(i)
		}
		d := &model.ObsDeriv{HX: nan(nx), HP: nan(np), HU: nan(no + nn), SX: nan(nx), SP: nan(np), SU: nan(no + nn)}
		m.Observe(k, 1.5, x, pv, u, d)
		fd := func(v []float64, i int, got []float64, gotS []float64, what string) {
			const h = 1e-6
			old := v[i]
			v[i] = old + h
			yp, sp := m.Observe(k, 1.5, x, pv, u, nil)
			v[i] = old - h
			ym, sm := m.Observe(k, 1.5, x, pv, u, nil)
			v[i] = old
			if wy, ws := (yp-ym)/(2*h), (sp-sm)/(2*h); math.Abs(wy-got[i]) > 1e-6 || math.Abs(ws-gotS[i]) > 1e-6 {
				t.Errorf("observable %d d/d%s[%d]: h' %g (fd %g), sigma' %g (fd %g)", k, what, i, got[i], wy, gotS[i], ws)
			}
		}
		for i := range x {
			fd(x, i, d.HX, d.SX, "x")
		}
		for j := range pv {
			fd(pv, j, d.HP, d.SP, "p")
		}
		for i := range u {
			fd(u, i, d.HU, d.SU, "u")
		}
	}
}

func nan(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

// TestBadInput breaks one file of the good fixture at a time and checks
// that Load fails with a message naming the file, the line and the
// column.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name, file, content string
		want                []string
	}{
		{"missing file", "observables.tsv", "", []string{"observables.tsv", "cannot read"}},
		{"unknown observable", "measurements.tsv",
			"observableId\tsimulationConditionId\ttime\tmeasurement\nobs_x\tc0\t1\t2\n", []string{"measurements.tsv:2", "column observableId", `unknown observable "obs_x"`}},
		{"unknown condition", "measurements.tsv",
			"observableId\tsimulationConditionId\ttime\tmeasurement\nobs_b\tc9\t1\t2\n", []string{"measurements.tsv:2", "column simulationConditionId", `unknown condition "c9"`}},
		{"bad measurement", "measurements.tsv",
			"observableId\tsimulationConditionId\ttime\tmeasurement\nobs_b\tc0\t1\tNaN\nobs_b\tc0\tsoon\t1\n", []string{"measurements.tsv:2", "column measurement", "not a finite number"}},
		{"bad time", "measurements.tsv",
			"observableId\tsimulationConditionId\ttime\tmeasurement\nobs_b\tc0\tsoon\t1\n", []string{"measurements.tsv:2", "column time"}},
		{"placeholder count", "measurements.tsv",
			"observableId\tsimulationConditionId\ttime\tmeasurement\tobservableParameters\tnoiseParameters\nobs_a\tc0\t1\t2\t1;2\tsd\n", []string{"measurements.tsv:2", "column observableParameters", "1 placeholder(s), found 2"}},
		{"zero noise override", "measurements.tsv",
			"observableId\tsimulationConditionId\ttime\tmeasurement\tobservableParameters\tnoiseParameters\nobs_a\tc0\t1\t2\t1\t0\n", []string{"measurements.tsv:2", "column noiseParameters", "positive"}},
		{"NaN placeholder", "measurements.tsv",
			"observableId\tsimulationConditionId\ttime\tmeasurement\tobservableParameters\tnoiseParameters\nobs_a\tc0\t1\t2\tNaN\tsd\n", []string{"measurements.tsv:2", "column observableParameters", "NaN"}},
		{"no measurements", "measurements.tsv",
			"observableId\tsimulationConditionId\ttime\tmeasurement\n", []string{"problem.yaml", "no rows"}},
		{"negative noise", "observables.tsv",
			"observableId\tobservableFormula\tnoiseFormula\nobs_a\tA\t-1\nobs_b\tB\t1\n", []string{"observables.tsv:2", "column noiseFormula", "positive"}},
		{"formula syntax", "observables.tsv",
			"observableId\tobservableFormula\tnoiseFormula\nobs_a\tA +* 2\t1\nobs_b\tB\t1\n", []string{"observables.tsv:2", "column observableFormula", "parse"}},
		{"unknown id in formula", "observables.tsv",
			"observableId\tobservableFormula\tnoiseFormula\nobs_a\tA*zz\t1\nobs_b\tB\t1\n", []string{"observables.tsv:2", "column observableFormula", `unknown id "zz"`}},
		{"unknown transformation", "observables.tsv",
			"observableId\tobservableFormula\tnoiseFormula\tobservableTransformation\nobs_a\tA\t1\tsqrt\nobs_b\tB\t1\tlin\n", []string{"observables.tsv:2", "column observableTransformation", "unknown transformation"}},
		{"unknown distribution", "observables.tsv",
			"observableId\tobservableFormula\tnoiseFormula\tnoiseDistribution\nobs_a\tA\t1\tcauchy\nobs_b\tB\t1\tnormal\n", []string{"observables.tsv:2", "column noiseDistribution", "unknown distribution"}},
		{"placeholder gap", "observables.tsv",
			"observableId\tobservableFormula\tnoiseFormula\nobs_a\tA*observableParameter2_obs_a\t1\nobs_b\tB\t1\n", []string{"observables.tsv:2", "column observableFormula", "skip"}},
		{"duplicate observable", "observables.tsv",
			"observableId\tobservableFormula\tnoiseFormula\nobs_b\tA\t1\nobs_b\tB\t1\n", []string{"observables.tsv:3", "column observableId", "defined twice"}},
		{"duplicate parameter", "parameters.tsv",
			"parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\nk1\tlin\t0\t1\t0.5\t1\nk1\tlin\t0\t1\t0.5\t1\n", []string{"parameters.tsv:3", "column parameterId", "defined twice"}},
		{"unknown scale", "parameters.tsv",
			"parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\nk1\tln\t0\t1\t0.5\t1\n", []string{"parameters.tsv:2", "column parameterScale", "unknown scale"}},
		{"bounds reversed", "parameters.tsv",
			"parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\nk1\tlin\t2\t1\t0.5\t1\n", []string{"parameters.tsv:2", "column lowerBound", "above the upper bound"}},
		{"estimate flag", "parameters.tsv",
			"parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\nk1\tlin\t0\t1\t0.5\tyes\n", []string{"parameters.tsv:2", "column estimate"}},
		{"missing column", "parameters.tsv",
			"parameterId\tlowerBound\tupperBound\tnominalValue\testimate\nk1\t0\t1\t0.5\t1\n", []string{"parameters.tsv:1", "column parameterScale", "required column is missing"}},
		// A short row is what pandas reads: the missing fields are empty.
		{"short row", "parameters.tsv",
			"parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\nk1\tlin\t0\t1\n", []string{"parameters.tsv:2", "column estimate", `want 0 or 1, found ""`}},
		{"long row", "parameters.tsv",
			"parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\nk1\tlog10\t0.01\t100\t0.8\t1\nscale\tlog\t0.1\t10\t2\t1\t\n", []string{"parameters.tsv:3", "row has 7 fields, the header has 6"}},
		{"first row longer", "parameters.tsv",
			"parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\nk1\tlog10\t0.01\t100\t0.8\t1\t\n", []string{"parameters.tsv:2", "row has 7 fields, the header 6", "row index"}},
		{"unknown prior", "parameters.tsv",
			"parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\tobjectivePriorType\tobjectivePriorParameters\nk1\tlin\t0\t1\t0.5\t1\tbeta\t1;2\n", []string{"parameters.tsv:2", "column objectivePriorType", "unknown prior"}},
		{"condition target", "conditions.tsv",
			"conditionId\tnothere\nc0\t1\nc1\t2\n", []string{"conditions.tsv:2", "column nothere", "not in the model"}},
		{"condition value", "conditions.tsv",
			"conditionId\tk2\nc0\tfoo\nc1\t2\n", []string{"conditions.tsv:2", "column k2", `"foo" is neither a number nor a parameter id`}},
		{"yaml shape", "problem.yaml", "format_version: 1\nparameter_file: parameters.tsv\nproblems: 5\n", []string{"problem.yaml", "not a PEtab v1 problem description"}},
		{"yaml unknown key", "problem.yaml", "format_version: 1\nparameter_file: parameters.tsv\nproblems:\n- sbml_files: [model.xml]\n  condition_file: [conditions.tsv]\n", []string{"problem.yaml", "condition_file"}},
		{"yaml version", "problem.yaml", "format_version: 3\n", []string{"problem.yaml", "format_version 3 is not supported"}},
		{"yaml garbage", "problem.yaml", "\t: [\n", []string{"problem.yaml", "not a PEtab problem description"}},
		{"sbml", "model.xml", "<sbml", []string{"model.xml", "SBML model"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, "testdata/conv", dir)
			path := filepath.Join(dir, c.file)
			if c.content == "" {
				os.Remove(path)
			} else if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(filepath.Join(dir, "problem.yaml"))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestErrorsCollected checks that Load reports every broken row, not only
// the first, and stops at MaxErrors.
func TestErrorsCollected(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "testdata/conv", dir)
	var b strings.Builder
	b.WriteString("observableId\tsimulationConditionId\ttime\tmeasurement\n")
	for i := 0; i < 3; i++ {
		b.WriteString("obs_b\tc0\t1\tx\n")
	}
	os.WriteFile(filepath.Join(dir, "measurements.tsv"), []byte(b.String()), 0o644)
	_, err := Load(filepath.Join(dir, "problem.yaml"))
	l, ok := err.(ErrorList)
	if !ok || len(l) != 3 || l[2].Line != 4 {
		t.Fatalf("got %v, want 3 errors, the last on line 4", err)
	}
	b.Reset()
	b.WriteString("observableId\tsimulationConditionId\ttime\tmeasurement\n")
	for i := 0; i < 2*MaxErrors; i++ {
		b.WriteString("obs_b\tc0\t1\tx\n")
	}
	os.WriteFile(filepath.Join(dir, "measurements.tsv"), []byte(b.String()), 0o644)
	_, err = Load(filepath.Join(dir, "problem.yaml"))
	if l, ok := err.(ErrorList); !ok || len(l) != MaxErrors {
		t.Fatalf("got %d errors, want MaxErrors = %d", len(l), MaxErrors)
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConcentrationInAmountState checks that a condition's species value
// (a concentration) becomes the amount when the state is an amount: here
// the compartment has a rate rule, so A's state is its amount.
func TestConcentrationInAmountState(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "testdata/conv", dir)
	data, _ := os.ReadFile(filepath.Join(dir, "model.xml"))
	s := strings.Replace(string(data), `size="1" constant="true"`, `size="2.5" constant="false"`, 1)
	s = strings.Replace(s, "<listOfReactions>", `<listOfRules><rateRule variable="cell"><math xmlns="http://www.w3.org/1998/Math/MathML"><cn>0</cn></math></rateRule></listOfRules><listOfReactions>`, 1)
	os.WriteFile(filepath.Join(dir, "model.xml"), []byte(s), 0o644)
	p, err := Load(filepath.Join(dir, "problem.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	names := p.Model.ParamNames()
	pv := make([]float64, len(names))
	for j, v := range p.Objective.Conditions[0].P { // c0 sets A = 1
		pv[j] = v.Const
		if v.Theta >= 0 {
			pv[j] = p.Objective.Params[p.Objective.Estimated[v.Theta]].Nominal
		}
	}
	x0 := make([]float64, model.NumStates(p.Model))
	p.Model.InitialState(x0, pv)
	if i := slicesIndex(p.Model.StateNames(), "A"); math.Abs(x0[i]-2.5) > 1e-12 {
		t.Errorf("amount of A = %g, want 1 (concentration) * 2.5 (size)", x0[i])
	}
}

func slicesIndex(l []string, s string) int {
	for i, x := range l {
		if x == s {
			return i
		}
	}
	return -1
}

// TestConvClosedForm compares the log-likelihood of the fixture with the
// closed form: A -> B at k1, B -> A at k2 is linear, so A(t) relaxes
// exponentially to k2/(k1+k2) (total 1); pre-equilibration is the steady
// state; the densities are PEtab's (normal on lin, Laplace on log).
func TestConvClosedForm(t *testing.T) {
	p, err := Load(conv)
	if err != nil {
		t.Fatal(err)
	}
	k1, scale, sd := 0.5, 2.0, 0.5
	r, err := p.Evaluate([]float64{k1, scale, sd}, &EvalOptions{RTol: 1e-10, ATol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	relax := func(a0, k2, tm float64) float64 {
		inf := k2 / (k1 + k2)
		return inf + (a0-inf)*math.Exp(-(k1+k2)*tm)
	}
	normal := func(m, y, s float64) float64 { return -0.5*math.Log(2*math.Pi*s*s) - 0.5*(m-y)*(m-y)/(s*s) }
	logLaplace := func(m, y, s float64) float64 { return -math.Log(2*s*m) - math.Abs(math.Log(m)-math.Log(y))/s }
	// Experiment c0 from A = 1 (k2 = 0.6); experiment c1 (k2 = 0.3) after
	// pre-equilibration in c0, A kept (NaN in c1).
	a5 := relax(1, 0.6, 5)
	aPre := 0.6 / (k1 + 0.6)
	a2 := relax(aPre, 0.3, 2)
	want := normal(2.1, scale*1+0.1, sd) +
		normal(1.2, scale*a5+0.1, sd) +
		logLaplace(0.5, 1-a5, 0.2) +
		normal(1.9, scale*a2+0.2, 0.3) +
		logLaplace(0.7, 1-0.3/(k1+0.3), 0.2)
	if math.Abs(r.LLH-want) > 1e-6 {
		t.Errorf("llh %.10g, closed form %.10g", r.LLH, want)
	}
	wantSim := []float64{2.1, scale*a5 + 0.1, 1 - a5, scale*a2 + 0.2, 1 - 0.3/(k1+0.3)}
	for i, w := range wantSim {
		if math.Abs(r.Sim[i]-w) > 1e-6 {
			t.Errorf("measurement %d: simulated %g, closed form %g", i, r.Sim[i], w)
		}
	}
}

// TestWarnings checks the accepted oddities: a nominal value outside the
// bounds and an estimated parameter nothing uses.
func TestWarnings(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "testdata/conv", dir)
	data, _ := os.ReadFile(filepath.Join(dir, "parameters.tsv"))
	data = append(data, "spare\tlin\t0\t1\t5\t1\n"...)
	os.WriteFile(filepath.Join(dir, "parameters.tsv"), data, 0o644)
	p, err := Load(filepath.Join(dir, "problem.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	msg := p.Warnings.Error()
	if len(p.Warnings) != 2 || !strings.Contains(msg, "parameters.tsv:5: column nominalValue: nominal value 5 is outside the bounds") || !strings.Contains(p.Warnings[1].Msg, `"spare" is used nowhere`) {
		t.Errorf("warnings: %v", p.Warnings)
	}
}
