package fit

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Result is the outcome of one minimisation.
type Result struct {
	// X is the final point (length Dim), F = f(X), Grad its gradient.
	X    []float64
	F    float64
	Grad []float64
	// Status says why the minimisation stopped; Err, for StartFailed
	// and NotRun, what failed.
	Status Status
	Err    error
	// Iter counts iterations (trial steps), Evals objective evaluations
	// (the start's included), Failed the evaluations that failed or were
	// not finite (each a rejected step).
	Iter, Evals, Failed int
	// Reflections counts the reflections at the bounds of the steps
	// tried.
	Reflections int
	// Switched is the iteration at which Hybrid switched to BFGS (0 if
	// it did not, or for the other Hessians).
	Switched int
	Elapsed  time.Duration
}

// Minimize minimises obj within its bounds from x0 with the interior
// trust-region reflective method of Coleman and Li (1996) as Fides
// implements it (see the package doc): affine scaling by the distance to
// the bound the gradient points to, an exact trust-region subproblem in
// two dimensions or all, steps that leave the box reflected at it or
// truncated, the radius updated as Nocedal and Wright's Algorithm 4.1.
// x0 must lie within the bounds; a coordinate within 100 machine epsilons
// of a bound is moved inside by that much, as the method needs a strictly
// interior point. Fixed parameters (Options.Fixed) keep their x0 value.
//
// The error return is for misuse only (wrong lengths, x0 outside the
// bounds, empty bounds); a start point where the objective fails is a
// Result with Status StartFailed.
func Minimize(ctx context.Context, obj Objective, x0 []float64, opt *Options) (*Result, error) {
	o := opt.withDefaults()
	n := obj.Dim()
	if len(x0) != n {
		return nil, fmt.Errorf("fit: start point of length %d for %d parameters", len(x0), n)
	}
	if o.Fixed != nil && len(o.Fixed) != n {
		return nil, fmt.Errorf("fit: Fixed of length %d for %d parameters", len(o.Fixed), n)
	}
	lo, hi := obj.Bounds()
	if lo != nil && len(lo) != n || hi != nil && len(hi) != n {
		return nil, fmt.Errorf("fit: bounds of lengths %d and %d for %d parameters", len(lo), len(hi), n)
	}
	for i, v := range x0 {
		l, h := bound(lo, i, -1), bound(hi, i, 1)
		if !(l < h) {
			return nil, fmt.Errorf("fit: parameter %d: bounds [%g, %g] are empty", i, l, h)
		}
		if !(v >= l && v <= h) {
			return nil, fmt.Errorf("fit: parameter %d: start %g outside the bounds [%g, %g]", i, v, l, h)
		}
	}
	mz := newMinimizer(obj, o, x0, lo, hi)
	return mz.run(ctx), nil
}

func bound(b []float64, i int, sign float64) float64 {
	if b == nil {
		return math.Inf(int(sign))
	}
	return b[i]
}

// minimizer is the state of one Minimize call. Vectors over the free
// parameters have length m; x, gFull and hFull are over all n.
type minimizer struct {
	obj  Objective
	o    Options
	n, m int
	free []int

	x, xt        []float64 // current and trial point (all parameters)
	gFull, hFull []float64 // Eval buffers
	f            float64
	g, gt        []float64 // free gradient at x and at the trial point
	b            []float64 // the model Hessian (m x m)
	fim, fimT    []float64 // the objective's Hessian at x and at the trial (FIM, Hybrid)
	qn           []float64 // quasi-Newton matrix (BFGS, SR1, Hybrid)
	s, y, u      []float64
	v, dv        []float64
	st           *stepper

	delta        float64
	switched     bool
	sinceRadius  int // iterations since the radius last changed (HybridFixed)
	intermediate int // accepted iterations without a radius change (HybridFraction)
	res          Result
	wantHess     bool
	start        time.Time
}

func newMinimizer(obj Objective, o Options, x0, lo, hi []float64) *minimizer {
	n := len(x0)
	mz := &minimizer{obj: obj, o: o, n: n}
	for i := range n {
		if o.Fixed == nil || !o.Fixed[i] {
			mz.free = append(mz.free, i)
		}
	}
	m := len(mz.free)
	mz.m = m
	mz.x = append([]float64(nil), x0...)
	mz.xt = make([]float64, n)
	mz.gFull = make([]float64, n)
	for _, p := range []*[]float64{&mz.g, &mz.gt, &mz.s, &mz.y, &mz.u, &mz.v, &mz.dv} {
		*p = make([]float64, m)
	}
	mz.b = make([]float64, m*m)
	mz.st = newStepper(m, o.Subspace)
	mz.st.lo, mz.st.hi = make([]float64, m), make([]float64, m)
	for a, i := range mz.free {
		mz.st.lo[a], mz.st.hi[a] = bound(lo, i, -1), bound(hi, i, 1)
	}
	mz.st.x = make([]float64, m)
	switch o.Hessian {
	case FIM, Hybrid:
		mz.hFull = make([]float64, n*n)
		mz.fim, mz.fimT = make([]float64, m*m), make([]float64, m*m)
		mz.wantHess = true
	}
	if o.Hessian != FIM {
		mz.qn = make([]float64, m*m)
		for i := range m {
			mz.qn[i*m+i] = 1
		}
	}
	mz.delta = o.Delta0
	return mz
}

