package sens

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/pbgen/pbgen/runtime/internal/dense"
)

// maxLevel bounds the dyadic refinement of one output interval: steps are
// Delta/2^j with j <= maxLevel.
const maxLevel = 40

// nProbe is the number of random probe vectors of the local error
// estimate: the error of the nx x ns sensitivity matrix is estimated from
// its action on nProbe Gaussian vectors (E ||X v||^2 = ||X||_F^2), which
// costs a few nx x nProbe products instead of full nx x ns ones.
const nProbe = dense.ProbeCols

// maxSkip is the number of steps taken as S += D (see runDyadic) before
// the affine map is applied again to verify that its increment D is still
// the same.
const maxSkip = 64

// probeNode holds S V and q V = (Jx S + Jp) V at one grid point, V the
// ns x nProbe probe matrix.
type probeNode struct {
	sv, qv []float64 // nx*nProbe
}

// runDyadic computes S at the outputs ts on the trajectory tr (from
// S(tr.T[0]) = s0) into dst, on a sensitivity grid of its own: each output
// interval [t_{k-1}, t_k] of length Delta is covered by steps of length
// Delta/2^j, the largest that do not exceed the integrator's local step
// (Exp) or that the local error control allows (PBSR), aligned so that
// every step of a given length starts at a multiple of it. The few
// distinct step lengths let the exponential step reuse its matrix
// functions (see slotFor) across the whole run; x inside the integrator's
// steps comes from its dense output.
//
// Near equilibrium, where x stays within the state tolerance of a point
// frz (and Jx, Jp within SensRTol of frz's), Jx and Jp are taken as frz's, and the steps become the same affine map
// S -> E S + c (see endStep). Its increments D_k = S_{k+1} - S_k obey
// D_{k+1} = E D_k and converge (to 0 at an equilibrium of S, or to a
// constant drift along a neutral direction of Jx, as in CaMKII); once two
// increments agree to rounding (1e-13 ||S||_F) the step is taken as
// S += D without the product, re-verified every maxSkip steps.
func (en *engine) runDyadic(dst, s0, ts []float64, sw []float64) {
	tr := en.tr
	blk := en.nx * en.ns
	cur, nxt := sw, en.t1
	copy(cur, s0)
	a, b := &en.a, &en.b
	a.t = tr.T[0]
	copy(a.x, tr.XAt(0))
	en.eval(a)
	iout := 0
	for iout < len(ts) && ts[iout] <= a.t {
		copy(dst[iout*blk:(iout+1)*blk], cur)
		iout++
	}
	control := en.cfg.method == PBSR
	hs := math.Inf(1) // largest step allowed by the local error control
	// History of the error estimate: probes at the previous two grid
	// points (pp at tp, pa at a.t); pb at the new point.
	hist := 0
	var tp float64
	pp, pa, pb := &en.probe[0], &en.probe[1], &en.probe[2]
	if control {
		en.probeAt(pa, cur, a)
	}
	// Convergence of the repeated affine map (see endStep).
	var nskip int
	converged, haveD := false, false
	nCur := -1.0 // ||cur||_F when known
	// Frozen: x has stayed within the state tolerance of frz.x, so Jx and
	// Jp are taken as those of frz (their changes are below the accuracy
	// of x), and every step of a given length is the same affine map.
	frozen := false
	frz := &en.frz
	var frzJx, frzJp float64 // jacNorms(frz)
	for ; iout < len(ts) && en.err == nil; iout++ {
		tl, tr1 := a.t, ts[iout]
		if !(tr1 > tl) {
			// A repeated output time: S is where the last one left it (a
			// zero-length interval has no step to take).
			copy(dst[iout*blk:(iout+1)*blk], cur)
			continue
		}
		delta := tr1 - tl
		var pos uint64 // position in units of delta/2^maxLevel
		const full = uint64(1) << maxLevel
		for pos < full && en.err == nil {
			// Coarsest level allowed by alignment and the remainder.
			j := 0
			for j < maxLevel && (pos%(full>>uint(j)) != 0 || pos+(full>>uint(j)) > full) {
				j++
			}
			// Refine to the integrator's local step and the error control.
			for j < maxLevel {
				h := math.Ldexp(delta, -j)
				if h <= math.Min(en.stepLimit(a.t, a.t+h), hs)*(1+1e-12) {
					break
				}
				j++
			}
			h := math.Ldexp(delta, -j)
			npos := pos + full>>uint(j)
			if npos == full {
				b.t = tr1
			} else {
				b.t = tl + delta*math.Ldexp(float64(npos), -maxLevel)
			}
			en.tr.InterpTo(b.x, b.t)
			bEval := false
			if frozen {
				unfreeze := !en.stationary(b.x, frz.x)
				if !unfreeze {
					// Explicit time dependence can move Jx, Jp at constant x:
					// checked at every step, skipped ones included (an
					// evaluation costs far less than a step).
					en.eval(b)
					bEval = true
					unfreeze = !en.jacWithin(frz, b, frzJx, frzJp)
				}
				if unfreeze {
					frozen = false
					// a was not evaluated while frozen.
					en.eval(a)
					if control {
						hist = 0
						en.probeAt(pa, cur, a)
					}
				}
			}
			if !frozen {
				if !bEval {
					en.eval(b)
				}
				if !en.cfg.noFreeze && en.stationary(b.x, a.x) && en.jacClose(a, b) {
					frozen = true
					en.fmap.valid = false
					frz.t = a.t
					copy(frz.x, a.x)
					copy(frz.jx, a.jx)
					copy(frz.jp, a.jp)
					frzJx, frzJp = en.jacNorms(frz)
				}
			}
			en.stats.Intervals++
			en.recordExp(a.t)
			en.stepT = a.t
			skip := frozen && converged && nskip < maxSkip && en.fmap.valid && en.fmap.h == h
			if nCur < 0 && !skip {
				nCur = frob(cur)
			}
			nS := nCur
			nCur = -1
			tau := en.cfg.srtol*nS + en.cfg.satol
			switch {
			case !frozen:
				en.endStep(nxt, cur, a, b, h, nS, tau)
				haveD, converged = false, false
			case skip:
				// S(tb) = S(ta) + D: the map's increment has converged.
				floats.AddTo(nxt, cur, en.dconv)
				nskip++
				en.stats.Converged++
			default:
				if en.fmap.valid && en.fmap.h != h {
					haveD = false
				}
				en.frozenStep(nxt, cur, frz, h)
				// D_new = E D_old: compare with the stored increment.
				var dd float64
				for i, x := range nxt {
					d := x - cur[i]
					if haveD {
						e := d - en.dconv[i]
						dd += e * e
					}
					en.dconv[i] = d
				}
				converged = haveD && math.Sqrt(dd) <= 1e-13*float64(nskip+1)*nS
				haveD, nskip = true, 0
			}
			if frozen && control {
				// No error estimate while frozen: let the step grow.
				hs = 2 * h
			}
			if control && !frozen {
				en.probeAt(pb, nxt, b)
				{
					e := en.localError(pb, pa, pp, a.t, b.t, tp, hist >= 1)
					nCur = frob(nxt)
					tol := en.cfg.srtol*nCur + en.cfg.satol
					fac := stepFactor(e, tol, hist >= 1)
					if e > tol && j < maxLevel {
						// Reject: redo from a with a step cut by the
						// estimate's order (at least halved).
						hs = h * math.Max(math.Min(0.9*fac, 0.5), 0x1p-20)
						nCur = nS
						en.stats.Refinements++
						continue
					}
					switch {
					case fac >= 2:
						hs = h * math.Min(fac, maxGrowth)
					case e <= tol/2:
						hs = math.Max(hs, h)
					default:
						hs = h
					}
				}
				// Shift the history.
				tp = a.t
				pp, pa, pb = pa, pb, pp
				hist++
			}
			if frozen {
				en.accRound(h, frzJx)
			} else {
				en.accRound(h, en.normInf(b.jx))
			}
			cur, nxt = nxt, cur
			pos = npos
			a, b = b, a
		}
		copy(dst[iout*blk:(iout+1)*blk], cur)
	}
}

