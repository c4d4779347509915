// Command goref computes with pbgen's Go API what the Python tests
// compute through libpbgen, so that they can check that the bridge
// changes no bit: it reads a JSON list of requests on stdin and writes a
// JSON list of results, every float64 as Go's hexadecimal form
// (strconv 'x', which Python's float.fromhex reads exactly).
//
// A request is {"kind": "problem", "path", "method", "rtol", "atol",
// "grad", "fim", "theta"} (petab.Load, objective.New, Objective.Eval) or
// {"kind": "model", "path" or "compiled", "method", "rtol", "atol",
// "ts", "p"} (parser, symbolic.Build and interp.New, or the generated
// package, then sens.NewSolver and Solve from the model's initial state
// at t0 = 0), or {"kind": "bench", "path" or "compiled", "n"}: the CPU time of n
// evaluations of llh and gradient at the nominal point, or {"kind":
// "sample", "path", "sampler", "chains", "warmup", "samples", "seed"}
// (mcmc.Run on petab.Problem.Target).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/generated/camkiipetab"
	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/mcmc"
	"github.com/pbgen/pbgen/parser"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
	"github.com/pbgen/pbgen/symbolic"
)

type request struct {
	Kind       string
	Path       string
	Compiled   string
	Method     string
	RTol, ATol float64
	Grad, FIM  bool
	Theta      []string
	TS         []string
	P          []string
	N          int // bench: evaluations to time
	// sample: mcmc.Run's options
	Sampler                 string
	Chains, Warmup, Samples int
	Seed                    uint64
}

func hexes(v []float64) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'x', -1, 64)
	}
	return s
}

func parse(s []string) ([]float64, error) {
	v := make([]float64, len(s))
	for i, x := range s {
		var err error
		if v[i], err = strconv.ParseFloat(x, 64); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func method(s string) (sens.Method, error) {
	if s == "" {
		return sens.PBSR, nil
	}
	return sens.ParseMethod(s)
}

// problem evaluates a PEtab problem as a Go user does.
func problem(r *request) (map[string]any, error) {
	p, err := petab.Load(r.Path)
	if err != nil {
		return nil, err
	}
	opt := &objective.Options{RTol: r.RTol, ATol: r.ATol, Grad: r.Grad, FIM: r.FIM}
	if r.Method != "" {
		if opt.Method, err = sens.ParseMethod(r.Method); err != nil {
			return nil, err
		}
	}
	o, err := objective.New(p.Model, p.Objective, opt)
	if err != nil {
		return nil, err
	}
	defer func() { o.Close() }()
	th, err := parse(r.Theta)
	if err != nil {
		return nil, err
	}
	var out objective.Result
	if err := o.Eval(th, &out); err != nil {
		return nil, err
	}
	return map[string]any{
		"llh": hexes([]float64{out.LLH})[0], "chi2": hexes([]float64{out.Chi2})[0],
		"log_prior": hexes([]float64{out.LogPrior})[0], "grad": hexes(out.Grad), "fim": hexes(out.FIM),
		"res": hexes(out.Res), "sim": hexes(out.Sim), "sigma": hexes(out.Sigma),
		"nominal": hexes(o.Nominal()),
	}, nil
}

// bench times N evaluations of llh and gradient at the nominal point
// (after one to warm up) as a Go user runs them: one objective, Eval in
// a loop. It returns the CPU seconds per evaluation.
func bench(r *request) (map[string]any, error) {
	var m model.Model
	var prob *objective.Problem
	if r.Compiled == "camkiipetab" {
		m, prob = camkiipetab.New(), camkiipetab.Problem()
	} else {
		p, err := petab.Load(r.Path)
		if err != nil {
			return nil, err
		}
		m, prob = p.Model, p.Objective
	}
	o, err := objective.New(m, prob, &objective.Options{Grad: true})
	if err != nil {
		return nil, err
	}
	defer func() { o.Close() }()
	th := o.Nominal()
	var out objective.Result
	if err := o.Eval(th, &out); err != nil {
		return nil, err
	}
	c0 := cpuTime()
	for range r.N {
		if err := o.Eval(th, &out); err != nil {
			return nil, err
		}
	}
	return map[string]any{"cpu_per_eval": (cpuTime() - c0) / float64(max(r.N, 1)), "llh": hexes([]float64{out.LLH})[0]}, nil
}

// sample runs mcmc.Run on the posterior as pbgen sample does (initial
// points from the initialization priors, one target per chain).
func sample(r *request) (map[string]any, error) {
	p, err := petab.Load(r.Path)
	if err != nil {
		return nil, err
	}
	kind, ok := mcmc.ParseSampler(r.Sampler)
	if !ok {
		return nil, fmt.Errorf("sampler %q", r.Sampler)
	}
	opt := &mcmc.Options{Sampler: kind, Chains: r.Chains, Warmup: r.Warmup, Samples: r.Samples, Seed: r.Seed,
		Workers: r.Chains, Names: p.EstimatedIDs(),
		Init: func(_ int, rng *rand.Rand, dst []float64) {
			if p.InitialPoint(petab.InitPrior, rng, dst) != nil {
				dst[0] = math.NaN()
			}
		}}
	topt := &petab.TargetOptions{Grad: kind != mcmc.RWM, FIM: kind == mcmc.SMMALA}
	res, err := mcmc.Run(context.Background(), func() (mcmc.Target, error) { return p.Target(topt) }, opt)
	if err != nil {
		return nil, err
	}
	var draws, lp []float64
	for _, ch := range res.Chains {
		draws = append(draws, ch.Draws...)
		lp = append(lp, ch.LogPost...)
	}
	return map[string]any{"draws": hexes(draws), "log_post": hexes(lp)}, nil
}

// simulate solves a model as a Go user does.
func simulate(r *request) (map[string]any, error) {
	var m model.Model
	if r.Compiled == "camkii" {
		m = camkii.New()
	} else {
		pm, err := parser.ReadFile(r.Path)
		if err != nil {
			return nil, err
		}
		ode, err := pm.ODE(&parser.Options{Events: true})
		if err != nil {
			return nil, err
		}
		sys, err := symbolic.Build(ode)
		if err != nil {
			return nil, err
		}
		if m, err = interp.New(sys); err != nil {
			return nil, err
		}
	}
	meth, err := method(r.Method)
	if err != nil {
		return nil, err
	}
	ts, err := parse(r.TS)
	if err != nil {
		return nil, err
	}
	p, err := parse(r.P)
	if err != nil {
		return nil, err
	}
	s := sens.NewSolver(m, &sens.Options{Method: meth, RTol: r.RTol, ATol: r.ATol, ErrCon: true})
	var res sens.Result
	if err := s.Solve(&res, p, nil, 0, ts); err != nil {
		return nil, err
	}
	return map[string]any{"x": hexes(res.X), "S": hexes(res.S)}, nil
}

func main() {
	var reqs []request
	if err := json.NewDecoder(os.Stdin).Decode(&reqs); err != nil {
		fmt.Fprintln(os.Stderr, "goref:", err)
		os.Exit(2)
	}
	out := make([]map[string]any, len(reqs))
	for i := range reqs {
		r := &reqs[i]
		var err error
		switch r.Kind {
		case "problem":
			out[i], err = problem(r)
		case "model":
			out[i], err = simulate(r)
		case "sample":
			out[i], err = sample(r)
		case "bench":
			out[i], err = bench(r)
		default:
			err = fmt.Errorf("unknown kind %q", r.Kind)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "goref: request %d: %v\n", i, err)
			os.Exit(1)
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "goref:", err)
		os.Exit(1)
	}
}
