package objective

import (
	"fmt"
	"math"

	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/sens"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// Steady state.
//
// The state is integrated alone to steady state (chunks of length 1, 10,
// 100, ... restarted from the state reached, until
// max_i |f_i| / (SteadyATol + SteadyRTol |x_i|) < 1), then polished by
// Newton's method and the sensitivities are solved for, not integrated:
// x_ss is fixed by f(x_ss, p) = 0 together with the conserved totals
// L x_ss = L x0 (L: the conservation laws, L f = 0 for all x and p), so
//
//	Jx S + Jp = 0,  L S = L S0,
//
// which the bordered matrix A = Jx + s L^T L (L with orthonormal rows,
// s > 0 a scale) turns into one square solve A S = -Jp + s L^T (L S0):
// multiplying by L gives s L L^T L S = s L L^T L S0 (as L Jx = 0,
// L Jp = 0), so L S = L S0, and then Jx S = -Jp. A is non-singular when the steady state is hyperbolic within
// its conservation class. The same A gives the Newton steps (which keep
// L x). When A is singular or ill-conditioned, or the solved S does not
// satisfy Jx S + Jp = 0 within the steady-state tolerances (a direction
// mistaken for a conservation law), the phase is redone integrating S
// with x (the robust path: integration carries L S0 along by itself).

// steady brings (x, S) of group g from t0 to steady state and returns the
// time reached; x and S (S0 on entry) are overwritten.
//
// phase is 0 for pre-equilibration, 1 for the simulation condition's
// steady state. Once a phase of an experiment has had to integrate S, it
// does so directly on later evaluations (the reason, a steady state that
// is singular beyond its conservation laws, is structural: a state that
// accumulates without acting on the others, a reaction switched off in
// that condition), instead of integrating the state twice every time.
func (w *worker) steady(e, phase, g int, x, S []float64, t0 float64) (float64, error) {
	tm := w.models[g]
	nx, nc := tm.nx, tm.nc
	pt := &w.c.part[e]
	if nc > 0 && pt.integrateS[phase] {
		pt.stats.SensFallbacks++
		return w.steadySens(e, g, x, S, t0)
	}
	copy(w.x0c, x)
	copy(w.s0c[:nx*nc], S)
	t, err := w.steadyState(e, g, x, t0)
	if err != nil {
		return t, err
	}
	ok := w.polish(tm, t, x)
	if nc == 0 {
		return t, nil
	}
	if ok && w.solveSens(tm, t, x, S) {
		return t, nil
	}
	// The robust path: integrate x and S together.
	pt.stats.SensFallbacks++
	pt.integrateS[phase] = true
	copy(x, w.x0c)
	copy(S, w.s0c[:nx*nc])
	return w.steadySens(e, g, x, S, t0)
}

// steadyState integrates x alone from t0 until f is negligible.
func (w *worker) steadyState(e, g int, x []float64, t0 float64) (float64, error) {
	tm, sv := w.models[g], w.odes[g]
	t, h := t0, 1.0
	tmax := t0 + w.c.opt.SteadyTMax
	for {
		if fs := w.fScale(tm, t, x); fs < 1 {
			return t, nil
		} else if t >= tmax || math.IsNaN(fs) {
			return t, fmt.Errorf("no steady state by t = %g (max |f_i|/(atol+rtol|x_i|) = %.3g)", t, fs)
		}
		w.ts[0] = min(t+h, tmax)
		st := &w.c.part[e].stats
		st.Solves++
		st.SteadyChunks++
		if ss := w.states[g]; ss != nil {
			steps, rej, err := ss.SolveState(x, w.q[:tm.nc], t, w.ts[0])
			st.Steps += steps
			st.Rejected += rej
			if err != nil {
				return t, err
			}
			t = w.ts[0]
			h *= 10
			continue
		}
		err := sv.IntegrateState(x, w.q[:tm.nc], t, w.ts[0])
		st.Steps += sv.Stats().Steps
		st.Rejected += sv.Stats().Rejected
		if err != nil {
			return t, err
		}
		t = w.ts[0]
		h *= 10
	}
}

// steadySens integrates (x, S) of group g from t0 until f and dS/dt are
// negligible, in chunks of growing length restarted from the state
// reached.
func (w *worker) steadySens(e, g int, x, S []float64, t0 float64) (float64, error) {
	tm, sv := w.models[g], w.solvers[g]
	nc := tm.nc
	t, h := t0, 1.0
	tmax := t0 + w.c.opt.SteadyTMax
	for {
		if w.isSteady(tm, t, x, S) {
			return t, nil
		}
		if t >= tmax {
			return t, fmt.Errorf("no steady state by t = %g (max |f_i|/(atol+rtol|x_i|) = %.3g)", t, w.fScale(tm, t, x))
		}
		w.ts[0] = min(t+h, tmax)
		w.st = sens.Start{T0: t, X0: x, S0: S}
		err := sv.SolveFrom(&w.ssRes, w.q[:nc], &w.st, w.ts[:])
		w.count(e, &w.ssRes, true)
		if err != nil {
			return t, err
		}
		copy(x, w.ssRes.XAt(0))
		copy(S, w.ssRes.SAt(0))
		t = w.ts[0]
		h *= 10
	}
}

// bordered writes A = Jx + s L^T L at (t, x) into w.a and factors it;
// false when a pivot is zero or below 1e-13 of the largest (too
// ill-conditioned to trust the solve). s = max |Jx_ij| (kept in w.lscale
// for the right-hand side of the S solve) puts the bordering on the scale
// of Jx; any s > 0 gives the same solutions.
func (w *worker) bordered(tm *thetaModel, t float64, x []float64) bool {
	nx := tm.nx
	tm.Jx(w.jx, t, x, nil)
	a := w.a
	sparse.CSR{Pat: tm.JxPattern(), Val: w.jx}.ScatterTo(a)
	sc := 0.0
	for _, v := range w.jx {
		sc = math.Max(sc, math.Abs(v))
	}
	if !(sc > 0) || math.IsInf(sc, 0) {
		sc = 1
	}
	w.lscale = sc
	if _, proj := w.c.laws(); proj != nil {
		addProjector(a, proj, sc)
	}
	if !dense.Factor(a, nx, w.piv) {
		return false
	}
	lo, hi := math.Inf(1), 0.0
	for i := 0; i < nx; i++ {
		d := math.Abs(a[i*nx+i])
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	return lo > 1e-13*hi
}

// addProjector adds sc P to the dense a (both nx x nx): the bordering
// of A, in O(nx^2) whatever the number of laws.
func addProjector(a, proj []float64, sc float64) {
	a = a[:len(proj)]
	for i, v := range proj {
		a[i] += sc * v
	}
}

// polish takes Newton steps A dx = -f (which keep the conserved totals)
// while they reduce f, at most four. It reports whether x is then within
// the steady-state tolerances of an exact root with a usable A (the last
// Newton correction below them): only then does the solved S describe the
// steady state. Near a degenerate steady state (x' = -x^3 at 0) f is small
// but the root is far in units of the tolerances, the remaining approach
// is not exponential and S must be integrated.
func (w *worker) polish(tm *thetaModel, t float64, x []float64) bool {
	rt, at := w.c.opt.SteadyRTol, w.c.opt.SteadyATol
	fs := w.fScale(tm, t, x)
	for it := 0; ; it++ {
		if !w.bordered(tm, t, x) {
			return false
		}
		dx := w.dx
		tm.F(dx, t, x, nil)
		dense.Solve(w.a, tm.nx, w.piv, dx)
		step := 0.0
		for i, v := range dx {
			w.xn[i] = x[i] - v
			step = math.Max(step, math.Abs(v)/(at+rt*math.Abs(x[i])))
		}
		if !(step < 1e-3) && it < 4 {
			if fn := w.fScale(tm, t, w.xn); fn < fs {
				copy(x, w.xn)
				fs = fn
				continue
			}
		}
		return step < 1
	}
}

// solveSens writes the steady-state S into S (S0 on entry) with A
// factored at x; false (S unchanged) when the solution is not finite or
// does not satisfy Jx S + Jp = 0 within the steady-state tolerances.
func (w *worker) solveSens(tm *thetaModel, t float64, x, S []float64) bool {
	nx, nc := tm.nx, tm.nc
	rhs := w.rhs[:nx*nc]
	jp := w.jp[:tm.jpPat.NNZ()]
	tm.Jp(jp, t, x, nil)
	sparse.CSR{Pat: tm.jpPat, Val: jp}.ScatterTo(rhs)
	for i := range rhs {
		rhs[i] = -rhs[i]
	}
	// + s L^T (L S0).
	if _, proj := w.c.laws(); proj != nil {
		dense.MulAdd(rhs, proj, S[:nx*nc], nx, nx, nc, w.lscale, 1)
	}
	dense.SolveMulti(w.a, nx, w.piv, rhs, nc)
	if !w.isSteady(tm, t, x, rhs) {
		return false
	}
	copy(S, rhs)
	return true
}

// fScale is max_i |f_i| / (atol + rtol |x_i|) (NaN if f is not finite).
func (w *worker) fScale(tm *thetaModel, t float64, x []float64) float64 {
	rt, at := w.c.opt.SteadyRTol, w.c.opt.SteadyATol
	tm.F(w.f, t, x, nil)
	m := 0.0
	for i, v := range w.f {
		r := math.Abs(v) / (at + rt*math.Abs(x[i]))
		if !(r <= m) {
			m = r
		}
	}
	return m
}

// isSteady reports whether f and dS/dt = Jx S + Jp are negligible.
func (w *worker) isSteady(tm *thetaModel, t float64, x, S []float64) bool {
	if !(w.fScale(tm, t, x) < 1) {
		return false
	}
	nc := tm.nc
	if nc == 0 {
		return true
	}
	rt, at := w.c.opt.SteadyRTol, w.c.opt.SteadyATol
	tm.Jx(w.jx, t, x, nil)
	jp := w.jp[:tm.jpPat.NNZ()]
	tm.Jp(jp, t, x, nil)
	ds := w.ds[:tm.nx*nc] // dS/dt = Jx S + Jp
	sparse.CSR{Pat: tm.JxPattern(), Val: w.jx}.MulBlockTo(ds, S, nc)
	sparse.CSR{Pat: tm.jpPat, Val: jp}.AddTo(ds, 1)
	for k, v := range ds {
		if !(math.Abs(v) < at+rt*math.Abs(S[k])) {
			return false
		}
	}
	return true
}
