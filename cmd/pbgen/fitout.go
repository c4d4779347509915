package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"go.yaml.in/yaml/v3"

	"github.com/pbgen/pbgen/fit"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/objective"
)

// fitReport is a finished pbgen fit: the starts, ranked, with the
// log-likelihood and log prior of each final point.
type fitReport struct {
	p      *petab.Problem
	names  []string
	scales []objective.Scale
	lo, hi []float64 // bounds on the scales
	res    *fit.MultiResult
	ff     *fitFlags
	order  []int     // res.Starts indices, best first
	llh    []float64 // per start (NaN when it failed)
	prior  []float64
	// nominal is the log posterior and llh at the nominal values (NaN
	// when they cannot be evaluated).
	nominalLLH, nominalPost float64
	best                    *petab.EvalResult // at the best start, for the plots
}

// newFitReport evaluates every start's final point once more (the
// optimiser sees only f) and the nominal parameters, for the report.
func newFitReport(p *petab.Problem, names []string, res *fit.MultiResult, ff *fitFlags) (*fitReport, error) {
	r := &fitReport{p: p, names: names, res: res, ff: ff, order: ranked(res), nominalLLH: math.NaN(), nominalPost: math.NaN()}
	for _, i := range p.Objective.Estimated {
		r.scales = append(r.scales, p.Objective.Params[i].Scale)
	}
	o, err := p.FitObjective(&petab.FitOptions{Method: ff.method, RTol: ff.rtol, ATol: ff.atol})
	if err != nil {
		return nil, err
	}
	defer o.Close()
	r.lo, r.hi = o.Bounds()
	r.llh, r.prior = make([]float64, len(res.Starts)), make([]float64, len(res.Starts))
	for k, s := range res.Starts {
		r.llh[k], r.prior[k] = math.NaN(), math.NaN()
		if s.Status == fit.StartFailed || s.Status == fit.NotRun {
			continue
		}
		if _, err := o.Eval(s.X, nil, nil); err == nil {
			r.llh[k], r.prior[k] = o.Last().LLH, o.Last().LogPrior
		}
	}
	if th, err := p.Theta(nil); err == nil {
		for a := range th {
			th[a] = objective.ToScale(r.scales[a], th[a])
		}
		if _, err := o.Eval(th, nil, nil); err == nil {
			r.nominalLLH, r.nominalPost = o.Last().LLH, o.Last().LogPost
		}
	}
	if res.Best >= 0 {
		if r.best, err = p.Evaluate(r.linear(res.Starts[res.Best].X), nil); err != nil {
			return nil, fmt.Errorf("best start %d: %v", res.Best, err)
		}
	}
	return r, nil
}

// linear returns theta's values on the linear scale.
func (r *fitReport) linear(theta []float64) []float64 {
	x := make([]float64, len(theta))
	for a, v := range theta {
		x[a], _ = objective.FromScale(r.scales[a], v)
	}
	return x
}

// hits counts the starts whose log posterior is within -tol of the best.
func (r *fitReport) hits() int {
	if r.res.Best < 0 {
		return 0
	}
	best, n := r.res.Starts[r.res.Best].F, 0
	for _, s := range r.res.Starts {
		if s.F-best <= r.ff.tol {
			n++
		}
	}
	return n
}

// reachedNominal counts the starts whose log posterior is at least the
// nominal parameters' minus tol.
func (r *fitReport) reachedNominal() int {
	n := 0
	for _, s := range r.res.Starts {
		if -s.F >= r.nominalPost-r.ff.tol {
			n++
		}
	}
	return n
}

