package fit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/optimize"
)

// MinimizeLBFGS minimises an objective without bounds by gonum/optimize's
// L-BFGS and its line search, as a second method beside the trust region
// (which handles bounds; this does not). It uses only values and
// gradients. From opt it takes MaxIter (major iterations), MaxTime, GATol
// (on the infinity norm of the gradient, gonum's GradientThreshold) and
// FATol/FRTol (gonum's FunctionConverge over one iteration); the other
// fields do not apply. A finite bound, or Fixed, is an error: use
// Minimize. A failed evaluation is f = +Inf, which the line search backs
// off from.
func MinimizeLBFGS(ctx context.Context, obj Objective, x0 []float64, opt *Options) (*Result, error) {
	o := opt.withDefaults()
	n := obj.Dim()
	if len(x0) != n {
		return nil, fmt.Errorf("fit: start point of length %d for %d parameters", len(x0), n)
	}
	if o.Fixed != nil {
		return nil, errors.New("fit: MinimizeLBFGS does not fix parameters; use Minimize")
	}
	lo, hi := obj.Bounds()
	for i := range n {
		if !math.IsInf(bound(lo, i, -1), -1) || !math.IsInf(bound(hi, i, 1), 1) {
			return nil, fmt.Errorf("fit: parameter %d has a finite bound: MinimizeLBFGS is for unbounded problems; use Minimize", i)
		}
	}
	start := time.Now()
	res := &Result{}
	// gonum asks for the value and the gradient at the same point in
	// separate calls: evaluate both at once and keep them.
	cx, cg := make([]float64, n), make([]float64, n)
	cf, have := 0.0, false
	eval := func(x []float64) float64 {
		if have && equal(x, cx) {
			return cf
		}
		res.Evals++
		f, err := obj.Eval(x, cg, nil)
		if err != nil || !finite(f) {
			res.Failed++
			f = math.Inf(1)
		}
		copy(cx, x)
		cf, have = f, true
		return f
	}
	p := optimize.Problem{
		Func: eval,
		Grad: func(grad, x []float64) {
			eval(x)
			copy(grad, cg)
		},
	}
	settings := &optimize.Settings{
		MajorIterations:   o.MaxIter,
		Runtime:           o.MaxTime,
		GradientThreshold: max(o.GATol, 0),
		Converger:         &ctxConverger{ctx: ctx, f: optimize.FunctionConverge{Absolute: max(o.FATol, 0), Relative: max(o.FRTol, 0), Iterations: 1}},
	}
	r, err := optimize.Minimize(p, x0, settings, &optimize.LBFGS{})
	res.Elapsed = time.Since(start)
	if r == nil {
		return nil, fmt.Errorf("fit: %v", err)
	}
	res.X, res.F, res.Iter = r.X, r.F, r.MajorIterations
	res.Grad = make([]float64, n)
	eval(r.X)
	copy(res.Grad, cg)
	switch {
	case ctx.Err() != nil:
		res.Status = Canceled
	case r.Status == optimize.FunctionConvergence:
		res.Status = FTol
	case r.Status == optimize.GradientThreshold || r.Status == optimize.MethodConverge || r.Status == optimize.Success:
		res.Status = GTol
	case r.Status == optimize.IterationLimit:
		res.Status = MaxIter
	case r.Status == optimize.RuntimeLimit:
		res.Status = MaxTime
	default:
		res.Status, res.Err = LineSearchFailed, fmt.Errorf("fit: L-BFGS stopped: %v (%v)", r.Status, err)
	}
	if res.Iter == 0 && math.IsInf(res.F, 1) {
		res.Status, res.Err = StartFailed, errors.New("fit: the objective fails at the start point")
	}
	return res, nil
}

func equal(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ctxConverger is FunctionConverge that also stops when ctx is done.
type ctxConverger struct {
	ctx context.Context
	f   optimize.FunctionConverge
}

func (c *ctxConverger) Init(dim int) { c.f.Init(dim) }

func (c *ctxConverger) Converged(loc *optimize.Location) optimize.Status {
	if c.ctx.Err() != nil {
		return optimize.RuntimeLimit
	}
	return c.f.Converged(loc)
}
