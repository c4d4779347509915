package petab

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// This file adapts a Problem's objective to what an optimiser minimises:
// FitObjective has the method set of fit.Objective (Dim, Bounds, Eval),
// so it plugs into fit.Minimize and fit.MultiStart without petab
// importing fit, as Target does for mcmc.

// FitOptions configure a FitObjective. A nil *FitOptions means the
// defaults.
type FitOptions struct {
	// Method computes the sensitivities (default sens.PBSR, the
	// objective's).
	Method sens.Method
	// RTol and ATol are the solver's tolerances (0: the objective's
	// defaults).
	RTol, ATol float64
	// FIM says that Eval will be asked for the Hessian approximation
	// (the Fisher information); without it a hess argument is an error.
	FIM bool
	// Workers are the objective's goroutines per Eval (experiments in
	// parallel; objective.Options.Workers).
	Workers int
	// NoErrCon is objective.Options.NoErrCon: S out of FS's error test
	// (the default puts it in, as AMICI).
	NoErrCon bool
}

// FitObjective is the negative log posterior of a PEtab problem,
// -(LLH + log prior), as a function of theta, the estimated parameters on
// their parameter scales in EstimatedIDs order: PEtab's objective for a
// maximum a posteriori estimate, each prior at face value (a density of
// the linear value for the linear-value kinds), unlike Target, which adds
// the change of variables a sampler of theta needs. Without priors it is
// the negative log-likelihood. It implements fit.Objective. A
// FitObjective owns its objective (and ODE solvers), so it is for one
// goroutine; build one per optimiser worker.
//
// The Hessian approximation is the Fisher information of the
// likelihood in theta minus the (diagonal) Hessian of the log prior in
// theta: Gauss-Newton, positive semi-definite for log-concave priors.
type FitObjective struct {
	o      *objective.Objective
	res    objective.Result
	n      int
	lo, hi []float64
	fim    bool
}

// FitObjective returns the negative log posterior of p for an
// optimiser; see FitObjective.
func (p *Problem) FitObjective(opt *FitOptions) (*FitObjective, error) {
	var fo FitOptions
	if opt != nil {
		fo = *opt
	}
	// The bounds are the Target's (same scales, same checks).
	t, err := newTarget(p.Model, p.Objective, &TargetOptions{Method: fo.Method, RTol: fo.RTol, ATol: fo.ATol, NoErrCon: fo.NoErrCon, Grad: true, FIM: fo.FIM, Workers: fo.Workers})
	if err != nil {
		return nil, err
	}
	return &FitObjective{o: t.o, n: t.Dim(), lo: t.lo, hi: t.hi, fim: fo.FIM}, nil
}

// Dim is the number of estimated parameters.
func (f *FitObjective) Dim() int { return f.n }

// Bounds returns the parameter table's bounds on the parameter scales
// (shared: do not modify).
func (f *FitObjective) Bounds() (lo, hi []float64) { return f.lo, f.hi }

// Names returns the estimated parameters' ids, in theta's order.
func (f *FitObjective) Names() []string { return f.o.Params() }

// Close stops the objective's worker goroutines (Workers > 1).
func (f *FitObjective) Close() { f.o.Close() }

// Last returns the objective's result of the last Eval (LLH, LogPrior,
// Sim, ...): shared, overwritten by the next Eval.
func (f *FitObjective) Last() *objective.Result { return &f.res }

// Eval returns -(LLH + log prior) at theta and writes its gradient into
// grad and the Hessian approximation (row-major Dim x Dim) into hess when
// they are non-nil. A failed solve is an error; outside a prior's support
// the value is +Inf.
func (f *FitObjective) Eval(theta, grad, hess []float64) (float64, error) {
	n := f.n
	if len(theta) != n || grad != nil && len(grad) != n || hess != nil && len(hess) != n*n {
		return 0, fmt.Errorf("petab: objective of dimension %d called with theta %d, grad %d, hess %d entries", n, len(theta), len(grad), len(hess))
	}
	if hess != nil && !f.fim {
		return 0, errors.New("petab: Hessian requested of a fit objective built without FitOptions.FIM")
	}
	if err := f.o.Eval(theta, &f.res); err != nil {
		return 0, err
	}
	for a := range grad {
		grad[a] = -(f.res.Grad[a] + f.res.GradPrior[a])
	}
	if hess != nil {
		copy(hess, f.res.FIM)
		for a := range n {
			hess[a*n+a] -= f.res.HessPrior[a]
		}
	}
	return -f.res.LogPost, nil
}

// DrawInitPriors overwrites the entries of theta (parameter scales,
// EstimatedIDs order) whose parameter has an initialization prior with a
// draw from it within the bounds (redrawn up to 1000 times; the entry is
// left alone if no draw falls within them). The others keep their
// values: a multi-start's sampled point with the priors where PEtab
// gives them.
func (p *Problem) DrawInitPriors(rng *rand.Rand, theta []float64) {
	prob := p.Objective
	for a, i := range prob.Estimated {
		if a >= len(theta) {
			return
		}
		q := &prob.Params[i]
		if q.InitPrior.Kind == objective.NoPrior {
			continue
		}
		lo, hi := objective.ToScale(q.Scale, q.Lower), objective.ToScale(q.Scale, q.Upper)
		if math.IsNaN(lo) {
			lo = math.Inf(-1)
		}
		for range maxInitDraws {
			v := drawPrior(q.InitPrior, q.Scale, rng)
			if v >= lo && v <= hi && !math.IsNaN(v) && !math.IsInf(v, 0) {
				theta[a] = v
				break
			}
		}
	}
}
