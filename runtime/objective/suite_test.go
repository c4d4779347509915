package objective_test

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
)

// conversion is the PEtab test suite's model A <=> B (fwd k1 A, rev k2 B,
// compartment 1) with A(0) = a0, B(0) = b0; parameters a0, b0, k1, k2.
// Its observables are given per case (values only: the suite checks llh,
// chi2 and simulations, so no derivatives).
type conversion struct {
	jx, jp *model.Pattern
	obs    []suiteObs
}

type suiteObs struct {
	id           string
	nObs, nNoise int
	h, sigma     func(x, u []float64) float64
}

func newConversion(obs ...suiteObs) *conversion {
	return &conversion{
		jx:  pattern(2, 2, []int{1, 1}, []int{1, 1}),
		jp:  pattern(2, 4, []int{0, 0, 1, 1}, []int{0, 0, 1, 1}),
		obs: obs,
	}
}

func (*conversion) Name() string                  { return "conversion_reaction_0" }
func (*conversion) StateNames() []string          { return []string{"A", "B"} }
func (*conversion) ParamNames() []string          { return []string{"a0", "b0", "k1", "k2"} }
func (*conversion) DefaultParams(dst []float64)   { copy(dst, []float64{1, 1, 0, 0}) }
func (*conversion) InitialState(dst, p []float64) { dst[0], dst[1] = p[0], p[1] }
func (*conversion) InitialSens(dst, _ []float64) {
	clear(dst)
	dst[0*4+0], dst[1*4+1] = 1, 1
}
func (*conversion) F(dst []float64, _ float64, x, p []float64) {
	v := p[2]*x[0] - p[3]*x[1]
	dst[0], dst[1] = -v, v
}
func (m *conversion) JxPattern() *model.Pattern { return m.jx }
func (*conversion) Jx(dst []float64, _ float64, _, p []float64) {
	dst[0], dst[1], dst[2], dst[3] = -p[2], p[3], p[2], -p[3]
}
func (m *conversion) JpPattern() *model.Pattern { return m.jp }
func (*conversion) Jp(dst []float64, _ float64, x, _ []float64) {
	dst[0], dst[1], dst[2], dst[3] = -x[0], x[1], x[0], -x[1]
}
func (m *conversion) ObservableIDs() []string {
	ids := make([]string, len(m.obs))
	for k, o := range m.obs {
		ids[k] = o.id
	}
	return ids
}
func (m *conversion) Placeholders(k int) (int, int) { return m.obs[k].nObs, m.obs[k].nNoise }
func (m *conversion) Observe(k int, _ float64, x, _, u []float64, d *model.ObsDeriv) (float64, float64) {
	if d != nil {
		panic("conversion: observable derivatives not provided")
	}
	return m.obs[k].h(x, u), m.obs[k].sigma(x, u)
}

// suiteCase is a PEtab test-suite case lowered by hand to a Problem.
type suiteCase struct {
	ver  string // v1.0.0 or v2.0.0
	id   string
	obs  []suiteObs
	prob *objective.Problem
}

