package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/pbgen/pbgen/fit"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/sens"
)

// pbgen fit estimates the parameters of a PEtab problem: it minimises the
// negative log posterior (the negative log-likelihood without priors) on
// the parameters' scales with package fit's trust-region optimiser from
// many seeded start points, and reports every start and the best.
//
// Start i's point depends on (-seed, i, -starts) only, and each worker
// has an objective of its own, so the results do not depend on -j as
// long as the objective's results do not depend on what it evaluated
// before (its solvers keep some state between evaluations, such as how a
// steady state was found).

const fitSynopsis = "pbgen fit [flags] problem.yaml | pbgen fit -starts N -starts-per-task K [-start-index I] -o DIR [flags] problem.yaml | pbgen fit -merge DIR [-o DIR] [-plot DIR]"

// fitFlags are pbgen fit's settings after checking.
type fitFlags struct {
	path     string
	starts   int
	seed     uint64
	jobs     int
	method   sens.Method
	opt      fit.Options
	sampling fit.Sampling
	priors   bool
	rtol     float64
	atol     float64
	outDir   string
	plotDir  string
	tol      float64
	maxIter  int
	first    int // first start of this task, -1 for all
	perTask  int
	merge    string
}

// cmdFit is pbgen fit.
func cmdFit(args []string, stdout, stderr io.Writer) error {
	ff, err := parseFitFlags(args, stderr)
	if err != nil {
		return err
	}
	if ff.merge != "" {
		return fitMerge(ff, stdout)
	}
	p, err := petab.Load(ff.path)
	if err != nil {
		return listErrors(stderr, err)
	}
	res, names, err := runFit(p, ff, stderr)
	if err != nil {
		return err
	}
	if ff.first >= 0 {
		path, err := writePart(ff, names, res)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "pbgen fit: starts %d to %d of %d written to %s\n", ff.first, ff.first+len(res.Starts)-1, ff.starts, path)
		return nil
	}
	return finishFit(p, names, res, ff, stdout)
}

// runFit runs the starts of ff (all, or one task's) on p.
func runFit(p *petab.Problem, ff *fitFlags, stderr io.Writer) (*fit.MultiResult, []string, error) {
	fopt := &petab.FitOptions{Method: ff.method, RTol: ff.rtol, ATol: ff.atol, FIM: ff.opt.Hessian == fit.FIM || ff.opt.Hessian == fit.Hybrid}
	probe, err := p.FitObjective(fopt)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", ff.path, err)
	}
	names := probe.Names()
	probe.Close()
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("%s: no parameter is estimated (estimate = 1 in the parameter table): nothing to fit", ff.path)
	}
	held := ff.starts
	if ff.first >= 0 {
		held = min(ff.perTask, ff.starts-ff.first)
	}
	if b := fitFootprint(ff.starts, held, len(names)); b > maxHeldBytes {
		return nil, nil, &usageError{cmd: "pbgen fit", msg: fmt.Sprintf("-starts %d: with %d estimated parameters the starts would hold about %.3g GB in memory, over the limit of %.3g GB; run fewer", ff.starts, len(names), float64(b)/1e9, float64(maxHeldBytes)/1e9), synopsis: "usage: " + fitSynopsis}
	}
	mo := &fit.MultiOptions{Starts: ff.starts, Seed: ff.seed, Workers: ff.jobs, Sampling: ff.sampling, Options: &ff.opt}
	if ff.first >= 0 {
		mo.FirstStart, mo.Starts, mo.Total = ff.first, min(ff.perTask, ff.starts-ff.first), ff.starts
	}
	if ff.priors {
		mo.Init = func(_ int, rng *rand.Rand, dst []float64) { p.DrawInitPriors(rng, dst) }
	}
	if f, ok := stderr.(*os.File); ok && isTerminal(f) {
		mo.Progress = func(pr fit.Progress) { fmt.Fprintf(f, "\rpbgen fit: %v\x1b[K", fitProgress(pr)) }
	}
	// One objective per start: the objective keeps solver state between
	// evaluations, so a start's last digits would otherwise depend on the
	// starts its worker ran before, and so on -j. Building one costs
	// 0.3 ms (Bertozzi) to 51 ms (Raimundez), less than an evaluation.
	mo.ObjectivePerStart = true
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := fit.MultiStart(ctx, func() (fit.Objective, error) { return p.FitObjective(fopt) }, mo)
	if mo.Progress != nil {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return nil, nil, err
	}
	if ctx.Err() != nil {
		return nil, nil, errors.New("interrupted")
	}
	return res, names, nil
}

