package sens

import (
	"fmt"
	"math"

	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// refSlot caches the matrix functions of one reference matrix An at one
// step h: E = e^{hAn}, Ph = Psi/h = h phi2(hAn), Wt = W - Ph, and what
// steps with this slot can share: the forcing W P for a frozen Jp (near
// equilibrium) and the LU factors of I - h An/4 for the local error
// estimate.
type refSlot struct {
	h      float64
	an     []float64 // nnz(Jx)
	e      []float64 // nx*nx
	wt, ph []float64 // nx*nx
	// wpT stacks Wt^T over Ph^T (2nx x nx), the layout of addForcing.
	wpT   []float64
	valid bool
	used  int // stamp of last use (LRU)
	// filled is the stamp at which h, An and the matrices were last
	// written (the corrector's sparse filter is valid for one filling).
	filled int

	// Frozen forcing: c = W Pc for the reduced Jp values pc (cValid).
	pc     []float64
	c      []float64 // nx*ns
	cValid bool

	// (I - h An/4)^{-2} (fGood), the filter of localError, and the LU
	// of I - h An/4 it is formed from.
	f2    []float64
	flu   []float64
	fpiv  []int
	fGood bool
}

// endpointStepper is the scratch of the end-point exponential step.
type endpointStepper struct {
	slots  []refSlot
	stamp  int
	dA     []float64 // nnz(Jx): Ja - An
	dB     []float64 // nnz(Jx): Jb - An
	dBNorm float64   // ||Jb - An||_inf of the slot found by slotFor
	// ||Ja - An||_inf, with dA, when slotFor reused a slot (dAValid).
	dANorm  float64
	dAValid bool
	nmat    []float64 // nx*nx: I - Ph (Jb - An), then its LU
	piv     []int

	// The forcing by columns of Jp (see addForcing): for reduced column
	// c, entries fcPtr[c]..fcPtr[c+1]-1, each with the byte offset of its
	// row i in Wt^T (fcOff = i nx 8) and its reduced Jp entry (fcPerm);
	// ft is the ns x nx result.
	fcPtr, fcOff, fcPerm []int
	ft                   []float64

	// last is the slot of the last end-point step (localError's An).
	last *refSlot
	// w, psi: the W and Psi of a fresh slot (nx*nx); mm: E + Wt dA.
	w, psi, mm []float64
}

// newEndpointStepper allocates nslots cached slots and, with dense, the
// nx x nx scratch of the dense step (the sparse path, sparseexp.go, uses
// neither).
func newEndpointStepper(nx, ns, nnz, nnzp, nslots int, dense bool) endpointStepper {
	st := endpointStepper{dA: make([]float64, nnz), dB: make([]float64, nnz)}
	if dense {
		st.nmat, st.piv = make([]float64, nx*nx), make([]int, nx)
		st.ft, st.w, st.psi = make([]float64, ns*nx), make([]float64, nx*nx), make([]float64, nx*nx)
		st.mm = make([]float64, nx*nx)
	}
	st.slots = make([]refSlot, nslots)
	for i := range st.slots {
		st.slots[i] = refSlot{an: make([]float64, nnz), e: make([]float64, nx*nx),
			wt: make([]float64, nx*nx), ph: make([]float64, nx*nx),
			wpT: make([]float64, 2*nx*nx),
			pc:  make([]float64, nnzp), c: make([]float64, nx*ns),
			flu: make([]float64, nx*nx), fpiv: make([]int, nx), f2: make([]float64, nx*nx)}
	}
	return st
}

// slotFor returns the matrix functions for step h whose reference matrix
// is within the reuse tolerance of Jb (then dB = Jb - An is set), or
// computes fresh ones with An = Jb in the least recently used slot.
func (en *engine) slotFor(ja, jb []float64, h float64) (sl *refSlot, fresh bool) {
	st := &en.endpoint
	st.stamp++
	var lru *refSlot
	// A jump of Jx within the step (a kink of a piecewise-linear rate law)
	// is handled better by a fresh end-point exponential: smooth is
	// ||Jb - Ja||_inf <= jumpTol ||Ja||_inf, computed in the pass over the first
	// candidate slot (no candidate: a fresh exponential anyway).
	known, smooth := false, false
	st.dAValid = false
	var rn float64 // ||Ja||_inf, once there is a candidate
	for i := range st.slots {
		c := &st.slots[i]
		if (smooth || !known) && c.valid && math.Abs(c.h-h) <= 1e-12*h {
			// dA = Ja - An, dB = Jb - An and their infinity norms; the
			// relative change of Jx over the step.
			dA := en.jxm(ja).SubNormInf(st.dA, c.an)
			dB := en.jxm(jb).SubNormInf(st.dB, c.an)
			if !known {
				known = true
				rn = en.jxm(ja).NormInf()
				rd := en.jxm(ja).DistInf(jb)
				smooth = rd == 0 || rd/rn <= jumpTol
			}
			if smooth && (h*dB <= en.cfg.refTheta || (en.cfg.refTheta >= 0 && dB <= en.refRel*rn)) {
				c.used = st.stamp
				st.dBNorm, st.dANorm, st.dAValid = dB, dA, true
				en.stats.ExpReuses++
				return c, false
			}
		}
		if lru == nil || !c.valid || (lru.valid && c.used < lru.used) {
			if lru == nil || lru.valid {
				lru = c
			}
		}
	}
	if en.doubleSlots && (smooth || !known) {
		if c := en.doubleSlot(ja, jb, h); c != nil {
			return c, false
		}
	}
	c := lru
	nx := en.nx
	en.scatterAd(jb)
	en.ex.ExpInt2To(c.e, en.endpoint.w, en.endpoint.psi, en.ad, h)
	en.stats.Exponentials++
	en.stats.Squarings += en.ex.Last.Squarings
	ih := 1 / h
	for i := 0; i < nx*nx; i++ {
		c.ph[i] = en.endpoint.psi[i] * ih
		c.wt[i] = en.endpoint.w[i] - c.ph[i]
	}
	for i := 0; i < nx; i++ {
		for j := 0; j < nx; j++ {
			c.wpT[j*nx+i] = c.wt[i*nx+j]
			c.wpT[(nx+j)*nx+i] = c.ph[i*nx+j]
		}
	}
	copy(c.an, jb)
	clear(st.dB)
	st.dBNorm = 0
	c.h, c.valid, c.used, c.filled = h, true, st.stamp, st.stamp
	c.cValid, c.fGood = false, false
	return c, true
}

// doubleSlot makes the matrix functions of step h from a slot of step
// h/2 whose reference matrix An is within refRel (1%) of Jb (or
// h ||Jb - An|| <= RefTheta), by one squaring step, the one
// that ends ExpInt2To's scaling and squaring: E(2t) = E(t)^2,
// W(2t) = (E(t) + I) W(t), Psi(2t) = E(t) Psi(t) + Psi(t) + t W(t),
// three nx x nx products instead of a fresh exponential (on a stiff
// network about 25 such squarings and a Padé approximant). It writes them
// into the least recently used other slot, sets dA = Ja - An and
// dB = Jb - An as a reuse does, and returns nil when no slot of step h/2
// is close enough or Jx jumps within the step (see slotFor). The
// grid of Exp doubles its step where the integrator's grows. On
// Lang_PLOSComputBiol2024 (rtol 1e-6) it took Exp from 327 to 276 fresh
// exponentials and 9.56 to 9.2 s of CPU (two runs each), at the same
// error against FS at rtol 1e-10 (5.4e-4); with Exp's reuse distance of
// 10% (refRelExpLarge) for the doubled slots, whose An is older than
// Jb, the error doubled (1.1e-3). PBSR does not double: its error
// control answered the older An with more steps (6931 against 6696, no
// faster).
func (en *engine) doubleSlot(ja, jb []float64, h float64) *refSlot {
	st := &en.endpoint
	var src *refSlot
	var dA, dB float64
	for i := range st.slots {
		c := &st.slots[i]
		if !c.valid || math.Abs(2*c.h-h) > 1e-12*h {
			continue
		}
		rn := en.jxm(ja).NormInf()
		if rd := en.jxm(ja).DistInf(jb); rd != 0 && !(rd/rn <= jumpTol) {
			return nil
		}
		dB = en.jxm(jb).SubNormInf(st.dB, c.an)
		if h*dB <= en.cfg.refTheta || (en.cfg.refTheta >= 0 && dB <= refRel*rn) {
			src = c
			dA = en.jxm(ja).SubNormInf(st.dA, c.an)
			break
		}
	}
	if src == nil {
		return nil
	}
	var c *refSlot
	for i := range st.slots {
		d := &st.slots[i]
		if d == src {
			continue
		}
		if c == nil || (!d.valid && c.valid) || (d.valid == c.valid && d.used < c.used) {
			c = d
		}
	}
	nx := en.nx
	// W0 = Wt + Ph into st.w; E0 W0 into st.mm; E0 Ph into st.psi.
	w0 := st.w
	for i := range w0 {
		w0[i] = src.wt[i] + src.ph[i]
	}
	en.gemm(c.e, src.e, src.e, nx, nx, 1, 0)
	en.gemm(st.mm, src.e, w0, nx, nx, 1, 0)
	en.gemm(st.psi, src.e, src.ph, nx, nx, 1, 0)
	// Ph(h) = Psi(h)/h = (E0 Ph0 + Ph0 + W0)/2 (h = 2 h0, Psi0 = h0 Ph0);
	// Wt(h) = W(h) - Ph(h) with W(h) = E0 W0 + W0.
	for i := range c.ph {
		ph := 0.5 * (st.psi[i] + src.ph[i] + w0[i])
		c.ph[i] = ph
		c.wt[i] = st.mm[i] + w0[i] - ph
	}
	for i := 0; i < nx; i++ {
		for j := 0; j < nx; j++ {
			c.wpT[j*nx+i] = c.wt[i*nx+j]
			c.wpT[(nx+j)*nx+i] = c.ph[i*nx+j]
		}
	}
	copy(c.an, src.an)
	c.h, c.valid, c.used, c.filled = h, true, st.stamp, st.stamp
	c.cValid, c.fGood = false, false
	st.dBNorm, st.dANorm, st.dAValid = dB, dA, true
	en.stats.ExpReuses++
	en.stats.Squarings++
	return c
}

// negligible is the fraction of the local tolerance SensRTol ||S||_F +
// SensATol below which a term of the end-point step is dropped: the
// W-method terms when Jx is within it of the slot's reference matrix, the
// change of Jp within a step when it is frozen into the slot's forcing.
const negligible = 0.01

// endpointStep is the ExpEndpoint step on [a.t, b.t] with reference matrix An
// (= Jb when fresh): S' = An S + g, g = (Jx - An) S + Jp, g linear in t:
//
//	(I - Ph (Jb - An)) S(tb) = (E + Wt (Ja - An)) S(ta) + Wt Pa + Ph Pb.
//
// With An = Jb the left side is S(tb). With An != Jb (a reused
// exponential) the implicit treatment of g(tb) keeps the stiff limit
// Jb S(tb) = -Pb exact. It writes S(tb) into dst from src = S(ta) (dst
// must not alias src); nS = ||src||_F and tau = SensRTol nS + SensATol
// decide which terms are negligible (see negligible).
func (en *engine) endpointStep(dst, src []float64, a, b *point, h, nS, tau float64) {
	if en.sparse != nil {
		en.stepT = a.t
		en.sparseEndpointStep(dst, src, a, b, h)
		return
	}
	nx, ns := en.nx, en.ns
	en.stepT = a.t
	sl, fresh := en.slotFor(a.jx, b.jx, h)
	en.endpoint.last = sl
	st := &en.endpoint
	dAn := st.dANorm
	if !st.dAValid {
		// A fresh slot (An = Jb): dA = Ja - Jb.
		dAn = en.jxm(a.jx).SubNormInf(st.dA, sl.an)
	}
	small := negligible * tau
	skipA := h*dAn*nS <= small
	skipB := fresh || 0.5*h*st.dBNorm*nS <= small
	useC := sl.cValid && h*math.Max(dist(a.jp, sl.pc), dist(b.jp, sl.pc)) <= small
	if !useC && h*dist(a.jp, b.jp) <= small {
		// Freeze Jp into the slot: c = (Wt + Ph) Pb.
		copy(sl.pc, b.jp)
		clear(sl.c)
		en.addForcing(sl.c, sl, b.jp, b.jp)
		sl.cValid, useC = true, true
	}
	m := sl.e
	if !skipA {
		// M = E + Wt dA.
		copy(en.endpoint.mm, sl.e)
		en.mulJ(en.endpoint.mm, sl.wt, st.dA, 1)
		m = en.endpoint.mm
	}
	en.gemm(dst, m, src, nx, ns, 1, 0)
	if useC {
		for i, x := range sl.c {
			dst[i] += x
		}
	} else {
		en.addForcing(dst, sl, a.jp, b.jp)
	}
	if !skipB {
		// N = I - Ph dB, solve N S(tb) = dst.
		en.factorN(sl)
		dense.SolveFull(st.nmat, st.piv, nx, dst, ns)
	}
	en.stats.ExpSteps++
}

// factorN factorizes N = I - Ph dB into st.nmat, st.piv.
func (en *engine) factorN(sl *refSlot) {
	nx := en.nx
	st := &en.endpoint
	nm := st.nmat
	clear(nm)
	for i := 0; i < nx; i++ {
		nm[i*nx+i] = 1
	}
	en.mulJ(nm, sl.ph, st.dB, -1)
	dense.FactorFull(nm, st.piv, nx)
}

// mulJ adds alpha X D to the nx x nx dst for the dense nx x nx X and the
// Jx-pattern values v of D: the W-method matrices E + Wt dA and
// I - Ph dB. Jx of the paper's networks is far from sparse (CaMKII: 260
// of 441 entries), and there D is scattered into a dense matrix for the
// AVX2 product; on a large sparse Jx (sparseJProd) the product is taken
// by the columns of D, nx nnz(Jx) operations instead of nx^3 (Lang, 124
// states and 1175 entries: 8 times fewer).
func (en *engine) mulJ(dst, x, v []float64, alpha float64) {
	nx := en.nx
	if !en.sparseJProd {
		en.scatterAd(v)
		en.gemm(dst, x, en.ad, nx, nx, alpha, 1)
		return
	}
	jt := &en.jxT
	vt := jt.val
	for q, f := range jt.from {
		vt[q] = v[f]
	}
	rp, ci := jt.pat.RowPtr, jt.pat.ColIdx
	// Four rows of X at a time share each entry's index and value.
	r := 0
	for ; r+4 <= nx; r += 4 {
		x0, x1 := x[r*nx:(r+1)*nx], x[(r+1)*nx:(r+2)*nx]
		x2, x3 := x[(r+2)*nx:(r+3)*nx], x[(r+3)*nx:(r+4)*nx]
		for j := 0; j < nx; j++ {
			var a0, a1, a2, a3 float64
			for q := rp[j]; q < rp[j+1]; q++ {
				c, w := ci[q], vt[q]
				a0 += x0[c] * w
				a1 += x1[c] * w
				a2 += x2[c] * w
				a3 += x3[c] * w
			}
			dst[r*nx+j] += alpha * a0
			dst[(r+1)*nx+j] += alpha * a1
			dst[(r+2)*nx+j] += alpha * a2
			dst[(r+3)*nx+j] += alpha * a3
		}
	}
	for ; r < nx; r++ {
		xr := x[r*nx : (r+1)*nx]
		dr := dst[r*nx : (r+1)*nx]
		for j := range dr {
			var acc float64
			for q := rp[j]; q < rp[j+1]; q++ {
				acc += xr[ci[q]] * vt[q]
			}
			dr[j] += alpha * acc
		}
	}
}

// initForcing builds the column-wise index of the reduced Jp used by
// addForcing.
func (en *engine) initForcing() {
	st := &en.endpoint
	byCol, from := sparse.Transpose(en.jac.sel)
	st.fcPtr, st.fcPerm = byCol.RowPtr, from
	st.fcOff = make([]int, len(from))
	for q, i := range byCol.ColIdx {
		st.fcOff[q] = i * en.nx * 8
	}
}

// addForcing adds Wt Pa + Ph Pb to dst (nx x ns) for the slot's Wt, Ph
// and the reduced sparse Jp values va, vb: the forcing of the end-point
// step. With AVX2, column c of the forcing is the combination of the
// columns of Wt and Ph selected by Jp's column c, contiguous rows of wpT:
// computed transposed by dense.ForceCols, then added to dst.
func (en *engine) addForcing(dst []float64, sl *refSlot, va, vb []float64) {
	if !dense.HasFMA {
		en.addForcingGo(dst, sl.wt, va, sl.ph, vb)
		return
	}
	nx, ns := en.nx, en.ns
	st := &en.endpoint
	nnz := len(en.jac.from)
	if len(va) < nnz || len(vb) < nnz || len(dst) < nx*ns {
		panic("sens: addForcing: short operand")
	}
	// Offsets and entries are in range by construction (initForcing).
	ft := st.ft[:ns*nx]
	dense.ForceCols(ft, sl.wpT[:2*nx*nx], va, vb, st.fcPerm, st.fcOff, st.fcPtr, nx, nx*nx*8)
	// dst += ft^T: 4 x 4 blocks in the kernel, the edges here.
	dst = dst[:nx*ns]
	dense.AddTrans4(dst, ft, nx, ns)
	nx4, ns4 := nx&^3, ns&^3
	for c := 0; c < ns; c++ {
		r0 := 0
		if c < ns4 {
			r0 = nx4
		}
		fr := ft[c*nx : (c+1)*nx]
		for r := r0; r < nx; r++ {
			dst[r*ns+c] += fr[r]
		}
	}
}

// addForcingGo is addForcing without AVX2 (dense Da, Db): one pass over
// the Jp pattern per row of dst.
func (en *engine) addForcingGo(dst, da, va, db, vb []float64) {
	en.jpm(va).LeftMulAddTo(dst, da, en.nx)
	en.jpm(vb).LeftMulAddTo(dst, db, en.nx)
}

// dist is the Euclidean distance of two value vectors.
func dist(a, b []float64) float64 {
	// Four partial sums: one is bound by the latency of its additions.
	var s0, s1, s2, s3 float64
	b = b[:len(a)]
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		d0, d1, d2, d3 := x[0]-y[0], x[1]-y[1], x[2]-y[2], x[3]-y[3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return math.Sqrt((s0 + s1) + (s2 + s3))
}

// refRel is the relative distance ||Jb - An||_inf <= refRel ||Ja||_inf
// within which a cached exponential is reused whatever h ||Jb - An||
// (RefTheta's bound). It only adds reuse on stiff steps (h ||Jb|| >
// RefTheta/refRel = 100), where the implicit treatment of Jb - An keeps
// the stiff limit exact and the other modes see a matrix within 1% of
// theirs; PBSR's error estimate is taken with the reused An. On CaMKII
// with kf__CaM__Ca = 1e9, whose Jacobian norm makes h ||Jb - An|| exceed
// 1 at every step, it cut the exponentials (of about 26 squarings each)
// from 740 to 71 for PBSR at rtol 1e-6 and from 295 to 60 for Exp, at
// the same error against FS (PBSR 2.2e-4 -> 1.7e-4, Exp 1.6e-3 ->
// 1.1e-3); on PKA and CaMKII at default parameters the errors were
// unchanged (PKA: 56 -> 40 exponentials). 1e-3 reused less (179), 0.1
// more (48), with the same errors: 1e-2 keeps a margin.
const refRel = 1e-2

// refRelExpLarge is refRel for Exp on models of SparseExpMinStates states
// or more with dense exponentials, where a fresh exponential (about 25
// squarings of three nx x nx products on a stiff network) costs as much
// as several reused steps. PBSR's error control answers a larger
// distance with shorter steps (on Lang_PLOSComputBiol2024, 124 states,
// rtol 1e-6: 0.03 took 11761 steps and 19.4 s of CPU against 6696 and
// 14.5 s at 1e-2; 3e-3 6316 steps but 1145 exponentials, 19.3 s), so it
// keeps refRel; Exp, whose steps follow the integrator's, only pays
// exponentials for it. Exp on Lang at 1e-2 / 0.03 / 0.1 / 0.3: 973 / 581
// / 327 / 234 exponentials, 14.3 / 11.3 / 9.6 / 9.1 s of CPU, errors
// against FS at rtol 1e-10 5.0e-4 / 4.8e-4 / 5.4e-4 / 7.8e-4.
const refRelExpLarge = 0.1

// roundFloor is the relative error of S that rounding causes in the
// Peano-Baker methods, per unit of eps times the integral of ||Jx||_inf
// over the solve (eps = 2^-52). Stiff rates make S the small difference
// of large terms (in the stiff limit S = -Jx^{-1} Jp, with Jx and Jp of
// the size of the fast rates), and each step leaves an error of about eps
// h ||Jx|| relative to S, whatever the tolerance. Measured against FS at
// rtol 1e-10 on outputs every 0.1 on [0, 10], one rate of CaMKII or PKA
// scaled by 1e9 to 1e12, where PBSR's error no longer followed its
// tolerance (the same at rtol 1e-6 and 1e-9): error / (eps integral) =
// 0.017, 0.0076, 0.0083, 0.010 (CaMKII kf__CaM__Ca, errors 3.5e-5 to
// 2.1e-2), 0.0075, 0.038, 0.0026 (CaMKII kcat__PP1__pCaMKIIa), 0.013,
// 0.0038, 0.0052, 0.0067 (PKA's first rate). FS's Newton iteration does
// not lose these digits (7.6e-7 on CaMKII with kf__CaM__Ca = 1e12).
const roundFloor = 0.05

// roundLimit bounds the error floor that PBSR, Exp and PBS accept,
// relative to SensRTol (and at most 1e-2): beyond it they give up (see
// accRound). The default methods' errors on CaMKII and PKA at the paper's
// settings are up to 140 times SensRTol (TestNetworksPaperSettings), and
// the floor estimate is up to 20 times the measured error: 1000 refuses
// only what rounding clearly dominates. On CaMKII at rtol 1e-6 it accepts
// kf__CaM__Ca up to about 1e10 (error 3.7e-4) and refuses 1e11 (1.7e-3
// whatever the tolerance) and beyond.
const roundLimit = 1000

// accRound adds the step h with ||Jx||_inf = nJ to the integral of
// ||Jx|| over the solve and gives up (en.err) when the error floor it
// implies, roundFloor eps integral, exceeds roundLimit SensRTol or 1e-2:
// S would then be dominated by rounding, whatever the tolerance, a wrong
// answer without an error (PBSR on CaMKII with kf__CaM__Ca = 1e12: 3e-2
// at rtol 1e-6, and no better at 1e-9). It costs a pass over Jx per step
// (the norm), small next to the step's products.
func (en *engine) accRound(h, nJ float64) {
	en.roundAcc += h * nJ
	if en.roundAcc > en.stats.JxIntegral {
		en.stats.JxIntegral = en.roundAcc
	}
	floor := roundFloor * 0x1p-52 * en.roundAcc
	if en.err != nil || !(floor > math.Min(roundLimit*en.cfg.srtol, 1e-2)) {
		return
	}
	en.err = &MethodError{Method: en.cfg.method, Paper: en.cfg.paper, T: en.stepT, Index: -1, Alternative: FS,
		Reason: fmt.Sprintf("rounding limits the relative accuracy of S to about %.2g, more than the tolerance allows (the integral of ||Jx|| over the steps reached %.3g: the Jacobian is too stiff for these methods, or the tolerance too tight)", floor, en.roundAcc)}
}

// normInf is ||Jx||_inf for the Jx values v.
func (en *engine) normInf(v []float64) float64 { return en.jxm(v).NormInf() }

// jumpTol is the relative change of Jx over one step (infinity norm) above
// which a cached exponential is not reused (measured on Chua's circuit,
// whose Jacobian jumps at the kinks of its diode).
const jumpTol = 0.1

// scatterAd writes the Jx-pattern values v into the dense en.ad. Only
// pattern positions are written: en.ad is written by pattern scatters
// alone (here and in paperexp.go), so its other entries are the zeros it was
// allocated with, and the clear of model.Pattern.ScatterTo (a third of the
// work at CaMKII's 260 of 441 entries) is not needed.
func (en *engine) scatterAd(v []float64) { en.jxm(v).ScatterNZTo(en.ad, 1) }

// gemm computes dst = alpha a b + beta dst for row-major a (n x k) and
// b (k x m), with k = nx: dense.MulAdd, the AVX2/FMA kernel where the CPU
// has it (the products of a step are 21 x 21 by 21 x 59 on CaMKII, where
// gonum's SSE2 axpy loop is bound by its loads and stores), else gonum.
func (en *engine) gemm(dst, a, b []float64, n, m int, alpha, beta float64) {
	if n == 0 || m == 0 {
		return
	}
	dense.MulAdd(dst, a, b, n, en.nx, m, alpha, beta)
}
