package sens

import "math"

// maxLevel bounds the dyadic refinement of one output interval: steps are
// Delta/2^j with j <= maxLevel.
const maxLevel = 40

// runDyadic computes S at the outputs ts on the trajectory tr (from
// S(tr.T[0]) = s0) into dst, on a sensitivity grid of its own: each output
// interval [t_{k-1}, t_k] of length Delta is covered by steps of length
// Delta/2^j, the largest that do not exceed the integrator's local step
// (the state's error control resolves where x, and with it Jx and Jp,
// varies), aligned so that every step of a given length starts at a
// multiple of it. The few distinct step lengths let the exponential step
// reuse its matrix functions (see slotFor) across the whole run; x inside
// the integrator's steps comes from its dense output.
func (en *engine) runDyadic(dst, s0, ts []float64, sw []float64) {
	tr := en.tr
	blk := en.nx * en.ns
	copy(sw, s0)
	a, b := &en.a, &en.b
	a.t = tr.T[0]
	copy(a.x, tr.XAt(0))
	en.eval(a)
	iout := 0
	for iout < len(ts) && ts[iout] <= a.t {
		copy(dst[iout*blk:(iout+1)*blk], sw)
		iout++
	}
	control := en.cfg.method == PBSR
	hs := math.Inf(1) // largest step allowed by the local error control
	// History for the error estimate: S' = Jx S + Jp at the previous two
	// grid points (qp at tp, qa at a.t) and S at tp.
	hist := 0
	var tp float64
	if control {
		en.derivTo(en.qa, sw, a)
	}
	for ; iout < len(ts); iout++ {
		tl, tr1 := a.t, ts[iout]
		delta := tr1 - tl
		var pos uint64 // position in units of delta/2^maxLevel
		const full = uint64(1) << maxLevel
		for pos < full {
			// Coarsest level allowed by alignment and the remainder.
			j := 0
			for j < maxLevel && (pos%(full>>uint(j)) != 0 || pos+(full>>uint(j)) > full) {
				j++
			}
			// Refine to the integrator's local step and the error control.
			for j < maxLevel {
				h := math.Ldexp(delta, -j)
				if h <= math.Min(en.localStep(a.t, a.t+h), hs)*(1+1e-12) {
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
			en.eval(b)
			en.stats.Intervals++
			en.recordExp(a.t)
			if control {
				copy(en.sPrev, sw)
			}
			en.expStepH(sw, a, b, h)
			if control {
				en.derivTo(en.qb, sw, b)
				{
					e := en.localError(sw, a.t, b.t, tp, b, hist >= 1)
					tol := en.cfg.srtol*frob(sw) + en.cfg.satol
					if e > tol && j < maxLevel {
						// Reject: redo from a with half the step.
						copy(sw, en.sPrev)
						hs = h / 2
						en.stats.Refinements++
						continue
					}
					switch {
					case e <= tol/10:
						hs = 2 * h
					case e <= tol/2:
						hs = math.Max(hs, h)
					default:
						hs = h
					}
				}
				// Shift the history: (tp, Sp, qp) <- (ta, Sa, qa), qa <- qb.
				tp = a.t
				copy(en.sp, en.sPrev)
				en.qp, en.qa, en.qb = en.qa, en.qb, en.qp
				hist++
			}
			pos = npos
			a, b = b, a
		}
		copy(dst[iout*blk:(iout+1)*blk], sw)
	}
}

// localError estimates the local error of the end-point exponential
// trapezoid over [ta, tb], about h^3/12 ||d2g/dt2|| with g = (Jx - An) S + Jp
// (in non-stiff modes; stiff modes damp it further), where d2g/dt2 = d2q/dt2 -
// An d2S/dt2 with q = S' = Jx S + Jp and An the step's reference matrix (Jb,
// or that of a reused exponential), both from second divided differences
// over (tp, ta, tb). en.sp, en.sPrev, sw hold S and en.qp, en.qa, en.qb
// hold q at the three points.
//
// Without a previous point (the first step) it uses first divided
// differences, h^2/12 ||g'||: an overestimate by about 1/h that makes the
// first step conservative.
func (en *engine) localError(s []float64, ta, tb, tp float64, b *point, second bool) float64 {
	h, hp := tb-ta, ta-tp
	an := b.jx
	if en.cfg.expStep == ExpEndpoint {
		an = en.lastAn
	}
	d := en.t3
	if second {
		// Second divided differences times 2 (second derivatives).
		c := 2 / (h + hp)
		ch, chp := c/h, c/hp
		sa, sp := en.sPrev[:len(d)], en.sp[:len(d)]
		for i := range d {
			d[i] = ch*(s[i]-sa[i]) - chp*(sa[i]-sp[i])
		}
		en.spmm(en.t2, an, d)
		var e2 float64
		qa, qp, t2 := en.qa[:len(en.qb)], en.qp[:len(en.qb)], en.t2[:len(en.qb)]
		for i, x := range en.qb {
			g := ch*(x-qa[i]) - chp*(qa[i]-qp[i]) - t2[i]
			e2 += g * g
		}
		return h * h * h / 12 * math.Sqrt(e2)
	}
	for i := range d {
		d[i] = (s[i] - en.sPrev[i]) / h
	}
	en.spmm(en.t2, an, d)
	var e2 float64
	for i, x := range en.qb {
		g := (x-en.qa[i])/h - en.t2[i]
		e2 += g * g
	}
	return h * h / 12 * math.Sqrt(e2)
}

func frob(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
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
