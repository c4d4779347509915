package capi

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/pbgen/pbgen/generated/camkiipetab"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// Options are a Problem's solver options; a zero field means
// runtime/objective's default.
type Options struct {
	// Method is fs, pbs, pbsr or exp (any case); "" is the objective's
	// default.
	Method string
	// RTol and ATol are the solver's tolerances.
	RTol, ATol float64
	// Workers > 1 solves experiments on that many goroutines.
	Workers int
}

// objOptions checks o and returns the objective's options without Grad
// and FIM.
func (o *Options) objOptions() (objective.Options, error) {
	var opt objective.Options
	if o == nil {
		return opt, nil
	}
	if o.Method != "" {
		m, err := sens.ParseMethod(o.Method)
		if err != nil {
			return opt, fmt.Errorf("method %q: want fs, pbs, pbsr or exp", o.Method)
		}
		opt.Method = m
	}
	if err := checkTols(o.RTol, o.ATol); err != nil {
		return opt, err
	}
	if o.Workers < 0 {
		return opt, fmt.Errorf("workers = %d, want >= 0", o.Workers)
	}
	opt.RTol, opt.ATol, opt.Workers = o.RTol, o.ATol, o.Workers
	return opt, nil
}

// checkTols refuses tolerances the integrators take as misuse; 0 means
// the default.
func checkTols(rtol, atol float64) error {
	switch {
	case rtol != 0 && !(rtol >= 1e-14 && rtol < 1):
		return fmt.Errorf("rtol = %g, want a value in [1e-14, 1) (or 0 for the default)", rtol)
	case atol != 0 && !(atol > 0 && !math.IsInf(atol, 1)):
		return fmt.Errorf("atol = %g, want a finite value > 0 (or 0 for the default)", atol)
	}
	return nil
}

// Problem is an estimation problem ready for evaluation.
type Problem struct {
	mu sync.Mutex
	// pp is the problem as read (nil for a compiled one): what sampling
	// needs for its posterior and initial points.
	pp   *petab.Problem
	m    model.Model
	prob *objective.Problem
	opt  objective.Options
	info ProblemInfo
	// objs are the objectives by kind (kindLLH, kindGrad, kindFIM),
	// made on first use.
	objs [3]*objective.Objective
	res  objective.Result
}

const (
	kindLLH = iota
	kindGrad
	kindFIM
)

// ProblemInfo describes a Problem: its estimated parameters in theta's
// order, on their scales, and its data in the order of the residuals.
type ProblemInfo struct {
	ParameterIDs []string `json:"parameter_ids"`
	Scales       []string `json:"scales"`
	Nominal      Floats   `json:"nominal"` // on the scales
	Lower        Floats   `json:"lower"`   // on the scales
	Upper        Floats   `json:"upper"`   // on the scales
	HasPrior     bool     `json:"has_prior"`
	// Per datum, in the order of Res, Sim and Sigma: the observable id,
	// the time (+Inf at steady state) and the experiment's name.
	DataObservables []string `json:"data_observables"`
	DataTimes       Floats   `json:"data_times"`
	DataExperiments []string `json:"data_experiments"`
}

// LoadProblem reads the PEtab problem whose YAML file is path.
func LoadProblem(path string, opt *Options) (*Problem, error) {
	oo, err := opt.objOptions()
	if err != nil {
		return nil, err
	}
	pp, err := petab.Load(path)
	if err != nil {
		return nil, err
	}
	p, err := newProblem(pp.Model, pp.Objective, oo, pp.ExperimentIDs)
	if err != nil {
		return nil, err
	}
	p.pp = pp
	return p, nil
}

// compiledProblems are the PEtab problems compiled into the library
// (pbgen petab -gen), by name.
var compiledProblems = map[string]func() (model.Model, *objective.Problem){
	"camkiipetab": func() (model.Model, *objective.Problem) { return camkiipetab.New(), camkiipetab.Problem() },
}

// CompiledProblem returns the problem compiled into the library under
// name.
func CompiledProblem(name string, opt *Options) (*Problem, error) {
	oo, err := opt.objOptions()
	if err != nil {
		return nil, err
	}
	mk, ok := compiledProblems[name]
	if !ok {
		return nil, fmt.Errorf("no compiled problem %q (have %s)", name, strings.Join(sortedKeys(compiledProblems), ", "))
	}
	m, prob := mk()
	return newProblem(m, prob, oo, nil)
}

// newProblem checks prob against m by building the llh-only objective,
// so that a problem the objective refuses fails at load.
func newProblem(m model.Model, prob *objective.Problem, opt objective.Options, expIDs []string) (*Problem, error) {
	p := &Problem{m: m, prob: prob, opt: opt}
	if _, err := p.objective(kindLLH); err != nil {
		return nil, err
	}
	o := p.objs[kindLLH]
	in := &p.info
	in.ParameterIDs = o.Params()
	for _, s := range o.Scales() {
		in.Scales = append(in.Scales, s.String())
	}
	in.Nominal = o.Nominal()
	for _, i := range prob.Estimated {
		q := prob.Params[i]
		in.Lower = append(in.Lower, objective.ToScale(q.Scale, q.Lower))
		in.Upper = append(in.Upper, objective.ToScale(q.Scale, q.Upper))
		if q.Prior.Kind != objective.NoPrior {
			in.HasPrior = true
		}
	}
	for e, ex := range prob.Experiments {
		name := fmt.Sprintf("experiment %d", e)
		if e < len(expIDs) {
			name = expIDs[e]
		}
		for _, d := range ex.Data {
			in.DataObservables = append(in.DataObservables, prob.Observables[d.Obs].ID)
			in.DataTimes = append(in.DataTimes, d.T)
			in.DataExperiments = append(in.DataExperiments, name)
		}
	}
	return p, nil
}

