package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pbgen/pbgen/mcmc"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/sens"
)

// pbgen sample draws from the posterior of a PEtab problem with the
// samplers of package mcmc, the posterior being petab.Target (theta on
// the parameter scales, priors as densities of theta, metric = Fisher
// information + prior curvature).
//
// Three modes share the flags:
//
//	pbgen sample [flags] problem.yaml                      all chains here
//	pbgen sample -chain-index I -chains N -o DIR problem.yaml   chain I of N (a Slurm array task)
//	pbgen sample -merge DIR [-plot DIR]                    diagnostics of the chain files in DIR
//
// Chain I's random numbers depend on (-seed, I) only, and each chain gets
// an objective of its own, so chain I run alone writes the same file,
// byte for byte, as chain I of a run of all chains with the same seed and
// settings. The chain's wall-clock times, which cannot repeat, go to a
// sidecar, chain_<I+1>.timing.json; -merge reads it for ESS_bulk/s and
// reports that column as n/a when a chain's sidecar is missing. With -j below
// the number of chains, a goroutine's objective serves several chains in
// turn; the files are then the same only if the objective's results do
// not depend on what it evaluated before (its solvers keep state between
// evaluations, such as how a steady state was found), which is why -j
// defaults to one goroutine per chain.

const sampleSynopsis = "pbgen sample [flags] problem.yaml | pbgen sample -chain-index I -chains N -o DIR [flags] problem.yaml | pbgen sample -merge DIR [-plot DIR]"

// slurmTaskEnv is the variable a Slurm job array sets in each task.
const slurmTaskEnv = "SLURM_ARRAY_TASK_ID"

// sampleFlags are pbgen sample's flags, checked when parsed (countFlag,
// tolFlag) and together by check.
type sampleFlags struct {
	sampler, method, initMode  string
	chains, warmup, samples, j countFlag
	chainIndex                 countFlag
	seed                       seedFlag
	outDir, plotDir, merge     string
	rtol, atol                 tolFlag
	errcon                     bool
	set                        map[string]bool // the flags given
}

// sampleHelp is printed after the flags by pbgen sample -h.
const sampleHelp = `
Checked before anything is read: -chains and -samples at least 1, -warmup
and -j 0 or more, -rtol in [1e-14, 1), -atol > 0, -o and -plot writable.
Every kept draw is held in memory until the run ends (R-hat and ESS rank
and autocorrelate all of them), so a run that would take more than 8 GiB
(pbgen sim's limit) is refused with the estimate: about chains x samples
x (parameters + 22) x 8 bytes (4 more numbers a draw and 1 MB a parameter
with -plot), plus for each chain running at once 8 bytes a warm-up
iteration and an objective as large as the first, measured. Give fewer
-samples, -warmup or -chains, fewer chains at once with -j, or run one
chain per process with -chain-index and combine the files with -merge.
`

