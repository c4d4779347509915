package ode

import (
	"fmt"
	"math"

	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// The BDF integrator follows CVODE (cvode.c, SUNDIALS 6) step by step: the
// Nordsieck history array zn, the coefficient updates for variable steps
// (cvSetBDF, cvSetTqBDF), order changes (cvIncreaseBDF, cvDecreaseBDF),
// the modified Newton iteration with a stale iteration matrix and its
// reuse heuristics, the local error test, and step and order selection
// (cvPrepareNextStep, cvChooseEta). Keeping the same constants keeps the
// step sequences close to CVODE's, which is what users compare against.
//
// With sensitivities every Nordsieck column zn[j] holds the state followed
// by the row-major nx x nsp block of S, so prediction, rescaling, order
// changes and step completion treat both with one loop, as CVODES does
// with its znS arrays.

// Newton and step return flags (CVODE's names).
const (
	firstCall = iota
	prevConvFail
	prevErrFail
)

const (
	nlsOK = iota
	nlsConvFail
	nlsTryAgain
)

const (
	failNone = iota
	failBadJ
	failOther
)

func (s *Solver) bdf(tr *Trajectory, dstS, p []float64, t0 float64, tout []float64, iout int) error {
	nx, nz := s.nx, s.nz
	interp := s.set.Interpolate
	tfinal := tout[len(tout)-1]
	s.tstop = tout[iout]
	if interp {
		s.tstop = tfinal
	}
	s.tn = t0
	s.setEwt(s.zn[0][:nz])

	h := s.set.H0
	if h == 0 {
		// With S in the error test (ErrCon), the first output bounds
		// the initial step, as the tout of CVODES's first call does,
		// also when the integration steps over outputs (Interpolate,
		// CV_NORMAL) and tstop is the last one: on CaMKII at rtol 1e-5
		// the bound of the last output, 600, gave h0 = 5.8e-12 against
		// CVODES's 6.9e-13. Otherwise Interpolate keeps the last
		// output's bound, so that the state's trajectory does not
		// depend on the outputs before it (PBSR and Exp compute S on a
		// state pass, sens.Solver.SolveOn; TestFrozenSteadyState's
		// errors are measured on it) and x of FS without ErrCon is
		// Integrate's to the bit.
		hout := s.tstop
		if s.sens && s.errcon {
			hout = tout[iout]
		}
		h = s.hin(p, hout)
	}
	if s.hmaxInv*h > 1 {
		h = 1 / s.hmaxInv
	}
	if t0+h > s.tstop {
		h = s.tstop - t0
	}
	s.h, s.hscale, s.hprime = h, h, h
	z1 := s.zn[1][:nz]
	for i := range z1 {
		z1[i] *= h
	}
	s.q, s.qprime, s.L, s.qwait = 1, 1, 2, 2
	s.etamax = etamx1
	s.eta = 1
	s.tau = [lmax + 1]float64{}
	s.tq = [6]float64{}
	s.l = [lmax]float64{}
	s.nst, s.nstlp, s.nstlj, s.nscon = 0, 0, 0, 0
	s.crate, s.crateS = 1, 1
	s.savedTq5 = 0
	s.gammap, s.gamrat = 0, 1
	s.jcur = false
	s.acnrmS = 0
	if s.set.SkipGridF {
		for i := range s.fsave[:nx] {
			s.fsave[i] = math.NaN()
		}
	}

	for {
		if s.nst >= s.set.MaxSteps {
			return s.fail(ErrTooManySteps, s.tn, s.h, -1, "")
		}
		if s.nst > 0 {
			s.setEwt(s.zn[0][:nz])
			if s.tn+s.hprime > s.tstop {
				s.hprime = s.tstop - s.tn
				s.eta = s.hprime / s.h
			}
		}
		if err := s.bdfStep(p); err != nil {
			return err
		}
		s.stats.Steps++
		y := s.zn[0][:nx]
		f := s.fsave[:nx]
		if i := firstNonFinite(y); i >= 0 {
			return s.fail(ErrNonFinite, s.tn, s.h, i, "state")
		}
		if !s.set.SkipGridF {
			s.m.F(f, s.tn, y, p)
			s.stats.FEvals++
			if i := firstNonFinite(f); i >= 0 {
				return s.fail(ErrNonFinite, s.tn, s.h, i, "f")
			}
		}
		if tr != nil {
			tr.appendNordsieck(s.tn, y, f, s.h, &s.zn, s.q)
		}
		if interp {
			for iout < len(tout) && tout[iout] <= s.tn {
				if s.sens {
					blk := nx * s.nsp
					s.dkySens(dstS[iout*blk:(iout+1)*blk], tout[iout])
				}
				iout++
			}
		} else {
			for iout < len(tout) && tout[iout] <= s.tn {
				s.output(tr, dstS, iout, s.zn[0][:nz])
				iout++
			}
			if iout < len(tout) {
				s.tstop = tout[iout]
			}
		}
		if iout == len(tout) || s.stop != nil && s.stop(tr) {
			return nil
		}
	}
}

// dkySens evaluates the sensitivity part of the Nordsieck polynomial at t
// (CVodeGetDky with k = 0), valid in [tn - hu, tn]: Horner's scheme
// v = zn[j] + r v from j = q down, unrolled per order (dkySensLoops is
// the loop it unrolls, operation for operation, so the results are bit
// for bit the same; TestDkySensUnrolled). With Interpolate every output
// is one such pass over the nx x nsp block: the loop indexed the
// Nordsieck columns per entry and order and was 20% of FS on CaMKII
// (600 outputs, 59 columns).
func (s *Solver) dkySens(dst []float64, t float64) {
	nx, nz := s.nx, s.nz
	if t == s.tn {
		copy(dst, s.zn[0][nx:nz])
		return
	}
	r := (t - s.tn) / s.h
	n := len(dst)
	z0, z1 := s.zn[0][nx:nx+n], s.zn[1][nx:nx+n]
	switch s.q {
	case 1:
		for e := range dst {
			dst[e] = z0[e] + r*z1[e]
		}
	case 2:
		z2 := s.zn[2][nx : nx+n]
		for e := range dst {
			v := z1[e] + r*z2[e]
			dst[e] = z0[e] + r*v
		}
	case 3:
		z2, z3 := s.zn[2][nx:nx+n], s.zn[3][nx:nx+n]
		for e := range dst {
			v := z2[e] + r*z3[e]
			v = z1[e] + r*v
			dst[e] = z0[e] + r*v
		}
	case 4:
		z2, z3, z4 := s.zn[2][nx:nx+n], s.zn[3][nx:nx+n], s.zn[4][nx:nx+n]
		for e := range dst {
			v := z3[e] + r*z4[e]
			v = z2[e] + r*v
			v = z1[e] + r*v
			dst[e] = z0[e] + r*v
		}
	case 5:
		z2, z3, z4, z5 := s.zn[2][nx:nx+n], s.zn[3][nx:nx+n], s.zn[4][nx:nx+n], s.zn[5][nx:nx+n]
		for e := range dst {
			v := z4[e] + r*z5[e]
			v = z3[e] + r*v
			v = z2[e] + r*v
			v = z1[e] + r*v
			dst[e] = z0[e] + r*v
		}
	default:
		s.dkySensLoops(dst, r)
	}
}

// dkySensLoops is dkySens's Horner scheme as loops over the orders, for
// r = (t - tn)/h.
func (s *Solver) dkySensLoops(dst []float64, r float64) {
	q := s.q
	off := s.nx
	for e := range dst {
		v := s.zn[q][off+e]
		for j := q - 1; j >= 0; j-- {
			v = s.zn[j][off+e] + r*v
		}
		dst[e] = v
	}
}

// bdfStep is cvStep: one successful step, with retries after Newton or
// error test failures.
//
// A non-finite f, Jx or Newton iterate at a trial step is, as in CVODE, a
// recoverable failure: the step is restored and h cut by etacf as after a
// corrector convergence failure. A legitimately stiff problem may meet a
// NaN only at an overly large trial step (a predictor overshooting into a
// region where a rate law such as sqrt(k - x) is undefined) and then
// continue with a smaller one. When the cuts cannot help, the non-finite
// value is the cause to report, not its symptom: if the step underflows
// (tn + h == tn) or maxncf corrector failures accumulate within this step,
// and the most recent failed trial of this step met a non-finite value, the
// error is ErrNonFinite (see failNonFinite) rather than ErrStepUnderflow or
// ErrConvergence. An error test failure after it clears the attribution:
// the step was then being cut for accuracy.
func (s *Solver) bdfStep(p []float64) error {
	savedT := s.tn
	ncf, nef, ncfS, nefS := 0, 0, 0, 0
	nflag := firstCall
	if s.nst > 0 && s.hprime != s.h {
		s.adjustParams()
	}
	var dsm float64
	// nonFinite: the most recent failed trial of this step met a
	// non-finite value, with step hNonFinite.
	nonFinite, hNonFinite := false, 0.0
	for {
		if s.tn+s.h <= s.tn {
			if nonFinite {
				return s.failNonFinite(hNonFinite, "the step size underflowed on retries")
			}
			return s.fail(ErrStepUnderflow, s.tn, s.h, -1, "")
		}
		s.predict()
		s.setCoeffs()
		ret := s.nls(p, nflag)
		if ret != nlsOK {
			nonFinite, hNonFinite = s.lastFail == ErrNonFinite, s.h
			if err := s.handleConvFail(savedT, &ncf, &nflag); err != nil {
				return err
			}
			continue
		}
		// Error test on the state.
		dsm = s.acnrm * s.tq[2]
		if dsm > 1 {
			nonFinite = false
			if err := s.handleErrFail(p, savedT, &nef, &nflag, dsm); err != nil {
				return err
			}
			continue
		}
		if s.sens {
			ret := s.sensCorrector(p)
			if ret != nlsOK {
				s.stats.SensNewtonFails++
				nonFinite, hNonFinite = s.lastFail == ErrNonFinite, s.h
				if err := s.handleConvFail(savedT, &ncfS, &nflag); err != nil {
					return err
				}
				continue
			}
			if s.errcon {
				dsmS := s.acnrmS * s.tq[2]
				if dsmS > 1 {
					nonFinite = false
					if err := s.handleErrFail(p, savedT, &nefS, &nflag, dsmS); err != nil {
						return err
					}
					continue
				}
				dsm = math.Max(dsm, dsmS)
			}
		}
		break
	}
	s.completeStep()
	s.prepareNextStep(dsm)
	if s.nst <= smallNst {
		s.etamax = etamx2
	} else {
		s.etamax = etamx3
	}
	return nil
}

// handleConvFail is cvHandleNFlag after a failed corrector.
func (s *Solver) handleConvFail(savedT float64, ncf, nflag *int) error {
	s.stats.NewtonFails++
	s.stats.Rejected++
	s.restore(savedT)
	*ncf++
	s.etamax = 1
	if *ncf == maxncf {
		kind := s.lastFail
		if kind == ErrNonFinite {
			return s.failNonFinite(s.h, "the corrector failed repeatedly")
		}
		if kind == 0 {
			kind = ErrConvergence
		}
		if kind == ErrSingular {
			return s.failSingular()
		}
		return s.fail(kind, s.tn, s.h, -1, "corrector failed repeatedly")
	}
	s.eta = etacf
	*nflag = prevConvFail
	s.rescale()
	return nil
}

// failNonFinite reports that trial steps failed on non-finite values until
// why (the cuts could not help). T and X are the last accepted time and
// state; h is the step of the failed trial, so the value was met at about
// T + h; Index is the component recorded in lastIndex: of f for f, the row
// for Jx and Jp, of the state for a Newton iterate, -1 for a sensitivity
// iterate.
func (s *Solver) failNonFinite(h float64, why string) error {
	return s.fail(ErrNonFinite, s.tn, h, s.lastIndex, s.lastWhat+" at the trial step t+h; "+why)
}

// failSingular reports an iteration matrix that stayed singular through
// the step cuts. The sparse LU names the column (the state) with no usable
// pivot; it is Index, and the Reason names the state. The dense LU does not
// say, and Index is -1.
func (s *Solver) failSingular() error {
	why := "corrector failed repeatedly"
	if i := s.lastIndex; i >= 0 && i < s.nx {
		why = fmt.Sprintf("no usable pivot for state %d (%s); %s", i, s.m.StateNames()[i], why)
	}
	return s.fail(ErrSingular, s.tn, s.h, s.lastIndex, why)
}

// handleErrFail is the failure branch of cvDoErrorTest.
func (s *Solver) handleErrFail(p []float64, savedT float64, nef, nflag *int, dsm float64) error {
	s.stats.ErrFails++
	s.stats.Rejected++
	*nef++
	*nflag = prevErrFail
	s.restore(savedT)
	if *nef == maxnef {
		return s.fail(ErrConvergence, s.tn, s.h, -1, "error test failed repeatedly")
	}
	s.etamax = 1
	if *nef <= mxnef1 {
		s.eta = 1 / (math.Pow(bias2*dsm, 1/float64(s.L)) + addon)
		s.eta = math.Max(etamin, s.eta)
		if *nef >= smallNef {
			s.eta = math.Min(s.eta, etamxf)
		}
		s.rescale()
		return nil
	}
	if s.q > 1 {
		s.eta = etamin
		s.decreaseOrder()
		s.L = s.q
		s.q--
		s.qwait = s.L
		s.rescale()
		return nil
	}
	// Order 1 already: restart from the current state with a smaller step.
	s.eta = etamin
	s.h *= s.eta
	s.hprime = s.h
	s.hscale = s.h
	s.qwait = longWait
	s.nscon = 0
	nx, nz := s.nx, s.nz
	z0, z1 := s.zn[0][:nz], s.zn[1][:nz]
	s.m.F(z1[:nx], s.tn, z0[:nx], p)
	s.stats.FEvals++
	if s.sens {
		if err := s.sensRHS(z1[nx:], s.tn, z0[:nx], z0[nx:], p); err != nil {
			return err
		}
	}
	for i := range z1 {
		z1[i] *= s.h
	}
	return nil
}

// predict advances tn by h and the Nordsieck array to the predictor at
// tn (cvPredict), unrolled per order (see predictLoops).
func (s *Solver) predict() {
	s.tn += s.h
	if s.tn >= s.tstop || math.Abs(s.tn-s.tstop) <= 100*uround*(math.Abs(s.tn)+math.Abs(s.h)) {
		s.tn = s.tstop
	}
	nz := s.nz
	if nz >= predictKernelMin && dense.HasFMA && s.q <= qmax {
		// The AVX2 kernel, the same additions four entries at a time.
		for j := 0; j <= s.q; j++ {
			s.znv[j] = s.zn[j][:nz]
		}
		dense.Predict(s.znv[:s.q+1], s.q)
		return
	}
	z0, z1 := s.zn[0][:nz], s.zn[1][:nz]
	switch s.q {
	case 1:
		for i, b := range z1 {
			z0[i] += b
		}
	case 2:
		z2 := s.zn[2][:nz]
		for i := range z0 {
			a0, a1, a2 := z0[i], z1[i], z2[i]
			a1 += a2
			a0 += a1
			a1 += a2
			z0[i], z1[i] = a0, a1
		}
	case 3:
		z2, z3 := s.zn[2][:nz], s.zn[3][:nz]
		for i := range z0 {
			a0, a1, a2, a3 := z0[i], z1[i], z2[i], z3[i]
			a2 += a3
			a1 += a2
			a0 += a1
			a2 += a3
			a1 += a2
			a2 += a3
			z0[i], z1[i], z2[i] = a0, a1, a2
		}
	case 4:
		z2, z3, z4 := s.zn[2][:nz], s.zn[3][:nz], s.zn[4][:nz]
		for i := range z0 {
			a0, a1, a2, a3, a4 := z0[i], z1[i], z2[i], z3[i], z4[i]
			a3 += a4
			a2 += a3
			a1 += a2
			a0 += a1
			a3 += a4
			a2 += a3
			a1 += a2
			a3 += a4
			a2 += a3
			a3 += a4
			z0[i], z1[i], z2[i], z3[i] = a0, a1, a2, a3
		}
	case 5:
		z2, z3, z4, z5 := s.zn[2][:nz], s.zn[3][:nz], s.zn[4][:nz], s.zn[5][:nz]
		for i := range z0 {
			a0, a1, a2, a3, a4, a5 := z0[i], z1[i], z2[i], z3[i], z4[i], z5[i]
			a4 += a5
			a3 += a4
			a2 += a3
			a1 += a2
			a0 += a1
			a4 += a5
			a3 += a4
			a2 += a3
			a1 += a2
			a4 += a5
			a3 += a4
			a2 += a3
			a4 += a5
			a3 += a4
			a4 += a5
			z0[i], z1[i], z2[i], z3[i], z4[i] = a0, a1, a2, a3, a4
		}
	default:
		s.predictLoops()
	}
}

// predictKernelMin is the length of the Nordsieck vectors from which
// predict takes dense.Predict's AVX2 kernel (where the CPU has it): the
// unrolled loops are scalar, and on FS with many parameters they were a
// fifth of the instructions (Lang_PLOSComputBiol2024, 39432 entries);
// below it the call is not worth it.
const predictKernelMin = 64

// predictLoops is the prediction as q(q+1)/2 passes over the Nordsieck
// array (zn[j-1] += zn[j] for k = 1..q, j = q..k): what predict does for
// the orders it does not unroll, and the reference its unrolled cases
// follow operation for operation (so the results are bit for bit the
// same; TestPredictUnrolled). Unrolled, each element is loaded and stored
// once instead of once per pass: 11% of FS on Zhao_QuantBiol2020 was
// here.
func (s *Solver) predictLoops() {
	nz, q := s.nz, s.q
	for k := 1; k <= q; k++ {
		for j := q; j >= k; j-- {
			a, b := s.zn[j-1][:nz], s.zn[j][:nz]
			for i, v := range b {
				a[i] += v
			}
		}
	}
}

func (s *Solver) restore(savedT float64) {
	s.tn = savedT
	s.pascal(-1)
}

// pascalChunk is the number of entries of the Nordsieck array that pascal
// runs all its passes over before moving on: the q+1 slices of 2048
// entries stay in the L1 and L2 caches, where the whole array of FS with
// many parameters (nx (1+nsp) entries each) would not.
const pascalChunk = 2048

// pascal applies the Pascal triangle matrix to the Nordsieck array (the
// prediction, sign 1) or its inverse (sign -1): zn[j-1] += sign zn[j] for
// k = 1..q, j = q..k. It runs over the entries in chunks, each entry seeing
// the same operations in the same order as a pass over the whole array, so
// the results are those of the plain loops to the bit (dense.Axpy with
// a = +-1 rounds like the scalar add).
func (s *Solver) pascal(sign float64) {
	nz, q := s.nz, s.q
	for lo := 0; lo < nz; lo += pascalChunk {
		hi := min(lo+pascalChunk, nz)
		for k := 1; k <= q; k++ {
			for j := q; j >= k; j-- {
				dense.Axpy(s.zn[j-1][lo:hi], s.zn[j][lo:hi], sign)
			}
		}
	}
}

func (s *Solver) rescale() {
	factor := s.eta
	nz := s.nz
	for j := 1; j <= s.q; j++ {
		z := s.zn[j][:nz]
		for i := range z {
			z[i] *= factor
		}
		factor *= s.eta
	}
	s.h = s.hscale * s.eta
	s.hscale = s.h
	s.nscon = 0
}

func (s *Solver) adjustParams() {
	if s.qprime != s.q {
		if s.qprime > s.q {
			s.increaseOrder()
		} else {
			s.decreaseOrder()
		}
		s.q = s.qprime
		s.L = s.q + 1
		s.qwait = s.L
	}
	s.rescale()
}

// increaseOrder is cvIncreaseBDF: adds column zn[L] from the saved
// correction and adjusts columns 2..q.
func (s *Solver) increaseOrder() {
	if s.adams {
		clear(s.zn[s.L][:s.nz]) // cvAdjustAdams
		return
	}
	var l [lmax]float64
	l[2] = 1
	alpha1, prod, xiold := 1.0, 1.0, 1.0
	alpha0 := -1.0
	hsum := s.hscale
	if s.q > 1 {
		for j := 1; j < s.q; j++ {
			hsum += s.tau[j+1]
			xi := hsum / s.hscale
			prod *= xi
			alpha0 -= 1 / float64(j+1)
			alpha1 += 1 / xi
			for i := j + 2; i >= 2; i-- {
				l[i] = l[i]*xiold + l[i-1]
			}
			xiold = xi
		}
	}
	a1 := (-alpha0 - alpha1) / prod
	nz := s.nz
	zL, za := s.zn[s.L][:nz], s.zn[qmax][:nz]
	for i, v := range za {
		zL[i] = a1 * v
	}
	for j := 2; j <= s.q; j++ {
		zj := s.zn[j][:nz]
		c := l[j]
		for i, v := range zL {
			zj[i] += c * v
		}
	}
}

// decreaseOrder is cvDecreaseBDF.
func (s *Solver) decreaseOrder() {
	if s.adams {
		s.decreaseAdams()
		return
	}
	var l [lmax]float64
	l[2] = 1
	hsum := 0.0
	for j := 1; j <= s.q-2; j++ {
		hsum += s.tau[j]
		xi := hsum / s.hscale
		for i := j + 2; i >= 2; i-- {
			l[i] = l[i]*xi + l[i-1]
		}
	}
	nz := s.nz
	zq := s.zn[s.q][:nz]
	for j := 2; j < s.q; j++ {
		zj := s.zn[j][:nz]
		c := l[j]
		for i, v := range zq {
			zj[i] -= c * v
		}
	}
}

// setCoeffs is cvSet with cvSetBDF and cvSetTqBDF.
func (s *Solver) setCoeffs() {
	if s.adams {
		s.setAdams()
		return
	}
	q := s.q
	l := &s.l
	l[0], l[1] = 1, 1
	xiInv, xistarInv := 1.0, 1.0
	for i := 2; i <= q; i++ {
		l[i] = 0
	}
	alpha0, alpha0Hat := -1.0, -1.0
	hsum := s.h
	if q > 1 {
		for j := 2; j < q; j++ {
			hsum += s.tau[j-1]
			xiInv = s.h / hsum
			alpha0 -= 1 / float64(j)
			for i := j; i >= 1; i-- {
				l[i] += l[i-1] * xiInv
			}
		}
		alpha0 -= 1 / float64(q)
		xistarInv = -l[1] - alpha0
		hsum += s.tau[q-1]
		xiInv = s.h / hsum
		alpha0Hat = -l[1] - xiInv
		for i := q; i >= 1; i-- {
			l[i] += l[i-1] * xistarInv
		}
	}
	// cvSetTqBDF
	a1 := 1 - alpha0Hat + alpha0
	a2 := 1 + float64(q)*a1
	s.tq[2] = math.Abs(a1 / (alpha0 * a2))
	s.tq[5] = math.Abs(a2 * xistarInv / (l[q] * xiInv))
	if s.qwait == 1 {
		if q > 1 {
			c := xistarInv / l[q]
			a3 := alpha0 + 1/float64(q)
			a4 := alpha0Hat + xiInv
			cpinv := (1 - a4 + a3) / a3
			s.tq[1] = math.Abs(c * cpinv)
		} else {
			s.tq[1] = 1
		}
		hsum += s.tau[q]
		xiInv = s.h / hsum
		a5 := alpha0 - 1/float64(q+1)
		a6 := alpha0Hat - xiInv
		cppinv := (1 - a6 + a5) / a2
		s.tq[3] = math.Abs(cppinv / (xiInv * float64(q+2) * a5))
	}
	s.tq[4] = nlscoef / s.tq[2]

	s.setGamma(l[1])
}

// nls is cvNls: decides whether to refresh the iteration matrix, then runs
// the Newton iteration, retrying once with a fresh Jacobian if the matrix
// was stale.
func (s *Solver) nls(p []float64, nflag int) int {
	if s.adams {
		return s.fixedPoint(p)
	}
	nx := s.nx
	convfail := failOther
	if nflag == firstCall || nflag == prevErrFail {
		convfail = failNone
	}
	callSetup := nflag == prevConvFail || nflag == prevErrFail || s.nst == 0 ||
		s.nst >= s.nstlp+msbp || math.Abs(s.gamrat-1) > dgmax
	z0 := s.zn[0][:nx]
	for {
		f := s.ftemp[:nx]
		s.m.F(f, s.tn, z0, p)
		s.stats.FEvals++
		if i := firstNonFinite(f); i >= 0 {
			s.lastFail, s.lastIndex, s.lastWhat = ErrNonFinite, i, "f"
			return nlsConvFail
		}
		if callSetup {
			ok := s.lsetup(convfail, z0, p, false)
			callSetup = false
			s.gamrat, s.crate, s.crateS = 1, 1, 1
			s.gammap = s.gamma
			s.nstlp = s.nst
			if !ok {
				return nlsConvFail
			}
		}
		ret := s.newton(p)
		if ret != nlsTryAgain {
			return ret
		}
		callSetup = true
		convfail = failBadJ
	}
}

// lsetup is cvLsSetup: re-evaluates Jx at x when it is judged bad, then
// forms and factors M = I - gamma*Jx. With haveJ, s.jvS already holds Jx
// at x and is copied instead of re-evaluated.
func (s *Solver) lsetup(convfail int, x, p []float64, haveJ bool) bool {
	nx := s.nx
	dgamma := math.Abs(s.gamma/s.gammap - 1)
	jbad := s.nst == 0 || s.nst >= s.nstlj+msbj ||
		(convfail == failBadJ && dgamma < dgmaxJ) || convfail == failOther
	if jbad {
		if haveJ {
			copy(s.jv, s.jvS)
		} else {
			s.m.Jx(s.jv, s.tn, x, p)
			s.stats.JacEvals++
		}
		s.nstlj = s.nst
		s.jcur = true
		if k := firstNonFinite(s.jv); k >= 0 {
			s.lastFail, s.lastIndex, s.lastWhat = ErrNonFinite, patternRow(s.jxPat, k), "Jx"
			return false
		}
	} else {
		s.jcur = false
	}
	s.stats.LUs++
	if s.useSparse {
		s.shift.Fill(&s.mcsr, 1, -s.gamma, s.jv)
		// Refactor keeps the last pivot order while its pivots stay
		// acceptable and factorises afresh otherwise.
		if err := s.slu.Refactor(&s.mcsr); err != nil {
			s.lastFail, s.lastIndex = ErrSingular, -1
			if se, ok := err.(*sparse.SingularError); ok {
				s.lastIndex = se.Col
			}
			return false
		}
		return true
	}
	a := s.mat
	clear(a)
	g := -s.gamma
	// -gamma Jx through the entries' precomputed positions (the values of
	// sparse.CSR.ScatterNZTo without its per-row slicing, 3% of
	// Blasi_CellSystems2016's steady states), then I.
	if s.matIdx != nil {
		jv := s.jv[:len(s.matIdx)]
		for k, d := range s.matIdx {
			a[d] = g * jv[k]
		}
	} else {
		sparse.CSR{Pat: s.jxPat, Val: s.jv}.ScatterNZTo(a, g)
	}
	for i := 0; i < nx; i++ {
		a[i*nx+i] += 1
	}
	if !dense.Factor(a, nx, s.piv) {
		s.lastFail, s.lastIndex = ErrSingular, -1
		return false
	}
	if s.matT != nil {
		dense.TransposeTo(s.matT, a, nx)
	}
	return true
}

// solveState overwrites the nx-vector b with M^{-1} b, with the
// factorisation of the last successful lsetup.
func (s *Solver) solveState(b []float64) {
	if s.useSparse {
		s.slu.SolveTo(b, b, 1)
		return
	}
	if s.matT != nil {
		dense.SolveT(s.matT, s.nx, s.piv, b) // Solve's result, faster
		return
	}
	dense.Solve(s.mat, s.nx, s.piv, b)
}

// solveBlock overwrites the row-major nx x k block b with M^{-1} b. The
// dense path uses the multi-column solve even for k = 1, as before the
// sparse path existed, so that its results are bit for bit unchanged.
func (s *Solver) solveBlock(b []float64, k int) {
	if s.useSparse {
		s.slu.SolveTo(b, b, k)
		return
	}
	dense.SolveMulti(s.mat, s.nx, s.piv, b, k)
}

// newton is cvNewtonIteration for the state.
func (s *Solver) newton(p []float64) int {
	nx := s.nx
	acor := s.acor[:nx]
	clear(acor)
	z0, z1 := s.zn[0][:nx], s.zn[1][:nx]
	y := s.y[:nx]
	copy(y, z0)
	f := s.ftemp[:nx]
	b := s.tmp[:nx]
	ewt := s.ewt[:nx]
	var delp float64
	for m := 0; ; m++ {
		// b = gamma f - (rl1 z1 + acor).
		if nx >= kernelMin {
			dense.NewtonResidual(b, f, z1, acor, s.gamma, s.rl1)
		} else {
			g, rl1 := s.gamma, s.rl1
			for i := range b {
				b[i] = g*f[i] - (rl1*z1[i] + acor[i])
			}
		}
		s.solveState(b)
		if s.gamrat != 1 {
			c := 2 / (1 + s.gamrat)
			for i := range b {
				b[i] *= c
			}
		}
		s.stats.NewtonIters++
		del := wrms(b, ewt)
		if del != del || math.IsInf(del, 0) {
			s.lastFail, s.lastIndex, s.lastWhat = ErrNonFinite, firstNonFinite(b), "the Newton iterate"
			if !s.jcur {
				return nlsTryAgain
			}
			return nlsConvFail
		}
		if nx >= kernelMin {
			dense.NewtonUpdate(acor, y, z0, b) // acor += b, y = z0 + acor
		} else {
			for i, v := range b {
				acor[i] += v
				y[i] = z0[i] + acor[i]
			}
		}
		if m > 0 {
			s.crate = math.Max(crdown*s.crate, del/delp)
		}
		dcon := del * math.Min(1, s.crate) / s.tq[4]
		if dcon <= 1 {
			if m == 0 {
				s.acnrm = del
			} else {
				s.acnrm = wrms(acor, ewt)
			}
			s.jcur = false
			return nlsOK
		}
		if m+1 == maxcor || (m >= 1 && del > rdiv*delp) {
			s.lastFail = ErrConvergence
			if !s.jcur {
				return nlsTryAgain
			}
			return nlsConvFail
		}
		delp = del
		s.m.F(f, s.tn, y, p)
		s.stats.FEvals++
		if i := firstNonFinite(f); i >= 0 {
			s.lastFail, s.lastIndex, s.lastWhat = ErrNonFinite, i, "f"
			if !s.jcur {
				return nlsTryAgain
			}
			return nlsConvFail
		}
	}
}

// sensCorrector is CVODES's staggered sensitivity corrector (cvStgrNls):
// with the state converged at y, all sensitivity columns are corrected with
// the current factorisation of M; if that fails with a stale matrix, M is
// rebuilt from Jx at y (already evaluated) and the correction retried.
func (s *Solver) sensCorrector(p []float64) int {
	nx := s.nx
	y := s.y[:nx]
	s.m.Jx(s.jvS, s.tn, y, p)
	s.jpFn(s.jpv, s.tn, y, p)
	s.stats.SensJacEvals++
	if k := firstNonFinite(s.jvS); k >= 0 {
		s.lastFail, s.lastIndex, s.lastWhat = ErrNonFinite, patternRow(s.jxPat, k), "Jx"
		return nlsConvFail
	}
	if k := firstNonFinite(s.jpv); k >= 0 {
		s.lastFail, s.lastIndex, s.lastWhat = ErrNonFinite, patternRow(s.jpPat, k), "Jp"
		return nlsConvFail
	}
	if s.adams {
		return s.sensFixedPoint()
	}
	if s.freshS {
		// M from Jx at y (s.jvS) and the current gamma.
		ok := s.lsetup(failOther, y, p, true)
		s.gamrat, s.crate, s.crateS = 1, 1, 1
		s.gammap = s.gamma
		s.nstlp = s.nst
		if !ok {
			return nlsConvFail
		}
		return s.sensNewtonExact()
	}
	callSetup := false
	for {
		if callSetup {
			ok := s.lsetup(failBadJ, y, p, true)
			s.gamrat, s.crate, s.crateS = 1, 1, 1
			s.gammap = s.gamma
			s.nstlp = s.nst
			if !ok {
				return nlsConvFail
			}
		}
		ret := s.sensNewton()
		if ret != nlsTryAgain {
			return ret
		}
		callSetup = true
	}
}

func (s *Solver) sensNewton() int {
	nx, nz, m := s.nx, s.nz, s.nsp
	zS0, zS1 := s.zn[0][nx:nz], s.zn[1][nx:nz]
	acorS := s.acor[nx:nz]
	clear(acorS)
	yS := s.y[nx:nz]
	copy(yS, zS0)
	fS := s.ftemp[nx:nz]
	s.sensApply(fS, yS)
	b := s.tmp[nx:nz]
	ewtS := s.ewt[nx:nz]
	var delp float64
	for it := 0; ; it++ {
		g, rl1 := s.gamma, s.rl1
		for i := range b {
			b[i] = g*fS[i] - (rl1*zS1[i] + acorS[i])
		}
		s.solveBlock(b, m)
		if s.gamrat != 1 {
			c := 2 / (1 + s.gamrat)
			for i := range b {
				b[i] *= c
			}
		}
		s.stats.SensNewtonIters++
		del := s.sensNorm(b, ewtS)
		if del != del || math.IsInf(del, 0) {
			s.lastFail, s.lastIndex, s.lastWhat = ErrNonFinite, -1, "the sensitivity iterate"
			if !s.jcur {
				return nlsTryAgain
			}
			return nlsConvFail
		}
		for i, v := range b {
			acorS[i] += v
			yS[i] = zS0[i] + acorS[i]
		}
		if it > 0 {
			s.crateS = math.Max(crdown*s.crateS, del/delp)
		}
		dcon := del * math.Min(1, s.crateS) / s.tq[4]
		if dcon <= 1 {
			if s.errcon {
				if it == 0 {
					s.acnrmS = del
				} else {
					s.acnrmS = s.sensNorm(acorS, ewtS)
				}
			}
			s.jcur = false
			return nlsOK
		}
		if it+1 == maxcor || (it >= 1 && del > rdiv*delp) {
			s.lastFail = ErrConvergence
			if !s.jcur {
				return nlsTryAgain
			}
			return nlsConvFail
		}
		delp = del
		s.sensApply(fS, yS)
	}
}

// sensNewtonExact is the sensitivity corrector with the exact M: rebuilt
// by sensCorrector from Jx at the converged state y, the matrix of the
// sensitivity right-hand side, and the current gamma (Solver.freshS). The
// system S - gamma (Jx S + Jp) = ... is then linear with M its exact
// Jacobian, and the columns are independent systems: the first correction
// solves each up to the rounding of the solve, and a second one would
// only compute the residual of that solve and remove its rounding (in
// working precision, iterative refinement, which cannot improve the
// forward error of a backward-stable solve).
//
// So the first correction is accepted when the solve was backward stable:
// checkColsStable computes the residual of a few columns (a different few
// at each step) and compares it with the rounding of the products that
// form it. The first correction is solved in place in acorS, and nothing
// else of the iteration is needed: not the iterate (S at the step is the
// prediction plus the correction, formed by completeStep) nor, without
// ErrCon, the weights of S (setEwt skips them). On
// Lang_PLOSComputBiol2024 (317 columns) this took FS from 1.9 s to 0.95 s
// of CPU time (the second correction was a third of it, the weights and
// the iterate's passes over the nx x nsp block most of the rest), and S
// at the outputs agreed to 6 digits in its error against FS at rtol 1e-10
// (2.92997e-4, max over outputs of ||S - S_ref||_F / ||S_ref||_F, either
// way).
//
// When the check fails (an unstable factorisation) sensRefine iterates,
// each column tested on its own:
//
//   - with CVODES's test, del_j min(1, rate_j) <= tq[4], where del_j is the
//     column's weighted norm (the one of sensNorm) and rate_j the ratio of
//     the Euclidean norms of its last two corrections (1 for the first).
//     The rounding comes from the largest entries of a column and lands in
//     its smallest, which the weights magnify (S spans 30 orders of
//     magnitude within a column on Lang_PLOSComputBiol2024, whose
//     parameters go down to 1e-15): the ratio of weighted norms stays
//     near 1 while the correction shrinks by 1e-10, so the weighted ratio
//     (and CVODES's crdown floor, which models a stale M) would ask for
//     iterations that change nothing;
//   - or at working precision: the Euclidean norm of the correction is at
//     most sensRoundoff times that of the column, where no further
//     iteration can improve it (CVODES would fail the step and retry with
//     h/4, only to shrink the products whose rounding it cannot resolve).
//
// It fails after maxcor corrections. acnrmS (ErrCon) is the weighted norm
// of the whole correction, as in sensNewton.
func (s *Solver) sensNewtonExact() int {
	nx, nz, m := s.nx, s.nz, s.nsp
	zS0, zS1 := s.zn[0][nx:nz], s.zn[1][nx:nz]
	acorS := s.acor[nx:nz]
	// The first correction's right-hand side gamma (Jx zS0 + Jp) - rl1 zS1,
	// row by row as -rl1 (zS1 + c Jx zS0) with c = -gamma/rl1, then
	// gamma Jp: one pass that writes acorS, where forming Jx zS0 + Jp and
	// combining it with zS1 took a write and two reads of nx x nsp
	// blocks more (Lang_PLOSComputBiol2024: FS 0.58 s to 0.55 s of CPU,
	// alternated runs).
	g, rl1 := s.gamma, s.rl1
	rp, ci := s.jxPat.RowPtr, s.jxPat.ColIdx
	c := -g / rl1
	jc := s.jvC[:len(s.jvS)]
	for q, v := range s.jvS {
		jc[q] = c * v
	}
	for i := 0; i < nx; i++ {
		lo, hi := rp[i], rp[i+1]
		dense.GatherRow(acorS[i*m:(i+1)*m], zS1[i*m:(i+1)*m], -rl1, jc[lo:hi], ci[lo:hi], zS0, m)
	}
	s.addJp(acorS, g)
	s.saveCheckCols(acorS)
	// The first correction, solved in place in acorS.
	s.solveBlock(acorS, m)
	s.stats.SensNewtonIters++
	if !dense.Finite(acorS) {
		s.lastFail, s.lastIndex, s.lastWhat = ErrNonFinite, -1, "the sensitivity iterate"
		return nlsConvFail
	}
	if s.refineAlways || !s.checkColsStable(acorS) {
		return s.sensRefine()
	}
	if s.errcon {
		s.acnrmS = s.sensNorm(acorS, s.ewt[nx:nz])
	}
	s.jcur = false
	return nlsOK
}

// sensRefine continues sensNewtonExact when its first correction, in
// acorS, failed the backward-error check: further corrections with the
// residual, each column tested on its own (see sensNewtonExact). Without
// ErrCon the step did not compute the sensitivities' error weights (only
// this fallback needs them), and they are taken from the predicted S.
func (s *Solver) sensRefine() int {
	nx, nz, m := s.nx, s.nz, s.nsp
	zS0, zS1 := s.zn[0][nx:nz], s.zn[1][nx:nz]
	acorS := s.acor[nx:nz]
	b := s.tmp[nx:nz]
	copy(b, acorS)
	clear(acorS)
	yS := s.y[nx:nz]
	fS := s.ftemp[nx:nz]
	ewtS := s.ewt[nx:nz]
	if !s.errcon {
		s.setEwtS(zS0)
	}
	wsq, dsq, ysq, dprev := s.colAcc[:m], s.colD[:m], s.colY[:m], s.colP[:m]
	const floorSq = sensRoundoff * sensRoundoff
	for it := 0; ; it++ {
		if it > 0 {
			// b is the first correction at it = 0.
			s.sensApply(fS, yS)
			g, rl1 := s.gamma, s.rl1
			for i := range b {
				b[i] = g*fS[i] - (rl1*zS1[i] + acorS[i])
			}
			s.solveBlock(b, m)
			s.stats.SensNewtonIters++
		}
		clear(wsq)
		clear(dsq)
		clear(ysq)
		for i := 0; i < nx; i++ {
			bi := b[i*m : (i+1)*m]
			wi := ewtS[i*m : (i+1)*m]
			wi = wi[:len(bi)]
			zi := zS0[i*m : (i+1)*m]
			zi = zi[:len(bi)]
			ai := acorS[i*m : (i+1)*m]
			ai = ai[:len(bi)]
			yi := yS[i*m : (i+1)*m]
			yi = yi[:len(bi)]
			for c, v := range bi {
				t := v * wi[c]
				wsq[c] += t * t
				dsq[c] += v * v
				a := ai[c] + v
				ai[c] = a
				y := zi[c] + a
				yi[c] = y
				ysq[c] += y * y
			}
		}
		done := true
		for c := range wsq {
			del := math.Sqrt(wsq[c] / float64(nx))
			if del != del || math.IsInf(del, 0) {
				s.lastFail, s.lastIndex, s.lastWhat = ErrNonFinite, -1, "the sensitivity iterate"
				return nlsConvFail
			}
			rate := 1.0
			if it > 0 {
				rate = math.Sqrt(dsq[c] / dprev[c])
			}
			dprev[c] = dsq[c]
			if !(del*math.Min(1, rate) <= s.tq[4]) && !(dsq[c] <= floorSq*ysq[c]) {
				done = false
			}
		}
		if done {
			if s.errcon {
				s.acnrmS = s.sensNorm(acorS, ewtS)
			}
			s.jcur = false
			return nlsOK
		}
		if it+1 == maxcor {
			s.lastFail = ErrConvergence
			return nlsConvFail
		}
	}
}

// saveCheckCols copies the columns of the right-hand side b (row-major
// nx x nsp) whose solve checkColsStable will check: sensCheckCols of them,
// moving on by as many at every call, so that every column is checked in
// turn.
func (s *Solver) saveCheckCols(b []float64) {
	nx, m := s.nx, s.nsp
	k := min(sensCheckCols, m)
	for t := 0; t < k; t++ {
		c := (s.chkNext + t) % m
		s.chkCol[t] = c
		cb := s.chkB[t*nx : (t+1)*nx]
		for i := range cb {
			cb[i] = b[i*m+c]
		}
	}
	s.chkNext = (s.chkNext + k) % m
}

// checkColsStable reports whether the solution a (row-major nx x nsp) of
// M a = b solves each column saved by saveCheckCols to a normwise backward
// error of at most sensBackwardTol:
//
//	max_i |b - M a|_i <= tol max_i (|b| + |a| + gamma |Jx| |a|)_i,
//
// with M = I - gamma Jx formed from the Jx that M was factorised from
// (s.jv), the right side bounding the rounding of the products that form
// the residual. The residual of one column costs a sparse product,
// O(nnz(Jx)), nothing against the solve of all columns. All columns share
// the factors, so an unstable factorisation (growth that the threshold
// pivoting let through) shows in any of them.
//
// The bound is normwise per column, not componentwise: a state whose row
// of Jx is empty has M's row e_i, and when the threshold pivoting takes
// its column's pivot off the diagonal (gamma |Jx| large there), its
// solution comes out of sums of the column's large entries, right to
// their rounding but not to its own tiny b_i (componentwise errors up to
// 1 on Lang_PLOSComputBiol2024, where a second correction changes
// nothing either).
func (s *Solver) checkColsStable(a []float64) bool {
	nx, m := s.nx, s.nsp
	rp, ci := s.jxPat.RowPtr, s.jxPat.ColIdx
	jv := s.jv[:len(ci)]
	g := s.gamma
	k := min(sensCheckCols, m)
	for t := 0; t < k; t++ {
		c := s.chkCol[t]
		cb := s.chkB[t*nx : (t+1)*nx]
		var rmax, dmax float64
		for i, bi := range cb {
			var ja, jabs float64
			for q := rp[i]; q < rp[i+1]; q++ {
				v := jv[q] * a[ci[q]*m+c]
				ja += v
				jabs += math.Abs(v)
			}
			ai := a[i*m+c]
			rmax = math.Max(rmax, math.Abs(bi-ai+g*ja))
			dmax = math.Max(dmax, math.Abs(bi)+math.Abs(ai)+math.Abs(g)*jabs)
		}
		if !(rmax <= sensBackwardTol*dmax) {
			return false
		}
	}
	return true
}

// sensCheckCols is the number of columns whose backward error
// checkColsStable checks at every exact corrector.
const sensCheckCols = 2

// sensBackwardTol is the normwise backward error (per column) up to
// which sensNewtonExact accepts its first correction: 1000 units of
// rounding. On Lang_PLOSComputBiol2024 (317 columns, 2163 steps) the
// largest seen was 1.1e-15, 5 units.
const sensBackwardTol = sensRoundoff

// sensRoundoff is the relative size (Euclidean, per column) below which a
// correction of sensNewtonExact is rounding: about 1000 units of rounding
// of the column's largest entries.
const sensRoundoff = 1000 * 0x1p-52

// sensFreshCols is the number of sensitivity columns from which
// sensCorrector rebuilds M from Jx at the converged state before every
// corrector (freshS): a solve with that many columns costs more than the
// refactorisation (the sparse LU's numerical refactorisation of Lang's 124
// states took 47 us, a 317-column solve 1.25 ms).
const sensFreshCols = 16

// completeStep is cvCompleteStep.
func (s *Solver) completeStep() {
	s.nst++
	s.nscon++
	q := s.q
	for i := q; i >= 2; i-- {
		s.tau[i] = s.tau[i-1]
	}
	if q == 1 && s.nst > 1 {
		s.tau[2] = s.tau[1]
	}
	s.tau[1] = s.h
	nz := s.nz
	acor := s.acor[:nz]
	nx := s.nx
	// zn[j] += l[j] acor, j = 0..q.
	if nx >= kernelMin {
		for j := 0; j <= q; j++ {
			dense.AxpyExact(s.zn[j][:nx], acor[:nx], s.l[j])
		}
	} else {
		for j := 0; j <= q; j++ {
			zj := s.zn[j][:nx]
			c := s.l[j]
			for i, v := range acor[:nx] {
				zj[i] += c * v
			}
		}
	}
	// The sensitivities' long part of the Nordsieck array in chunks that
	// stay in cache, with dense.Axpy's fused multiply-adds; the state's
	// part keeps the plain loop's rounding (AxpyExact above), so x is that
	// of Integrate to the bit.
	for lo := nx; lo < nz; lo += pascalChunk {
		hi := min(lo+pascalChunk, nz)
		for j := 0; j <= q; j++ {
			dense.Axpy(s.zn[j][lo:hi], acor[lo:hi], s.l[j])
		}
	}
	s.qwait--
	if s.qwait == 1 && q != s.qmx {
		copy(s.zn[s.qmx][:nz], acor)
		s.savedTq5 = s.tq[5]
	}
}

// prepareNextStep is cvPrepareNextStep with cvSetEta and cvChooseEta.
func (s *Solver) prepareNextStep(dsm float64) {
	if s.etamax == 1 {
		if s.qwait < 2 {
			s.qwait = 2
		}
		s.qprime = s.q
		s.hprime = s.h
		s.eta = 1
		return
	}
	if s.qwait != 0 && bias2*dsm >= keepH[s.L] {
		// etaq < thresh whatever the rounding (addon leaves a margin of
		// 1e-6 against the last bits of the power): setEta would keep h.
		// Most steps of a smooth stretch end here without the power,
		// which was 11% of FS on Perelson_Science1996.
		s.qprime = s.q
		s.eta = 1
		s.hprime = s.h
		return
	}
	s.etaq = 1 / (rootN(bias2*dsm, s.L) + addon)
	if s.qwait != 0 {
		s.eta = s.etaq
		s.qprime = s.q
		s.setEta()
		return
	}
	s.qwait = 2
	s.etaqm1 = 0
	if s.q > 1 {
		ddn := s.errNorm(s.zn[s.q]) * s.tq[1]
		s.etaqm1 = 1 / (rootN(bias1*ddn, s.q) + addon)
	}
	s.etaqp1 = 0
	if s.q != s.qmx && s.savedTq5 != 0 {
		cquot := (s.tq[5] / s.savedTq5) * math.Pow(s.h/s.tau[2], float64(s.L))
		nz := s.nz
		t, a, zq := s.tmp[:nz], s.acor[:nz], s.zn[s.qmx][:nz]
		for i := range t {
			t[i] = a[i] - cquot*zq[i]
		}
		dup := s.errNorm(t) * s.tq[3]
		s.etaqp1 = 1 / (rootN(bias3*dup, s.L+1) + addon)
	}
	// cvChooseEta
	etam := math.Max(s.etaqm1, math.Max(s.etaq, s.etaqp1))
	if etam < thresh {
		s.eta = 1
		s.qprime = s.q
	} else if etam == s.etaq {
		s.eta = s.etaq
		s.qprime = s.q
	} else if etam == s.etaqm1 {
		s.eta = s.etaqm1
		s.qprime = s.q - 1
	} else {
		s.eta = s.etaqp1
		s.qprime = s.q + 1
		if !s.adams {
			// cvIncreaseBDF builds the new column from it.
			copy(s.zn[qmax][:s.nz], s.acor[:s.nz])
		}
	}
	s.setEta()
}

// keepH[L] = (2/3)^L: from bias2*dsm >= keepH[L] on, the step-size
// factor etaq = 1/((bias2 dsm)^(1/L) + addon) is below thresh = 3/2.
var keepH = func() (k [lmax + 2]float64) {
	for l := range k {
		k[l] = math.Pow(1/thresh, float64(l))
	}
	return k
}()

// rootN is x^(1/n) as math.Pow(x, 1/float64(n)) computes it, bit for bit
// (TestRootN), for x >= 0 or NaN and n >= 1: Pow takes x, Sqrt for n = 2
// and otherwise Exp(y Log x) scaled by 2^0, after special cases and
// splits that cost a quarter of its time here.
func rootN(x float64, n int) float64 {
	switch n {
	case 1:
		return x
	case 2:
		return math.Sqrt(x)
	}
	return math.Exp(1 / float64(n) * math.Log(x))
}

// hinSensDD is hin's estimate of S's second derivative with ErrCon: the
// sensNorm of (fS(t, y, yS) - fS0)/hg at the trial point t = t0 + hg,
// y = s.y[:nx] (set by hin), yS = S0 + hg fS0, where fS0 = zn[1] (hg = 1
// in its scaling) is S' at t0. Non-finite is NaN, which makes hin shrink
// hg as for x.
func (s *Solver) hinSensDD(p []float64, t, hg float64) float64 {
	nx, nz := s.nx, s.nz
	y := s.y[:nx]
	yS, dd := s.y[nx:nz], s.tmp[nx:nz]
	zS, fS0 := s.zn[0][nx:nz], s.zn[1][nx:nz]
	for i := range yS {
		yS[i] = zS[i] + hg*fS0[i]
	}
	s.m.Jx(s.jvS, t, y, p)
	s.jpFn(s.jpv, t, y, p)
	s.stats.SensJacEvals++
	s.sensApply(dd, yS)
	for i := range dd {
		dd[i] = (dd[i] - fS0[i]) / hg
	}
	if !dense.Finite(dd) {
		return math.NaN()
	}
	return s.sensNorm(dd, s.ewt[nx:nz])
}

// setEta is cvSetEta: small changes of h are not worth the rescaling.
func (s *Solver) setEta() {
	if s.eta < thresh {
		s.eta = 1
		s.hprime = s.h
		return
	}
	s.eta = math.Min(s.eta, s.etamax)
	s.eta /= math.Max(1, math.Abs(s.h)*s.hmaxInv*s.eta)
	s.hprime = s.h * s.eta
	if s.qprime < s.q {
		s.nscon = 0
	}
}

// hin is CVODE's initial step estimate (cvHin): the step for which the
// second-derivative term of the local error is about the tolerance, bounded
// by 0.1|tout - t0| and by the size of x relative to x'.
//
// With S in the error test (ErrCon), S takes part as in CVODES with
// errconS: its entries bound the step as x's do, and the norm of the
// second derivative is the larger of x's and S's (sensNorm, the norm of
// the error test). Without it h0 was the state's alone, up to 17 times
// CVODES's on CaMKII (1.18e-11 against 6.93e-13 at rtol 1e-5), and the
// whole step sequence differed from CVODES's from the first step on.
func (s *Solver) hin(p []float64, tout float64) float64 {
	nx := s.nx
	t0 := s.tn
	tdist := tout - t0
	tround := uround * math.Max(math.Abs(t0), math.Abs(tout))
	if tdist < 2*tround {
		return tdist
	}
	x0, f0 := s.zn[0][:nx], s.zn[1][:nx]
	hlb := 100 * tround
	// cvUpperBoundH0
	hubInv := 0.0
	for i := 0; i < nx; i++ {
		v := math.Abs(f0[i]) / (0.1*math.Abs(x0[i]) + s.atol[i])
		if v > hubInv {
			hubInv = v
		}
	}
	sensErr := s.sens && s.errcon
	if sensErr {
		m := s.nsp
		zS, fS := s.zn[0][nx:s.nz], s.zn[1][nx:s.nz]
		as := s.atolS[:m]
		for i := 0; i < nx; i++ {
			a := s.atol[i]
			zi, fi := zS[i*m:(i+1)*m], fS[i*m:(i+1)*m]
			fi = fi[:len(zi)]
			as = as[:len(zi)]
			for c, z := range zi {
				// atol_i/|pbar_c|, S's absolute tolerance (SensSettings.PBar).
				if v := math.Abs(fi[c]) / (0.1*math.Abs(z) + a*as[c]); v > hubInv {
					hubInv = v
				}
			}
		}
	}
	hub := 0.1 * tdist
	if hub*hubInv > 1 {
		hub = 1 / hubInv
	}
	hg := math.Sqrt(hlb * hub)
	if hub < hlb {
		return hg
	}
	y, ft, ewt := s.y[:nx], s.tmp[:nx], s.ewt[:nx]
	hnewOK := false
	hs, hnew := hg, hg
	for count1 := 1; count1 <= 4; count1++ {
		hgOK := false
		var yddnrm float64
		for count2 := 1; count2 <= 4; count2++ {
			for i := range y {
				y[i] = x0[i] + hg*f0[i]
			}
			s.m.F(ft, t0+hg, y, p)
			s.stats.FEvals++
			for i := range ft {
				ft[i] = (ft[i] - f0[i]) / hg
			}
			yddnrm = wrms(ft, ewt)
			if sensErr {
				yddnrm = math.Max(yddnrm, s.hinSensDD(p, t0+hg, hg))
			}
			if yddnrm == yddnrm && !math.IsInf(yddnrm, 0) {
				hgOK = true
				break
			}
			hg *= 0.2
		}
		if !hgOK {
			if count1 <= 2 {
				hnew = hlb
				break
			}
			hnew = hs
			break
		}
		hs = hg
		if hnewOK || count1 == 4 {
			hnew = hg
			break
		}
		if yddnrm*hub*hub > 2 {
			hnew = math.Sqrt(2 / yddnrm)
		} else {
			hnew = math.Sqrt(hg * hub)
		}
		hrat := hnew / hg
		if hrat > 0.5 && hrat < 2 {
			hnewOK = true
		}
		if count1 > 1 && hrat > 2 {
			hnew = hg
			hnewOK = true
		}
		hg = hnew
	}
	h0 := 0.5 * hnew
	if h0 < hlb {
		h0 = hlb
	}
	if h0 > hub {
		h0 = hub
	}
	return h0
}

// setGamma sets gamma = h/l1, the Newton matrix's coefficient, and its
// ratio to the one of the last setup, after either method's coefficient
// update (BDF's and Adams's share it, as in CVODE).
func (s *Solver) setGamma(l1 float64) {
	s.rl1 = 1 / l1
	s.gamma = s.h * s.rl1
	if s.nst == 0 {
		s.gammap = s.gamma
	}
	if s.nst > 0 {
		s.gamrat = s.gamma / s.gammap
	} else {
		s.gamrat = 1
	}
}
