package petab

import (
	"fmt"
	"math"
	"sort"

	"github.com/pbgen/pbgen/runtime/objective"

	"github.com/pbgen/pbgen/runtime/sens"
)

// EvalOptions configure Evaluate. A zero field means the objective
// package's default.
type EvalOptions struct {
	Method     sens.Method
	RTol, ATol float64
	// SensScale is sens.Options.SensScale: the scales of the theta
	// columns in FS's error weights (default ScaleParams).
	SensScale sens.SensScale
	// NoErrCon is objective.Options.NoErrCon: S out of FS's error test
	// (the default puts it in, as AMICI).
	NoErrCon  bool
	Grad, FIM bool
	Workers   int // experiments solved in parallel (objective.Options.Workers)
	// Gradient is objective.Options.Gradient: forward (the default) or
	// adjoint.
	Gradient objective.GradMethod
}

// EvalResult is the objective at one parameter vector.
type EvalResult struct {
	LLH, Chi2, LogPrior float64
	// Grad is dLLH/dtheta and FIM the Fisher information, with theta on
	// the parameters' scales (parameterScale: lin, log or log10), as
	// optimisers and samplers use them; in EstimatedIDs order.
	Grad []float64
	FIM  [][]float64
	Sim  []float64 // simulated value of each measurement, in Measurements order
	// Method is the method that computed the sensitivities: EvalOptions'
	// Method, or what sens.Auto resolved to, for which Choice says why.
	Method sens.Method
	Choice sens.Choice
}

// EstimatedIDs are the ids of the estimated parameters, in theta's order.
func (p *Problem) EstimatedIDs() []string {
	ids := make([]string, len(p.Objective.Estimated))
	for k, i := range p.Objective.Estimated {
		ids[k] = p.Objective.Params[i].ID
	}
	return ids
}

// Theta returns theta at the nominal values, with the values in set (by
// parameter id, linear scale) replacing them. It is an error to set a
// parameter that is not in the table or not estimated.
func (p *Problem) Theta(set map[string]float64) ([]float64, error) {
	th := make([]float64, len(p.Objective.Estimated))
	pos := make(map[string]int)
	for k, i := range p.Objective.Estimated {
		q := p.Objective.Params[i]
		th[k] = q.Nominal
		pos[q.ID] = k
	}
	var ids []string
	for id := range set {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		k, ok := pos[id]
		if !ok {
			return nil, fmt.Errorf("petab: %q is not an estimated parameter of %s", id, p.Path)
		}
		th[k] = set[id]
	}
	for k, v := range th {
		q := p.Objective.Params[p.Objective.Estimated[k]]
		if math.IsNaN(v) {
			return nil, fmt.Errorf("petab: parameter %q has no nominal value; set it", q.ID)
		}
		// 0 on a log scale is theta = -Inf, the linear value 0 (a reaction
		// switched off, as Lang_PLOSComputBiol2024's nominal values have
		// it), with derivative 0 on the scale: what petab's scaled
		// nominal values and AMICI evaluate. A negative value has no log.
		if q.Scale != objective.Lin && !(v >= 0) {
			return nil, fmt.Errorf("petab: parameter %q is on %s scale, but its value %g is negative; set it", q.ID, q.Scale, v)
		}
	}
	return th, nil
}

// Evaluate computes the log-likelihood (and with opt.Grad, opt.FIM its
// gradient and the Fisher information) at theta, linear-scale values of
// the estimated parameters in EstimatedIDs order.
func (p *Problem) Evaluate(theta []float64, opt *EvalOptions) (*EvalResult, error) {
	if len(theta) != len(p.Objective.Estimated) {
		return nil, fmt.Errorf("petab: %d parameter values for %d estimated parameters", len(theta), len(p.Objective.Estimated))
	}
	if opt == nil {
		opt = &EvalOptions{}
	}
	return evaluate(p, theta, opt)
}