// The suite's cases on the conversion model that exercise what the
// objective does (noise, transformations, replicates, placeholders,
// pre-equilibration with and without re-initialisation), lowered by hand
// from their tables; the expected llh, chi2 and simulations are read from
// the suite.
func suiteCases() []suiteCase {
	k := func(v float64) objective.Value { return objective.Value{Theta: -1, Const: v} }
	th := func(a int) objective.Value { return objective.Value{Theta: a} }
	lin := func(id string, nominal float64) objective.Param {
		return objective.Param{ID: id, Scale: objective.Lin, Lower: 0, Upper: 10, Nominal: nominal, Estimate: true}
	}
	stdParams := []objective.Param{lin("a0", 1), lin("b0", 0), lin("k1", 0.8), lin("k2", 0.6)}
	stdCond := []objective.Condition{{ID: "c0", P: []objective.Value{th(0), th(1), th(2), th(3)}}}
	stateObs := func(id string, i int, sigma float64) suiteObs {
		return suiteObs{id: id, h: func(x, _ []float64) float64 { return x[i] }, sigma: func(_, _ []float64) float64 { return sigma }}
	}
	d := func(obs int, t, y float64, u ...objective.Value) objective.Datum {
		return objective.Datum{Obs: obs, T: t, Y: y, U: u}
	}
	one := func(data ...objective.Datum) []objective.Experiment {
		return []objective.Experiment{{Preeq: -1, Sim: 0, Data: data}}
	}
	noise2 := suiteObs{id: "obs_a", nNoise: 2,
		h: func(x, _ []float64) float64 { return x[0] }, sigma: func(_, u []float64) float64 { return u[0] + u[1] }}
	noise1 := suiteObs{id: "obs_a", nNoise: 1,
		h: func(x, _ []float64) float64 { return x[0] }, sigma: func(_, u []float64) float64 { return u[0] }}
	// 0009 and 0010: k1 from the conditions.
	preeqParams := []objective.Param{lin("a0", 1), lin("b0", 0), lin("k2", 0.6)}
	return []suiteCase{
		{"v1.0.0", "0001", []suiteObs{stateObs("obs_a", 0, 0.5)}, &objective.Problem{
			Params: stdParams, Estimated: []int{0, 1, 2, 3}, Conditions: stdCond,
			Observables: []objective.Observable{{ID: "obs_a"}},
			Experiments: one(d(0, 0, 0.7), d(0, 10, 0.1)),
		}},
		{"v1.0.0", "0007", []suiteObs{stateObs("obs_a", 0, 0.5), stateObs("obs_b", 1, 0.6)}, &objective.Problem{
			Params: stdParams, Estimated: []int{0, 1, 2, 3}, Conditions: stdCond,
			Observables: []objective.Observable{{ID: "obs_a"}, {ID: "obs_b", Transform: objective.TransformLog10}},
			Experiments: one(d(0, 10, 0.2), d(1, 10, 0.8)),
		}},
		{"v1.0.0", "0008", []suiteObs{stateObs("obs_a", 0, 0.5)}, &objective.Problem{
			Params: stdParams, Estimated: []int{0, 1, 2, 3}, Conditions: stdCond,
			Observables: []objective.Observable{{ID: "obs_a"}},
			Experiments: one(d(0, 0, 0.7), d(0, 10, 0.1), d(0, 10, 0.2)),
		}},
		{"v1.0.0", "0009", []suiteObs{stateObs("obs_a", 0, 0.5)}, &objective.Problem{
			Params: preeqParams, Estimated: []int{0, 1, 2},
			Conditions: []objective.Condition{
				{ID: "preeq_c0", P: []objective.Value{th(0), th(1), k(0.3), th(2)}},
				{ID: "c0", P: []objective.Value{th(0), th(1), k(0.8), th(2)}},
			},
			Observables: []objective.Observable{{ID: "obs_a"}},
			Experiments: []objective.Experiment{{Preeq: 0, Sim: 1, Data: []objective.Datum{d(0, 1, 0.7), d(0, 10, 0.1)}}},
		}},
		{"v1.0.0", "0010", []suiteObs{stateObs("obs_a", 0, 0.5)}, &objective.Problem{
			// Only k2 estimated; a0 = 1 from the model; the conditions set
			// B (its initial-value parameter b0): 0, then 1 re-initialised.
			Params: []objective.Param{lin("k2", 0.6)}, Estimated: []int{0},
			Conditions: []objective.Condition{
				{ID: "preeq_c0", P: []objective.Value{k(1), k(0), k(0.3), th(0)}},
				{ID: "c0", P: []objective.Value{k(1), k(1), k(0.8), th(0)}},
			},
			Observables: []objective.Observable{{ID: "obs_a"}},
			Experiments: []objective.Experiment{{Preeq: 0, Sim: 1, Reinit: []int{1}, Data: []objective.Datum{d(0, 1, 0.7), d(0, 10, 0.1)}}},
		}},
		{"v1.0.0", "0014", []suiteObs{noise2}, &objective.Problem{
			Params: stdParams, Estimated: []int{0, 1, 2, 3}, Conditions: stdCond,
			Observables: []objective.Observable{{ID: "obs_a"}},
			Experiments: one(d(0, 0, 0.7, k(0.5), k(2)), d(0, 10, 0.1, k(0.5), k(2))),
		}},
		{"v1.0.0", "0015", []suiteObs{noise1}, &objective.Problem{
			Params: append(append([]objective.Param(nil), stdParams...), lin("noise", 5)), Estimated: []int{0, 1, 2, 3, 4},
			Conditions:  stdCond,
			Observables: []objective.Observable{{ID: "obs_a"}},
			Experiments: one(d(0, 0, 0.7, th(4)), d(0, 10, 0.1, th(4))),
		}},
		{"v1.0.0", "0016", []suiteObs{stateObs("obs_a", 0, 0.5), stateObs("obs_b", 1, 0.7)}, &objective.Problem{
			Params: stdParams, Estimated: []int{0, 1, 2, 3}, Conditions: stdCond,
			Observables: []objective.Observable{{ID: "obs_a"}, {ID: "obs_b", Transform: objective.TransformLog}},
			Experiments: one(d(0, 10, 0.2), d(1, 10, 0.8)),
		}},
		// v2: log-normal is a noise distribution of its own (v1: log
		// transformation with normal noise).
		{"v2.0.0", "0007", []suiteObs{stateObs("obs_a", 0, 0.5), stateObs("obs_b", 1, 0.6)}, &objective.Problem{
			Params: stdParams, Estimated: []int{0, 1, 2, 3}, Conditions: stdCond,
			Observables: []objective.Observable{{ID: "obs_a"}, {ID: "obs_b", Transform: objective.TransformLog}},
			Experiments: one(d(0, 10, 0.2), d(1, 10, 0.8)),
		}},
		// v2 0017: pre-equilibration with A = 0, B = 2, then A re-initialised
		// to 1 while B keeps its pre-equilibrated value; only k2 estimated.
		{"v2.0.0", "0017", []suiteObs{stateObs("obs_a", 0, 0.5), stateObs("obs_b", 1, 0.5)}, &objective.Problem{
			Params: []objective.Param{lin("k2", 0.6)}, Estimated: []int{0},
			Conditions: []objective.Condition{
				{ID: "preeq_c0", P: []objective.Value{k(0), k(2), k(0.3), th(0)}},
				{ID: "c0", P: []objective.Value{k(1), k(1), k(0.8), th(0)}},
			},
			Observables: []objective.Observable{{ID: "obs_a"}, {ID: "obs_b"}},
			Experiments: []objective.Experiment{{Preeq: 0, Sim: 1, Reinit: []int{0},
				Data: []objective.Datum{d(0, 0, 0.7), d(0, 1, 0.7), d(0, 10, 0.1), d(1, 0, 2)}}},
		}},
		// v2 0029: simulation from t = 5 (model defaults a0 = b0 = 1).
		{"v2.0.0", "0029", []suiteObs{stateObs("obs_a", 0, 1)}, &objective.Problem{
			Params: []objective.Param{lin("k1", 0.8), lin("k2", 0.6)}, Estimated: []int{0, 1},
			Conditions:  []objective.Condition{{ID: "default", P: []objective.Value{k(1), k(1), th(0), th(1)}}},
			Observables: []objective.Observable{{ID: "obs_a"}},
			Experiments: []objective.Experiment{{Preeq: -1, Sim: 0, T0: 5, Data: []objective.Datum{d(0, 5, 0.01), d(0, 10, 0.1)}}},
		}},
	}
}

