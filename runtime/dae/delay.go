package dae

import (
	"math"

	"github.com/pbgen/pbgen/runtime/model"
)

// Delays. A wrapped model with delayed values (model.Delays, SBML csymbol
// delay) gives a reduced model that implements model.Delays over the
// differential states: each method solves z with the delayed values it
// is given (FDelayed, JxDelayed and OutputsDelayedTo with all of them;
// DelayArg and DelayTime with d[:k], the rest NaN: where z cannot be
// solved so, z is NaN, and e_k and tau_k are right if they do not read
// it, NaN if they do (solveOrNaN)) and evaluates the wrapped model's method at (x, z). runtime/dde
// then solves the reduced model like any delay model, its history
// holding x alone. The delay's length may read an algebraic variable
// (DelayInfo.Constant is then false: the wrapped model counts z among
// its states). Sensitivities through the delays (model.DelaySens) are not
// reduced: dde.SolveSens refuses such a model by name.

var _ model.Delays = (*Model)(nil)

// inF evaluates the wrapped F (or FDelayed with w.d) at w.full into w.fz.
func (r *Model) inF(w *work, t float64, p []float64) {
	if w.withD {
		r.dl.FDelayed(w.fz, t, w.full, p, w.d)
		return
	}
	r.in.F(w.fz, t, w.full, p)
}

// inJx evaluates the wrapped Jx (or JxDelayed with w.d) at w.full into
// w.jxv.
func (r *Model) inJx(w *work, t float64, p []float64) {
	if w.withD {
		r.dl.JxDelayed(w.jxv, t, w.full, p, w.d)
		return
	}
	r.in.Jx(w.jxv, t, w.full, p)
}

// getD is get with the delayed values d (the first len(d); the rest NaN).
func (r *Model) getD(d []float64) *work {
	w := r.get()
	if len(d) > len(w.d) {
		panic("dae: delayed values length mismatch")
	}
	copy(w.d, d)
	for i := len(d); i < len(w.d); i++ {
		w.d[i] = math.NaN()
	}
	w.withD = true
	return w
}

// solveOrNaN solves z at (t, x, p) with w's delayed values, or, where
// that fails, sets z to NaN: an algebraic equation may read delayed value
// k itself (t4 = delay(t3, t/2)), which DelayArg and DelayTime of k do not
// have, while e_k and tau_k need not read z at all (a result that does
// is then NaN, which the solver reports).
func (r *Model) solveOrNaN(w *work, t float64, x, p []float64) {
	if !r.solve(w, t, x, p) {
		copy(w.full[:r.nx], x)
		nanFill(w.full[r.nx:])
	}
}

// NumDelays is the wrapped model's number of delayed values (0 without).
func (r *Model) NumDelays() int {
	if r.dl == nil {
		return 0
	}
	return r.dl.NumDelays()
}

// DelayInfo describes delayed value k.
func (r *Model) DelayInfo(k int) model.DelayInfo { return r.dl.DelayInfo(k) }

// DelayArg is the argument of delayed value k at (t, x, p), d[:k] the
// delayed values before it, with z solved there.
func (r *Model) DelayArg(k int, t float64, x, p, d []float64) float64 {
	w := r.getD(d[:k])
	defer r.put(w)
	r.solveOrNaN(w, t, x, p)
	return r.dl.DelayArg(k, t, w.full, p, w.d)
}

// DelayTime is the delay of delayed value k at (t, x, p, d[:k]), with z
// solved there.
func (r *Model) DelayTime(k int, t float64, x, p, d []float64) float64 {
	w := r.getD(d[:k])
	defer r.put(w)
	r.solveOrNaN(w, t, x, p)
	return r.dl.DelayTime(k, t, w.full, p, w.d)
}

// DelayHistory is the argument of delayed value k at a time t before
// the start (the wrapped model's).
func (r *Model) DelayHistory(k int, t float64, p []float64) float64 {
	return r.dl.DelayHistory(k, t, p)
}

// FDelayed writes the reduced f at (t, x, p) with the delayed values d.
func (r *Model) FDelayed(dst []float64, t float64, x, p, d []float64) {
	w := r.getD(d)
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		nanFill(dst)
		return
	}
	r.inF(w, t, p)
	copy(dst, w.fz[:r.nx])
}

// JxDelayed writes the reduced df/dx at (t, x, p, d), d held fixed, in
// JxPattern order.
func (r *Model) JxDelayed(dst []float64, t float64, x, p, d []float64) {
	w := r.getD(d)
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		nanFill(dst)
		return
	}
	W := r.gInvTo(w, r.nx, r.blk.gxRow, r.blk.gxCol, r.blk.gxIdx, w.jxv)
	r.apply(dst, &r.jxPlan, w.jxv, W, r.nx, w.jxv)
}

