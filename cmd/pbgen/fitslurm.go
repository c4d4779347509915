package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/pbgen/pbgen/fit"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/sens"
)

// A Slurm array splits the starts of one fit between tasks: task T runs
// starts T*K, ..., T*K+K-1 of -starts N (K = -starts-per-task) and writes
// them, with the settings, to DIR/starts_<T*K>.json; pbgen fit -merge DIR
// reads every such file and reports the whole fit. Start i depends on
// (seed, i, N) only, so the merged fit's starts are those of a run of all
// N starts in one process.

// fitPart is a task file.
type fitPart struct {
	Problem    string      `json:"problem"` // absolute path of the YAML
	Seed       uint64      `json:"seed"`
	Starts     int         `json:"starts"` // of the whole fit
	Hessian    string      `json:"hessian"`
	Subspace   string      `json:"subspace"`
	Sampling   string      `json:"sampling"`
	InitPriors bool        `json:"init_priors"`
	Method     string      `json:"method"`
	MaxIter    int         `json:"maxiter"`
	RTol       float64     `json:"rtol"`
	ATol       float64     `json:"atol"`
	Parameters []string    `json:"parameters"`
	Results    []partStart `json:"results"`
}

// partStart is one start of a task file: everything fit.Start holds.
type partStart struct {
	Start       int       `json:"start"`
	F           *float64  `json:"f"` // null for a failed start
	Status      string    `json:"status"`
	Error       string    `json:"error,omitempty"`
	Iterations  int       `json:"iterations"`
	Evaluations int       `json:"evaluations"`
	Failed      int       `json:"failed_evaluations"`
	Redraws     int       `json:"redraws"`
	Reflections int       `json:"reflections"`
	Switched    int       `json:"switched"`
	TimeSecs    float64   `json:"time_s"`
	X           []float64 `json:"x"`
	Grad        []float64 `json:"grad"`
	X0          []float64 `json:"x0"`
}

// settings returns the part's settings as the fit flags that made it.
func (fp *fitPart) settings() (*fitFlags, error) {
	h, ok := fit.ParseHessian(fp.Hessian)
	if !ok {
		return nil, fmt.Errorf("hessian %q", fp.Hessian)
	}
	m, err := sens.ParseMethod(fp.Method)
	if err != nil {
		return nil, fmt.Errorf("method %q", fp.Method)
	}
	ff := &fitFlags{path: fp.Problem, starts: fp.Starts, seed: fp.Seed, method: m, priors: fp.InitPriors, rtol: fp.RTol, atol: fp.ATol, maxIter: fp.MaxIter, first: -1}
	ff.opt = fit.Options{Hessian: h, MaxIter: fp.MaxIter}
	switch fp.Subspace {
	case "2d":
	case "full":
		ff.opt.Subspace = fit.Full
	default:
		return nil, fmt.Errorf("subspace %q", fp.Subspace)
	}
	switch fp.Sampling {
	case "lhs":
	case "uniform":
		ff.sampling = fit.Uniform
	default:
		return nil, fmt.Errorf("sampling %q", fp.Sampling)
	}
	return ff, nil
}

// writePart writes a task's starts to DIR/starts_<first>.json.
func writePart(ff *fitFlags, names []string, res *fit.MultiResult) (string, error) {
	abs, err := filepath.Abs(ff.path)
	if err != nil {
		return "", err
	}
	fp := fitPart{Problem: abs, Seed: ff.seed, Starts: ff.starts, Hessian: ff.opt.Hessian.String(), Subspace: ff.opt.Subspace.String(),
		Sampling: ff.sampling.String(), InitPriors: ff.priors, Method: ff.method.String(), MaxIter: ff.maxIter, RTol: ff.rtol, ATol: ff.atol, Parameters: names}
	for _, s := range res.Starts {
		ps := partStart{Start: s.Index, F: num(s.F), Status: s.Status.String(), Iterations: s.Iter, Evaluations: s.Evals, Failed: s.Failed,
			Redraws: s.Redraws, Reflections: s.Reflections, Switched: s.Switched, TimeSecs: s.Elapsed.Seconds(), X: s.X, Grad: s.Grad, X0: s.X0}
		if s.Err != nil {
			ps.Error = s.Err.Error()
		}
		if s.Status == fit.StartFailed {
			ps.X, ps.Grad = nil, nil // NaN has no JSON
		}
		fp.Results = append(fp.Results, ps)
	}
	if err := os.MkdirAll(ff.outDir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(ff.outDir, fmt.Sprintf("starts_%d.json", ff.first))
	return path, writeFile(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(fp)
	})
}