// finishFit reports a complete fit: the summary on stdout, the files
// and the plots.
func finishFit(p *petab.Problem, names []string, res *fit.MultiResult, ff *fitFlags, stdout io.Writer) error {
	rep, err := newFitReport(p, names, res, ff)
	if err != nil {
		return err
	}
	rep.summary(stdout)
	if ff.outDir != "" {
		if err := rep.write(ff.outDir); err != nil {
			return err
		}
	}
	if ff.plotDir != "" {
		if err := rep.plots(ff.plotDir); err != nil {
			return err
		}
	}
	return nil
}

// fitProgress is the progress line: the best is shown as a
// log-likelihood (the negative of f without priors).
func fitProgress(pr fit.Progress) string {
	s := fmt.Sprintf("%d/%d starts", pr.Done, pr.Total)
	if !math.IsInf(pr.Best, 1) {
		s += fmt.Sprintf(", best log posterior %.10g", -pr.Best)
	}
	if pr.Failed > 0 {
		s += fmt.Sprintf(", %d failed", pr.Failed)
	}
	if pr.Redraws > 0 {
		s += fmt.Sprintf(", %d start points redrawn", pr.Redraws)
	}
	if pr.Remaining > 0 {
		s += fmt.Sprintf(", ETA %v", pr.Remaining.Round(1e9))
	}
	return s
}

