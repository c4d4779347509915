package main

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pbgen/pbgen/internal/suites"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// The PEtab section (issue #11): the benchmark collection's problems
// evaluated through runtime/objective, llh alone, llh + gradient and
// llh + gradient + FIM, with our FS, PBSR and Exp and with CVODES FS on
// the same objective (objective.Options.NewSolver): the same model,
// conditions, pre-equilibrations and data, so the ratio is the
// integrators' alone. All at the objective's default tolerances, one
// worker. The model is the problem's generated package when pbbench is
// built with the tag petabgen (make bench), as AMICI runs its own
// generated code, else petab.Load's interpreted one (petabgen.go).
//
// Each problem is timed at the gradient check's point (perturbed).
// Whether a gradient is good enough is judged there and at the nominal
// point (near the optimum, the harder case for S's accuracy), here against the FS
// gradient at rtol 1e-10 with the finite-difference check's criterion
// (|g - ref| <= 1e-3 + 1e-2 |ref| per component): petab's
// TestBenchmarkGradients shows that tight FS gradient agrees with finite
// differences on these problems, and it costs one evaluation instead of
// two per parameter.

const (
	petabGradRTol = 1e-2
	petabGradATol = 1e-3
)

// petabModes are the evaluations timed per problem.
var petabModes = []struct {
	name      string
	grad, fim bool
}{
	{"llh", false, false},
	{"llh+grad", true, false},
	{"llh+grad+FIM", true, true},
}

// PetabMethod is one method's timings on one problem.
type PetabMethod struct {
	Name string `json:"name"`
	// Median seconds per Eval, by mode (llh, llh+grad, llh+grad+FIM).
	Median map[string]num `json:"median_s"`
	Timed  map[string]int `json:"timed"` // timed evaluations per mode
	// GradWorst is the worst gradient component against the tight FS
	// gradient, as a multiple of the tolerance (<= 1 passes).
	GradWorst num `json:"grad_worst"`
	// GradWorstNominal is the same at the nominal point, near the
	// optimum, where the gradient is a small sum of data terms that cancel
	// (NaN when the reference failed there).
	GradWorstNominal num `json:"grad_worst_nominal"`
	// GradOK is the criterion, GradWorst <= 1 (the point of the
	// finite-difference check); GradOKNominal also needs
	// GradWorstNominal <= 1.
	GradOK        bool `json:"grad_ok"`
	GradOKNominal bool `json:"grad_ok_nominal"`
	// Steps and Rejected are the integrator's accepted and rejected steps
	// of one llh+grad evaluation (the objective's Stats: our BDF, or
	// CVODES's for its solves, including the steady-state search's state
	// integrations through objective.StateSolver).
	Steps    int    `json:"steps"`
	Rejected int    `json:"rejected"`
	Err      string `json:"error,omitempty"`
}

// PetabResult is one benchmark problem.
type PetabResult struct {
	Problem string         `json:"problem"`
	NX      int            `json:"nx"`
	NTheta  int            `json:"ntheta"`
	NExp    int            `json:"experiments"`
	NData   int            `json:"data"`
	Methods []*PetabMethod `json:"methods"`
	// Ratios are CVODES FS / ours per mode and method, from the medians
	// of this run.
	Ratios map[string]map[string]num `json:"ratios"`
	// Best is our fastest method for llh+grad whose gradient passes
	// (GradOK), BestNominal the fastest that passes at the nominal point
	// too (GradOKNominal).
	Best        string `json:"best"`
	BestNominal string `json:"best_nominal"`
	// Ceiling is CVODES FS's llh+grad over our fastest llh alone: the
	// ratio that a gradient costing nothing beyond the llh would reach,
	// so a bound on what any sensitivity method of ours can show here.
	Ceiling num `json:"ceiling"`
	// NoCVODES says why the CVODES FS row was not run ("" if it was or
	// CVODES is not built in): the objective on CVODES refused the model
	// (a model with SBML events runs on CVODES's root finding,
	// cvodes.EventSensSolver, unless an event has a delay or a priority,
	// which it does not support). The speed target is then not
	// applicable.
	NoCVODES string `json:"no_cvodes,omitempty"`
	Err      string `json:"error,omitempty"`
	// PetabModel says which model every method ran on (petabgen.go).
	PetabModel
}

// petabNoCVODES is the prefix of PetabResult.NoCVODES, followed by the
// objective's refusal.
const petabNoCVODES = "n/a: the objective on CVODES refuses the model: "

// petabCVODES is the CVODES row's name.
const petabCVODES = "CVODES FS"