// TestPEtabSuite checks llh, chi2 and the simulated values against the
// PEtab test suite's solutions, within the suite's tolerances.
func TestPEtabSuite(t *testing.T) {
	root := suites.Dir(t, suites.PEtabTestSuite)
	for _, c := range suiteCases() {
		dir := filepath.Join(root, c.ver, "sbml")
		sol := readSolution(t, filepath.Join(dir, c.id, "_"+c.id+"_solution.yaml"))
		sims := readColumn(t, filepath.Join(dir, c.id, "_simulations.tsv"), "simulation")
		o, err := objective.New(newConversion(c.obs...), c.prob, &objective.Options{RTol: 1e-10, ATol: 1e-12})
		if err != nil {
			t.Fatalf("%s: %v", c.id, err)
		}
		r := evalAt(t, o, o.Nominal())
		// The suite's tolerances, and ours: at rtol 1e-10 the values agree
		// to ~1e-11.
		if math.Abs(r.LLH-sol["llh"]) > math.Min(1e-6, sol["tol_llh"]) || math.Abs(r.Chi2-sol["chi2"]) > math.Min(1e-6, sol["tol_chi2"]) {
			t.Errorf("%s %s: llh %.10g chi2 %.10g, suite %.10g, %.10g", c.ver, c.id, r.LLH, r.Chi2, sol["llh"], sol["chi2"])
		}
		t.Logf("%s: llh %.12g (suite %.12g), chi2 %.12g (suite %.12g)", c.id, r.LLH, sol["llh"], r.Chi2, sol["chi2"])
		if len(sims) != len(r.Sim) {
			t.Fatalf("%s: %d simulations in the suite, %d data", c.id, len(sims), len(r.Sim))
		}
		for i, s := range sims {
			if math.Abs(r.Sim[i]-s) > sol["tol_simulations"] {
				t.Errorf("%s: simulation %d is %.10g, suite %.10g", c.id, i, r.Sim[i], s)
			}
		}
		o.Close()
	}
}

