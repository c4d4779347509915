package ode

import "math"

// The Adams-Moulton method shares the BDF's Nordsieck machinery (bdf.go),
// as CVODE implements both in one cvode.c: the step (cvStep), prediction,
// rescaling, the error test, step completion, and step and order
// selection are the same code. What is the method's own is here, each
// function CVODE's of the same purpose:
//
//   - setAdams: the coefficients l of the corrector polynomial and the
//     error constants tq for the last q step sizes (cvSetAdams,
//     cvAdamsStart, cvAdamsFinish, cvAltSum);
//   - decreaseAdams: the order decrease, each zn[j] corrected by a
//     multiple of zn[q] (cvAdjustAdams; an increase only clears the new
//     column, in increaseOrder);
//   - fixedPoint and sensFixedPoint: the functional iteration of the
//     corrector for x and, staggered, for S, as CVODES with
//     SUNNonlinSol_FixedPoint (no acceleration, at most maxcor
//     iterations) solves it, with CVODE's convergence test.
//
// qmaxAdams is the Adams method's highest order, CVODE's ADAMS_Q_MAX
// (and its default for CV_ADAMS). The Nordsieck array zn has lmax =
// qmaxAdams + 1 columns; a BDF solver allocates only the first qmax + 1.
const qmaxAdams = 12

// setAdams is cvSet with cvSetAdams: l and tq for order q, then rl1,
// gamma and gamrat as for the BDF.
func (s *Solver) setAdams() {
	q := s.q
	l := &s.l
	if q == 1 {
		l[0], l[1] = 1, 1
		s.tq[1], s.tq[5] = 1, 1
		s.tq[2] = 0.5
		s.tq[3] = 1.0 / 12
		s.tq[4] = nlscoef / s.tq[2]
	} else {
		// cvAdamsStart: m holds the coefficients of the polynomial
		// prod_{j=1}^{q-1} (1 + x/xi_j), xi_j = (t_n - t_{n-j})/h.
		var m [lmax]float64
		m[0] = 1
		hsum := s.h
		for j := 1; j < q; j++ {
			if j == q-1 && s.qwait == 1 {
				sum := altSum(q-2, m[:], 2)
				s.tq[1] = float64(q) * sum / m[q-2]
			}
			xiInv := s.h / hsum
			for i := j; i >= 1; i-- {
				m[i] += m[i-1] * xiInv
			}
			hsum += s.tau[j]
		}
		// cvAdamsFinish.
		m0Inv := 1 / altSum(q-1, m[:], 1)
		m1 := altSum(q-1, m[:], 2)
		l[0] = 1
		for i := 1; i <= q; i++ {
			l[i] = m0Inv * (m[i-1] / float64(i))
		}
		xi := hsum / s.h
		xiInv := 1 / xi
		s.tq[2] = m1 * m0Inv / xi
		s.tq[5] = xi / l[q]
		if s.qwait == 1 {
			for i := q; i >= 1; i-- {
				m[i] += m[i-1] * xiInv
			}
			s.tq[3] = altSum(q, m[:], 2) * m0Inv / float64(s.L)
		}
		s.tq[4] = nlscoef / s.tq[2]
	}
	s.setGamma(l[1])
}

// altSum is cvAltSum: sum_{i=0}^{iend} (-1)^i a[i]/(i+k), the integral
// from -1 to 0 of x^(k-1) times the polynomial with coefficients a
// (0 for iend < 0).
func altSum(iend int, a []float64, k int) float64 {
	if iend < 0 {
		return 0
	}
	sum, sign := 0.0, 1.0
	for i := 0; i <= iend; i++ {
		sum += sign * (a[i] / float64(i+k))
		sign = -sign
	}
	return sum
}

// decreaseAdams is cvAdjustAdams for an order decrease: zn[j] -= l[j]
// zn[q] for j = 2..q-1, with l the coefficients of
// q * int_0^x u (u + xi_1) ... (u + xi_{q-2}) du.
func (s *Solver) decreaseAdams() {
	q := s.q
	if q <= 2 {
		return // cvAdjustOrder leaves order 2 to 1 alone
	}
	var l [lmax]float64
	l[1] = 1
	hsum := 0.0
	for j := 1; j <= q-2; j++ {
		hsum += s.tau[j]
		xi := hsum / s.hscale
		for i := j + 1; i >= 1; i-- {
			l[i] = l[i]*xi + l[i-1]
		}
	}
	for j := 1; j <= q-2; j++ {
		l[j+1] = float64(q) * (l[j] / float64(j+1))
	}
	nz := s.nz
	zq := s.zn[q][:nz]
	for j := 2; j < q; j++ {
		zj := s.zn[j][:nz]
		c := -l[j]
		for i, v := range zq {
			zj[i] += c * v
		}
	}
}

