package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/pbgen/pbgen/internal/suites"
	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/parser"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
	"github.com/pbgen/pbgen/symbolic"
)

// The Lang section (-lang, issue #13): forward sensitivities of
// Lang_PLOSComputBiol2024 (124 states) with respect to all 317 parameters
// of its SBML model, the largest problem of the PEtab benchmark collection,
// where the sparse LU and the sensitivity corrector decide the cost: our FS
// with the automatic linear solver (the sparse LU) against our FS forced
// dense and CVODES FS with KLU (-tags cvodes), all timed in the same rounds.
// The model is the SBML model alone at its own parameter values (no PEtab
// conditions), from t = 0 to the last measurement time, 136472, at 21
// equally spaced output times, rtol 1e-6, atol 1e-8, errconS off (sens's
// and CVODES's default). -lang-pb adds PBSR and Exp, timed once each.
//
// The 25.7 s for the dense path were measured before the exact
// sensitivity corrector of runtime/ode (sensNewtonExact). The dense path
// keeps CVODES's corrector (the exact one only pays with many states), so
// the ratio of the dense path over the automatic one is that of the
// linear algebra and of the corrector: the automatic path's exact
// corrector takes one multi-column solve per step (its first correction,
// checked for a stable solve), the dense path's about eight.

const (
	langProblem = "Lang_PLOSComputBiol2024"
	langTEnd    = 136472
	langOutputs = 21
	langRTol    = 1e-6
	langATol    = 1e-8
	// langDenseTarget and langCVTarget are issue #13's bounds: our FS with
	// the automatic choice at least 10x faster than our dense path, and 3x
	// faster than CVODES FS with KLU.
	langDenseTarget = 10
	langCVTarget    = 3
)

// The rows of the Lang section.
const (
	langFS      = "FS (ours)"
	langFSDense = "FS dense (ours)"
	langCVFS    = "CVODES FS KLU"
	langPBSR    = "PBSR (ours)"
	langExp     = "Exp (ours)"
)

// LangMethod is one row of the Lang section.
type LangMethod struct {
	Name   string `json:"name"`
	Median num    `json:"median_s"`
	Timed  int    `json:"timed"` // timed solves behind the median (0: the warm-up alone)
	// Steps are the integrator's accepted steps, SensIters the sensitivity
	// corrector iterations (FS; CVODES's SensNonlinIters), of the last solve.
	Steps     int    `json:"steps"`
	SensIters int    `json:"sens_iters,omitempty"`
	Err       string `json:"error,omitempty"`
}

// LangResult is the Lang section as written to results.json.
type LangResult struct {
	Problem string        `json:"problem"`
	NX      int           `json:"nx"`
	NP      int           `json:"np"`
	Outputs []float64     `json:"outputs"`
	RTol    float64       `json:"rtol"`
	ATol    float64       `json:"atol"`
	Methods []*LangMethod `json:"methods"`
	// Ratios are each row's median over our FS's (automatic solver).
	Ratios map[string]num `json:"ratios"`
}