// parseSampleFlags parses and checks pbgen sample's command line.
func parseSampleFlags(args []string, stderr io.Writer) (*sampleFlags, *flag.FlagSet, error) {
	fs := newFlagSet("pbgen sample", stderr, sampleSynopsis)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n", sampleSynopsis)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), sampleHelp)
	}
	f := &sampleFlags{chains: countFlag{4, 1}, warmup: countFlag{1000, 0}, samples: countFlag{1000, 1}, j: countFlag{0, 0},
		chainIndex: countFlag{-1, 0}, rtol: tolFlag{1e-6, true}, atol: tolFlag{1e-8, false}}
	fs.StringVar(&f.sampler, "sampler", "smmala", "`kernel`: smmala (needs gradient and Fisher information), mala (gradient) or rwm (neither)")
	fs.StringVar(&f.method, "method", "fs", "sensitivity `method` for the gradient and Fisher information: fs, pbsr, pbs, exp or auto (fs or pbsr chosen once per\n"+
		"objective, as pbgen petab's default; fs: the fastest per evaluation on CaMKII in make bench)")
	fs.Var(&f.chains, "chains", "`number` of chains, at least 1 (with -chain-index: of the whole analysis)")
	fs.Var(&f.warmup, "warmup", "warm-up (adaptation) `iterations` per chain, discarded (0 or more)")
	fs.Var(&f.samples, "samples", "kept `iterations` per chain, at least 1; all are held in memory (see below)")
	f.seed = 1
	fs.Var(&f.seed, "seed", "random `seed`, 0 to 18446744073709551615; chain I uses a generator derived from (seed, I) only")
	fs.Var(&f.j, "j", "`number` of chains run at once, each on its own goroutine and objective (0: all of them; more than -chains: -chains)")
	fs.StringVar(&f.outDir, "o", "", "write CmdStan CSV files chain_1.csv, ... and their timing sidecars chain_1.timing.json, ... into `dir`")
	fs.StringVar(&f.plotDir, "plot", "", "write trace, histogram and pair plots (PNG) into `dir`")
	fs.StringVar(&f.initMode, "init", "nominal", "initial points: nominal (the parameter table's nominal values) or prior (drawn from the PEtab initialization priors, uniform on the parameter scale within the bounds where there is none: dispersed starts, which R-hat needs to be telling, but from far in the box chains can take long to find the posterior)")
	fs.Var(&f.rtol, "rtol", "relative `tolerance` of the ODE solver, in [1e-14, 1)")
	fs.Var(&f.atol, "atol", "absolute `tolerance` of the ODE solver, > 0")
	fs.BoolVar(&f.errcon, "errcon", true, "fs: include S in the error test and step-size choice, as pbgen petab -errcon (default on,\n"+
		"as AMICI); -errcon=false takes the state's steps alone: faster, the gradient and FIM less accurate")
	fs.Var(&f.chainIndex, "chain-index", "run only chain `I` (0-based, of -chains) and write DIR/chain_<I+1>.csv; default $"+slurmTaskEnv+" when set")
	fs.StringVar(&f.merge, "merge", "", "combine the chain files (*.csv) in `dir`: summary on stdout, plots in -plot")
	// -merge takes a folder instead of the problem file.
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
		return nil, fs, err
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	return f, fs, f.check()
}

// sampleUsage is a usage error of pbgen sample.
func sampleUsage(format string, a ...any) error {
	return &usageError{cmd: "pbgen sample", msg: fmt.Sprintf(format, a...), synopsis: "usage: " + sampleSynopsis}
}

// check refuses flags that mean nothing together and outputs that cannot
// be written.
func (f *sampleFlags) check() error {
	if f.merge != "" {
		for _, name := range []string{"sampler", "method", "chains", "warmup", "samples", "seed", "j", "o", "init", "rtol", "atol", "errcon", "chain-index"} {
			if f.set[name] {
				return sampleUsage("-%s has no effect with -merge (the chain files record their settings)", name)
			}
		}
	} else if f.warmup.v > math.MaxInt-f.samples.v {
		return sampleUsage("-warmup %d and -samples %d: the number of iterations overflows", f.warmup.v, f.samples.v)
	}
	if f.set["merge"] && f.merge == "" {
		return sampleUsage("-merge needs a directory")
	}
	if m := strings.ToLower(f.method); f.set["errcon"] && m != "fs" && m != "auto" {
		return sampleUsage("-errcon applies to -method fs only (and to auto where it chooses fs)")
	}
	for _, d := range []struct{ name, dir string }{{"o", f.outDir}, {"plot", f.plotDir}} {
		if f.set[d.name] && d.dir == "" {
			return sampleUsage("-%s needs a directory", d.name)
		}
		if d.dir != "" {
			if err := checkOutDir(d.name, d.dir); err != nil {
				return sampleUsage("%v", err)
			}
		}
	}
	return nil
}

// checkSampleMemory refuses a run whose footprint (mcmc.EstimateFootprint)
// exceeds maxHeldBytes, naming the flags that set it and the figure.
func checkSampleMemory(opt *mcmc.Options, dim int, targetBytes float64, f *sampleFlags) error {
	fp := mcmc.EstimateFootprint(opt, dim, targetBytes, f.plotDir != "")
	if fp.Total() <= maxHeldBytes {
		return nil
	}
	what := fmt.Sprintf("-samples %d, -warmup %d and -chains %d", f.samples.v, f.warmup.v, f.chains.v)
	if opt.Chains == 1 && f.chains.v > 1 {
		what = fmt.Sprintf("-samples %d and -warmup %d (one chain of -chains %d)", f.samples.v, f.warmup.v, f.chains.v)
	}
	params := fmt.Sprintf("%d parameters", dim)
	if targetBytes == 0 {
		params = "at least 1 parameter: counted before the problem is read"
	}
	return sampleUsage("%s would need about %.3g GB in memory (%v; %d chains running at once, %s), more than the limit of %d GiB: give fewer -samples, -warmup or -chains, fewer chains at once with -j, or one chain per process with -chain-index",
		what, fp.Total()/1e9, fp, min(opt.Workers, opt.Chains), params, maxHeldBytes>>30)
}

