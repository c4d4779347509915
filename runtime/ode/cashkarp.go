package ode

import "math"

// Cash-Karp 4(5) coefficients (J. R. Cash, A. H. Karp, "A variable order
// Runge-Kutta method for initial value problems with rapidly varying
// right-hand sides", ACM TOMS 16(3), 1990, Table 2): six stages, a fifth-
// order solution (b) and an embedded fourth-order one (b*); the step is
// advanced with the fifth-order solution (local extrapolation, as
// Boost.Odeint's runge_kutta_cash_karp54 that Stan's ode_ckrk uses) and
// its difference to the fourth-order one, ckE = b - b*, is the local
// error estimate.
const (
	ckC2  = 1.0 / 5
	ckC3  = 3.0 / 10
	ckC4  = 3.0 / 5
	ckC6  = 7.0 / 8
	ckA21 = 1.0 / 5
	ckA31 = 3.0 / 40
	ckA32 = 9.0 / 40
	ckA41 = 3.0 / 10
	ckA42 = -9.0 / 10
	ckA43 = 6.0 / 5
	ckA51 = -11.0 / 54
	ckA52 = 5.0 / 2
	ckA53 = -70.0 / 27
	ckA54 = 35.0 / 27
	ckA61 = 1631.0 / 55296
	ckA62 = 175.0 / 512
	ckA63 = 575.0 / 13824
	ckA64 = 44275.0 / 110592
	ckA65 = 253.0 / 4096
	ckB1  = 37.0 / 378
	ckB3  = 250.0 / 621
	ckB4  = 125.0 / 594
	ckB6  = 512.0 / 1771
	ckE1  = ckB1 - 2825.0/27648
	ckE3  = ckB3 - 18575.0/48384
	ckE4  = ckB4 - 13525.0/55296
	ckE5  = -277.0 / 14336
	ckE6  = ckB6 - 1.0/4
)

// ckStages computes the six stages of a Cash-Karp step of size h from
// (t, x) with k1 = f(t, x) given (s.k[0..5] hold k1..k6; k1 is s.zn[1]),
// and writes the fifth-order solution to s.y and h times the error
// estimate to s.acor.
func (s *Solver) ckStages(p []float64, t, h float64) error {
	nz := s.nz
	x, k1 := s.zn[0][:nz], s.zn[1][:nz]
	k2, k3, k4, k5, k6 := s.k[1][:nz], s.k[2][:nz], s.k[3][:nz], s.k[4][:nz], s.k[5][:nz]
	yt := s.tmp[:nz]
	for i := range yt {
		yt[i] = x[i] + h*ckA21*k1[i]
	}
	if err := s.rhsAug(k2, t+ckC2*h, yt, p); err != nil {
		return err
	}
	for i := range yt {
		yt[i] = x[i] + h*(ckA31*k1[i]+ckA32*k2[i])
	}
	if err := s.rhsAug(k3, t+ckC3*h, yt, p); err != nil {
		return err
	}
	for i := range yt {
		yt[i] = x[i] + h*(ckA41*k1[i]+ckA42*k2[i]+ckA43*k3[i])
	}
	if err := s.rhsAug(k4, t+ckC4*h, yt, p); err != nil {
		return err
	}
	for i := range yt {
		yt[i] = x[i] + h*(ckA51*k1[i]+ckA52*k2[i]+ckA53*k3[i]+ckA54*k4[i])
	}
	if err := s.rhsAug(k5, t+h, yt, p); err != nil {
		return err
	}
	for i := range yt {
		yt[i] = x[i] + h*(ckA61*k1[i]+ckA62*k2[i]+ckA63*k3[i]+ckA64*k4[i]+ckA65*k5[i])
	}
	if err := s.rhsAug(k6, t+ckC6*h, yt, p); err != nil {
		return err
	}
	ynew, e := s.y[:nz], s.acor[:nz]
	for i := range ynew {
		ynew[i] = x[i] + h*(ckB1*k1[i]+ckB3*k3[i]+ckB4*k4[i]+ckB6*k6[i])
		e[i] = h * (ckE1*k1[i] + ckE3*k3[i] + ckE4*k4[i] + ckE5*k5[i] + ckE6*k6[i])
	}
	return nil
}