// parseFitFlags reads and checks pbgen fit's flags: every hostile value
// is a usage error (exit 2) naming the flag.
func parseFitFlags(args []string, stderr io.Writer) (*fitFlags, error) {
	fs := newFlagSet("pbgen fit", stderr, fitSynopsis)
	starts := fs.Int("starts", 50, "number of start points")
	seed := fs.Uint64("seed", 1, "random seed; start I's point depends on (seed, I, -starts) only")
	jobs := fs.Int("j", 0, "starts run at once, each worker with its own objective (0: the number of CPUs)")
	method := fs.String("method", "fs", "sensitivity `method` for the gradient and Fisher information: fs, pbsr, pbs or exp")
	hessian := fs.String("hessian", "fim", "Hessian approximation: fim (Fisher information, Gauss-Newton), bfgs, sr1 or hybrid (FIM, then BFGS when the FIM stalls: Fides's HybridFixed)")
	subspace := fs.String("subspace", "2d", "trust-region subproblem: 2d (exact in the gradient/Newton subspace) or full")
	sampling := fs.String("sampling", "lhs", "start points: lhs (Latin hypercube) or uniform, on the parameter scales within the bounds")
	priors := fs.Bool("init-priors", true, "draw parameters that have a PEtab initialization prior from it instead")
	maxIter := fs.Int("maxiter", 1000, "iterations per start (each one objective evaluation)")
	rtol, atol := tolFlag{1e-6, true}, tolFlag{1e-8, false}
	fs.Var(&rtol, "rtol", "relative `tolerance` of the ODE solver, in [1e-14, 1)")
	fs.Var(&atol, "atol", "absolute `tolerance` of the ODE solver, > 0")
	tol := fs.Float64("tol", 0.1, "a start counts as reaching the best when its log posterior is within this of the best's")
	outDir := fs.String("o", "", "write starts.tsv, best_parameters.tsv, best_problem.yaml and fit.json into `dir`")
	plotDir := fs.String("plot", "", "write waterfall.png, parameters.png and data-against-fit plots into `dir`")
	startIndex := fs.Int("start-index", -1, "run only starts I, ..., I+K-1 of -starts (K = -starts-per-task) and write DIR/starts_<I>.json for -merge; default $"+slurmTaskEnv+" times K when set")
	perTask := fs.Int("starts-per-task", 1, "starts per task (-start-index, or a Slurm array task)")
	merge := fs.String("merge", "", "combine the task files (starts_*.json) in `dir` into the report of the whole fit (with -o and -plot)")
	nargs := 1
	for _, a := range args {
		if a == "--" {
			break
		}
		if n := strings.TrimLeft(a, "-"); a != n && (n == "merge" || strings.HasPrefix(n, "merge=")) {
			nargs = 0
		}
	}
	if err := parseFlags(fs, args, nargs); err != nil {
		return nil, err
	}
	usage := func(format string, a ...any) error {
		return &usageError{cmd: "pbgen fit", msg: fmt.Sprintf(format, a...), synopsis: "usage: " + fitSynopsis}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	ff := &fitFlags{path: fs.Arg(0), starts: *starts, seed: *seed, jobs: *jobs, priors: *priors, rtol: rtol.v, atol: atol.v, outDir: *outDir, plotDir: *plotDir, tol: *tol,
		maxIter: *maxIter, first: -1, perTask: *perTask, merge: *merge}
	if *merge != "" {
		for _, name := range []string{"starts", "seed", "j", "method", "hessian", "subspace", "sampling", "init-priors", "maxiter", "rtol", "atol", "start-index", "starts-per-task"} {
			if set[name] {
				return nil, usage("-%s has no effect with -merge (the task files record their settings)", name)
			}
		}
		if !(*tol >= 0) || math.IsInf(*tol, 0) {
			return nil, usage("-tol %g: want a finite value of 0 or more", *tol)
		}
		return ff, nil
	}
	if *perTask < 1 {
		return nil, usage("-starts-per-task %d: want at least 1", *perTask)
	}
	if set["start-index"] {
		if *startIndex < 0 {
			return nil, usage("-start-index %d: want 0 or more", *startIndex)
		}
		ff.first = *startIndex
	} else if v, ok := os.LookupEnv(slurmTaskEnv); ok && v != "" {
		t, err := strconv.Atoi(v)
		if err != nil || t < 0 {
			return nil, fmt.Errorf("$%s = %q is not a task index (set -start-index)", slurmTaskEnv, v)
		}
		ff.first = t * *perTask
	}
	if *starts < 1 {
		return nil, usage("-starts %d: want at least 1", *starts)
	}
	if ff.first >= *starts {
		return nil, usage("start index %d is not one of the %d starts of -starts (indices 0 to %d)", ff.first, *starts, *starts-1)
	}
	held := *starts
	if ff.first >= 0 {
		held = min(*perTask, *starts-ff.first)
	}
	if b := fitFootprint(*starts, held, 1); b > maxHeldBytes {
		return nil, usage("-starts %d: the starts would hold about %.3g GB in memory, over the limit of %.3g GB; run fewer", *starts, float64(b)/1e9, float64(maxHeldBytes)/1e9)
	}
	if ff.first >= 0 && *outDir == "" {
		return nil, usage("-start-index (or $%s) needs -o: the task file is the result", slurmTaskEnv)
	}
	if ff.first >= 0 && *plotDir != "" {
		return nil, usage("-plot with -start-index: plot the merged fit (pbgen fit -merge DIR -plot DIR)")
	}
	var err error
	if ff.method, err = sens.ParseMethod(*method); err != nil {
		return nil, usage("-method %q: want fs, pbsr, pbs or exp", *method)
	}
	h, ok := fit.ParseHessian(*hessian)
	if !ok {
		return nil, usage("-hessian %q: want fim, bfgs, sr1 or hybrid", *hessian)
	}
	ff.opt = fit.Options{Hessian: h, MaxIter: *maxIter}
	switch *subspace {
	case "2d":
		ff.opt.Subspace = fit.TwoD
	case "full":
		ff.opt.Subspace = fit.Full
	default:
		return nil, usage("-subspace %q: want 2d or full", *subspace)
	}
	switch *sampling {
	case "lhs":
		ff.sampling = fit.LatinHypercube
	case "uniform":
		ff.sampling = fit.Uniform
	default:
		return nil, usage("-sampling %q: want lhs or uniform", *sampling)
	}
	switch {
	case *starts < 1:
		return nil, usage("-starts %d: want at least 1", *starts)
	case *jobs < 0:
		return nil, usage("-j %d: want 0 (the number of CPUs) or more", *jobs)
	case *maxIter < 1:
		return nil, usage("-maxiter %d: want at least 1", *maxIter)
	case !(*tol >= 0) || math.IsInf(*tol, 0):
		return nil, usage("-tol %g: want a finite value of 0 or more", *tol)
	}
	if ff.jobs == 0 {
		ff.jobs = runtime.NumCPU()
	}
	return ff, nil
}

// ranked returns the indices of res.Starts from the lowest f to the
// highest, failed starts (NaN) last, ties by index.
func ranked(res *fit.MultiResult) []int {
	idx := make([]int, len(res.Starts))
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) float64 {
		f := res.Starts[i].F
		if math.IsNaN(f) {
			return math.Inf(1)
		}
		return f
	}
	sort.SliceStable(idx, func(a, b int) bool { return key(idx[a]) < key(idx[b]) })
	return idx
}

// fitFootprint estimates the bytes a fit of total starts, held of them
// in this process, with n estimated parameters keeps: the Latin
// hypercube's strata (n x total indices), and per held start its start
// point, its result (x and gradient) and their records (about 512 bytes).
// Checked against maxHeldBytes (sim's and sample's rule) before anything
// is allocated, so that a huge -starts is an error naming the flag, not
// the runtime's out-of-memory crash.
func fitFootprint(total, held, n int) int64 {
	perm := float64(n) * float64(total) * 8
	starts := float64(held) * (float64(3*n)*8 + 512)
	if v := perm + starts; v < math.MaxInt64/2 {
		return int64(v)
	}
	return math.MaxInt64 / 2
}