// fixedPoint is cvNls with SUNNonlinSol_FixedPoint for the state: the
// correction acor (from 0) is iterated as
//
//	acor <- rl1 (h f(tn, zn[0] + acor) - zn[1]),
//
// with the convergence test of cvNlsConvTest on the change of acor. As in
// CVODE without a linear solver, the rate estimate crate restarts at 1 on
// every solve. It leaves the converged state in s.y and its correction's
// norm in s.acnrm.
func (s *Solver) fixedPoint(p []float64) int {
	nx := s.nx
	s.crate, s.crateS = 1, 1
	acor := s.acor[:nx]
	clear(acor)
	z0, z1 := s.zn[0][:nx], s.zn[1][:nx]
	y := s.y[:nx]
	copy(y, z0)
	f := s.ftemp[:nx]
	ewt := s.ewt[:nx]
	h, rl1 := s.h, s.rl1
	var delp float64
	for m := 0; ; m++ {
		s.m.F(f, s.tn, y, p)
		s.stats.FEvals++
		if i := firstNonFinite(f); i >= 0 {
			s.lastFail, s.lastIndex, s.lastWhat = ErrNonFinite, i, "f"
			return nlsConvFail
		}
		// f becomes the change of the correction: G(acor) - acor.
		var sum float64
		for i := range f {
			g := rl1 * (h*f[i] - z1[i])
			d := g - acor[i]
			acor[i] = g
			f[i] = d
			t := d * ewt[i]
			sum += t * t
		}
		s.stats.NewtonIters++
		del := math.Sqrt(sum / float64(nx))
		for i, v := range acor {
			y[i] = z0[i] + v
		}
		if del != del || math.IsInf(del, 0) {
			s.lastFail, s.lastIndex, s.lastWhat = ErrNonFinite, firstNonFinite(acor), "the fixed-point iterate"
			return nlsConvFail
		}
		if m > 0 {
			s.crate = math.Max(crdown*s.crate, del/delp)
		}
		if del*math.Min(1, s.crate)/s.tq[4] <= 1 {
			if m == 0 {
				s.acnrm = del
			} else {
				s.acnrm = wrms(acor, ewt)
			}
			return nlsOK
		}
		if m+1 == maxcor || (m >= 1 && del > rdiv*delp) {
			s.lastFail = ErrConvergence
			return nlsConvFail
		}
		delp = del
	}
}

// sensFixedPoint is CVODES's staggered corrector for S with
// SUNNonlinSol_FixedPointSens (cvStgrNls, cvNlsFPFunctionSensStg,
// cvNlsConvTestSensStg): with x converged at y and Jx, Jp evaluated there
// (sensCorrector), all columns' correction acorS (from 0) is iterated as
//
//	acorS <- rl1 (h (Jx (zn[0]_S + acorS) + Jp) - zn[1]_S),
//
// converged by the largest column norm of its change (sensNorm). It
// leaves S in s.y[nx:nz] and, with ErrCon, the correction's norm in
// s.acnrmS.
func (s *Solver) sensFixedPoint() int {
	nx, nz := s.nx, s.nz
	s.crateS = 1
	zS0, zS1 := s.zn[0][nx:nz], s.zn[1][nx:nz]
	acorS := s.acor[nx:nz]
	clear(acorS)
	yS := s.y[nx:nz]
	copy(yS, zS0)
	fS := s.ftemp[nx:nz]
	d := s.tmp[nx:nz]
	ewtS := s.ewt[nx:nz]
	h, rl1 := s.h, s.rl1
	var delp float64
	for it := 0; ; it++ {
		s.sensApply(fS, yS)
		for i, v := range fS {
			g := rl1 * (h*v - zS1[i])
			d[i] = g - acorS[i]
			acorS[i] = g
			yS[i] = zS0[i] + g
		}
		s.stats.SensNewtonIters++
		del := s.sensNorm(d, ewtS)
		if del != del || math.IsInf(del, 0) {
			s.lastFail, s.lastIndex, s.lastWhat = ErrNonFinite, -1, "the sensitivity iterate"
			return nlsConvFail
		}
		if it > 0 {
			s.crateS = math.Max(crdown*s.crateS, del/delp)
		}
		if del*math.Min(1, s.crateS)/s.tq[4] <= 1 {
			if s.errcon {
				if it == 0 {
					s.acnrmS = del
				} else {
					s.acnrmS = s.sensNorm(acorS, ewtS)
				}
			}
			return nlsOK
		}
		if it+1 == maxcor || (it >= 1 && del > rdiv*delp) {
			s.lastFail = ErrConvergence
			return nlsConvFail
		}
		delp = del
	}
}
