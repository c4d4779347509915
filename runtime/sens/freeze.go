package sens

import (
	"math"

	"github.com/pbgen/pbgen/runtime/internal/dense"
)

// freezer is the state of the frozen steps near equilibrium (see
// runDyadic): the point whose Jacobians the steps use, the affine map they
// then are, and whether its increment has converged.
type freezer struct {
	on       bool
	ref      point   // the frozen point
	nJx, nJp float64 // jacNorms(ref)
	m        frozenMap
	// dconv is the map's last increment S(tb) - S(ta); converged: the last
	// two agreed to rounding (haveD: there is a last one), so steps are
	// taken as S += dconv, nskip of them since the map was last applied.
	dconv            []float64 // nx*ns
	haveD, converged bool
	nskip            int
}

// newFreezer allocates the freezer; the map's nx x nx matrix only for
// the dense exponentials (dense; the sparse path keeps the dense Jp of
// the frozen point in c, see sparseFrozenStep).
func newFreezer(nx, ns, nnzx, nnzp int, dense bool) freezer {
	f := freezer{ref: newPoint(nx, nnzx, nnzp), dconv: make([]float64, nx*ns),
		m: frozenMap{c: make([]float64, nx*ns)}}
	if dense {
		f.m.m = make([]float64, nx*nx)
	}
	return f
}

// start resets the freezer for a run: nothing is frozen.
func (f *freezer) start() {
	f.on, f.haveD, f.converged, f.nskip = false, false, false, 0
}

// updateFreeze evaluates the Jacobians at the step's end b, unless frozen
// ones serve, and decides whether the step is frozen: a frozen stretch
// ends where x leaves the state tolerance of the frozen point or Jx, Jp
// (explicit time dependence can move them at constant x: checked at
// every step, skipped ones included, an evaluation costing far less than
// a step) leave SensRTol of its; one starts where x and the Jacobians
// barely changed over a step.
func (en *engine) updateFreeze(r *dyadicRun) {
	f := &en.freeze
	a, b := r.a, r.b
	bEval := false
	if f.on {
		unfreeze := !en.stationary(b.x, f.ref.x)
		if !unfreeze {
			en.eval(b)
			bEval = true
			unfreeze = !en.jacWithin(&f.ref, b, f.nJx, f.nJp)
		}
		if unfreeze {
			f.on = false
			// a was not evaluated while frozen.
			en.eval(a)
			if en.control.on {
				en.control.hist = 0
				en.probeAt(en.control.pa, r.cur, a)
				if en.corrector.on {
					en.qAt(en.corrector.qa, r.cur, a)
				}
			}
		}
	}
	if f.on {
		return
	}
	if !bEval {
		en.eval(b)
	}
	if !en.cfg.noFreeze && en.stationary(b.x, a.x) && en.jacClose(a, b) {
		f.on = true
		f.m.valid = false
		f.ref.t = a.t
		copy(f.ref.x, a.x)
		copy(f.ref.jx, a.jx)
		copy(f.ref.jp, a.jp)
		f.nJx, f.nJp = en.jacNorms(&f.ref)
	}
}

// frozenMapStep applies the frozen map and tracks the convergence of its
// increment: D_new = E D_old, compared with the stored one.
func (en *engine) frozenMapStep(nxt, cur []float64, h, nS float64) {
	f := &en.freeze
	if f.m.valid && f.m.h != h {
		f.haveD = false
	}
	en.frozenStep(nxt, cur, &f.ref, h)
	var dd float64
	for i, x := range nxt {
		d := x - cur[i]
		if f.haveD {
			e := d - f.dconv[i]
			dd += e * e
		}
		f.dconv[i] = d
	}
	f.converged = f.haveD && math.Sqrt(dd) <= 1e-13*float64(f.nskip+1)*nS
	f.haveD, f.nskip = true, 0
}

// maxSkip is the number of steps taken as S += D (see runDyadic) before
// the affine map is applied again to verify that its increment D is still
// the same.
const maxSkip = 64

// stationaryFactor is the fraction of the state integrator's tolerance
// within which x must stay of the frozen point. The steady S of networks
// with slow or neutral modes is sensitive to x: on CaMKII (t >= 100,
// against FS at 1e-10) freezing within the full tolerance left a 2.2e-4
// error in the steady S, 0.3 of it 1.9e-5, 0.1 of it 2.4e-5 (stepping every
// interval with the trajectory's Jacobians: 4.0e-5), skipping 520, 490 and
// 428 of the 536 steady steps.
const stationaryFactor = 0.3

