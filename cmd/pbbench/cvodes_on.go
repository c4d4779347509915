//go:build cvodes

package main

import (
	"fmt"
	"math"

	"github.com/pbgen/pbgen/internal/cvodes"
	"github.com/pbgen/pbgen/runtime/model"
)

const haveCVODES = true

// cvodesObjectiveSolver runs the PEtab objectives' solves on CVODES FS.
var cvodesObjectiveSolver = cvodes.NewObjectiveSolver

// pbar is runtime/sens's default scale of S's columns (ScaleParams),
// for CVODES's CVodeSetSensParams: |p_j| of the columns params (nil:
// all), 1 where p_j = 0; nil without sensitivities. Both integrators then
// weigh S alike in their error tests.
func pbar(p []float64, params []int, sens bool) []float64 {
	if !sens {
		return nil
	}
	if params == nil {
		params = make([]int, len(p))
		for j := range params {
			params[j] = j
		}
	}
	s := make([]float64, len(params))
	for c, j := range params {
		s[c] = math.Abs(p[j])
		if s[c] == 0 {
			s[c] = 1
		}
	}
	return s
}

// cvodesSolver runs SUNDIALS CVODES (BDF, dense LU, analytic Jx; staggered
// FS with S' = Jx S + Jp when sens).
func cvodesSolver(name string, spec *modelSpec, p []float64, rtol, atol float64, sens, errcon bool) *solver {
	nx, np := model.NumStates(spec.m), model.NumParams(spec.m)
	s, err := cvodes.New(spec.m, cvodes.Options{RTol: rtol, ATol: atol, Sens: sens, ErrCon: errcon, MaxSteps: 100000, PBar: pbar(p, nil, sens)})
	if err != nil {
		return &solver{name: name, run: func() error { return err }}
	}
	x0 := make([]float64, nx)
	spec.m.InitialState(x0, p)
	xs := make([]float64, len(spec.ts)*nx)
	var ss []float64
	if sens {
		ss = make([]float64, len(spec.ts)*nx*np)
	}
	sv := &solver{
		name: name,
		run:  func() error { return s.Solve(p, x0, spec.ts[0], spec.ts, xs, ss) },
		info: func() string {
			st := s.LastStats()
			return fmt.Sprintf("steps %d, f %d, jac %d, LU %d, sens rhs %d", st.Steps, st.FEvals, st.JacEvals, st.LUs, st.SensFEvals)
		},
	}
	if sens {
		sv.s = func() []float64 { return ss }
	}
	return sv
}

func cvodesSolvers(spec *modelSpec, p []float64) []*solver {
	return []*solver{
		cvodesSolver("states (CVODES)", spec, p, spec.rtol, spec.atol, false, false),
		cvodesSolver("FS errcon on (CVODES)", spec, p, spec.rtol, spec.atol, true, true),
		cvodesSolver("FS errcon off (CVODES)", spec, p, spec.rtol, spec.atol, true, false),
	}
}

// cvodesWP are the CVODES points of the work-precision view.
func cvodesWP(spec *modelSpec, p []float64, rtol, atol float64) []*solver {
	return []*solver{
		cvodesSolver(fmt.Sprintf("CVODES FS on rtol %.0e", rtol), spec, p, rtol, atol, true, true),
		cvodesSolver(fmt.Sprintf("CVODES FS off rtol %.0e", rtol), spec, p, rtol, atol, true, false),
	}
}

// cvodesScaleRunner is a CVODES solve of m from its initial state with
// parameters p over ts: states alone when params is nil, else FS (errconS
// on) for the columns params; the KLU sparse solver when klu, else the
// dense one. free releases the C memory.
func cvodesScaleRunner(m model.Model, p, ts []float64, rtol, atol float64, params []int, klu bool) (run func() error, free func()) {
	opt := cvodes.Options{RTol: rtol, ATol: atol, MaxSteps: 100000, Sens: params != nil, ErrCon: true, Params: params, PBar: pbar(p, params, params != nil)}
	if klu {
		opt.Linear = cvodes.KLU
	}
	s, err := cvodes.New(m, opt)
	if err != nil {
		return func() error { return err }, func() {}
	}
	nx := model.NumStates(m)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	xs := make([]float64, len(ts)*nx)
	ss := make([]float64, len(ts)*nx*s.NumSens())
	return func() error { return s.Solve(p, x0, ts[0], ts, xs, ss) }, s.Close
}

// cvodesLangRunner is CVODES FS with KLU (errconS off, all parameters) of
// the Lang section; stats writes its steps and sensitivity iterations.
func cvodesLangRunner(m model.Model, p, x0, ts []float64, rtol, atol float64) (run func() error, stats func(*LangMethod), free func()) {
	s, err := cvodes.New(m, cvodes.Options{RTol: rtol, ATol: atol, MaxSteps: 100000, Sens: true, Linear: cvodes.KLU})
	if err != nil {
		return func() error { return err }, func(*LangMethod) {}, func() {}
	}
	nx := model.NumStates(m)
	xs := make([]float64, len(ts)*nx)
	ss := make([]float64, len(ts)*nx*s.NumSens())
	return func() error { return s.Solve(p, x0, ts[0], ts, xs, ss) }, func(lm *LangMethod) {
		st := s.LastStats()
		lm.Steps, lm.SensIters = st.Steps, st.SensNonlinIters
	}, s.Close
}

// cvodesFSRuns are CVODES FS (errconS, CV_NORMAL) with its BDF (dense LU)
// and with CV_ADAMS (fixed-point iteration), for the solver section.
func cvodesFSRuns(m model.Model, p, ts []float64, rtol, atol float64) []*fsRun {
	nx, np := model.NumStates(m), model.NumParams(m)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	var out []*fsRun
	for _, c := range []struct {
		name  string
		adams bool
	}{{"CVODES BDF", false}, {"CVODES Adams", true}} {
		s, err := cvodes.New(m, cvodes.Options{RTol: rtol, ATol: atol, Sens: true, ErrCon: true, MaxSteps: -1, Adams: c.adams})
		if err != nil {
			out = append(out, &fsRun{name: c.name, run: func() error { return err }})
			continue
		}
		xs := make([]float64, len(ts)*nx)
		r := &fsRun{name: c.name, s: make([]float64, len(ts)*nx*np), steps: func() int { return s.LastStats().Steps }}
		r.run = func() error { return s.Solve(p, x0, ts[0], ts, xs, r.s) }
		out = append(out, r)
	}
	return out
}
