package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pbgen/pbgen/internal/suites"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// The adjoint section (-adjoint, issue #26): llh + gradient by our FS
// (objective.GradForward) and by our adjoint (GradAdjoint) at the
// objective's default tolerances, CPU seconds per Eval (the median of
// -adjoint-reps after a warm-up Eval), on Lang_PLOSComputBiol2024 and on
// the PEtab problems given with -adjoint-problems (the synthetic scalenet
// problems of cmd/scalepetab). CVODES's adjoint is not wired up
// (internal/cvodes has CVODES's forward problem only).

// AdjointResult is one problem of the adjoint section.
type AdjointResult struct {
	Problem       string `json:"problem"`
	NX, NTheta    int
	Data          int `json:"data"`
	FS, Adjoint   num // CPU seconds per llh + gradient
	Speedup       num // FS / Adjoint
	FSSteps       int `json:"fs_steps"`
	AdjFwdSteps   int `json:"adjoint_forward_steps"`
	AdjBwdSteps   int `json:"adjoint_backward_steps"`
	WorstRel      num `json:"worst_rel"` // max |g_adj - g_FS| / (|g_FS| + 1e-3 max|g_FS|)
	LLHFS, LLHAdj num
	Refused       string `json:"refused,omitempty"`
	AdjBytes      int64  `json:"adjoint_checkpoint_bytes"`
}

func (c *config) adjointProblems() []string {
	var ps []string
	root := c.petabDir
	if root == "" {
		root, _ = suites.Find(suites.PEtabBenchmark)
	}
	if root != "" && c.adjointLang {
		ps = append(ps, filepath.Join(root, langProblem, langProblem+".yaml"))
	}
	for _, p := range strings.Split(c.adjointList, ",") {
		if p = strings.TrimSpace(p); p != "" {
			ps = append(ps, p)
		}
	}
	return ps
}

func benchAdjoint(c *config, w io.Writer) ([]*AdjointResult, error) {
	fmt.Fprintf(w, "\nAdjoint section: llh + gradient, CPU s per Eval (median of %d after a warm-up), default tolerances\n", c.adjointReps)
	fmt.Fprintf(w, "%-40s %5s %6s %6s %10s %10s %8s %8s %9s %9s %10s %8s\n", "problem", "nx", "ntheta", "data", "FS", "adjoint", "FS/adj", "FSsteps", "adj fwd", "adj bwd", "worst rel", "ckpt MB")
	var out []*AdjointResult
	for _, path := range c.adjointProblems() {
		p, err := petab.Load(path)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(filepath.Dir(path))
		r := &AdjointResult{Problem: name, NX: model.NumStates(p.Model), NTheta: len(p.Objective.Estimated), Data: len(p.Measurements)}
		out = append(out, r)
		fs, err := objective.New(p.Model, p.Objective, &objective.Options{Method: sens.FS, Grad: true})
		if err != nil {
			return nil, err
		}
		ad, err := objective.New(p.Model, p.Objective, &objective.Options{Method: sens.FS, Grad: true, Gradient: objective.GradAdjoint})
		if err != nil {
			fs.Close()
			r.Refused = err.Error()
			fmt.Fprintf(w, "%-40s refused: %v\n", name, err)
			continue
		}
		th := fs.Nominal()
		var rf, ra objective.Result
		tf, err := cpuPerEval(fs, th, &rf, c.adjointReps)
		if err == nil {
			var ta float64
			ta, err = cpuPerEval(ad, th, &ra, c.adjointReps)
			r.FS, r.Adjoint, r.Speedup = num(tf), num(ta), num(tf/ta)
		}
		fs.Close()
		ad.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		var gmax, worst float64
		for _, g := range rf.Grad {
			gmax = math.Max(gmax, math.Abs(g))
		}
		for a, g := range rf.Grad {
			worst = math.Max(worst, math.Abs(ra.Grad[a]-g)/(math.Abs(g)+1e-3*gmax))
		}
		r.WorstRel, r.LLHFS, r.LLHAdj = num(worst), num(rf.LLH), num(ra.LLH)
		r.FSSteps, r.AdjFwdSteps, r.AdjBwdSteps = rf.Stats.Steps, ra.Stats.Steps, ra.Stats.AdjointSteps
		r.AdjBytes = ra.Stats.AdjointBytes
		fmt.Fprintf(w, "%-40s %5d %6d %6d %10.4g %10.4g %8.3g %8d %9d %9d %10.3g %8.2f\n", name, r.NX, r.NTheta, r.Data,
			float64(r.FS), float64(r.Adjoint), float64(r.Speedup), r.FSSteps, r.AdjFwdSteps, r.AdjBwdSteps, worst, float64(r.AdjBytes)/1e6)
	}
	return out, nil
}

// cpuPerEval is the median CPU seconds of reps Evals after a warm-up.
func cpuPerEval(o *objective.Objective, th []float64, r *objective.Result, reps int) (float64, error) {
	if err := o.Eval(th, r); err != nil {
		return 0, err
	}
	ts := make([]float64, max(1, reps))
	for i := range ts {
		c0 := cpuNow()
		if err := o.Eval(th, r); err != nil {
			return 0, err
		}
		ts[i] = cpuNow() - c0
	}
	slices.Sort(ts)
	return ts[len(ts)/2], nil
}