func (lr *LangResult) find(name string) *LangMethod {
	for _, m := range lr.Methods {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// langModel reads the SBML model of Lang_PLOSComputBiol2024 from the
// PEtab benchmark folder (-petab-dir, or the shared folder's).
func langModel(c *config) (model.Model, error) {
	root := c.petabDir
	if root == "" {
		d, err := suites.Find(suites.PEtabBenchmark)
		if err != nil {
			return nil, err
		}
		root = d
	}
	m, err := parser.ReadFile(filepath.Join(root, langProblem, "model_"+langProblem+".xml"))
	if err != nil {
		return nil, err
	}
	o, err := m.ODE(&parser.Options{})
	if err != nil {
		return nil, err
	}
	sys, err := symbolic.Build(o)
	if err != nil {
		return nil, err
	}
	return interp.New(sys)
}

// benchLang times FS on Lang_PLOSComputBiol2024 (see the section's
// comment) and prints the table and the ratios to w.
func benchLang(c *config, w io.Writer) (*LangResult, error) {
	m, err := langModel(c)
	if err != nil {
		return nil, err
	}
	nx, np := model.NumStates(m), model.NumParams(m)
	p := make([]float64, np)
	m.DefaultParams(p)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	ts := grid(0, langTEnd, langOutputs-1)
	lr := &LangResult{Problem: langProblem, NX: nx, NP: np, Outputs: ts, RTol: langRTol, ATol: langATol, Ratios: map[string]num{}}
	fmt.Fprintf(w, "\n== %s: FS with all %d parameters, %d states, %d outputs on [0, %g], rtol %g, atol %g, errconS off; up to %d rounds of one solve per method\n",
		langProblem, np, nx, len(ts), float64(langTEnd), langRTol, langATol, c.langReps)

	// ours runs sens.Solver with method m and the linear solver ls.
	ours := func(meth sens.Method, ls ode.LinearSolver) (func() error, func(*LangMethod)) {
		s := sens.NewSolver(m, &sens.Options{Method: meth, RTol: langRTol, ATol: langATol, ODE: ode.Settings{LinearSolver: ls}})
		var res sens.Result
		return func() error { return s.Solve(&res, p, x0, 0, ts) }, func(lm *LangMethod) {
			lm.Steps = res.Stats.ODE.Steps
			if meth == sens.FS {
				lm.SensIters = res.Stats.ODE.SensNewtonIters
			}
		}
	}
	type row struct {
		name  string
		run   func() error
		stats func(*LangMethod)
		free  func()
	}
	var rows []row
	for _, r := range []struct {
		name string
		ls   ode.LinearSolver
	}{{langFS, ode.LinearAuto}, {langFSDense, ode.LinearDense}} {
		run, st := ours(sens.FS, r.ls)
		rows = append(rows, row{r.name, run, st, nil})
	}
	if haveCVODES {
		run, st, free := cvodesLangRunner(m, p, x0, ts, langRTol, langATol)
		rows = append(rows, row{langCVFS, run, st, free})
	}
	runs := make([]func() error, len(rows))
	for i, r := range rows {
		runs[i] = r.run
	}
	times := timeRounds(runs, c.langReps, c.langBudget)
	for i, r := range rows {
		lm := &LangMethod{Name: r.name, Median: num(math.NaN())}
		if err := times[i].err; err != nil {
			lm.Err = err.Error()
		} else {
			lm.Median, lm.Timed = num(times[i].median), times[i].n
			r.stats(lm)
		}
		if r.free != nil {
			r.free()
		}
		lr.Methods = append(lr.Methods, lm)
	}
	if c.langPB {
		// PBSR and Exp once each (the warm-up is the measurement): with 317
		// columns their exponential actions are the cost.
		for _, r := range []struct {
			name string
			meth sens.Method
		}{{langPBSR, sens.PBSR}, {langExp, sens.Exp}} {
			run, st := ours(r.meth, ode.LinearAuto)
			lm := &LangMethod{Name: r.name, Median: num(math.NaN())}
			if d, err := warmUp(run); err != nil {
				lm.Err = err.Error()
			} else {
				lm.Median = num(d[0])
				st(lm)
			}
			lr.Methods = append(lr.Methods, lm)
		}
	}
	base := lr.find(langFS)
	fmt.Fprintf(w, "%-16s %12s %6s %8s %10s %9s\n", "method", "median", "timed", "steps", "sens iter", "/ FS")
	for _, lm := range lr.Methods {
		if lm.Err != "" {
			fmt.Fprintf(w, "%-16s failed: %s\n", lm.Name, lm.Err)
			continue
		}
		ratio := math.NaN()
		if base.Err == "" {
			ratio = float64(lm.Median / base.Median)
			lr.Ratios[lm.Name] = num(ratio)
		}
		fmt.Fprintf(w, "%-16s %12s %6d %8d %10d %8.2fx\n", lm.Name, dur(float64(lm.Median)), lm.Timed, lm.Steps, lm.SensIters, ratio)
	}
	return lr, nil
}

// langTargets are issue #13's targets on Lang: our FS 10x faster than our
// dense path and 3x faster than CVODES FS with KLU.
func langTargets(lr *LangResult) []*Target {
	get := func(name string) float64 {
		if v, ok := lr.Ratios[name]; ok {
			return float64(v)
		}
		return math.NaN()
	}
	ts := []*Target{
		{What: fmt.Sprintf("Lang: our FS dense / FS >= %d", langDenseTarget), Measured: get(langFSDense), Bound: langDenseTarget, AtLeast: true},
	}
	if haveCVODES {
		ts = append(ts, &Target{What: fmt.Sprintf("Lang: CVODES FS (KLU) / FS >= %d", langCVTarget), Measured: get(langCVFS), Bound: langCVTarget, AtLeast: true})
	}
	for _, t := range ts {
		t.check()
	}
	return ts
}