// cmdSample is pbgen sample.
func cmdSample(args []string, stdout, stderr io.Writer) error {
	f, fs, err := parseSampleFlags(args, stderr)
	if err != nil {
		return err
	}
	if f.merge != "" {
		return sampleMerge(f.merge, f.plotDir, stdout)
	}
	kind, ok := mcmc.ParseSampler(f.sampler)
	if !ok {
		return sampleUsage("-sampler %q: want smmala, mala or rwm", f.sampler)
	}
	m, err := sens.ParseMethod(f.method)
	if err != nil {
		return sampleUsage("-method %q: want pbsr, pbs, exp, fs or auto", f.method)
	}
	var mode petab.InitMode
	switch f.initMode {
	case "prior":
		mode = petab.InitPrior
	case "nominal":
		mode = petab.InitNominal
	default:
		return sampleUsage("-init %q: want prior or nominal", f.initMode)
	}
	single := -1
	if f.set["chain-index"] {
		single = f.chainIndex.v
	} else if v, ok := os.LookupEnv(slurmTaskEnv); ok && v != "" {
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 {
			return fmt.Errorf("$%s = %q is not a chain index (set -chain-index)", slurmTaskEnv, v)
		}
		single = i
	}
	if single >= f.chains.v {
		src := fmt.Sprintf("-chain-index %d", single)
		if !f.set["chain-index"] {
			src = fmt.Sprintf("$%s = %d", slurmTaskEnv, single)
		}
		return sampleUsage("%s is not one of the %d chains of -chains (indices 0 to %d)", src, f.chains.v, f.chains.v-1)
	}
	if single >= 0 && f.outDir == "" {
		return sampleUsage("-chain-index (or $%s) needs -o: the chain file is the result", slurmTaskEnv)
	}
	opt := &mcmc.Options{Sampler: kind, Chains: f.chains.v, Warmup: f.warmup.v, Samples: f.samples.v, Seed: uint64(f.seed)}
	if f.warmup.v == 0 {
		opt.Warmup = -1 // mcmc's "none"; its zero means the default
	}
	if single >= 0 {
		opt.Chains, opt.FirstChain = 1, single
	}
	// One goroutine and one objective per chain by default: a chain then
	// never shares an objective (whose solvers keep state between
	// evaluations) with another, which is what makes a chain run alone
	// identical to the same chain in a run of all.
	opt.Workers = opt.Chains
	if f.j.v > 0 {
		opt.Workers = min(f.j.v, opt.Chains)
	}
	// With one parameter and objectives of no size, before the problem is
	// read: -samples 1e12 is refused at once.
	if err := checkSampleMemory(opt, 1, 0, f); err != nil {
		return err
	}
	return sampleRun(fs.Arg(0), f, opt, kind, m, mode, single, stdout, stderr)
}

// sampleRun loads the problem, checks the run's memory with the real
// dimension and the measured size of one objective, samples and reports.
func sampleRun(path string, f *sampleFlags, opt *mcmc.Options, kind mcmc.Sampler, m sens.Method, mode petab.InitMode, single int, stdout, stderr io.Writer) error {
	p, err := petab.Load(path)
	if err != nil {
		return listErrors(stderr, err)
	}
	topt := &petab.TargetOptions{Method: m, RTol: f.rtol.v, ATol: f.atol.v, NoErrCon: !f.errcon, Grad: kind != mcmc.RWM, FIM: kind == mcmc.SMMALA}
	before := liveHeap()
	probe, err := p.Target(topt)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	names := probe.Names()
	// Check once that initial points can be drawn (a missing nominal value
	// or unbounded parameter is the same for every chain), so that Init
	// below cannot fail.
	theta := make([]float64, len(names))
	if err := p.InitialPoint(mode, rand.New(rand.NewPCG(0, 0)), theta); err != nil {
		probe.Close()
		return fmt.Errorf("-init %s: %v", f.initMode, err)
	}
	// One evaluation sizes the objective's solvers and workspaces; an
	// error here is the chains' to report.
	n := len(names)
	probe.Eval(theta, make([]float64, n), make([]float64, n*n))
	targetBytes := max(liveHeap()-before, 1)
	probe.Close()
	if err := checkSampleMemory(opt, n, targetBytes, f); err != nil {
		return err
	}
	opt.Names = names
	opt.Init = func(_ int, rng *rand.Rand, dst []float64) {
		if p.InitialPoint(mode, rng, dst) != nil {
			dst[0] = math.NaN() // rejected by Run; cannot happen after the check above
		}
	}
	if tty, ok := stderr.(*os.File); ok && isTerminal(tty) {
		opt.Progress = func(pr mcmc.Progress) { fmt.Fprintf(tty, "\rpbgen sample: %v\x1b[K", pr) }
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := mcmc.Run(ctx, func() (mcmc.Target, error) { return p.Target(topt) }, opt)
	if opt.Progress != nil {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return errors.New("interrupted")
		}
		return err
	}
	if single >= 0 {
		path, err := writeChain(f.outDir, res, single, f.chains.v)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "pbgen sample: chain %d of %d written to %s\n", single, f.chains.v, path)
	} else if f.outDir != "" {
		if _, err := mcmc.WriteCSVFiles(f.outDir, res); err != nil {
			return err
		}
	}
	return report(res, f.plotDir, stdout)
}

