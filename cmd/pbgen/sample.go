package main

import (
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

// cmdSample is pbgen sample.
func cmdSample(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("pbgen sample", stderr, sampleSynopsis)
	sampler := fs.String("sampler", "smmala", "`kernel`: smmala (needs gradient and Fisher information), mala (gradient) or rwm (neither)")
	method := fs.String("method", "fs", "sensitivity `method` for the gradient and Fisher information: fs, pbsr, pbs, exp or auto (fs or pbsr chosen once per\n"+
		"objective, as pbgen petab's default; fs: the fastest per evaluation on CaMKII in make bench)")
	chains := fs.Int("chains", 4, "number of chains (with -chain-index: of the whole analysis)")
	warmup := fs.Int("warmup", 1000, "warm-up (adaptation) iterations per chain, discarded")
	samples := fs.Int("samples", 1000, "kept iterations per chain")
	seed := fs.Uint64("seed", 1, "random seed; chain I uses a generator derived from (seed, I) only")
	jobs := fs.Int("j", 0, "chains run at once, each on its own goroutine and objective (0: all of them)")
	outDir := fs.String("o", "", "write CmdStan CSV files chain_1.csv, ... and their timing sidecars chain_1.timing.json, ... into `dir`")
	plotDir := fs.String("plot", "", "write trace, histogram and pair plots (PNG) into `dir`")
	initMode := fs.String("init", "nominal", "initial points: nominal (the parameter table's nominal values) or prior (drawn from the PEtab initialization priors, uniform on the parameter scale within the bounds where there is none: dispersed starts, which R-hat needs to be telling, but from far in the box chains can take long to find the posterior)")
	rtol := fs.Float64("rtol", 0, "relative tolerance of the ODE solver (0: the objective's default)")
	atol := fs.Float64("atol", 0, "absolute tolerance of the ODE solver (0: the objective's default)")
	chainIndex := fs.Int("chain-index", -1, "run only chain `I` (0-based, of -chains) and write DIR/chain_<I+1>.csv; default $"+slurmTaskEnv+" when set")
	merge := fs.String("merge", "", "combine the chain files (*.csv) in `dir`: summary on stdout, plots in -plot")
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
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	usage := func(format string, a ...any) error {
		return &usageError{cmd: "pbgen sample", msg: fmt.Sprintf(format, a...), synopsis: "usage: " + sampleSynopsis}
	}
	if *merge != "" {
		for _, name := range []string{"sampler", "method", "chains", "warmup", "samples", "seed", "j", "o", "init", "rtol", "atol", "chain-index"} {
			if set[name] {
				return usage("-%s has no effect with -merge (the chain files record their settings)", name)
			}
		}
		return sampleMerge(*merge, *plotDir, stdout)
	}
	kind, ok := mcmc.ParseSampler(*sampler)
	if !ok {
		return usage("-sampler %q: want smmala, mala or rwm", *sampler)
	}
	m, err := sens.ParseMethod(*method)
	if err != nil {
		return usage("-method %q: want pbsr, pbs, exp, fs or auto", *method)
	}
	var mode petab.InitMode
	switch *initMode {
	case "prior":
		mode = petab.InitPrior
	case "nominal":
		mode = petab.InitNominal
	default:
		return usage("-init %q: want prior or nominal", *initMode)
	}
	switch {
	case *chains < 1:
		return usage("-chains %d: want at least 1", *chains)
	case *warmup < 0:
		return usage("-warmup %d: want 0 or more", *warmup)
	case *samples < 1:
		return usage("-samples %d: want at least 1", *samples)
	case *jobs < 0:
		return usage("-j %d: want 0 (all chains at once) or more", *jobs)
	case *rtol < 0 || *atol < 0 || math.IsNaN(*rtol) || math.IsNaN(*atol):
		return usage("-rtol and -atol must be positive (or 0 for the default)")
	}
	single := -1
	if set["chain-index"] {
		single = *chainIndex
		if single < 0 {
			return usage("-chain-index %d: want 0 or more", single)
		}
	} else if v, ok := os.LookupEnv(slurmTaskEnv); ok && v != "" {
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 {
			return fmt.Errorf("$%s = %q is not a chain index (set -chain-index)", slurmTaskEnv, v)
		}
		single = i
	}
	if single >= *chains {
		return usage("chain index %d is not one of the %d chains of -chains (indices 0 to %d)", single, *chains, *chains-1)
	}
	if single >= 0 && *outDir == "" {
		return usage("-chain-index (or $%s) needs -o: the chain file is the result", slurmTaskEnv)
	}

	p, err := petab.Load(fs.Arg(0))
	if err != nil {
		return listErrors(stderr, err)
	}
	topt := &petab.TargetOptions{Method: m, RTol: *rtol, ATol: *atol, Grad: kind != mcmc.RWM, FIM: kind == mcmc.SMMALA}
	probe, err := p.Target(topt)
	if err != nil {
		return fmt.Errorf("%s: %v", fs.Arg(0), err)
	}
	names := probe.Names()
	probe.Close()
	// Check once that initial points can be drawn (a missing nominal value
	// or unbounded parameter is the same for every chain), so that Init
	// below cannot fail.
	if err := p.InitialPoint(mode, rand.New(rand.NewPCG(0, 0)), make([]float64, len(names))); err != nil {
		return fmt.Errorf("-init %s: %v", *initMode, err)
	}
	opt := &mcmc.Options{
		Sampler: kind, Chains: *chains, Warmup: *warmup, Samples: *samples, Seed: *seed, Names: names,
		Init: func(_ int, rng *rand.Rand, dst []float64) {
			if p.InitialPoint(mode, rng, dst) != nil {
				dst[0] = math.NaN() // rejected by Run; cannot happen after the check above
			}
		},
	}
	if *warmup == 0 {
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
	if *jobs > 0 {
		opt.Workers = min(*jobs, opt.Chains)
	}
	if f, ok := stderr.(*os.File); ok && isTerminal(f) {
		opt.Progress = func(pr mcmc.Progress) { fmt.Fprintf(f, "\rpbgen sample: %v\x1b[K", pr) }
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
		path, err := writeChain(*outDir, res, single, *chains)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "pbgen sample: chain %d of %d written to %s\n", single, *chains, path)
	} else if *outDir != "" {
		if _, err := mcmc.WriteCSVFiles(*outDir, res); err != nil {
			return err
		}
	}
	return report(res, *plotDir, stdout)
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
	res, err := readChains(paths)
	if err != nil {
		return err
	}
	return report(res, plotDir, stdout)
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