// fitMerge reads the task files in ff.merge and reports them as one fit.
// They must agree on the problem and every setting, and no start may
// come twice; starts no task file holds are listed and left out.
func fitMerge(ff *fitFlags, stdout io.Writer) error {
	paths, err := filepath.Glob(filepath.Join(ff.merge, "starts_*.json"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		if _, err := os.Stat(ff.merge); err != nil {
			return fmt.Errorf("-merge: %v", err)
		}
		return fmt.Errorf("-merge: no task files (starts_*.json) in %s", ff.merge)
	}
	var first *fitPart
	res := &fit.MultiResult{Best: -1}
	seen := map[int]string{}
	for _, path := range paths {
		fp, err := readPart(path)
		if err != nil {
			return err
		}
		if first == nil {
			first = fp
		} else if err := samePart(first, fp); err != nil {
			return fmt.Errorf("%s: %v, unlike %s", path, err, paths[0])
		}
		for _, ps := range fp.Results {
			if prev, dup := seen[ps.Start]; dup {
				return fmt.Errorf("%s: start %d is also in %s (the same task twice?)", path, ps.Start, prev)
			}
			seen[ps.Start] = path
			st, err := ps.start(len(fp.Parameters))
			if err != nil {
				return fmt.Errorf("%s: start %d: %v", path, ps.Start, err)
			}
			res.Starts = append(res.Starts, st)
			res.Elapsed = max(res.Elapsed, st.Elapsed)
		}
	}
	sort.Slice(res.Starts, func(a, b int) bool { return res.Starts[a].Index < res.Starts[b].Index })
	for k, s := range res.Starts {
		if s.Status != fit.StartFailed && !math.IsNaN(s.F) && (res.Best < 0 || s.F < res.Starts[res.Best].F) {
			res.Best = k
		}
	}
	var missing []int
	for i := range first.Starts {
		if _, ok := seen[i]; !ok {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(stdout, "pbgen fit -merge: %d of %d starts missing (no task file holds them): %v\n", len(missing), first.Starts, missing)
	}
	set, err := first.settings()
	if err != nil {
		return fmt.Errorf("%s: %v", paths[0], err)
	}
	set.outDir, set.plotDir, set.tol = ff.outDir, ff.plotDir, ff.tol
	p, err := petab.Load(set.path)
	if err != nil {
		return fmt.Errorf("%s: %v", set.path, err)
	}
	return finishFit(p, first.Parameters, res, set, stdout)
}

func readPart(path string) (*fitPart, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var fp fitPart
	if err := json.Unmarshal(b, &fp); err != nil {
		return nil, fmt.Errorf("%s: %v (not a pbgen fit task file?)", path, err)
	}
	if fp.Problem == "" || fp.Starts < 1 || len(fp.Parameters) == 0 {
		return nil, fmt.Errorf("%s: no problem, starts or parameters (not a pbgen fit task file?)", path)
	}
	if _, err := fp.settings(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &fp, nil
}

// samePart reports how b's settings differ from a's.
func samePart(a, b *fitPart) error {
	type key struct {
		Problem, Hessian, Subspace, Sampling, Method string
		Seed                                         uint64
		Starts, MaxIter                              int
		InitPriors                                   bool
		RTol, ATol                                   float64
	}
	ka := key{a.Problem, a.Hessian, a.Subspace, a.Sampling, a.Method, a.Seed, a.Starts, a.MaxIter, a.InitPriors, a.RTol, a.ATol}
	kb := key{b.Problem, b.Hessian, b.Subspace, b.Sampling, b.Method, b.Seed, b.Starts, b.MaxIter, b.InitPriors, b.RTol, b.ATol}
	if ka != kb {
		return fmt.Errorf("settings %+v", kb)
	}
	if fmt.Sprint(a.Parameters) != fmt.Sprint(b.Parameters) {
		return fmt.Errorf("parameters %v", b.Parameters)
	}
	return nil
}

// start rebuilds the fit.Start.
func (ps *partStart) start(n int) (fit.Start, error) {
	status, ok := fit.ParseStatus(ps.Status)
	if !ok {
		return fit.Start{}, fmt.Errorf("status %q", ps.Status)
	}
	st := fit.Start{Index: ps.Start, X0: ps.X0, Redraws: ps.Redraws}
	st.Result = fit.Result{X: ps.X, Grad: ps.Grad, F: math.NaN(), Status: status, Iter: ps.Iterations, Evals: ps.Evaluations, Failed: ps.Failed,
		Reflections: ps.Reflections, Switched: ps.Switched, Elapsed: time.Duration(ps.TimeSecs * float64(time.Second))}
	if ps.F != nil {
		st.F = *ps.F
	}
	if ps.Error != "" {
		st.Err = errors.New(ps.Error)
	}
	if len(st.X0) != n || status != fit.StartFailed && len(st.X) != n {
		return fit.Start{}, fmt.Errorf("x0 of %d and x of %d values for %d parameters", len(st.X0), len(st.X), n)
	}
	if status == fit.StartFailed {
		st.X = make([]float64, n)
		for i := range st.X {
			st.X[i] = math.NaN()
		}
	}
	return st, nil
}