// writeChain writes the one chain of res as chain index of a run of total
// chains: DIR/chain_<index+1>.csv with the id and num_chains that file
// has in the run of all chains.
func writeChain(dir string, res *mcmc.Result, index, total int) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// WriteCSV numbers a chain by its position and counts the chains of
	// its Result: place the chain at its index among total.
	all := *res
	all.Chains = make([]mcmc.Chain, total)
	all.Chains[index] = res.Chains[0]
	path := filepath.Join(dir, fmt.Sprintf("chain_%d.csv", index+1))
	if err := writeFile(path, func(w io.Writer) error { return mcmc.WriteCSV(w, &all, index) }); err != nil {
		return path, err
	}
	return path, writeFile(mcmc.TimingPath(path), func(w io.Writer) error { return mcmc.WriteTiming(w, &res.Chains[0]) })
}

// report writes the summary table and, with dir, the plots.
func report(res *mcmc.Result, plotDir string, stdout io.Writer) error {
	if err := mcmc.WriteSummary(stdout, res); err != nil {
		return err
	}
	if plotDir != "" {
		if _, err := mcmc.WritePlots(plotDir, res, 4); err != nil {
			return err
		}
	}
	return nil
}

// sampleMerge reads every *.csv in dir as a chain file and reports them as
// one run.
func sampleMerge(dir, plotDir string, stdout io.Writer) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return fmt.Errorf("-merge: %v", err)
		}
		return fmt.Errorf("-merge: no chain files (*.csv) in %s", dir)
	}
	if need := mergeFootprint(paths, plotDir != ""); need > maxHeldBytes {
		return fmt.Errorf("-merge %s: the %d chain files would need about %.3g GB in memory to read and summarise, more than the limit of %d GiB (pbgen sim's)",
			dir, len(paths), need/1e9, maxHeldBytes>>30)
	}
	res, err := readChains(paths)
	if err != nil {
		return err
	}
	return report(res, plotDir, stdout)
}

// mergeFootprint estimates the memory of reading the chain files and
// reporting on them, from each file's size and the settings and header
// at its top (num_samples, num_warmup, save_warmup, the columns; no more
// rows than the file's size can hold), before any file is read whole: the Result and the reports as
// mcmc.EstimateFootprint counts them, and the largest file's transient
// cost (its bytes twice, as read and as a string, and its parsed rows).
// A file it cannot make sense of counts as nothing; readChains then
// reports what is wrong with it.
func mergeFootprint(paths []string, plots bool) float64 {
	var rows, dim int
	var transient float64
	for _, path := range paths {
		n, cols, ok := chainFileShape(path)
		st, err := os.Stat(path)
		if !ok || err != nil {
			continue
		}
		// A row holds cols numbers and separators, 2 bytes each at
		// least: a file cannot hold more rows than its size allows,
		// whatever its num_samples says (readChains names the mismatch).
		n = min(n, int(st.Size()/int64(2*cols)))
		rows, dim = max(rows, n), max(dim, cols-3)
		transient = max(transient, 2*float64(st.Size())+float64(n)*(24+8*float64(cols)))
	}
	if rows == 0 {
		return 0
	}
	fp := mcmc.EstimateFootprint(&mcmc.Options{Chains: len(paths), Samples: rows, Warmup: -1, Workers: 1}, dim, 0, plots)
	return fp.Draws + fp.Reports + transient
}