// cashKarp integrates with the Cash-Karp 4(5) pair and DOPRI5's step-size
// control (the same PI controller, weights and initial step: both pairs
// are of order 5 with a fourth-order estimate). The method is not
// first-same-as-last: f at the accepted point is evaluated once, recorded
// in the trajectory and used as the next step's first stage, so a step
// costs six evaluations as in Cash and Karp's paper. The pair has no
// continuous extension of its own; its dense output is DOPRI5's form, the
// cubic Hermite interpolant through both ends' x and f plus a quartic
// term theta^2 (1-theta)^2 r, with r chosen so that the polynomial takes
// at the step's midpoint the value of the quintic Hermite interpolant
// through the previous, the first and the last point of the step (x and
// f at each; ckMidpoint). The quartic then interpolates to O(h^5), fourth
// order as DOPRI5's (the cubic alone is third order: on Linear at rtol
// 1e-8 it left 5e-7 in x between the grid points). The first step has no
// previous point and keeps the cubic. The same is done for S (S' = Jx S +
// Jp) at outputs stepped over with Interpolate.
func (s *Solver) cashKarp(tr *Trajectory, dstS, p []float64, t0 float64, tout []float64, iout int) error {
	nz := s.nz
	tfinal := tout[len(tout)-1]
	tstop := tout[iout]
	if s.set.Interpolate {
		tstop = tfinal
	}
	t := t0
	hmax := math.Inf(1)
	if s.set.HMax > 0 {
		hmax = s.set.HMax
	}
	h := s.set.H0
	if h == 0 {
		var err error
		if h, err = s.hinitDP(p, t0, tfinal, hmax); err != nil {
			return err
		}
	}
	facold := 1e-4
	reject := false
	s.ckPrevT = math.NaN()
	for {
		if s.stats.Steps >= s.set.MaxSteps {
			return s.fail(ErrTooManySteps, t, h, -1, "")
		}
		if t+h == t || 0.1*math.Abs(h) <= math.Abs(t)*uround {
			return s.fail(ErrStepUnderflow, t, h, -1, "")
		}
		last := false
		if t+1.01*h >= tstop {
			h = tstop - t
			last = true
		}
		s.h = h
		if err := s.ckStages(p, t, h); err != nil {
			return err
		}
		s.setExplicitWeights(s.zn[0][:nz], s.y[:nz])
		err := s.errNorm(s.acor[:nz])
		if err != err || math.IsInf(err, 0) {
			if i := firstNonFinite(s.y[:s.nx]); i >= 0 && math.Abs(h) < 1e-12*math.Max(1, math.Abs(t)) {
				return s.fail(ErrNonFinite, t, h, i, "stage values")
			}
			s.stats.Rejected++
			h *= 0.1
			reject = true
			continue
		}
		fac11 := math.Pow(err, dpExpo1)
		fac := math.Max(dpFacc2, math.Min(dpFacc1, fac11/math.Pow(facold, dpBeta)/dpSafe))
		hnew := h / fac
		if err > 1 {
			s.stats.Rejected++
			s.stats.ErrFails++
			h /= math.Min(dpFacc1, fac11/dpSafe)
			reject = true
			continue
		}
		facold = math.Max(err, 1e-4)
		told := t
		t += h
		if last {
			t = tstop
		}
		done, err2 := s.ckAccept(tr, dstS, p, told, t, tout, &iout, &tstop)
		if err2 != nil || done {
			return err2
		}
		hnew = math.Min(hnew, hmax)
		if reject {
			hnew = math.Min(hnew, h)
		}
		reject = false
		h = hnew
	}
}