// eval evaluates the objective at mz.xt into mz.gt (and mz.fimT) and
// returns f, +Inf when the evaluation failed or is not finite.
func (mz *minimizer) eval() (float64, error) {
	mz.res.Evals++
	var h []float64
	if mz.wantHess && !mz.switched {
		h = mz.hFull
	}
	f, err := mz.obj.Eval(mz.xt, mz.gFull, h)
	if err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
		err = fmt.Errorf("fit: objective value %g", f)
	}
	if err == nil {
		for a, i := range mz.free {
			mz.gt[a] = mz.gFull[i]
			if !finite(mz.gt[a]) {
				err = fmt.Errorf("fit: gradient entry %d is %g", i, mz.gt[a])
				break
			}
		}
	}
	if err == nil && h != nil {
		m := mz.m
		for a, i := range mz.free {
			for b, j := range mz.free {
				v := 0.5 * (h[i*mz.n+j] + h[j*mz.n+i])
				if !finite(v) {
					err = fmt.Errorf("fit: Hessian entry (%d, %d) is %g", i, j, v)
				}
				mz.fimT[a*m+b] = v
			}
		}
	}
	if err != nil {
		mz.res.Failed++
		return math.Inf(1), err
	}
	return f, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// interior moves the free coordinates of x off their bounds.
func (mz *minimizer) interior() {
	const eps = 100 * 2.220446049250313e-16
	for a, i := range mz.free {
		l, h := mz.st.lo[a], mz.st.hi[a]
		if mz.x[i]-l < eps {
			mz.x[i] = min(l+eps, 0.5*(l+h))
		}
		if h-mz.x[i] < eps {
			mz.x[i] = max(h-eps, 0.5*(l+h))
		}
		mz.st.x[a] = mz.x[i]
	}
}

func (mz *minimizer) run(ctx context.Context) *Result {
	mz.start = time.Now()
	defer func() { mz.res.Elapsed = time.Since(mz.start) }()
	mz.interior()
	copy(mz.xt, mz.x)
	f, err := mz.eval()
	if err != nil {
		mz.res.Status, mz.res.Err = StartFailed, err
		mz.result(math.NaN())
		return &mz.res
	}
	mz.f = f
	copy(mz.g, mz.gt)
	if mz.fim != nil {
		copy(mz.fim, mz.fimT)
	}
	mz.useHessian()
	mz.scaling()
	if mz.gnorm() <= max(mz.o.GATol, mz.o.GRTol*math.Abs(mz.f)) {
		mz.res.Status = GTol
	}
	for mz.res.Status == NotRun {
		mz.res.Status = mz.iterate(ctx)
	}
	mz.result(mz.f)
	return &mz.res
}

// result fills the result from the current point.
func (mz *minimizer) result(f float64) {
	mz.res.X = append([]float64(nil), mz.x...)
	mz.res.F = f
	mz.res.Grad = make([]float64, mz.n)
	for a, i := range mz.free {
		mz.res.Grad[i] = mz.g[a]
	}
	if math.IsNaN(f) {
		for i := range mz.res.Grad {
			mz.res.Grad[i] = math.NaN()
		}
	}
}

// scaling computes Coleman and Li's v, dv and the scaled model at x.
func (mz *minimizer) scaling() {
	st, m := mz.st, mz.m
	vg := 0.0
	for a := range m {
		g := mz.g[a]
		v, dv := 1.0, 0.0
		if g < 0 {
			v = -1
		}
		bnd := st.lo[a]
		if g < 0 {
			bnd = st.hi[a]
		}
		if !math.IsInf(bnd, 0) {
			v, dv = st.x[a]-bnd, 1
		}
		mz.v[a], mz.dv[a] = v, dv
		st.sv[a] = math.Sqrt(math.Abs(v))
		st.gh[a] = st.sv[a] * g
		vg = max(vg, math.Abs(v*g))
	}
	for a := range m {
		for b := range m {
			st.mh[a*m+b] = st.sv[a] * mz.b[a*m+b] * st.sv[b]
		}
		st.mh[a*m+a] += math.Abs(mz.g[a]) * mz.dv[a]
	}
	st.theta = max(mz.o.ThetaMax, 1-vg)
}

// gnorm is the norm of the scaled gradient at x.
func (mz *minimizer) gnorm() float64 { return math.Sqrt(dot(mz.st.gh, mz.st.gh)) }