// maxGrowth bounds the growth of the PBSR step from one accepted step to
// the next (the grid then takes the largest aligned dyadic step not above
// it).
const maxGrowth = 4

// stepFactor is the factor (tol/e)^(1/p) by which a step with error
// estimate e may be scaled to meet tol (rejections apply a safety factor
// 0.9, growth none: the estimate bounds the error from above), p = 3 for the second divided
// differences of localError (error O(h^3)) and 2 for the first-step
// estimate (O(h^2)). Stiff components, whose filtered error is closer to
// O(h), may need a second cut after a rejection; a cut of 2^k at once
// still replaces k halvings, each of which costs a fresh exponential for
// a step length not yet cached.
func stepFactor(e, tol float64, second bool) float64 {
	if e <= 0 {
		return math.Inf(1)
	}
	if second {
		return math.Cbrt(tol / e)
	}
	return math.Sqrt(tol / e)
}

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

// expGridFactor is how many integrator steps one step of the default Exp
// may span. The state is integrated at StateTolFactor = 0.01 times the
// user's tolerances, which with the integrator's order of about 4-5 makes
// its steps 2-3 times shorter than at the user's tolerances: Exp steps on
// a grid about as coarse as the user's tolerances would give, with x from
// the tighter integration. Measured (paper settings, errors against FS at
// 1e-10): factor 1 / 2 / 4 gives CaMKII 1.9e-3 / 6.7e-3 / 2.6e-2 at 14 /
// 8.8 / 6.9 ms (before the AVX2 kernels), PKA 4.4e-5 / 1.7e-4 / 6.4e-4,
// Chua 1.2e-3 / 4.9e-3 / 2.0e-2; factor 3 gives CaMKII 1.27e-2 (above the
// 1e-2 target) with 277 instead of 340 steps.
const expGridFactor = 2