// OutputsDelayedTo writes the outputs (Outputs) at (t, x, p, d).
func (r *Model) OutputsDelayedTo(dst []float64, t float64, x, p, d []float64) {
	w := r.getD(d)
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		nanFill(dst)
		return
	}
	if r.obs != nil {
		r.dl.OutputsDelayedTo(dst[:r.nInOut], t, w.full, p, w.d)
	}
	for q, k := range r.zOut {
		dst[r.nInOut+q] = w.full[r.nx+k]
	}
}

// initialDelayed sets w's delayed values to those at t = 0 for a
// wrapped model with delays, from the first guess in w.full: d_k is the
// history at -tau_k (SBML: every variable at its initial value before
// the start), or e_k itself for a delay of length 0, so that algebraic
// equations that read delayed values are solved at the start too. The
// delays are evaluated at the guess, which is exact when they do not
// depend on the algebraic variables.
func (r *Model) initialDelayed(w *work, p []float64) {
	if r.dl == nil {
		return
	}
	for k := range w.d {
		tau := r.dl.DelayTime(k, 0, w.full, p, w.d[:k])
		if tau == 0 {
			w.d[k] = r.dl.DelayArg(k, 0, w.full, p, w.d[:k])
		} else {
			w.d[k] = r.dl.DelayHistory(k, -tau, p)
		}
	}
	w.withD = true
}

var _ model.DelayEvents = (*Model)(nil)

// evalEvent solves z at (t, x, p) with the delayed values d and calls f
// with the full state, or returns false when z cannot be solved.
func (r *Model) evalEvent(t float64, x, p, d []float64, f func(full []float64)) bool {
	w := r.getD(d)
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		return false
	}
	f(w.full)
	return true
}

// delayEvents is the wrapped model's model.DelayEvents, nil if it
// lacks it (its plain event methods are then called).
func (r *Model) delayEvents() model.DelayEvents {
	de, _ := r.in.(model.DelayEvents)
	return de
}

// TriggersDelayedTo is TriggersTo with the delayed values d
// (model.DelayEvents): z is solved with them, and the wrapped model's
// triggers read them.
func (r *Model) TriggersDelayedTo(dst []bool, t float64, x, p, d []float64) {
	if r.ev == nil {
		return
	}
	de := r.delayEvents()
	if !r.evalEvent(t, x, p, d, func(full []float64) {
		if de != nil {
			de.TriggersDelayedTo(dst, t, full, p, d)
		} else {
			r.ev.TriggersTo(dst, t, full, p)
		}
	}) {
		clear(dst)
	}
}

// RootsDelayedTo is RootsTo with the delayed values d.
func (r *Model) RootsDelayedTo(dst []float64, t float64, x, p, d []float64) {
	if r.ev == nil {
		return
	}
	de := r.delayEvents()
	if !r.evalEvent(t, x, p, d, func(full []float64) {
		if de != nil {
			de.RootsDelayedTo(dst, t, full, p, d)
		} else {
			r.ev.RootsTo(dst, t, full, p)
		}
	}) {
		nanFill(dst)
	}
}

// EventDelayDelayed is Delay with the delayed values d.
func (r *Model) EventDelayDelayed(k int, t float64, x, p, d []float64) float64 {
	v := math.NaN()
	de := r.delayEvents()
	r.evalEvent(t, x, p, d, func(full []float64) {
		if de != nil {
			v = de.EventDelayDelayed(k, t, full, p, d)
		} else {
			v = r.ev.Delay(k, t, full, p)
		}
	})
	return v
}

// PriorityDelayed is Priority with the delayed values d.
func (r *Model) PriorityDelayed(k int, t float64, x, p, d []float64) float64 {
	v := math.NaN()
	de := r.delayEvents()
	r.evalEvent(t, x, p, d, func(full []float64) {
		if de != nil {
			v = de.PriorityDelayed(k, t, full, p, d)
		} else {
			v = r.ev.Priority(k, t, full, p)
		}
	})
	return v
}

// EventAssignDelayed is EventAssign with the delayed values d.
func (r *Model) EventAssignDelayed(k int, t float64, x, p, d, dst []float64) {
	de := r.delayEvents()
	if !r.evalEvent(t, x, p, d, func(full []float64) {
		if de != nil {
			de.EventAssignDelayed(k, t, full, p, d, dst)
		} else {
			r.ev.EventAssign(k, t, full, p, dst)
		}
	}) {
		nanFill(dst)
	}
}
