package testsuite

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/sens"
)

// PEtabOptions configure RunPEtabDir.
type PEtabOptions struct {
	Method     sens.Method
	RTol, ATol float64 // 0: defaults 1e-10, 1e-12 (the suite's tolerances are 1e-3)
}

// PEtabOutcome is the result of one PEtab test-suite case.
type PEtabOutcome struct {
	ID     string // the case folder, NNNN
	Status Status
	Reason string
}

// petabSolution is _NNNN_solution.yaml.
type petabSolution struct {
	LLH            float64  `yaml:"llh"`
	Chi2           float64  `yaml:"chi2"`
	TolLLH         float64  `yaml:"tol_llh"`
	TolChi2        float64  `yaml:"tol_chi2"`
	TolSimulations float64  `yaml:"tol_simulations"`
	Simulations    []string `yaml:"simulation_files"`
	// v2 cases with priors (0024, 0025) give the unnormalised log
	// posterior too.
	LogPost    *float64 `yaml:"unnorm_log_posterior"`
	TolLogPost float64  `yaml:"tol_unnorm_log_posterior"`
}

// RunPEtabDir runs every case folder (four digits) of dir, laid out like
// the PEtab test suite's vX/sbml/: NNNN/_NNNN.yaml and
// NNNN/_NNNN_solution.yaml. A case passes when llh, chi2, every
// simulated value and (where the solution gives it) the unnormalised log
// posterior are within the solution's (absolute) tolerances. A case
// whose problem uses a feature pbgen refuses ("... is not supported") is
// skipped with the reason.
func RunPEtabDir(dir string, opt *PEtabOptions) ([]PEtabOutcome, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() && len(e.Name()) == 4 && strings.Trim(e.Name(), "0123456789") == "" {
			ids = append(ids, e.Name())
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("testsuite: no PEtab test cases (NNNN folders) in %s", dir)
	}
	sort.Strings(ids)
	if opt == nil {
		opt = &PEtabOptions{Method: sens.FS}
	}
	var outs []PEtabOutcome
	for _, id := range ids {
		outs = append(outs, runPEtabSafe(filepath.Join(dir, id), id, opt))
	}
	return outs, nil
}

// runPEtabSafe turns a panic in one case into its failure, so one bad case
// does not hide the others' results.
func runPEtabSafe(dir, id string, opt *PEtabOptions) (out PEtabOutcome) {
	defer func() {
		if r := recover(); r != nil {
			out = PEtabOutcome{ID: id, Status: Failed, Reason: fmt.Sprintf("panic: %v", r)}
		}
	}()
	return RunPEtabCase(dir, id, opt)
}

// RunPEtabCase runs one case folder.
func RunPEtabCase(dir, id string, opt *PEtabOptions) PEtabOutcome {
	fail := func(format string, args ...any) PEtabOutcome {
		return PEtabOutcome{ID: id, Status: Failed, Reason: fmt.Sprintf(format, args...)}
	}
	data, err := os.ReadFile(filepath.Join(dir, "_"+id+"_solution.yaml"))
	if err != nil {
		return fail("%v", err)
	}
	var sol petabSolution
	if err := yaml.Unmarshal(data, &sol); err != nil {
		return fail("solution: %v", err)
	}
	p, err := petab.Load(filepath.Join(dir, "_"+id+".yaml"))
	if err != nil {
		if strings.Contains(err.Error(), "not supported") {
			return PEtabOutcome{ID: id, Status: Skipped, Reason: firstError(err)}
		}
		return fail("%s", firstError(err))
	}
	theta, err := p.Theta(nil)
	if err != nil {
		return fail("%v", err)
	}
	rtol, atol := opt.RTol, opt.ATol
	if rtol == 0 {
		rtol = 1e-10
	}
	if atol == 0 {
		atol = 1e-12
	}
	r, err := p.Evaluate(theta, &petab.EvalOptions{Method: opt.Method, RTol: rtol, ATol: atol})
	if err != nil {
		return fail("%v", err)
	}
	var why []string
	if math.Abs(r.LLH-sol.LLH) > sol.TolLLH || math.IsNaN(r.LLH) {
		why = append(why, fmt.Sprintf("llh %.10g, want %.10g", r.LLH, sol.LLH))
	}
	if math.Abs(r.Chi2-sol.Chi2) > sol.TolChi2 || math.IsNaN(r.Chi2) {
		why = append(why, fmt.Sprintf("chi2 %.10g, want %.10g", r.Chi2, sol.Chi2))
	}
	if sol.LogPost != nil {
		if lp := r.LLH + r.LogPrior; math.Abs(lp-*sol.LogPost) > sol.TolLogPost || math.IsNaN(lp) {
			why = append(why, fmt.Sprintf("log posterior %.10g, want %.10g", lp, *sol.LogPost))
		}
	}
	var want []float64
	for _, f := range sol.Simulations {
		w, err := readSimulationColumn(filepath.Join(dir, f))
		if err != nil {
			return fail("%v", err)
		}
		want = append(want, w...)
	}
	if len(want) != len(r.Sim) {
		why = append(why, fmt.Sprintf("%d simulated values, want %d", len(r.Sim), len(want)))
	} else {
		for i := range want {
			if math.Abs(r.Sim[i]-want[i]) > sol.TolSimulations || math.IsNaN(r.Sim[i]) {
				why = append(why, fmt.Sprintf("simulation row %d: %.10g, want %.10g", i+1, r.Sim[i], want[i]))
				break
			}
		}
	}
	if len(why) > 0 {
		return fail("%s", strings.Join(why, "; "))
	}
	return PEtabOutcome{ID: id, Status: Passed}
}

// firstError is the first error of a list, which is the one a skip or a
// failure line should show.
func firstError(err error) string {
	var l petab.ErrorList
	if errors.As(err, &l) && len(l) > 0 {
		return l[0].Error()
	}
	return err.Error()
}

// readSimulationColumn reads the simulation column of a PEtab simulation
// table; its rows are in measurement-table order.
func readSimulationColumn(path string) ([]float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(data), "\r\n"), "\n")
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	col := -1
	for j, h := range strings.Split(strings.TrimRight(lines[0], "\r"), "\t") {
		if strings.TrimSpace(h) == "simulation" {
			col = j
		}
	}
	if col < 0 {
		return nil, fmt.Errorf("%s: no simulation column", path)
	}
	var out []float64
	for i, l := range lines[1:] {
		f := strings.Split(strings.TrimRight(l, "\r"), "\t")
		if col >= len(f) {
			return nil, fmt.Errorf("%s:%d: row too short", path, i+2)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(f[col]), 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+2, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// PEtabReport prints one line per failing or skipped case and last the
// line "N passed, N failed, N skipped"; it returns the counts.
func PEtabReport(w io.Writer, outs []PEtabOutcome) (passed, failed, skipped int) {
	for _, o := range outs {
		switch o.Status {
		case Passed:
			passed++
			continue
		case Failed:
			failed++
		case Skipped:
			skipped++
		}
		fmt.Fprintf(w, "%s %s: %s\n", o.ID, o.Status, o.Reason)
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	return passed, failed, skipped
}
