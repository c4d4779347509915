package sens

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// maxLevel bounds the dyadic refinement of one output interval: steps are
// Delta/2^j with j <= maxLevel.
const maxLevel = 40

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
// (and Jx, Jp within SensRTol of its), Jx and Jp are taken as that point's
// (the freezer), and the steps become the same affine map S -> E S + c
// (see frozenStep). Its increments D_k = S_{k+1} - S_k obey
// D_{k+1} = E D_k and converge (to 0 at an equilibrium of S, or to a
// constant drift along a neutral direction of Jx, as in CaMKII); once two
// increments agree to rounding (1e-13 ||S||_F) the step is taken as
// S += D without the product, re-verified every maxSkip steps.
func (en *engine) runDyadic(dst, s0, ts []float64, sw []float64) {
	blk := en.nx * en.ns
	r := dyadicRun{cur: sw, nxt: en.t1, a: &en.a, b: &en.b, nCur: -1}
	copy(r.cur, s0)
	r.a.t = en.tr.T[0]
	copy(r.a.x, en.tr.XAt(0))
	en.eval(r.a)
	iout := 0
	for iout < len(ts) && ts[iout] <= r.a.t {
		copy(dst[iout*blk:(iout+1)*blk], r.cur)
		iout++
	}
	en.control.start(en.cfg.method == PBSR)
	if en.control.on {
		en.control.setWeights(r.cur, en.nx, en.ns, en.cfg.colWeightMax)
	}
	if en.control.on {
		en.probeAt(en.control.pa, r.cur, r.a)
		if en.corrector.on {
			en.qAt(en.corrector.qa, r.cur, r.a)
		}
	}
	en.freeze.start()
	for ; iout < len(ts) && en.err == nil; iout++ {
		// A repeated output time has no step to take: S is where the
		// last one left it.
		if ts[iout] > r.a.t {
			en.coverOutput(&r, r.a.t, ts[iout])
		}
		copy(dst[iout*blk:(iout+1)*blk], r.cur)
	}
}

// dyadicRun is the state of runDyadic between steps: S at the step's
// start (cur) and the buffer of its end (nxt), the step's end points, and
// ||cur||_F when known (nCur >= 0).
type dyadicRun struct {
	cur, nxt []float64
	a, b     *point
	nCur     float64
}

// coverOutput steps S over the output interval [tl, tout] with aligned
// dyadic steps.
func (en *engine) coverOutput(r *dyadicRun, tl, tout float64) {
	delta := tout - tl
	var pos uint64 // position in units of delta/2^maxLevel
	const full = uint64(1) << maxLevel
	for pos < full && en.err == nil {
		j := en.dyadicLevel(pos, delta, r.a.t)
		h := math.Ldexp(delta, -j)
		npos := pos + full>>uint(j)
		if npos == full {
			r.b.t = tout
		} else {
			r.b.t = tl + delta*math.Ldexp(float64(npos), -maxLevel)
		}
		en.tr.InterpTo(r.b.x, r.b.t)
		en.updateFreeze(r)
		if !en.dyadicStep(r, h, j) {
			continue // rejected: again from a with a shorter step
		}
		r.cur, r.nxt = r.nxt, r.cur
		r.a, r.b = r.b, r.a
		pos = npos
	}
}

// dyadicLevel is the level j of the step Delta/2^j from position pos of
// an output interval of length delta, the step starting at t: the
// coarsest that alignment and the rest of the interval allow, refined to
// the integrator's local step (Exp) and the error control (PBSR).
func (en *engine) dyadicLevel(pos uint64, delta, t float64) int {
	const full = uint64(1) << maxLevel
	j := 0
	for j < maxLevel && (pos%(full>>uint(j)) != 0 || pos+(full>>uint(j)) > full) {
		j++
	}
	for j < maxLevel {
		h := math.Ldexp(delta, -j)
		if h <= math.Min(en.stepLimit(t, t+h), en.control.hs)*(1+1e-12) {
			break
		}
		j++
	}
	return j
}

// dyadicStep takes the step [a.t, b.t] of length h (level j) into r.nxt:
// the end-point step, or near equilibrium the frozen map or its converged
// increment. It reports false when the error control rejects the step.
func (en *engine) dyadicStep(r *dyadicRun, h float64, j int) bool {
	f := &en.freeze
	a, b := r.a, r.b
	en.stats.Intervals++
	en.recordExp(a.t)
	en.stepT = a.t
	skip := f.on && f.converged && f.nskip < maxSkip && f.m.valid && f.m.h == h
	if r.nCur < 0 && !skip {
		r.nCur = frob(r.cur)
	}
	nS := r.nCur
	r.nCur = -1
	switch {
	case !f.on:
		en.endpointStep(r.nxt, r.cur, a, b, h, nS, en.localTol*(en.cfg.srtol*nS+en.cfg.satol))
		f.haveD, f.converged = false, false
	case skip:
		// S(tb) = S(ta) + D: the map's increment has converged.
		floats.AddTo(r.nxt, r.cur, f.dconv)
		f.nskip++
		en.stats.Converged++
	default:
		en.frozenMapStep(r.nxt, r.cur, h, nS)
	}
	if en.control.on {
		if f.on {
			// No error estimate while frozen: let the step grow.
			en.control.hs = 2 * h
		} else if !en.judgeStep(r, h, j, nS) {
			return false
		}
	}
	if f.on {
		en.accRound(h, f.nJx)
	} else {
		en.accRound(h, en.normInf(b.jx))
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

// stepLimit is the largest step the grid may take from t0 towards t1:
// expGridFactor integrator steps for Exp, unlimited for PBSR, whose local
// error control resolves the variation of Jx and Jp.
func (en *engine) stepLimit(t0, t1 float64) float64 {
	if en.cfg.method == PBSR {
		return math.Inf(1)
	}
	return expGridFactor * en.localStep(t0, t1)
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
