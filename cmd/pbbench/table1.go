package main

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"time"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/generated/chua"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// modelSpec is one experiment of Table 1: the paper's settings.
type modelSpec struct {
	name       string
	m          model.Model
	ts         []float64 // output times; ts[0] = t0
	rtol, atol float64
}

func lookupModel(name string) (*modelSpec, error) {
	switch name {
	case "pka":
		return &modelSpec{"PKA", pka.New(), grid(0, 600, 600), 1e-5, 1e-6}, nil
	case "camkii":
		return &modelSpec{"CaMKII", camkii.New(), grid(0, 600, 600), 1e-5, 1e-6}, nil
	case "chua":
		return &modelSpec{"Chua", chua.New(), grid(0, 10, 100), 1e-5, 1e-6}, nil
	}
	return nil, fmt.Errorf("unknown model %q (want pka, camkii or chua)", name)
}

// grid is t0, t0+h, ..., t1 with n intervals.
func grid(t0, t1 float64, n int) []float64 {
	ts := make([]float64, n+1)
	for i := range ts {
		ts[i] = t0 + (t1-t0)*float64(i)/float64(n)
	}
	return ts
}

// solver is one method ready to run repeatedly with its workspace reused.
type solver struct {
	name string
	run  func() error
	s    func() []float64 // S at the output times of the last run; nil = states only
	exp  func() []float64 // start times of exponential steps, if any
	info func() string    // statistics of the last run
}

// MethodResult is one row of the extended Table 1.
type MethodResult struct {
	Name     string    `json:"name"`
	Median   float64   `json:"median_s"`
	Min      float64   `json:"min_s"`
	Max      float64   `json:"max_s"`
	MaxErr   float64   `json:"-"`
	MedErr   float64   `json:"-"`
	ErrT     []float64 `json:"-"` // error at each output time
	JMaxErr  num       `json:"max_rel_err"`
	JMedErr  num       `json:"median_rel_err"`
	JErrT    []num     `json:"rel_err_t,omitempty"`
	ExpTimes []float64 `json:"exp_times,omitempty"`
	Info     string    `json:"stats"`
	Err      string    `json:"error,omitempty"`
}

// ModelResult is Table 1 for one model.
type ModelResult struct {
	Model   string             `json:"model"`
	NX      int                `json:"nx"`
	NP      int                `json:"np"`
	T       []float64          `json:"t"`
	Methods []*MethodResult    `json:"methods"`
	Ratios  map[string]float64 `json:"ratios"`
	WP      []*WPPoint         `json:"work_precision,omitempty"`
}

// senseSolver wraps runtime/sens with the given options.
func senseSolver(name string, spec *modelSpec, p []float64, opt sens.Options) *solver {
	s := sens.NewSolver(spec.m, &opt)
	var res sens.Result
	return &solver{
		name: name,
		run:  func() error { return s.Solve(&res, p, nil, spec.ts[0], spec.ts) },
		s:    func() []float64 { return res.S },
		exp:  func() []float64 { return res.Stats.ExpTimes },
		info: func() string {
			st := res.Stats
			return fmt.Sprintf("steps %d, intervals %d, refinements %d, exp steps %d, exponentials %d (reused %d, squarings %d)",
				st.ODE.Steps, st.Intervals, st.Refinements, st.ExpSteps, st.Exponentials, st.ExpReuses, st.Squarings)
		},
	}
}

// statesSolver integrates x only, stepping over output times as CVODE does.
func statesSolver(spec *modelSpec, p []float64) *solver {
	s := ode.NewSolver(spec.m, &ode.Settings{RTol: spec.rtol, ATol: spec.atol, Interpolate: true})
	x0 := make([]float64, model.NumStates(spec.m))
	spec.m.InitialState(x0, p)
	var tr ode.Trajectory
	return &solver{
		name: "states (ours)",
		run:  func() error { return s.Integrate(&tr, p, x0, spec.ts[0], spec.ts) },
		info: func() string {
			st := s.Stats()
			return fmt.Sprintf("steps %d, f %d, jac %d, LU %d", st.Steps, st.FEvals, st.JacEvals, st.LUs)
		},
	}
}