func benchPetab(c *config) ([]*PetabResult, error) {
	root := c.petabDir
	if root == "" {
		d, err := suites.Find(suites.PEtabBenchmark)
		if err != nil {
			return nil, err
		}
		root = d
	}
	yamls, _ := filepath.Glob(filepath.Join(root, "*", "*.yaml"))
	if len(yamls) == 0 {
		return nil, fmt.Errorf("no PEtab problems in %s", root)
	}
	var only []string
	for _, s := range strings.Split(c.petabOnly, ",") {
		if s = strings.TrimSpace(s); s != "" {
			only = append(only, s)
		}
	}
	tol := "the objective's defaults (rtol 1e-6, atol 1e-8)"
	if c.petabRTol != 0 {
		tol = fmt.Sprintf("rtol %g, atol 1e-8", c.petabRTol)
	}
	if c.petabOnGrid {
		tol += ", outputs on the integrator's grid"
	}
	if c.petabNoErrCon {
		tol += ", FS (ours and CVODES's) without S in the error test"
	} else {
		tol += ", FS (ours and CVODES's) with S in the error test"
	}
	fmt.Printf("\n== PEtab benchmark collection (%s): median seconds per Eval at %s, 1 worker\n", root, tol)
	if cvodesObjectiveSolver == nil {
		fmt.Println("note: built without -tags cvodes; no CVODES FS column")
	}
	var out []*PetabResult
	for _, y := range yamls {
		name := filepath.Base(filepath.Dir(y))
		if b := strings.TrimSuffix(filepath.Base(y), ".yaml"); b != name && b != "problem" {
			continue // variants (a petab_test_ copy, petab_select files)
		}
		if len(only) > 0 && !slices.ContainsFunc(only, func(s string) bool { return strings.Contains(name, s) }) {
			continue
		}
		p, err := petab.Load(y)
		if err != nil {
			var l petab.ErrorList
			if errors.As(err, &l) && len(l) == 1 {
				fmt.Printf("%-36s not loaded: %s\n", name, shortErr(l[0].Msg))
				continue
			}
			return nil, err
		}
		if nx := model.NumStates(p.Model); nx > c.petabMaxStates {
			fmt.Printf("%-36s skipped: %d states > %d\n", name, nx, c.petabMaxStates)
			continue
		}
		m, prob, src := petabSource(name, y, p, c)
		r := benchPetabProblem(name, p, m, prob, c)
		r.PetabModel = src
		printPetab(r)
		out = append(out, r)
	}
	return out, nil
}

func shortErr(s string) string {
	if i := strings.LastIndex(s, ": "); i >= 0 && len(s) > 100 {
		return s[i+2:]
	}
	return s
}

// petabSolvers are the methods: ours, then CVODES FS when built in.
func petabSolvers() []struct {
	name   string
	method sens.Method
	hook   func(model.Model, *sens.Options) (objective.Solver, error)
} {
	type row = struct {
		name   string
		method sens.Method
		hook   func(model.Model, *sens.Options) (objective.Solver, error)
	}
	rows := []row{{"FS", sens.FS, nil}, {"PBSR", sens.PBSR, nil}, {"Exp", sens.Exp, nil}, {"Auto", sens.Auto, nil}}
	if cvodesObjectiveSolver != nil {
		rows = append(rows, row{petabCVODES, sens.FS, cvodesObjectiveSolver})
	}
	return rows
}