// summary writes the human-readable report.
func (r *fitReport) summary(w io.Writer) {
	res := r.res
	fmt.Fprintf(w, "%s: %d starts, %d estimated parameters, seed %d, -hessian %v, -subspace %v, -sampling %v, %.1fs\n",
		r.p.Path, len(res.Starts), len(r.names), r.ff.seed, r.ff.opt.Hessian, r.ff.opt.Subspace, r.ff.sampling, res.Elapsed.Seconds())
	counts := map[fit.Status]int{}
	redraws := 0
	for _, s := range res.Starts {
		counts[s.Status]++
		redraws += s.Redraws
	}
	var parts []string
	for st := fit.NotRun; st <= fit.Canceled; st++ {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%v %d", st, counts[st]))
		}
	}
	fmt.Fprintf(w, "exit reasons: %s; start points redrawn: %d\n", strings.Join(parts, ", "), redraws)
	if res.Best < 0 {
		fmt.Fprintln(w, "every start failed:", res.Starts[0].Err)
		return
	}
	b := res.Starts[res.Best]
	fmt.Fprintf(w, "best: start %d, llh %.17g, log posterior %.17g (%v after %d iterations)\n", b.Index, r.llh[res.Best], -b.F, b.Status, b.Iter)
	if !math.IsNaN(r.nominalLLH) {
		fmt.Fprintf(w, "nominal parameters: llh %.17g, log posterior %.17g (best - nominal: %+.6g)\n", r.nominalLLH, r.nominalPost, -b.F-r.nominalPost)
	}
	fmt.Fprintf(w, "starts within %g of the best log posterior: %d of %d\n", r.ff.tol, r.hits(), len(res.Starts))
	if !math.IsNaN(r.nominalPost) {
		fmt.Fprintf(w, "starts within %g of the nominal log posterior or better: %d of %d\n", r.ff.tol, r.reachedNominal(), len(res.Starts))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "parameter\tscale\testimate (scale)\tlinear\tlower\tupper")
	lin := r.linear(b.X)
	for a, id := range r.names {
		fmt.Fprintf(tw, "%s\t%v\t%.10g\t%.10g\t%.6g\t%.6g\n", id, r.scales[a], b.X[a], lin[a], r.lo[a], r.hi[a])
	}
	tw.Flush()
}

// write writes starts.tsv, fit.json, best_parameters.tsv and
// best_problem.yaml into dir.
func (r *fitReport) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "starts.tsv"), r.writeStarts); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "fit.json"), r.writeJSON); err != nil {
		return err
	}
	if r.res.Best < 0 {
		return nil
	}
	return r.writeProblem(dir)
}