// methods lists the solvers of the extended Table 1.
func methods(spec *modelSpec, p []float64) []*solver {
	paper := func(m sens.Method) sens.Options {
		return sens.Options{Method: m, Paper: true, RTol: spec.rtol, ATol: spec.atol}
	}
	ours := func(m sens.Method) sens.Options {
		return sens.Options{Method: m, RTol: spec.rtol, ATol: spec.atol, ODE: ode.Settings{Interpolate: true}}
	}
	fs := func(errcon bool) sens.Options {
		o := ours(sens.FS)
		o.ErrCon = errcon
		return o
	}
	list := []*solver{
		statesSolver(spec, p),
		senseSolver("FS errcon on (ours)", spec, p, fs(true)),
		senseSolver("FS errcon off (ours)", spec, p, fs(false)),
		senseSolver("PBS (paper)", spec, p, paper(sens.PBS)),
		senseSolver("PBSR (paper)", spec, p, paper(sens.PBSR)),
		senseSolver("Exp (paper)", spec, p, paper(sens.Exp)),
		senseSolver("PBSR (ours)", spec, p, ours(sens.PBSR)),
		senseSolver("Exp (ours)", spec, p, ours(sens.Exp)),
	}
	return append(list, cvodesSolvers(spec, p)...)
}

// reference is S at the output times from our FS at rtol 1e-10, atol 1e-12.
func reference(spec *modelSpec, p []float64) ([]float64, error) {
	res, err := sens.Solve(spec.m, p, spec.ts, &sens.Options{Method: sens.FS, ErrCon: true, RTol: 1e-10, ATol: 1e-12})
	if err != nil {
		return nil, err
	}
	return res.S, nil
}

func benchModel(spec *modelSpec, c *config) (*ModelResult, error) {
	nx, np := model.NumStates(spec.m), model.NumParams(spec.m)
	p := make([]float64, np)
	spec.m.DefaultParams(p)
	ref, err := reference(spec, p)
	if err != nil {
		return nil, fmt.Errorf("reference FS: %v", err)
	}
	mr := &ModelResult{Model: spec.name, NX: nx, NP: np, T: spec.ts, Ratios: map[string]float64{}}
	fmt.Printf("\n== %s (nx %d, np %d), [%g, %g], %d outputs, rtol %g, atol %g; %d solves after a warm-up\n",
		spec.name, nx, np, spec.ts[0], spec.ts[len(spec.ts)-1], len(spec.ts), spec.rtol, spec.atol, c.solves)
	fmt.Printf("%-24s %10s %10s %10s %11s %11s  %s\n", "method", "median", "min", "max", "max rel err", "median err", "statistics")
	for _, s := range methods(spec, p) {
		r := timeSolver(s, c.solves)
		if r.Err == "" && s.s != nil {
			r.ErrT = relErrors(s.s(), ref, nx*np)
			r.MaxErr, r.MedErr = maxMedian(r.ErrT)
			r.JMaxErr, r.JMedErr, r.JErrT = num(r.MaxErr), num(r.MedErr), nums(r.ErrT)
		}
		mr.Methods = append(mr.Methods, r)
		printRow(r)
	}
	mr.ratios()
	if c.wp {
		mr.WP = workPrecision(spec, p, ref, c)
	}
	return mr, nil
}

// timeSolver runs a warm-up solve, then n timed solves.
func timeSolver(s *solver, n int) *MethodResult {
	r := &MethodResult{Name: s.name, JMaxErr: num(math.NaN()), JMedErr: num(math.NaN())}
	d, err := warmUp(s.run)
	if err == nil {
		d, err = timeRuns(s.run, n)
	}
	if err != nil {
		r.Err = err.Error()
		return r
	}
	r.Median, r.Min, r.Max = median(d), d[0], d[n-1]
	r.Info = s.info()
	if s.exp != nil {
		r.ExpTimes = append([]float64(nil), s.exp()...)
	}
	return r
}