// benchPetabProblem times the problem p on model mod with problem prob:
// p's own (interpreted) or a generated package's (petabSource).
func benchPetabProblem(name string, p *petab.Problem, mod model.Model, prob *objective.Problem, c *config) *PetabResult {
	r := &PetabResult{Problem: name, NX: model.NumStates(p.Model), NTheta: len(p.Objective.Estimated),
		NExp: len(p.Objective.Experiments), Ratios: map[string]map[string]num{}}
	for _, ex := range p.Objective.Experiments {
		r.NData += len(ex.Data)
	}
	eval := func(opt *objective.Options, th []float64) (*objective.Result, error) {
		o, err := objective.New(mod, prob, opt)
		if err != nil {
			return nil, err
		}
		defer func() { o.Close() }()
		var res objective.Result
		return &res, o.Eval(th, &res)
	}
	o, err := objective.New(mod, prob, nil)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	theta, nominal := perturbed(o), o.Nominal()
	o.Close()
	tight := &objective.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, Grad: true}
	ref, err := eval(tight, theta)
	if err != nil {
		r.Err = "reference gradient: " + err.Error()
		return r
	}
	// At the nominal point the reference may fail (Oliveira_NatCommun2021:
	// a discontinuity in t that rtol 1e-10 cannot step over); then only
	// the perturbed point judges.
	refNom, errNom := eval(tight, nominal)
	worst := func(g, ref []float64) num {
		w := 0.0
		for a := range g {
			w = math.Max(w, math.Abs(g[a]-ref[a])/(petabGradATol+petabGradRTol*math.Abs(ref[a])))
		}
		if math.IsNaN(w) {
			w = math.Inf(1)
		}
		return num(w)
	}
	solvers := petabSolvers()
	events := p.Model.NumEvents() > 0
	for _, s := range solvers {
		m := &PetabMethod{Name: s.name, Median: map[string]num{}, Timed: map[string]int{}, GradWorstNominal: num(math.NaN())}
		r.Methods = append(r.Methods, m)
		if s.hook != nil && events {
			// CVODES's event loop has no delays or priorities: such a
			// model has no CVODES row (not a failed problem).
			o, err := objective.New(mod, prob, &objective.Options{Method: s.method, Grad: true, NewSolver: s.hook, NoErrCon: c.petabNoErrCon})
			if err != nil {
				m.Err, r.NoCVODES = petabNoCVODES+err.Error(), petabNoCVODES+err.Error()
				continue
			}
			o.Close()
		}
		if errNom == nil {
			g, err := eval(&objective.Options{Method: s.method, Grad: true, NewSolver: s.hook, RTol: c.petabRTol, OutputsOnGrid: c.petabOnGrid, NoErrCon: c.petabNoErrCon}, nominal)
			if err != nil {
				m.GradWorstNominal = num(math.Inf(1))
			} else {
				m.GradWorstNominal = worst(g.Grad, refNom.Grad)
			}
		}
	}
	for _, mode := range petabModes {
		// One objective per method, timed in rounds (each round evaluates
		// every method once), so that a change of the machine's load
		// during the run affects all methods alike.
		runs := make([]func() error, len(solvers))
		results := make([]objective.Result, len(solvers))
		var obs []*objective.Objective
		for i, s := range solvers {
			m := r.Methods[i]
			if m.Err != "" {
				continue
			}
			opt := &objective.Options{Method: s.method, Grad: mode.grad, FIM: mode.fim, NewSolver: s.hook, RTol: c.petabRTol, OutputsOnGrid: c.petabOnGrid, NoErrCon: c.petabNoErrCon}
			ob, err := objective.New(mod, prob, opt)
			if err != nil {
				m.Err = err.Error()
				continue
			}
			obs = append(obs, ob)
			res := &results[i]
			runs[i] = func() error { return ob.Eval(theta, res) }
		}
		times := timeRounds(runs, c.petabReps, c.petabBudget)
		for _, ob := range obs {
			ob.Close()
		}
		for i, m := range r.Methods {
			if runs[i] == nil {
				continue
			}
			if times[i].err != nil {
				m.Err = mode.name + ": " + times[i].err.Error()
				continue
			}
			m.Median[mode.name], m.Timed[mode.name] = num(times[i].median), times[i].n
			if mode.grad && !mode.fim {
				m.GradWorst = worst(results[i].Grad, ref.Grad)
				m.GradOK = m.GradWorst <= 1
				m.GradOKNominal = m.GradOK && !(m.GradWorstNominal > 1)
				m.Steps, m.Rejected = results[i].Stats.Steps, results[i].Stats.Rejected
			}
		}
	}
	cv := r.find(petabCVODES)
	best, bestNom := math.Inf(1), math.Inf(1)
	r.Ceiling = num(math.NaN())
	if cv != nil {
		if g, ok := cv.Median["llh+grad"]; ok {
			for _, m := range r.Methods {
				if v, ok := m.Median["llh"]; ok && m.Name != petabCVODES && !(float64(g/v) <= float64(r.Ceiling)) {
					r.Ceiling = g / v
				}
			}
		}
	}
	for _, m := range r.Methods {
		if m.Name == petabCVODES {
			continue
		}
		if v, ok := m.Median["llh+grad"]; ok && m.GradOK && float64(v) < best {
			best, r.Best = float64(v), m.Name
		}
		if v, ok := m.Median["llh+grad"]; ok && m.GradOKNominal && float64(v) < bestNom {
			bestNom, r.BestNominal = float64(v), m.Name
		}
		if cv == nil {
			continue
		}
		for _, mode := range petabModes {
			a, okA := cv.Median[mode.name]
			b, okB := m.Median[mode.name]
			if !okA || !okB {
				continue
			}
			if r.Ratios[mode.name] == nil {
				r.Ratios[mode.name] = map[string]num{}
			}
			r.Ratios[mode.name][m.Name] = a / b
		}
	}
	return r
}

func (r *PetabResult) find(name string) *PetabMethod {
	for _, m := range r.Methods {
		if m.Name == name {
			return m
		}
	}
	return nil
}