// useHessian sets the model Hessian b from the current approximation.
func (mz *minimizer) useHessian() {
	if mz.o.Hessian == FIM || mz.o.Hessian == Hybrid && !mz.switched {
		copy(mz.b, mz.fim)
		return
	}
	copy(mz.b, mz.qn)
}

// iterate makes one trial step and returns the status (NotRun to go on).
func (mz *minimizer) iterate(ctx context.Context) Status {
	o := &mz.o
	if ctx.Err() != nil {
		return Canceled
	}
	if mz.res.Iter >= o.MaxIter {
		return MaxIter
	}
	if o.MaxTime > 0 && mz.res.Iter > 0 {
		el := time.Since(mz.start)
		if o.MaxTime-el < el/time.Duration(mz.res.Iter) {
			return MaxTime
		}
	}
	if mz.delta < 2.220446049250313e-16 {
		return SmallRadius
	}
	mz.res.Iter++
	st := mz.st
	st.delta = mz.delta
	if !st.subproblem() {
		// A non-finite model cannot happen with finite g and B; shrink
		// and retry rather than stop on a numerical accident.
		mz.delta *= o.Gamma1
		return NotRun
	}
	psi := st.propose()
	mz.res.Reflections += st.count
	m := mz.m
	copy(mz.xt, mz.x)
	for a, i := range mz.free {
		mz.s[a] = st.sv[a] * st.best[a]
		mz.xt[i] = mz.x[i] + mz.s[a]
		// Rounding must not put the trial on or past a bound.
		mz.xt[i] = min(max(mz.xt[i], st.lo[a]), st.hi[a])
	}
	ns := math.Sqrt(dot(st.best, st.best))
	deltaIter := mz.delta
	fNew, _ := mz.eval()
	accepted := false
	rho := 0.0
	if math.IsInf(fNew, 1) {
		mz.delta = min(o.Gamma1*mz.delta, ns/4)
		mz.sinceRadius = 0
	} else {
		// Coleman and Li's ratio: the actual decrease with the C term
		// at x, over the predicted.
		aug := 0.0
		for a := range m {
			aug += 0.5 * st.best[a] * st.best[a] * math.Abs(mz.g[a]) * mz.dv[a]
		}
		if psi < 0 {
			rho = (fNew + aug - mz.f) / psi
		}
		mz.sinceRadius++
		switch {
		case rho >= o.Eta && ns >= 0.9*deltaIter && psi < 0:
			mz.delta = o.Gamma2 * mz.delta
			mz.sinceRadius = 0
		case rho <= o.Mu || psi >= 0:
			mz.delta = min(o.Gamma1*mz.delta, ns/4)
			mz.sinceRadius = 0
		default:
			if rho > 0 {
				mz.intermediate++
			}
		}
		accepted = rho > 0 && psi < 0
	}
	status := NotRun
	switch {
	case mz.delta <= deltaIter && math.Abs(fNew-mz.f) < o.FATol+o.FRTol*math.Abs(mz.f):
		status = FTol
	case mz.res.Iter > 1 && ns < o.XTol:
		status = XTol
	}
	if accepted {
		mz.accept(fNew)
		if status == NotRun && mz.gnorm() <= max(o.GATol, o.GRTol*math.Abs(mz.f)) {
			status = GTol
		}
	}
	if o.Trace != nil {
		o.Trace(Iteration{Iter: mz.res.Iter, F: mz.f, FTrial: fNew, Predict: psi, Ratio: rho, Delta: deltaIter, Step: ns, GNorm: mz.gnorm(), Reflect: st.chosen, Accepted: accepted})
	}
	return status
}

// accept moves to the trial point and updates the Hessian approximation.
func (mz *minimizer) accept(fNew float64) {
	m := mz.m
	for a := range m {
		mz.y[a] = mz.gt[a] - mz.g[a]
	}
	if mz.qn != nil {
		if mz.o.Hessian == SR1 {
			sr1(mz.qn, mz.s, mz.y, mz.u)
		} else {
			bfgs(mz.qn, mz.s, mz.y, mz.u)
		}
	}
	copy(mz.x, mz.xt)
	mz.f = fNew
	copy(mz.g, mz.gt)
	if mz.fim != nil && !mz.switched {
		copy(mz.fim, mz.fimT)
	}
	if mz.o.Hessian == Hybrid && !mz.switched {
		it := mz.res.Iter
		if mz.o.SwitchFraction > 0 {
			mz.switched = it >= 25 && float64(mz.intermediate)/float64(it) > mz.o.SwitchFraction
		} else {
			mz.switched = mz.sinceRadius >= mz.o.SwitchIter
		}
		if mz.switched {
			mz.res.Switched = it
		}
	}
	mz.interior()
	mz.useHessian()
	mz.scaling()
}
