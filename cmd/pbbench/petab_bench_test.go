//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pbgen/pbgen/internal/suites"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// BenchmarkPetabEval times one method's llh + gradient Eval of one PEtab
// benchmark problem at the -petab section's point, for CPU profiles of
// where a problem's time goes (go test -bench PetabEval -cpuprofile):
//
//	PBGEN_PETAB_PROBLEM=Zhao go test -tags cvodes ./cmd/pbbench -run XXX -bench 'PetabEval/FS$' -cpuprofile /tmp/cpu.out
//
// PBGEN_PETAB_FIM=1 adds the FIM, PBGEN_PETAB_RTOL sets the tolerance and
// PBGEN_PETAB_ONGRID=1 objective.Options.OutputsOnGrid, PBGEN_PETAB_LINEAR
// (dense, sparse) the BDF's linear solver. Skipped without PBGEN_PETAB_PROBLEM
// (the name of a folder of the collection). With -tags petabgen (after
// scripts/petabgen.sh) it times the generated model, unless
// PBGEN_PETAB_MODELS=interpreted (cpuSources).
func BenchmarkPetabEval(b *testing.B) {
	name := os.Getenv("PBGEN_PETAB_PROBLEM")
	if name == "" {
		b.Skip("set PBGEN_PETAB_PROBLEM to a problem of the PEtab benchmark collection")
	}
	root, err := suites.Find(suites.PEtabBenchmark)
	if err != nil {
		b.Skip(err)
	}
	yamls, _ := filepath.Glob(filepath.Join(root, name+"*", "*.yaml"))
	var p *petab.Problem
	var yaml string
	for _, y := range yamls {
		if base := filepath.Base(y); base == filepath.Base(filepath.Dir(y))+".yaml" || base == "problem.yaml" {
			if p, err = petab.Load(y); err != nil {
				b.Fatal(err)
			}
			yaml = y
			break
		}
	}
	if p == nil {
		b.Skipf("no problem %q in %s", name, root)
	}
	src := cpuSources(b, yaml, p)[0] // the generated model when there is one
	fim := os.Getenv("PBGEN_PETAB_FIM") != ""
	for _, s := range petabSolvers() {
		b.Run(s.name, func(b *testing.B) {
			opt := envOptions(s.method, fim, s.hook)
			o, err := objective.New(src.m, src.prob, opt)
			if err != nil {
				b.Fatal(err)
			}
			defer o.Close()
			theta := perturbed(o)
			var r objective.Result
			if err := o.Eval(theta, &r); err != nil {
				b.Fatal(err)
			}
			c0 := cpuTime()
			n := 0
			for b.Loop() {
				if err := o.Eval(theta, &r); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(n), "cpu-ns/op")
			b.ReportMetric(float64(r.Stats.Steps), "steps/op")
			b.ReportMetric(float64(r.Stats.Solves), "solves/op")
			b.ReportMetric(float64(r.Stats.SteadyChunks), "chunks/op")
		})
	}
}

// cpuTime is the process's user + system CPU time: on a loaded machine it
// measures the work of a run better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestPetabCPU prints, per problem of PBGEN_PETAB_PROBLEMS (comma-separated
// substrings), the CPU time per llh + gradient Eval of each method, timed
// in interleaved rounds (PBGEN_PETAB_ROUNDS, default 7), and CVODES FS's
// over ours (the options as BenchmarkPetabEval's): on a machine shared
// with other jobs CPU time is steadier than the wall clock of -petab.
// With -tags petabgen (after scripts/petabgen.sh, as make bench runs it)
// every method runs on the generated model and on the interpreted one in
// the same rounds, a line each; PBGEN_PETAB_MODELS (generated,
// interpreted) picks (cpuSources). PBGEN_PETAB_FIM adds the FIM,
// PBGEN_PETAB_LLH times the llh alone, PBGEN_PETAB_MOVE moves the point
// (moveTheta):
//
//	bash scripts/petabgen.sh
//	PBGEN_PETAB_PROBLEMS=Zhao,Laske go test -tags cvodes,petabgen ./cmd/pbbench -run PetabCPU -v
func TestPetabCPU(t *testing.T) {
	names := os.Getenv("PBGEN_PETAB_PROBLEMS")
	if names == "" {
		t.Skip("set PBGEN_PETAB_PROBLEMS")
	}
	root, err := suites.Find(suites.PEtabBenchmark)
	if err != nil {
		t.Skip(err)
	}
	rounds := 7
	if v, err := strconv.Atoi(os.Getenv("PBGEN_PETAB_ROUNDS")); err == nil {
		rounds = v
	}
	fim := os.Getenv("PBGEN_PETAB_FIM") != ""
	for _, name := range strings.Split(names, ",") {
		yamls, _ := filepath.Glob(filepath.Join(root, name+"*", "*.yaml"))
		var p *petab.Problem
		var yaml string
		for _, y := range yamls {
			if base := filepath.Base(y); base == filepath.Base(filepath.Dir(y))+".yaml" || base == "problem.yaml" {
				if p, err = petab.Load(y); err != nil {
					t.Fatal(err)
				}
				yaml = y
				break
			}
		}
		if p == nil {
			t.Fatalf("no problem %q", name)
		}
		rows := cpuRows(fim)
		srcs := cpuSources(t, yaml, p)
		var obs []*objective.Objective
		var kept []cpuRow
		for _, r := range cpuSourceRows(rows, srcs) {
			// A row the objective refuses (CVODES FS on a model with a
			// delayed event) is left out, not the problem.
			o, err := objective.New(r.src.m, r.src.prob, r.opt)
			if err != nil {
				t.Logf("%s %s, %s: not timed: %v", name, r.src.kind, r.name, err)
				continue
			}
			defer o.Close()
			obs, kept = append(obs, o), append(kept, r)
		}
		rows = kept
		res := make([]objective.Result, len(rows))
		var theta []float64
		for i := range rows {
			theta = perturbed(obs[i])
			moveTheta(t, obs[i], theta)
			if err := obs[i].Eval(theta, &res[i]); err != nil {
				t.Fatal(err)
			}
		}
		cpu := make([][]float64, len(rows))
		for k := 0; k < rounds; k++ {
			for i := range rows {
				// At least 50 ms per sample.
				n, c0 := 0, cpuTime()
				for n == 0 || cpuTime()-c0 < 50*time.Millisecond {
					obs[i].Eval(theta, &res[i])
					n++
				}
				cpu[i] = append(cpu[i], float64(cpuTime()-c0)/float64(n)/1e6)
			}
		}
		med := make([]float64, len(rows))
		for i := range rows {
			slices.Sort(cpu[i])
			med[i] = cpu[i][rounds/2]
		}
		// One line per model (generated, interpreted), CVODES FS over
		// each of ours on the same model.
		for _, src := range srcs {
			msg := name + " " + src.kind + ":"
			cv := -1
			for i, r := range rows {
				if r.src != src {
					continue
				}
				msg += fmt.Sprintf("  %s %.3gms %d st", r.name, med[i], res[i].Stats.Steps)
				if r.name == petabCVODES {
					cv = i
				}
			}
			if cv >= 0 {
				msg += "  | " + petabCVODES + " /"
				for i, r := range rows {
					if i != cv && r.src == src {
						msg += fmt.Sprintf(" %s %.2f", r.name, med[cv]/med[i])
					}
				}
			}
			t.Log(msg)
		}
	}
}