func printPetab(r *PetabResult) {
	fmt.Printf("\n%s: %d states, %d parameters, %d experiments, %d data\n", r.Problem, r.NX, r.NTheta, r.NExp, r.NData)
	printPetabModel(r)
	if r.Err != "" {
		fmt.Printf("  failed: %s\n", r.Err)
		return
	}
	fmt.Printf("  %-10s %12s %12s %14s %13s  %s\n", "method", "llh", "llh+grad", "llh+grad+FIM", "steps (rej.)", "gradient vs FS at rtol 1e-10 (worst, x tolerance; perturbed point, nominal point)")
	for _, m := range r.Methods {
		cell := func(mode string) string {
			if v, ok := m.Median[mode]; ok {
				return dur(float64(v))
			}
			return "-"
		}
		g := fmt.Sprintf("%.3g, at nominal %.3g", float64(m.GradWorst), float64(m.GradWorstNominal))
		if !m.GradOKNominal {
			g += " FAILS"
		}
		if m.Name == petabCVODES && r.NoCVODES != "" {
			fmt.Printf("  %-10s %s\n", m.Name, r.NoCVODES)
			continue
		}
		fmt.Printf("  %-10s %12s %12s %14s %13s  %s", m.Name, cell("llh"), cell("llh+grad"), cell("llh+grad+FIM"), fmt.Sprintf("%d (%d)", m.Steps, m.Rejected), g)
		if m.Err != "" {
			fmt.Printf("  error: %s", m.Err)
		}
		fmt.Println()
	}
	for _, mode := range petabModes {
		rs := r.Ratios[mode.name]
		if len(rs) == 0 {
			continue
		}
		fmt.Printf("  CVODES FS / ours, %-13s", mode.name+":")
		for _, m := range r.Methods {
			if v, ok := rs[m.Name]; ok {
				fmt.Printf("  %s %.2f", m.Name, float64(v))
			}
		}
		fmt.Println()
	}
	if r.Best != "" {
		fmt.Printf("  fastest passing gradient: %s (with the nominal point too: %s)\n", r.Best, r.BestNominal)
	}
	if !math.IsNaN(float64(r.Ceiling)) {
		fmt.Printf("  ceiling (CVODES FS llh+grad / our fastest llh alone): %.2f\n", float64(r.Ceiling))
	}
}

// petabTargets is the speed target per problem: our fastest
// method whose gradient passes is at least 5x faster than CVODES FS for
// llh + gradient. Problems CVODES cannot solve (NoCVODES) have none.
func petabTargets(rs []*PetabResult, add func(what string, measured, bound float64, atLeast bool)) {
	for _, r := range rs {
		if r.NoCVODES != "" {
			continue // no CVODES to compare with (events it cannot solve)
		}
		what := fmt.Sprintf("PEtab %s: CVODES FS / fastest passing ours (llh+grad) >= 5", r.Problem)
		v := math.NaN()
		if r.Best != "" {
			if x, ok := r.Ratios["llh+grad"][r.Best]; ok {
				v = float64(x)
				what = fmt.Sprintf("PEtab %s: CVODES FS / %s (llh+grad) >= 5", r.Problem, r.Best)
			}
		}
		add(what, v, 5, true)
	}
}

// perturbed is the point of petab's TestBenchmarkGradients: the nominal
// point moved by a seeded uniform step in [-0.1, 0.1] on log scales and
// relatively on the linear scale. Not the nominal point itself: that is
// near the optimum, where the gradient is a small difference of large
// data terms (the finite-difference check judges the point it checks).
func perturbed(o *objective.Objective) []float64 {
	rng := rand.New(rand.NewPCG(1, 1))
	th := o.Nominal()
	for a, s := range o.Scales() {
		d := 0.2*rng.Float64() - 0.1
		if s == objective.Lin {
			th[a] *= 1 + d
		} else {
			th[a] += d
		}
	}
	return th
}

// roundTimes is one method's timing by timeRounds.
type roundTimes struct {
	median float64
	n      int
	err    error
}

// timeRounds warms every run up once, then times rounds of one call of
// each (nil runs are skipped; a run that fails drops out): at least 3
// rounds and at most reps, fewer past budget as judged from the warm-up
// (a round that alone exceeds the budget still gets 3 rounds, so every
// median is of 3 or more).
func timeRounds(runs []func() error, reps int, budget time.Duration) []roundTimes {
	out := make([]roundTimes, len(runs))
	d := make([][]float64, len(runs))
	runtime.GC()
	round := 0.0
	for i, run := range runs {
		if run == nil {
			continue
		}
		start := time.Now()
		out[i].err = run()
		round += time.Since(start).Seconds()
	}
	n := reps
	if round > 0 {
		n = min(reps, max(3, int(budget.Seconds()/round)))
	}
	for k := 0; k < n; k++ {
		for i, run := range runs {
			if run == nil || out[i].err != nil {
				continue
			}
			start := time.Now()
			if err := run(); err != nil {
				out[i].err = err
				continue
			}
			d[i] = append(d[i], time.Since(start).Seconds())
		}
	}
	for i := range out {
		if len(d[i]) > 0 {
			sort.Float64s(d[i])
			out[i].median, out[i].n = median(d[i]), len(d[i])
		}
	}
	return out
}
