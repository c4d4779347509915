package main

import (
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/pbgen/pbgen/generated/chua"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// SolversResult is the solver section (-solvers): FS with S in the error
// test and the outputs interpolated (CVODES's CV_NORMAL) with each of our
// integrators and with CVODES's BDF and Adams, at rtol 1e-8, atol 1e-10,
// on a non-stiff model (Chua) and on PKA.
type SolversResult struct {
	Models []*SolverModel `json:"models"`
}

// SolverModel is one model of the solver section: CPU seconds per solve
// (median) and the largest relative error of S over the outputs against
// our BDF FS at rtol 1e-12, per solver.
type SolverModel struct {
	Name  string         `json:"name"`
	Rows  []*SolverRow   `json:"rows"`
	Ratio map[string]num `json:"ratios"` // "CVODES Adams / ours Adams" etc.
}

// SolverRow is one solver's timing and error.
type SolverRow struct {
	Name   string `json:"name"`
	CPU    num    `json:"cpu_s"`
	MaxErr num    `json:"max_err"`
	Steps  int    `json:"steps"`
	Err    string `json:"error,omitempty"`
}

// solversRTol, solversATol are the section's tolerances (the rtol
// 1e-8).
const solversRTol, solversATol = 1e-8, 1e-10

// fsRun is a prepared FS solve: run solves, s is S at the outputs of the
// last run, steps its step count.
type fsRun struct {
	name  string
	run   func() error
	s     []float64
	steps func() int
}

// oursFS is our FS with method meth.
func oursFS(name string, m model.Model, meth ode.Method, p, ts []float64, rtol, atol float64) *fsRun {
	nx, np := model.NumStates(m), model.NumParams(m)
	x0, s0 := make([]float64, nx), make([]float64, nx*np)
	m.InitialState(x0, p)
	m.InitialSens(s0, p)
	sv := ode.NewSolver(m, &ode.Settings{Method: meth, RTol: rtol, ATol: atol, Interpolate: true, MaxSteps: 10000000})
	var tr ode.Trajectory
	r := &fsRun{name: name, s: make([]float64, len(ts)*nx*np), steps: func() int { return sv.Stats().Steps }}
	r.run = func() error {
		return sv.IntegrateSens(&tr, r.s, p, x0, s0, ts[0], ts, &ode.SensSettings{ErrCon: true})
	}
	return r
}

// cpuMedian runs r once to warm up, then up to reps times within about
// budget CPU seconds (at least 3), and returns the median CPU seconds.
func cpuMedian(r *fsRun, reps int, budget float64) (float64, error) {
	if err := r.run(); err != nil {
		return math.NaN(), err
	}
	var d []float64
	total := 0.0
	for len(d) < reps && (len(d) < 3 || total < budget) {
		c0 := cpuNow()
		if err := r.run(); err != nil {
			return math.NaN(), err
		}
		d = append(d, cpuNow()-c0)
		total += d[len(d)-1]
	}
	sort.Float64s(d)
	return median(d), nil
}

// benchSolvers runs the solver section and prints its table to w.
func benchSolvers(c *config, w io.Writer) (*SolversResult, error) {
	res := &SolversResult{}
	fmt.Fprintf(w, "\nSolvers: FS (ErrCon, interpolated outputs) at rtol %g, atol %g; CPU per solve (median), S error vs our BDF at rtol 1e-12\n", solversRTol, solversATol)
	for _, mc := range []struct {
		name string
		m    model.Model
		ts   []float64
	}{{"Chua", chua.New(), grid(0, 10, 100)}, {"PKA", pka.New(), grid(0, 600, 600)}} {
		p := make([]float64, model.NumParams(mc.m))
		mc.m.DefaultParams(p)
		ref := oursFS("ref", mc.m, ode.BDF, p, mc.ts, 1e-12, 1e-14)
		if err := ref.run(); err != nil {
			return nil, fmt.Errorf("%s reference: %v", mc.name, err)
		}
		runs := []*fsRun{
			oursFS("ours BDF", mc.m, ode.BDF, p, mc.ts, solversRTol, solversATol),
			oursFS("ours Adams", mc.m, ode.Adams, p, mc.ts, solversRTol, solversATol),
			oursFS("ours DOPRI5", mc.m, ode.DOPRI5, p, mc.ts, solversRTol, solversATol),
			oursFS("ours CashKarp", mc.m, ode.CashKarp, p, mc.ts, solversRTol, solversATol),
		}
		runs = append(runs, cvodesFSRuns(mc.m, p, mc.ts, solversRTol, solversATol)...)
		sm := &SolverModel{Name: mc.name, Ratio: map[string]num{}}
		blk := model.NumStates(mc.m) * model.NumParams(mc.m)
		cpu := map[string]float64{}
		fmt.Fprintf(w, "%-8s %-16s %12s %10s %8s\n", mc.name, "solver", "CPU", "max err S", "steps")
		for _, r := range runs {
			row := &SolverRow{Name: r.name}
			t, err := cpuMedian(r, c.solversReps, c.solversBudget.Seconds())
			if err != nil {
				row.Err, row.CPU, row.MaxErr = err.Error(), num(math.NaN()), num(math.NaN())
				fmt.Fprintf(w, "%-8s %-16s failed: %v\n", "", r.name, err)
			} else {
				mx, _ := maxMedian(relErrors(r.s, ref.s, blk))
				row.CPU, row.MaxErr, row.Steps = num(t), num(mx), r.steps()
				cpu[r.name] = t
				fmt.Fprintf(w, "%-8s %-16s %12s %10.2e %8d\n", "", r.name, dur(t), mx, row.Steps)
			}
			sm.Rows = append(sm.Rows, row)
		}
		for _, k := range [][2]string{{"CVODES Adams", "ours Adams"}, {"CVODES BDF", "ours BDF"}} {
			if a, ok := cpu[k[0]]; ok {
				if b, ok := cpu[k[1]]; ok {
					sm.Ratio[k[0]+" / "+k[1]] = num(a / b)
					fmt.Fprintf(w, "%-8s %s / %s: %.2f\n", "", k[0], k[1], a/b)
				}
			}
		}
		res.Models = append(res.Models, sm)
	}
	return res, nil
}

// solversTargets: CVODES Adams FS / our Adams FS >= 3 on each model.
func solversTargets(sr *SolversResult) []*Target {
	var ts []*Target
	for _, sm := range sr.Models {
		m := math.NaN()
		if r, ok := sm.Ratio["CVODES Adams / ours Adams"]; ok {
			m = float64(r)
		}
		t := &Target{What: "solvers: CVODES Adams FS / our Adams FS, " + sm.Name + " rtol 1e-8", Measured: m, Bound: 3, AtLeast: true}
		t.check()
		ts = append(ts, t)
	}
	return ts
}