// Info returns the problem's description (shared: do not modify).
func (p *Problem) Info() *ProblemInfo { return &p.info }

// objective returns the objective of a kind, building it on first use.
func (p *Problem) objective(kind int) (*objective.Objective, error) {
	if o := p.objs[kind]; o != nil {
		return o, nil
	}
	opt := p.opt
	opt.Grad = kind >= kindGrad
	opt.FIM = kind == kindFIM
	o, err := objective.New(p.m, p.prob, &opt)
	if err != nil {
		return nil, err
	}
	p.objs[kind] = o
	return o, nil
}

// Outputs are the caller's buffers for Eval. A nil pointer or slice is
// not computed (not requested); a non-nil slice must have the length
// the problem says: len(theta) for Grad, GradPrior and HessPrior,
// len(theta)^2 for FIM (row-major), the number of data for Res, Sim and
// Sigma.
type Outputs struct {
	LLH, Chi2, LogPrior *float64
	Grad, GradPrior     []float64
	FIM, HessPrior      []float64
	Res, Sim, Sigma     []float64
}

// Eval evaluates the problem at theta (on the parameter scales) into
// out. The kind of objective run is the least that fills out: Grad or
// GradPrior need the gradient, FIM or HessPrior the FIM.
func (p *Problem) Eval(theta []float64, out *Outputs) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		return errClosed
	}
	nt, nd := len(p.info.ParameterIDs), len(p.info.DataTimes)
	if len(theta) != nt {
		return fmt.Errorf("theta has %d values, want %d (the estimated parameters %s)", len(theta), nt, listNames(p.info.ParameterIDs, 10))
	}
	for a, v := range theta {
		if math.IsNaN(v) {
			return fmt.Errorf("theta[%d] (%s) is NaN", a, p.info.ParameterIDs[a])
		}
	}
	for _, b := range []struct {
		name string
		s    []float64
		n    int
	}{{"grad", out.Grad, nt}, {"grad_prior", out.GradPrior, nt}, {"fim", out.FIM, nt * nt},
		{"hess_prior", out.HessPrior, nt}, {"res", out.Res, nd}, {"sim", out.Sim, nd}, {"sigma", out.Sigma, nd}} {
		if b.s != nil && len(b.s) != b.n {
			return fmt.Errorf("the %s buffer has %d values, want %d", b.name, len(b.s), b.n)
		}
	}
	kind := kindLLH
	if out.Grad != nil || out.GradPrior != nil {
		kind = kindGrad
	}
	if out.FIM != nil || out.HessPrior != nil {
		kind = kindFIM
	}
	o, err := p.objective(kind)
	if err != nil {
		return err
	}
	r := &p.res
	if err := o.Eval(theta, r); err != nil {
		return err
	}
	set := func(dst *float64, v float64) {
		if dst != nil {
			*dst = v
		}
	}
	set(out.LLH, r.LLH)
	set(out.Chi2, r.Chi2)
	set(out.LogPrior, r.LogPrior)
	copy(out.Grad, r.Grad)
	copy(out.GradPrior, r.GradPrior)
	copy(out.FIM, r.FIM)
	copy(out.HessPrior, r.HessPrior)
	copy(out.Res, r.Res)
	copy(out.Sim, r.Sim)
	copy(out.Sigma, r.Sigma)
	return nil
}

// Close stops the objectives' worker goroutines. The Problem must not be
// used afterwards.
func (p *Problem) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, o := range p.objs {
		if o != nil {
			o.Close()
			p.objs[k] = nil
		}
	}
	p.m = nil
}

// errClosed is returned by a method of a closed value.
var errClosed = errors.New("the problem or model is closed")

// TimeEval runs n evaluations at theta in a Go loop, of the kind Eval
// runs for out (its buffers are not written), and returns the process
// CPU seconds per evaluation: the Go side of the bridge's overhead
// measurement, in the caller's process and thread, so that the
// difference from the same loop through the caller's language is the
// bridge alone.
func (p *Problem) TimeEval(theta []float64, n int, grad, fim bool) (float64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		return 0, errClosed
	}
	if len(theta) != len(p.info.ParameterIDs) || n < 1 {
		return 0, fmt.Errorf("TimeEval: theta has %d values (want %d), n = %d (want >= 1)", len(theta), len(p.info.ParameterIDs), n)
	}
	kind := kindLLH
	if grad {
		kind = kindGrad
	}
	if fim {
		kind = kindFIM
	}
	o, err := p.objective(kind)
	if err != nil {
		return 0, err
	}
	if err := o.Eval(theta, &p.res); err != nil {
		return 0, err
	}
	c0 := cpuTime()
	for range n {
		if err := o.Eval(theta, &p.res); err != nil {
			return 0, err
		}
	}
	return (cpuTime() - c0) / float64(n), nil
}
