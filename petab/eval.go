package petab

import (
	"fmt"
	"math"

	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// This file and target.go (the sampler's posterior) are the only ones
// that call runtime/objective's evaluation API (objective.New,
// Objective.Eval), so that a change of names there is an edit in two
// places.

func evaluate(p *Problem, theta []float64, opt *EvalOptions) (*EvalResult, error) {
	o, err := objective.New(p.Model, p.Objective, &objective.Options{
		Method: opt.Method, RTol: opt.RTol, ATol: opt.ATol, Grad: opt.Grad, FIM: opt.FIM, Workers: opt.Workers,
		Gradient: opt.Gradient, NoErrCon: opt.NoErrCon,
		Sens: &sens.Options{SensScale: opt.SensScale},
	})
	if err != nil {
		return nil, err
	}
	// A closure, not "defer o.Close()": that form evaluates o.core at the
	// defer, leaving o itself unreachable during Eval, and the
	// objective's finalizer on o then closes the worker channel under a
	// running Eval (Workers > 1: "send on closed channel").
	defer func() { o.Close() }()
	// Evaluate takes linear values (what a user types with -p); the
	// objective works on the parameter scales.
	scaled := make([]float64, len(theta))
	for k, i := range p.Objective.Estimated {
		scaled[k] = objective.ToScale(p.Objective.Params[i].Scale, theta[k])
	}
	var out objective.Result
	if err := o.Eval(scaled, &out); err != nil {
		return nil, err
	}
	r := &EvalResult{LLH: out.LLH, Chi2: out.Chi2, LogPrior: out.LogPrior, Grad: out.Grad, Method: o.Method(), Choice: o.Choice()}
	n := len(theta)
	if opt.FIM {
		if len(out.FIM) != n*n {
			return nil, fmt.Errorf("petab: objective returned a FIM of %d entries for %d parameters", len(out.FIM), n)
		}
		r.FIM = make([][]float64, n)
		for i := range r.FIM {
			r.FIM[i] = out.FIM[i*n : (i+1)*n]
		}
	}
	r.Sim = make([]float64, len(p.Measurements))
	for i := range r.Sim {
		r.Sim[i] = math.NaN()
	}
	k := 0
	for e := range p.Rows {
		for _, row := range p.Rows[e] {
			if k < len(out.Sim) {
				r.Sim[row] = out.Sim[k]
			}
			k++
		}
	}
	return r, nil
}