// moveTheta adds to theta the steps of PBGEN_PETAB_MOVE, comma-separated
// id=step on the parameter's scale ("psi=2": psi 100x on log10), to time
// a region of parameter space the perturbed point is not in (where an
// event fires, say).
func moveTheta(t *testing.T, o *objective.Objective, theta []float64) {
	for _, e := range strings.Split(os.Getenv("PBGEN_PETAB_MOVE"), ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		id, v, _ := strings.Cut(e, "=")
		a := slices.Index(o.Params(), id)
		d, err := strconv.ParseFloat(v, 64)
		if a < 0 || err != nil {
			t.Fatalf("PBGEN_PETAB_MOVE: %q is not id=step of an estimated parameter", e)
		}
		theta[a] += d
	}
}

// envOptions are the objective options of the benchmarks above, with the
// PBGEN_PETAB_ variables applied.
func envOptions(m sens.Method, fim bool, hook func(model.Model, *sens.Options) (objective.Solver, error)) *objective.Options {
	opt := &objective.Options{Method: m, Grad: true, FIM: fim, NewSolver: hook}
	if os.Getenv("PBGEN_PETAB_LLH") != "" {
		opt.Grad, opt.FIM = false, false // the llh alone
	}
	opt.OutputsOnGrid = os.Getenv("PBGEN_PETAB_ONGRID") != ""
	opt.RTol, _ = strconv.ParseFloat(os.Getenv("PBGEN_PETAB_RTOL"), 64)
	switch os.Getenv("PBGEN_PETAB_LINEAR") {
	case "dense":
		opt.Sens = &sens.Options{ODE: ode.Settings{LinearSolver: ode.LinearDense}}
	case "sparse":
		opt.Sens = &sens.Options{ODE: ode.Settings{LinearSolver: ode.LinearSparse}}
	}
	return opt
}

// cpuRow is a configuration timed by TestPetabCPU.
type cpuRow struct {
	name string
	opt  *objective.Options
	src  *cpuSource // the model (cpuSourceRows)
}

// cpuRows are the methods of -petab, then the variants listed in
// PBGEN_PETAB_EXTRA (comma-separated method:variant, the variant "grid"
// for OutputsOnGrid, "dense" or "sparse" for the BDF's linear solver, or a
// relative tolerance: "FS:grid,FS:1e-8,CVODES FS:1e-8"), timed in the same
// rounds; PBGEN_PETAB_ROWS (comma-separated names, "FS,FS sparse") keeps
// only those.
func cpuRows(fim bool) []cpuRow {
	var rows []cpuRow
	sv := petabSolvers()
	for _, s := range sv {
		rows = append(rows, cpuRow{name: s.name, opt: envOptions(s.method, fim, s.hook)})
	}
	for _, e := range strings.Split(os.Getenv("PBGEN_PETAB_EXTRA"), ",") {
		name, v, ok := strings.Cut(e, ":")
		if !ok {
			continue
		}
		for _, s := range sv {
			if s.name != name {
				continue
			}
			opt := envOptions(s.method, fim, s.hook)
			switch r, err := strconv.ParseFloat(v, 64); {
			case v == "grid":
				opt.OutputsOnGrid = true
			case v == "dense":
				opt.Sens = &sens.Options{ODE: ode.Settings{LinearSolver: ode.LinearDense}}
			case v == "sparse":
				opt.Sens = &sens.Options{ODE: ode.Settings{LinearSolver: ode.LinearSparse}}
			case err == nil:
				opt.RTol = r
			}
			rows = append(rows, cpuRow{name: name + " " + v, opt: opt})
		}
	}
	if only := os.Getenv("PBGEN_PETAB_ROWS"); only != "" {
		rows = slices.DeleteFunc(rows, func(r cpuRow) bool { return !slices.Contains(strings.Split(only, ","), r.name) })
	}
	return rows
}