// jacClose reports whether Jx and Jp at b are within SensRTol (relative,
// infinity norm for Jx, largest entry for Jp) of those at a.
func (en *engine) jacClose(a, b *point) bool {
	nx, np := en.jacNorms(a)
	return en.jacWithin(a, b, nx, np)
}

// jacNorms returns the norms of jacClose at pt: ||Jx||_inf and the largest
// |Jp| entry.
func (en *engine) jacNorms(pt *point) (nJx, nJp float64) {
	rp := en.jx.RowPtr
	for r := 0; r+1 < len(rp); r++ {
		var rn float64
		for k := rp[r]; k < rp[r+1]; k++ {
			rn += math.Abs(pt.jx[k])
		}
		nJx = math.Max(nJx, rn)
	}
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
		rp := en.jx.RowPtr
		for r := 0; r+1 < len(rp); r++ {
			var rd float64
			for k := rp[r]; k < rp[r+1]; k++ {
				rd += math.Abs(bj[k] - rj[k])
			}
			if !(rd <= tx) {
				return false
			}
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

// stepLimit is the largest step the grid may take from t0 towards t1:
// expGridFactor integrator steps for Exp, unlimited for PBSR, whose local
// error control resolves the variation of Jx and Jp.
func (en *engine) stepLimit(t0, t1 float64) float64 {
	if en.cfg.method == PBSR {
		return math.Inf(1)
	}
	return expGridFactor * en.localStep(t0, t1)
}

// probeAt fills n with S V and (Jx S + Jp) V at the point pt.
func (en *engine) probeAt(n *probeNode, s []float64, pt *point) {
	dense.MulRows4(n.sv, s, en.pv, en.nx, en.ns)
	en.spmmK(n.qv, pt.jx, n.sv)
	dense.SpMul4(n.qv, pt.jp, en.jpRow, en.jpCol, en.pv, true)
}

// spmmK writes dst = J X for the sparse Jx values v and X nx x nProbe.
func (en *engine) spmmK(dst, v, x []float64) {
	dense.SpMul4(dst, v, en.jx.RowPtr, en.jx.ColIdx, x, false)
}

// localError estimates the local error of the end-point exponential
// trapezoid over [ta, tb] from the probes at tb, ta and tp. The step
// integrates g = (Jx - An) S + Jp (An the slot's reference matrix) by its
// linear interpolant, whose error -(g”/2) s (h - s) is propagated by
// e^{(h-s)An}: the local error is -(g”/2) K with K = integral_0^h
// e^{(h-s)An} s (h-s) ds = h^3/6 R(hAn), R(z) = 6 (phi2(z) - 2 phi3(z)),
// R(0) = 1, R(z) ~ 6/z^2 for large negative z: stiff components are damped.
// R is bounded by (1 - z/4)^{-2} on the negative axis (equal to first
// order at 0, at most 16/6 times larger for z -> -infinity), which is what
// is applied: the estimate is h^3/12 ||(I - h An/4)^{-2} g”||.
// g” = q” - An S” with q = Jx S + Jp from second divided differences
// over (tp, ta, tb), on the probes.
//
// Without a previous point (the first step) it uses first divided
// differences, h^2/12 ||(I - h An/4)^{-2} g'||: an overestimate by about
// 1/h that makes the first step conservative.
func (en *engine) localError(pb, pa, pp *probeNode, ta, tb, tp float64, second bool) float64 {
	h, hp := tb-ta, ta-tp
	sl := en.lastSlot
	d := en.pd
	g := en.pg
	var scale float64
	if second {
		// Second divided differences times 2 (second derivatives).
		c := 2 / (h + hp)
		ch, chp := c/h, c/hp
		for i := range d {
			d[i] = ch*(pb.sv[i]-pa.sv[i]) - chp*(pa.sv[i]-pp.sv[i])
			g[i] = ch*(pb.qv[i]-pa.qv[i]) - chp*(pa.qv[i]-pp.qv[i])
		}
		scale = h * h * h / 12
	} else {
		for i := range d {
			d[i] = (pb.sv[i] - pa.sv[i]) / h
			g[i] = (pb.qv[i] - pa.qv[i]) / h
		}
		scale = h * h / 12
	}
	en.spmmK(en.pt, sl.an, d)
	for i := range g {
		g[i] -= en.pt[i]
	}
	en.filter(sl, g)
	var e2 float64
	for _, x := range g {
		e2 += x * x
	}
	return scale * math.Sqrt(e2/nProbe)
}

// filter overwrites the nx x nProbe g with (I - h An/4)^{-2} g for the
// slot's An and h: the matrix is formed once per slot (an LU and two
// solves on the identity), then applied as a product.
func (en *engine) filter(sl *refSlot, g []float64) {
	nx := en.nx
	if !sl.fGood {
		en.jx.ScatterTo(sl.flu, sl.an)
		c := -sl.h / 4
		for i := range sl.flu {
			sl.flu[i] *= c
		}
		for i := 0; i < nx; i++ {
			sl.flu[i*nx+i]++
		}
		dense.FactorFull(sl.flu, sl.fpiv, nx)
		clear(sl.f2)
		for i := 0; i < nx; i++ {
			sl.f2[i*nx+i] = 1
		}
		dense.SolveFull(sl.flu, sl.fpiv, nx, sl.f2, nx)
		dense.SolveFull(sl.flu, sl.fpiv, nx, sl.f2, nx)
		sl.fGood = true
	}
	dense.MulRows4(en.pt, sl.f2, g, nx, nx)
	copy(g, en.pt)
}

// frob is the Euclidean norm of v (the Frobenius norm of a matrix), with
// four partial sums: one sum is bound by the latency of its additions.
func frob(v []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		w := v[i : i+4 : i+4]
		s0 += w[0] * w[0]
		s1 += w[1] * w[1]
		s2 += w[2] * w[2]
		s3 += w[3] * w[3]
	}
	for _, x := range v[i:] {
		s0 += x * x
	}
	return math.Sqrt((s0 + s1) + (s2 + s3))
}

// localStep is the shortest integrator step overlapping [t0, t1].
func (en *engine) localStep(t0, t1 float64) float64 {
	tr := en.tr
	k := tr.Step(t0)
	h := tr.T[k+1] - tr.T[k]
	for k+2 < len(tr.T) && tr.T[k+1] < t1 {
		k++
		h = math.Min(h, tr.T[k+1]-tr.T[k])
	}
	return h
}