// chainFileShape reads the comment lines at the top of a chain file up
// to its header: the rows it holds (num_samples, plus num_warmup when
// save_warmup = 1) and its number of columns.
func chainFileShape(path string) (rows, cols int, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	set := map[string]string{}
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "#") {
			samples, err1 := strconv.Atoi(set["num_samples"])
			warmup, err2 := strconv.Atoi(set["num_warmup"])
			if err1 != nil || err2 != nil || samples < 0 || warmup < 0 {
				return 0, 0, false
			}
			if set["save_warmup"] == "1" {
				samples += warmup
			}
			return samples, strings.Count(line, ",") + 1, true
		}
		if k, v, found := strings.Cut(strings.TrimPrefix(line, "#"), "="); found {
			set[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return 0, 0, false
}

// readChains rebuilds a Result from chain files written by pbgen sample
// (CmdStan layout). They must agree on the sampler, the columns and the
// numbers of iterations, and no chain id may come twice (a chain counted
// twice would fake agreement between chains). Chains are ordered by id.
// The Result's Elapsed is the longest chain's time: the chains of a
// merged run may have run anywhere, one after the other or at once. If
// any chain's times are unknown, every chain's are set to zero (unknown),
// so that the summary does not divide by the time of some chains only.
// Preconditioners are not read back.
func readChains(paths []string) (*mcmc.Result, error) {
	res := &mcmc.Result{}
	seen := map[int]string{}
	for k, path := range paths {
		ch, f, err := readChain(path)
		if err != nil {
			return nil, err
		}
		s, ok := mcmc.ParseSampler(f.Config["algorithm"])
		if !ok {
			return nil, fmt.Errorf("%s: algorithm %q is not smmala, mala or rwm (not a pbgen sample file?)", path, f.Config["algorithm"])
		}
		o := mcmc.Options{Sampler: s}
		var bad []string
		geti := func(key string, dst *int) {
			v, err := strconv.Atoi(f.Config[key])
			if err != nil {
				bad = append(bad, key)
			}
			*dst = v
		}
		getf := func(key string, dst *float64) {
			v, err := strconv.ParseFloat(f.Config[key], 64)
			if err != nil {
				bad = append(bad, key)
			}
			*dst = v
		}
		var id int
		geti("num_samples", &o.Samples)
		geti("num_warmup", &o.Warmup)
		geti("id", &id)
		getf("target_accept", &o.TargetAccept)
		getf("initial_step_size", &o.StepSize)
		if o.Seed, err = strconv.ParseUint(f.Config["seed"], 10, 64); err != nil {
			bad = append(bad, "seed")
		}
		if len(bad) > 0 {
			return nil, fmt.Errorf("%s: missing or malformed settings: %s", path, strings.Join(bad, ", "))
		}
		if prev, dup := seen[id]; dup {
			return nil, fmt.Errorf("%s: chain id %d is also the id of %s (the same chain twice?)", path, id, prev)
		}
		seen[id] = path
		ch.Index = id - 1
		names := f.Columns[3:]
		if k == 0 {
			res.Sampler, res.Dim, res.Names, res.Options = s, len(names), names, o
		} else {
			switch {
			case s != res.Sampler:
				return nil, fmt.Errorf("%s: sampler %v, %s has %v", path, s, paths[0], res.Sampler)
			case strings.Join(names, ",") != strings.Join(res.Names, ","):
				return nil, fmt.Errorf("%s: parameters %s differ from those of %s (%s)", path, strings.Join(names, ","), paths[0], strings.Join(res.Names, ","))
			case o.Samples != res.Options.Samples || o.Warmup != res.Options.Warmup:
				return nil, fmt.Errorf("%s: warmup %d, samples %d; %s has %d, %d", path, o.Warmup, o.Samples, paths[0], res.Options.Warmup, res.Options.Samples)
			}
		}
		if len(ch.LogPost) != o.Samples {
			return nil, fmt.Errorf("%s: %d draws, num_samples says %d (an unfinished chain?)", path, len(ch.LogPost), o.Samples)
		}
		res.Elapsed = max(res.Elapsed, ch.WarmupTime+ch.SampleTime)
		res.Chains = append(res.Chains, *ch)
	}
	for _, ch := range res.Chains {
		if ch.SampleTime <= 0 {
			for i := range res.Chains {
				res.Chains[i].WarmupTime, res.Chains[i].SampleTime = 0, 0
			}
			res.Elapsed = 0
			break
		}
	}
	sort.Slice(res.Chains, func(i, j int) bool { return res.Chains[i].Index < res.Chains[j].Index })
	res.Options.Chains = len(res.Chains)
	res.Options.Names = res.Names
	return res, nil
}

// readChain reads one chain file into a Chain (draws, statistics) and its
// times from the timing sidecar (mcmc.TimingPath) when there is one. A
// file without a sidecar may carry CmdStan's "Elapsed Time" comment lines
// (pbgen wrote them before the sidecar existed); they are read instead.
// Without either, the times stay zero: unknown.
func readChain(path string) (*mcmc.Chain, *mcmc.CSV, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	f, err := mcmc.ReadCSV(strings.NewReader(string(b)))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(f.Columns) < 4 || strings.Join(f.Columns[:3], ",") != "lp__,accept_stat__,stepsize__" {
		return nil, nil, fmt.Errorf("%s: header %q is not lp__,accept_stat__,stepsize__,<parameters> (not a pbgen sample file?)", path, strings.Join(f.Columns, ","))
	}
	rows := f.Rows
	if f.Config["save_warmup"] == "1" {
		w, err := strconv.Atoi(f.Config["num_warmup"])
		if err != nil || w > len(rows) {
			return nil, nil, fmt.Errorf("%s: save_warmup = 1 with num_warmup %q and %d rows", path, f.Config["num_warmup"], len(rows))
		}
		rows = rows[w:]
	}
	dim := len(f.Columns) - 3
	ch := &mcmc.Chain{
		Draws:      make([]float64, 0, len(rows)*dim),
		LogPost:    make([]float64, len(rows)),
		AcceptStat: make([]float64, len(rows)),
	}
	for i, r := range rows {
		ch.LogPost[i], ch.AcceptStat[i] = r[0], r[1]
		ch.Draws = append(ch.Draws, r[3:]...)
	}
	var bad []string
	num := func(key string) float64 {
		v, err := strconv.ParseFloat(f.Config[key], 64)
		if err != nil {
			bad = append(bad, key)
		}
		return v
	}
	count := func(key string) int {
		v, err := strconv.Atoi(f.Config[key])
		if err != nil {
			bad = append(bad, key)
		}
		return v
	}
	ch.StepSize = num("Step size")
	ch.WarmupAccept = num("warmup_accept_stat")
	ch.Accepted = count("accepted")
	ch.OutOfBounds = count("out_of_bounds")
	ch.Failed = count("failed_evaluations")
	ch.Evals = count("evaluations")
	ch.FirstFailure = f.Config["first_failure"]
	if s := f.Config["initial_point"]; s != "" {
		for _, v := range strings.Split(s, ",") {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				bad = append(bad, "initial_point")
				break
			}
			ch.Init = append(ch.Init, x)
		}
	}
	tb, err := os.ReadFile(mcmc.TimingPath(path))
	switch {
	case err == nil:
		tm, err := mcmc.ReadTiming(bytes.NewReader(tb))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", mcmc.TimingPath(path), err)
		}
		ch.WarmupTime, ch.SampleTime = tm.Durations()
		b = nil // the sidecar wins over any Elapsed Time lines
	case !errors.Is(err, fs.ErrNotExist):
		return nil, nil, err
	}
	// CmdStan's times are comment lines without '=' ("#  Elapsed Time:
	// 1.5 seconds (Warm-up)", "#   2.5 seconds (Sampling)").
	for _, line := range strings.Split(string(b), "\n") {
		for _, c := range []struct {
			tag string
			dst *time.Duration
		}{{"seconds (Warm-up)", &ch.WarmupTime}, {"seconds (Sampling)", &ch.SampleTime}} {
			if !strings.HasPrefix(line, "#") || !strings.HasSuffix(strings.TrimSpace(line), c.tag) {
				continue
			}
			fields := strings.Fields(strings.TrimSuffix(strings.TrimSpace(line), c.tag))
			if len(fields) == 0 {
				continue
			}
			s, err := strconv.ParseFloat(fields[len(fields)-1], 64)
			if err != nil || s < 0 {
				bad = append(bad, c.tag)
				continue
			}
			*c.dst = time.Duration(math.Round(s * 1e9))
		}
	}
	if len(bad) > 0 {
		return nil, nil, fmt.Errorf("%s: missing or malformed: %s", path, strings.Join(bad, ", "))
	}
	return ch, f, nil
}