// writeStarts writes one row per start, best first.
func (r *fitReport) writeStarts(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString("rank\tstart\tllh\tlog_prior\tlog_posterior\tstatus\titerations\tevaluations\tfailed_evaluations\tredraws\ttime_s")
	for _, id := range r.names {
		b.WriteString("\t" + id)
	}
	b.WriteString("\n")
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for rank, k := range r.order {
		s := r.res.Starts[k]
		fmt.Fprintf(&b, "%d\t%d\t%s\t%s\t%s\t%v\t%d\t%d\t%d\t%d\t%.3f", rank+1, s.Index, g(r.llh[k]), g(r.prior[k]), g(-s.F), s.Status, s.Iter, s.Evals, s.Failed, s.Redraws, s.Elapsed.Seconds())
		for _, v := range s.X {
			b.WriteString("\t" + g(v))
		}
		b.WriteString("\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// fitJSON is fit.json: settings, the best start and every start.
type fitJSON struct {
	Problem     string      `json:"problem"`
	Seed        uint64      `json:"seed"`
	Hessian     string      `json:"hessian"`
	Subspace    string      `json:"subspace"`
	Sampling    string      `json:"sampling"`
	Method      string      `json:"method"`
	Parameters  []string    `json:"parameters"`
	Scales      []string    `json:"scales"`
	NominalLLH  *float64    `json:"nominal_llh,omitempty"`
	Best        *startJSON  `json:"best,omitempty"`
	BestLinear  []float64   `json:"best_linear,omitempty"`
	WithinTol   int         `json:"starts_within_tol"`
	AtNominal   *int        `json:"starts_at_nominal,omitempty"`
	Tol         float64     `json:"tol"`
	Starts      []startJSON `json:"starts"`
	ElapsedSecs float64     `json:"elapsed_s"`
}

type startJSON struct {
	Start        int       `json:"start"`
	LLH          *float64  `json:"llh"`
	LogPosterior *float64  `json:"log_posterior"`
	Status       string    `json:"status"`
	Error        string    `json:"error,omitempty"`
	Iterations   int       `json:"iterations"`
	Evaluations  int       `json:"evaluations"`
	Redraws      int       `json:"redraws"`
	TimeSecs     float64   `json:"time_s"`
	X            []float64 `json:"x,omitempty"`
	X0           []float64 `json:"x0"`
}

// num is v for JSON, nil (null) when it is not finite.
func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func (r *fitReport) writeJSON(w io.Writer) error {
	doc := fitJSON{Problem: r.p.Path, Seed: r.ff.seed, Hessian: r.ff.opt.Hessian.String(), Subspace: r.ff.opt.Subspace.String(),
		Sampling: r.ff.sampling.String(), Method: r.ff.method.String(), Parameters: r.names, NominalLLH: num(r.nominalLLH),
		WithinTol: r.hits(), Tol: r.ff.tol, ElapsedSecs: r.res.Elapsed.Seconds()}
	for _, s := range r.scales {
		doc.Scales = append(doc.Scales, s.String())
	}
	if !math.IsNaN(r.nominalPost) {
		k := r.reachedNominal()
		doc.AtNominal = &k
	}
	for _, k := range r.order {
		s := r.res.Starts[k]
		sj := startJSON{Start: s.Index, LLH: num(r.llh[k]), LogPosterior: num(-s.F), Status: s.Status.String(), Iterations: s.Iter,
			Evaluations: s.Evals, Redraws: s.Redraws, TimeSecs: s.Elapsed.Seconds(), X0: s.X0}
		if s.Err != nil {
			sj.Error = s.Err.Error()
		}
		if s.Status != fit.StartFailed {
			sj.X = s.X
		}
		doc.Starts = append(doc.Starts, sj)
	}
	if r.res.Best >= 0 {
		doc.Best = &doc.Starts[0]
		doc.BestLinear = r.linear(r.res.Starts[r.res.Best].X)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// writeProblem writes the best parameters as PEtab: the parameter
// table(s) with nominalValue replaced for the estimated parameters
// (best_<file>), and best_problem.yaml, the problem's YAML with the
// parameter files renamed and every other file referred to where it is,
// so that pbgen petab dir/best_problem.yaml evaluates the best point.
func (r *fitReport) writeProblem(dir string) error {
	best := r.linear(r.res.Starts[r.res.Best].X)
	value := map[string]string{}
	for a, id := range r.names {
		value[id] = strconv.FormatFloat(best[a], 'g', -1, 64)
	}
	var files []string
	for _, q := range r.p.Parameters {
		if !slices.Contains(files, q.File) {
			files = append(files, q.File)
		}
	}
	renamed := map[string]string{} // absolute original -> new base name
	for _, f := range files {
		name := "best_" + filepath.Base(f)
		if len(files) == 1 {
			name = "best_parameters.tsv"
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		out, err := replaceNominal(f, data, value)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
			return err
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			return err
		}
		renamed[abs] = name
	}
	y, err := rewriteYAML(r.p.Path, dir, renamed)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "best_problem.yaml"), y, 0o644)
}

// replaceNominal returns the parameter table data with the nominalValue
// cells of the rows whose parameterId is in value replaced; every other
// byte is kept.
func replaceNominal(file string, data []byte, value map[string]string) ([]byte, error) {
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: empty parameter table", file)
	}
	header := strings.Split(strings.TrimRight(strings.TrimPrefix(lines[0], "\ufeff"), "\r\n"), "\t")
	idCol, nomCol := slices.Index(header, "parameterId"), slices.Index(header, "nominalValue")
	if idCol < 0 || nomCol < 0 {
		return nil, fmt.Errorf("%s: no parameterId or nominalValue column", file)
	}
	var b strings.Builder
	b.WriteString(lines[0])
	for _, line := range lines[1:] {
		body := strings.TrimRight(line, "\r\n")
		cells := strings.Split(body, "\t")
		if idCol < len(cells) && nomCol < len(cells) {
			if v, ok := value[cells[idCol]]; ok {
				cells[nomCol] = v
				line = strings.Join(cells, "\t") + line[len(body):]
			}
		}
		b.WriteString(line)
	}
	return []byte(b.String()), nil
}

// fileKeys are the YAML keys (v1 and v2) whose values are file paths.
var fileKeys = map[string]bool{
	"parameter_file": true, "parameter_files": true, "sbml_files": true, "condition_files": true,
	"measurement_files": true, "observable_files": true, "visualization_files": true,
	"experiment_files": true, "mapping_files": true, "location": true,
}

// rewriteYAML returns the problem YAML at path with each file path
// rewritten for a YAML in dir: renamed files by their new names, the
// others relative to dir (absolute if no relative path exists).
func rewriteYAML(path, dir string, renamed map[string]string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	base, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	var fix func(n *yaml.Node, files bool)
	fix = func(n *yaml.Node, files bool) {
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				fix(c, files)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				fix(n.Content[i+1], fileKeys[n.Content[i].Value])
			}
		case yaml.ScalarNode:
			if !files || n.Value == "" {
				return
			}
			orig := n.Value
			if !filepath.IsAbs(orig) {
				orig = filepath.Join(base, orig)
			}
			if name, ok := renamed[orig]; ok {
				n.Value = name
			} else if rel, err := filepath.Rel(absDir, orig); err == nil {
				n.Value = rel
			} else {
				n.Value = orig
			}
		}
	}
	fix(&doc, false)
	return yaml.Marshal(&doc)
}