// warmUp collects the bench's own garbage (reference solves, earlier
// results), so that it is not collected during the timed solves, then
// runs the warm-up solve; it returns that solve's duration in seconds as
// the one entry of the slice (timeBudget decides from it how many to time).
func warmUp(run func() error) ([]float64, error) {
	runtime.GC()
	return timeRuns(run, 1)
}

// timeRuns times n solves and returns their durations in seconds, sorted.
func timeRuns(run func() error, n int) ([]float64, error) {
	d := make([]float64, n)
	for i := range d {
		start := time.Now()
		if err := run(); err != nil {
			return nil, err
		}
		d[i] = time.Since(start).Seconds()
	}
	sort.Float64s(d)
	return d, nil
}

func printRow(r *MethodResult) {
	if r.Err != "" {
		fmt.Printf("%-24s failed: %s\n", r.Name, r.Err)
		return
	}
	errs := fmt.Sprintf("%11s %11s", "-", "-")
	if r.ErrT != nil {
		errs = fmt.Sprintf("%11.2e %11.2e", r.MaxErr, r.MedErr)
	}
	fmt.Printf("%-24s %10s %10s %10s %s  %s\n", r.Name, dur(r.Median), dur(r.Min), dur(r.Max), errs, r.Info)
}

func dur(s float64) string { return time.Duration(s * 1e9).Round(time.Microsecond).String() }

// relErrors is ||S_k - Sref_k||_F / ||Sref_k||_F at every output time k
// where the reference is non-zero (NaN where it is zero, e.g. at t0).
func relErrors(s, ref []float64, block int) []float64 {
	n := len(ref) / block
	out := make([]float64, n)
	for k := 0; k < n; k++ {
		var num, den float64
		for e := k * block; e < (k+1)*block; e++ {
			d := s[e] - ref[e]
			num += d * d
			den += ref[e] * ref[e]
		}
		if den == 0 {
			out[k] = math.NaN()
			continue
		}
		out[k] = math.Sqrt(num / den)
	}
	return out
}

// maxMedian ignores NaN entries.
func maxMedian(v []float64) (mx, med float64) {
	var w []float64
	for _, x := range v {
		if !math.IsNaN(x) {
			w = append(w, x)
			mx = math.Max(mx, x)
		}
	}
	sort.Float64s(w)
	return mx, median(w)
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func (mr *ModelResult) find(name string) *MethodResult {
	for _, r := range mr.Methods {
		if r.Name == name && r.Err == "" {
			return r
		}
	}
	return nil
}

// ratios prints and records the pairwise ratios of median times.
func (mr *ModelResult) ratios() {
	pairs := [][2]string{
		{"FS errcon on (CVODES)", "PBSR (ours)"},
		{"FS errcon on (CVODES)", "Exp (ours)"},
		{"FS errcon on (CVODES)", "PBSR (paper)"},
		{"FS errcon on (CVODES)", "Exp (paper)"},
		{"FS errcon on (ours)", "FS errcon on (CVODES)"},
		{"FS errcon off (ours)", "FS errcon off (CVODES)"},
		{"states (ours)", "states (CVODES)"},
		{"PBSR (ours)", "states (ours)"},
		{"PBSR (ours)", "states (CVODES)"},
		{"Exp (ours)", "states (ours)"},
		{"FS errcon on (ours)", "PBSR (ours)"},
	}
	fmt.Println("ratios of median times, same run:")
	for _, pr := range pairs {
		a, b := mr.find(pr[0]), mr.find(pr[1])
		if a == nil || b == nil {
			continue
		}
		r := a.Median / b.Median
		key := pr[0] + " / " + pr[1]
		mr.Ratios[key] = r
		fmt.Printf("  %-48s %7.2f\n", key, r)
	}
}