// readSolution reads the numeric "key: value" lines of a solution file.
func readSolution(t *testing.T, path string) map[string]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(f)
	block := "" // a mapping's key ("log_prior:"), prefixed to its indented entries
	for sc.Scan() {
		line := sc.Text()
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key := strings.TrimSpace(k)
		if strings.HasPrefix(line, " ") && block != "" {
			key = block + "." + key
		} else {
			block = ""
			if strings.TrimSpace(v) == "" {
				block = key
			}
		}
		if x, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			m[key] = x
		}
	}
	for _, k := range []string{"llh", "chi2", "tol_llh", "tol_chi2", "tol_simulations"} {
		if _, ok := m[k]; !ok {
			t.Fatalf("%s: no %s", path, k)
		}
	}
	return m
}

// readColumn reads the numeric column col of a TSV file.
func readColumn(t *testing.T, path, col string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	head := strings.Split(lines[0], "\t")
	j := -1
	for i, h := range head {
		if strings.TrimSpace(h) == col {
			j = i
		}
	}
	if j < 0 {
		t.Fatalf("%s: no column %q", path, col)
	}
	var out []float64
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		v, err := strconv.ParseFloat(strings.TrimSpace(f[j]), 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

// constant is a model without states whose one observable is its
// parameter p1 with noise 1 (the suite's priors cases 0024, 0025).
type constant struct{ jx, jp *model.Pattern }

func newConstant() *constant {
	return &constant{jx: &model.Pattern{RowPtr: []int{0}}, jp: &model.Pattern{Cols: 1, RowPtr: []int{0}}}
}

func (*constant) Name() string                              { return "constant" }
func (*constant) StateNames() []string                      { return nil }
func (*constant) ParamNames() []string                      { return []string{"p1"} }
func (*constant) DefaultParams(dst []float64)               { dst[0] = 1 }
func (*constant) InitialState(_, _ []float64)               {}
func (*constant) InitialSens(_, _ []float64)                {}
func (*constant) F(_ []float64, _ float64, _, _ []float64)  {}
func (m *constant) JxPattern() *model.Pattern               { return m.jx }
func (*constant) Jx(_ []float64, _ float64, _, _ []float64) {}
func (m *constant) JpPattern() *model.Pattern               { return m.jp }
func (*constant) Jp(_ []float64, _ float64, _, _ []float64) {}
func (*constant) ObservableIDs() []string                   { return []string{"obs_p1"} }
func (*constant) Placeholders(int) (int, int)               { return 0, 0 }
func (*constant) Observe(_ int, _ float64, _, p, _ []float64, d *model.ObsDeriv) (float64, float64) {
	if d != nil {
		d.HP[0], d.SP[0] = 1, 0
	}
	return p[0], 1
}

// TestPEtabSuitePriors checks the v2 priors, truncated (0024) and not
// (0025), against the suite's log-prior and posterior: the parameter
// table's priorDistribution and priorParameters are mapped to Prior here
// (with v2's implicit uniform prior on the bounds for p1, which has none).
func TestPEtabSuitePriors(t *testing.T) {
	dir := filepath.Join(suites.Dir(t, suites.PEtabTestSuite), "v2.0.0", "sbml")
	kinds := map[string]objective.PriorKind{
		"uniform": objective.Uniform, "normal": objective.NormalPrior, "laplace": objective.LaplacePrior,
		"log-normal": objective.LogNormal, "log-laplace": objective.LogLaplace, "cauchy": objective.Cauchy,
		"chisquare": objective.ChiSquare, "exponential": objective.Exponential, "gamma": objective.Gamma,
		"log-uniform": objective.LogUniform, "rayleigh": objective.Rayleigh,
	}
	for _, id := range []string{"0024", "0025"} {
		sol := readSolution(t, filepath.Join(dir, id, "_"+id+"_solution.yaml"))
		rows := readTable(t, filepath.Join(dir, id, "_parameters.tsv"))
		prob := &objective.Problem{Observables: []objective.Observable{{ID: "obs_p1"}}}
		num := func(s string) float64 {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			return v
		}
		p1 := -1
		for _, r := range rows {
			if r["estimate"] != "true" {
				continue
			}
			p := objective.Param{ID: r["parameterId"], Lower: num(r["lowerBound"]), Upper: num(r["upperBound"]),
				Nominal: num(r["nominalValue"]), Estimate: true}
			p.Prior = objective.Prior{Kind: objective.Uniform, Par: [2]float64{p.Lower, p.Upper}}
			if name := r["priorDistribution"]; name != "" {
				k, ok := kinds[name]
				if !ok {
					t.Fatalf("%s: prior %q", id, name)
				}
				p.Prior = objective.Prior{Kind: k, Truncate: true}
				for i, s := range strings.Split(r["priorParameters"], ";") {
					p.Prior.Par[i] = num(s)
				}
			}
			if p.ID == "p1" {
				p1 = len(prob.Params)
			}
			prob.Estimated = append(prob.Estimated, len(prob.Params))
			prob.Params = append(prob.Params, p)
		}
		prob.Conditions = []objective.Condition{{ID: "c", P: []objective.Value{{Theta: p1}}}}
		prob.Experiments = []objective.Experiment{{Preeq: -1, Data: []objective.Datum{{T: 0, Y: 1}}}}
		o, err := objective.New(newConstant(), prob, &objective.Options{Grad: true})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		r := evalAt(t, o, o.Nominal())
		want := 0.0
		for _, p := range prob.Params {
			v, ok := sol["log_prior."+p.ID]
			if !ok {
				t.Fatalf("%s: no log prior of %s in the solution", id, p.ID)
			}
			want += v
		}
		if math.Abs(r.LogPrior-want) > 1e-12 || math.Abs(r.LogPost-sol["unnorm_log_posterior"]) > 1e-9 || math.Abs(r.LLH-sol["llh"]) > 1e-12 {
			t.Errorf("%s: log prior %.15g, posterior %.15g, llh %.15g; suite %.15g, %.15g, %.15g",
				id, r.LogPrior, r.LogPost, r.LLH, want, sol["unnorm_log_posterior"], sol["llh"])
		}
		o.Close()
	}
}

// readTable reads a TSV file into rows keyed by the header.
func readTable(t *testing.T, path string) []map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	head := strings.Split(lines[0], "\t")
	var rows []map[string]string
	for _, l := range lines[1:] {
		r := map[string]string{}
		for i, f := range strings.Split(l, "\t") {
			if i < len(head) {
				r[strings.TrimSpace(head[i])] = strings.TrimSpace(f)
			}
		}
		rows = append(rows, r)
	}
	return rows
}
