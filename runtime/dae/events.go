package dae

import (
	"math"

	"github.com/pbgen/pbgen/runtime/internal/dense"

	"github.com/pbgen/pbgen/runtime/model"
)

var (
	_ model.Model       = (*Model)(nil)
	_ model.Observer    = (*Model)(nil)
	_ model.EventDerivs = (*Model)(nil)
)

// NumEvents is the wrapped model's number of events (0 without).
func (r *Model) NumEvents() int {
	if r.ev == nil {
		return 0
	}
	return r.ev.NumEvents()
}

// EventInfo returns event k's name and flags.
func (r *Model) EventInfo(k int) model.EventInfo { return r.ev.EventInfo(k) }

// NumRoots is the wrapped model's number of root functions.
func (r *Model) NumRoots() int {
	if r.ev == nil {
		return 0
	}
	return r.ev.NumRoots()
}

// EventTargets returns the states event k sets (differential states, whose
// indices are the same in the reduced model).
func (r *Model) EventTargets(k int) []int { return r.ev.EventTargets(k) }

// TriggersTo writes the trigger values at (t, x, p) into dst (false when
// z cannot be solved).
func (r *Model) TriggersTo(dst []bool, t float64, x, p []float64) {
	if r.ev == nil {
		return
	}
	w := r.get()
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		clear(dst)
		return
	}
	r.ev.TriggersTo(dst, t, w.full, p)
}

// RootsTo writes the root functions at (t, x, p) into dst.
func (r *Model) RootsTo(dst []float64, t float64, x, p []float64) {
	if r.ev == nil {
		return
	}
	w := r.get()
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		nanFill(dst)
		return
	}
	r.ev.RootsTo(dst, t, w.full, p)
}

// Delay is event k's delay at (t, x, p).
func (r *Model) Delay(k int, t float64, x, p []float64) float64 {
	w := r.get()
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		return math.NaN()
	}
	return r.ev.Delay(k, t, w.full, p)
}

// Priority is event k's priority at (t, x, p).
func (r *Model) Priority(k int, t float64, x, p []float64) float64 {
	w := r.get()
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		return math.NaN()
	}
	return r.ev.Priority(k, t, w.full, p)
}

// EventAssign writes event k's new values at (t, x, p) into dst.
func (r *Model) EventAssign(k int, t float64, x, p, dst []float64) {
	w := r.get()
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		nanFill(dst)
		return
	}
	r.ev.EventAssign(k, t, w.full, p, dst)
}

// implicit holds the implicit derivatives of z at a point: Zx = dz/dx
// (nz x nx), Zp = dz/dp (nz x np), Zt = dz/dt, all at fixed other
// arguments.
type implicit struct {
	full       []float64
	Zx, Zp, Zt []float64
}

// implicitAt solves z at (t, x, p) and forms its derivatives, or reports
// false. It allocates.
func (r *Model) implicitAt(t float64, x, p []float64) (*implicit, bool) {
	w := r.get()
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		return nil, false
	}
	im := &implicit{full: append([]float64(nil), w.full...)}
	im.Zx = make([]float64, r.nz*r.nx)
	for e, k := range r.blk.gxIdx {
		im.Zx[r.blk.gxRow[e]*r.nx+r.blk.gxCol[e]] = -w.jxv[k]
	}
	r.solveMulti(w, im.Zx, r.nx)
	r.in.Jp(w.jpv, t, w.full, p)
	im.Zp = make([]float64, r.nz*r.np)
	for e, k := range r.blk.gpIdx {
		im.Zp[r.blk.gpRow[e]*r.np+r.blk.gpCol[e]] = -w.jpv[k]
	}
	r.solveMulti(w, im.Zp, r.np)
	im.Zt = make([]float64, r.nz)
	r.in.ResidualT(im.Zt, t, w.full, p)
	for i := range im.Zt {
		im.Zt[i] = -im.Zt[i]
	}
	r.solveMulti(w, im.Zt, 1)
	return im, true
}

func (r *Model) solveMulti(w *work, b []float64, m int) {
	if m == 0 {
		return
	}
	dense.SolveMulti(w.gz, r.nz, w.piv, b, m)
}

// reduceRow turns the derivative of a function of (t, x, z, p) (dxFull
// over all states, dp, dt) into that of the reduced function, in place:
// dx gets dxFull[:nx] + dxFull[nx:] Zx, dp += dxFull[nx:] Zp, and the
// returned dt += dxFull[nx:] Zt.
func (r *Model) reduceRow(im *implicit, dxFull, dx, dp []float64, dt float64) float64 {
	copy(dx, dxFull[:r.nx])
	for k := 0; k < r.nz; k++ {
		a := dxFull[r.nx+k]
		if a == 0 {
			continue
		}
		for j := 0; j < r.nx; j++ {
			dx[j] += a * im.Zx[k*r.nx+j]
		}
		for j := 0; j < r.np; j++ {
			dp[j] += a * im.Zp[k*r.np+j]
		}
		dt += a * im.Zt[k]
	}
	return dt
}

// RootGrad writes the reduced gradient of root function j into dx and dp
// and returns its reduced derivative in t. It allocates.
func (r *Model) RootGrad(j int, t float64, x, p, dx, dp []float64) float64 {
	im, ok := r.implicitAt(t, x, p)
	if !ok {
		nanFill(dx)
		nanFill(dp)
		return math.NaN()
	}
	dxFull := make([]float64, r.n)
	dt := r.ev.RootGrad(j, t, im.full, p, dxFull, dp)
	return r.reduceRow(im, dxFull, dx, dp, dt)
}

// EventDeriv writes the reduced derivatives of event k's delay and
// assigned values into d. It allocates.
func (r *Model) EventDeriv(k int, t float64, x, p []float64, d *model.EventDeriv) {
	rows := len(r.ev.EventTargets(k)) + 1
	im, ok := r.implicitAt(t, x, p)
	if !ok {
		nanFill(d.X)
		nanFill(d.P)
		nanFill(d.T)
		return
	}
	full := &model.EventDeriv{X: make([]float64, rows*r.n), P: d.P, T: d.T}
	r.ev.EventDeriv(k, t, im.full, p, full)
	for i := 0; i < rows; i++ {
		d.T[i] = r.reduceRow(im, full.X[i*r.n:(i+1)*r.n], d.X[i*r.nx:(i+1)*r.nx], d.P[i*r.np:(i+1)*r.np], d.T[i])
	}
}