// stationary reports whether x is within stationaryFactor times the
// state integrator's tolerance of xr in every component.
func (en *engine) stationary(x, xr []float64) bool {
	rt, at := stationaryFactor*en.cfg.ode.RTol, stationaryFactor*en.cfg.ode.ATol
	for i, v := range x {
		if math.Abs(v-xr[i]) > rt*math.Abs(xr[i])+at {
			return false
		}
	}
	return true
}

// jacClose reports whether Jx and Jp at b are within SensRTol (relative,
// infinity norm for Jx, largest entry for Jp) of those at a.
func (en *engine) jacClose(a, b *point) bool {
	nx, np := en.jacNorms(a)
	return en.jacWithin(a, b, nx, np)
}

// jacNorms returns the norms of jacClose at pt: ||Jx||_inf and the largest
// |Jp| entry.
func (en *engine) jacNorms(pt *point) (nJx, nJp float64) {
	nJx = en.jxm(pt.jx).NormInf()
	for _, x := range pt.jp {
		nJp = math.Max(nJp, math.Abs(x))
	}
	return nJx, nJp
}

// jacWithin is jacClose(ref, b) with the norms of ref given: a frozen
// stretch compares every step with one reference point, whose norms are
// computed once. The sum of all differences bounds every row's (and every
// entry's): near equilibrium, where this runs at every step, one pass
// (dense.L1Dist) settles it. A NaN in either Jacobian fails every test
// (comparisons are written so that NaN is never "within"): a Jacobian
// that turns NaN in a frozen stretch must end it, not be ignored.
func (en *engine) jacWithin(ref, b *point, nJx, nJp float64) bool {
	tx := en.cfg.srtol * nJx
	rj, bj := ref.jx, b.jx[:len(ref.jx)]
	if !(dense.L1Dist(rj, bj) <= tx) {
		if !(en.jxm(rj).DistInf(bj) <= tx) {
			return false
		}
	}
	tp := en.cfg.srtol * nJp
	rp, bp := ref.jp, b.jp[:len(ref.jp)]
	if !(dense.L1Dist(rp, bp) <= tp) {
		for k, x := range rp {
			if !(math.Abs(bp[k]-x) <= tp) {
				return false
			}
		}
	}
	return true
}

// frozenMap is the step of GridDyadic near equilibrium, where Jx and Jp
// are frozen at Jf, Pf: S(tb) = M S(ta) + c with M = N^{-1} (E + Wt dJ),
// c = N^{-1} W Pf, N = I - Ph dJ, dJ = Jf - An for a slot (h, An). Folding
// the W-method correction into M and c costs a few nx x nx products once
// per frozen stretch instead of a fresh exponential.
type frozenMap struct {
	m     []float64 // nx*nx
	c     []float64 // nx*ns
	h     float64
	valid bool
}

// frozenStep writes dst = M src + c for the frozen point f and step h,
// building the map when h changed or the map was invalidated.
func (en *engine) frozenStep(dst, src []float64, f *point, h float64) {
	if en.sparse != nil {
		en.sparseFrozenStep(dst, src, f, h)
		return
	}
	nx, ns := en.nx, en.ns
	fm := &en.freeze.m
	if !fm.valid || fm.h != h {
		sl, fresh := en.slotFor(f.jx, f.jx, h)
		en.endpoint.last = sl
		st := &en.endpoint
		copy(fm.m, sl.e)
		clear(fm.c)
		en.addForcing(fm.c, sl, f.jp, f.jp)
		if !fresh {
			// dA = dB = Jf - An (set by slotFor).
			en.scatterAd(st.dB)
			en.gemm(fm.m, sl.wt, en.ad, nx, nx, 1, 1)
			en.factorN(sl)
			dense.SolveFull(st.nmat, st.piv, nx, fm.m, nx)
			dense.SolveFull(st.nmat, st.piv, nx, fm.c, ns)
		}
		fm.h, fm.valid = h, true
	}
	en.gemm(dst, fm.m, src, nx, ns, 1, 0)
	for i, x := range fm.c {
		dst[i] += x
	}
	en.stats.ExpSteps++
}