// ckAccept takes the step from told to t: the new point and its f become
// zn[0], zn[1] (the old ones kept in s.tmp's partner buffers for the
// interpolation of S), the grid point and the outputs in (told, t] are
// recorded. It reports whether the integration is done.
func (s *Solver) ckAccept(tr *Trajectory, dstS, p []float64, told, t float64, tout []float64, iout *int, tstop *float64) (bool, error) {
	nx, nz := s.nx, s.nz
	s.stats.Steps++
	// zn[0], zn[1] = the new x and f; y and k[0] keep the old ones.
	s.zn[0], s.y = s.y, s.zn[0]
	s.zn[1], s.k[0] = s.k[0], s.zn[1]
	x, f := s.zn[0][:nz], s.zn[1][:nz]
	if i := firstNonFinite(x[:nx]); i >= 0 {
		return false, s.fail(ErrNonFinite, t, s.h, i, "state")
	}
	if err := s.rhsAug(f, t, x, p); err != nil {
		return false, err
	}
	if i := firstNonFinite(f[:nx]); i >= 0 {
		return false, s.fail(ErrNonFinite, t, s.h, i, "f")
	}
	// r of the quartic term (s.tmp), from the previous point (fsave,
	// ftemp) when there is one; then the old point becomes the previous.
	xo, fo := s.y[:nz], s.k[0][:nz]
	r := s.tmp[:nz]
	s.ckMidpoint(r, told, t, xo, fo, x, f)
	tr.appendQuartic(t, x[:nx], f[:nx], r[:nx])
	if s.set.Interpolate {
		for *iout < len(tout) && tout[*iout] <= t {
			if s.sens {
				blk := nx * s.nsp
				d := dstS[*iout*blk : (*iout+1)*blk]
				hermiteTo(d, tout[*iout], told, t, xo[nx:], x[nx:nz], fo[nx:], f[nx:nz])
				th := (tout[*iout] - told) / (t - told)
				c := th * th * (1 - th) * (1 - th)
				for i, v := range r[nx:] {
					d[i] += c * v
				}
			}
			*iout++
		}
	} else {
		for *iout < len(tout) && tout[*iout] <= t {
			s.output(tr, dstS, *iout, x)
			*iout++
		}
		if *iout < len(tout) {
			*tstop = tout[*iout]
		}
	}
	s.ckPrevT = told
	copy(s.fsave[:nz], xo)
	copy(s.ftemp[:nz], fo)
	return *iout == len(tout) || s.stop != nil && s.stop(tr), nil
}

// ckMidpoint writes into r the coefficient of theta^2 (1-theta)^2 that
// makes the cubic Hermite interpolant of the step (t0, x0, f0) to
// (t1, x1, f1) take at its midpoint the value of the quintic Hermite
// interpolant through those two points and the previous one (s.ckPrevT,
// with x and f in s.fsave and s.ftemp): r = 16 (quintic - cubic) at
// theta = 1/2. Without a previous point (the first step) r is 0.
func (s *Solver) ckMidpoint(r []float64, t0, t1 float64, x0, f0, x1, f1 []float64) {
	tm := s.ckPrevT
	if tm != tm {
		clear(r)
		return
	}
	xm, fm := s.fsave[:len(r)], s.ftemp[:len(r)]
	tc := 0.5 * (t0 + t1)
	h := t1 - t0
	hm := t0 - tm
	// Newton form on the nodes tm, tm, t0, t0, t1, t1 (divided
	// differences with repeated nodes), evaluated at tc.
	w1, w2 := tc-tm, tc-t0
	p1, p2, p3, p4, p5 := w1, w1*w1, w1*w1*w2, w1*w1*w2*w2, w1*w1*w2*w2*(tc-t1)
	for i := range r {
		// First divided differences.
		a0, a1, a2, a3, a4 := fm[i], (x0[i]-xm[i])/hm, f0[i], (x1[i]-x0[i])/h, f1[i]
		// Second: nodes (tm,tm,t0), (tm,t0,t0), (t0,t0,t1), (t0,t1,t1).
		b0, b1, b2, b3 := (a1-a0)/hm, (a2-a1)/hm, (a3-a2)/h, (a4-a3)/h
		// Third: spans t0-tm, t1-tm, t1-t0, t1-t0... as z[i+3]-z[i].
		c0, c1, c2 := (b1-b0)/hm, (b2-b1)/(t1-tm), (b3-b2)/h
		d0, d1 := (c1-c0)/(t1-tm), (c2-c1)/(t1-tm)
		e0 := (d1 - d0) / (t1 - tm)
		q := xm[i] + a0*p1 + b0*p2 + c0*p3 + d0*p4 + e0*p5
		cub := 0.5*(x0[i]+x1[i]) + h/8*(f0[i]-f1[i])
		r[i] = 16 * (q - cub)
	}
}

// setExplicitWeights sets the error weights of an explicit step from x
// to xnew as dopri5.f does, 1/(atol + rtol max(|x|, |xnew|)), for the
// state and, with ErrCon, for S (with the atol of its state).
func (s *Solver) setExplicitWeights(x, xnew []float64) {
	nx := s.nx
	for i := 0; i < nx; i++ {
		s.ewt[i] = 1 / (s.atol[i] + s.rtol*math.Max(math.Abs(x[i]), math.Abs(xnew[i])))
	}
	if s.errcon {
		m := s.nsp
		for i := 0; i < nx; i++ {
			for c := 0; c < m; c++ {
				j := nx + i*m + c
				s.ewt[j] = 1 / (s.atol[i] + s.rtol*math.Max(math.Abs(x[j]), math.Abs(xnew[j])))
			}
		}
	}
}
