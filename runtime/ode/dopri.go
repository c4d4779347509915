package ode

import "math"

// Dormand-Prince 5(4) coefficients (Hairer, Norsett, Wanner, dopri5.f).
const (
	dpC2  = 1.0 / 5
	dpC3  = 3.0 / 10
	dpC4  = 4.0 / 5
	dpC5  = 8.0 / 9
	dpA21 = 1.0 / 5
	dpA31 = 3.0 / 40
	dpA32 = 9.0 / 40
	dpA41 = 44.0 / 45
	dpA42 = -56.0 / 15
	dpA43 = 32.0 / 9
	dpA51 = 19372.0 / 6561
	dpA52 = -25360.0 / 2187
	dpA53 = 64448.0 / 6561
	dpA54 = -212.0 / 729
	dpA61 = 9017.0 / 3168
	dpA62 = -355.0 / 33
	dpA63 = 46732.0 / 5247
	dpA64 = 49.0 / 176
	dpA65 = -5103.0 / 18656
	dpA71 = 35.0 / 384
	dpA73 = 500.0 / 1113
	dpA74 = 125.0 / 192
	dpA75 = -2187.0 / 6784
	dpA76 = 11.0 / 84
	dpE1  = 71.0 / 57600
	dpE3  = -71.0 / 16695
	dpE4  = 71.0 / 1920
	dpE5  = -17253.0 / 339200
	dpE6  = 22.0 / 525
	dpE7  = -1.0 / 40
)

// Coefficients of the dense output of Dormand and Prince (Hairer, Norsett,
// Wanner, Solving ODEs I, II.6): the quartic term theta^2 (1-theta)^2 r5
// with r5 = h sum_i d_i k_i added to the cubic Hermite interpolant makes the
// interpolant fourth order.
const (
	dpD1 = -12715105075.0 / 11282082432
	dpD3 = 87487479700.0 / 32700410799
	dpD4 = -10690763975.0 / 1880347072
	dpD5 = 701980252875.0 / 199316789632
	dpD6 = -1453857185.0 / 822651844
	dpD7 = 69997945.0 / 29380423
)

// PI step control constants of dopri5.f.
const (
	dpBeta  = 0.04
	dpExpo1 = 0.2 - dpBeta*0.75
	dpFacc1 = 1 / 0.2 // the step may shrink at most by 5
	dpFacc2 = 1 / 10.0
	dpSafe  = 0.9
)

// rhsAug writes the augmented derivative [f(t, x), Jx S + Jp] of z = [x, S].
func (s *Solver) rhsAug(dst []float64, t float64, z, p []float64) error {
	nx := s.nx
	s.m.F(dst[:nx], t, z[:nx], p)
	s.stats.FEvals++
	if s.sens {
		return s.sensRHS(dst[nx:s.nz], t, z[:nx], z[nx:s.nz], p)
	}
	return nil
}

// dopri integrates with DOPRI5 (first-same-as-last: the last stage of a
// step is f at the new point, recorded in the trajectory and reused as the
// first stage of the next step).
func (s *Solver) dopri(tr *Trajectory, dstS, p []float64, t0 float64, tout []float64, iout int) error {
	nx, nz := s.nx, s.nz
	interp := s.set.Interpolate
	tfinal := tout[len(tout)-1]
	tstop := tout[iout]
	if interp {
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
		h, err = s.hinitDP(p, t0, tfinal, hmax)
		if err != nil {
			return err
		}
	}
	facold := 1e-4
	reject := false
	for {
		x, k1 := s.zn[0][:nz], s.zn[1][:nz]
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
		s.h = h // for the messages of errors raised inside the stages
		k2, k3, k4, k5, k6, k7 := s.k[1][:nz], s.k[2][:nz], s.k[3][:nz], s.k[4][:nz], s.k[5][:nz], s.k[6][:nz]
		yt, ynew := s.tmp[:nz], s.y[:nz]
		for i := range yt {
			yt[i] = x[i] + h*dpA21*k1[i]
		}
		if err := s.rhsAug(k2, t+dpC2*h, yt, p); err != nil {
			return err
		}
		for i := range yt {
			yt[i] = x[i] + h*(dpA31*k1[i]+dpA32*k2[i])
		}
		if err := s.rhsAug(k3, t+dpC3*h, yt, p); err != nil {
			return err
		}
		for i := range yt {
			yt[i] = x[i] + h*(dpA41*k1[i]+dpA42*k2[i]+dpA43*k3[i])
		}
		if err := s.rhsAug(k4, t+dpC4*h, yt, p); err != nil {
			return err
		}
		for i := range yt {
			yt[i] = x[i] + h*(dpA51*k1[i]+dpA52*k2[i]+dpA53*k3[i]+dpA54*k4[i])
		}
		if err := s.rhsAug(k5, t+dpC5*h, yt, p); err != nil {
			return err
		}
		for i := range yt {
			yt[i] = x[i] + h*(dpA61*k1[i]+dpA62*k2[i]+dpA63*k3[i]+dpA64*k4[i]+dpA65*k5[i])
		}
		tph := t + h
		if last {
			tph = tstop
		}
		if err := s.rhsAug(k6, tph, yt, p); err != nil {
			return err
		}
		for i := range ynew {
			ynew[i] = x[i] + h*(dpA71*k1[i]+dpA73*k3[i]+dpA74*k4[i]+dpA75*k5[i]+dpA76*k6[i])
		}
		if err := s.rhsAug(k7, tph, ynew, p); err != nil {
			return err
		}
		// Error estimate, weighted as in dopri5.f: sk = atol + rtol*max(|x|, |xnew|).
		e := s.acor[:nz]
		for i := range e {
			e[i] = h * (dpE1*k1[i] + dpE3*k3[i] + dpE4*k4[i] + dpE5*k5[i] + dpE6*k6[i] + dpE7*k7[i])
		}
		for i := 0; i < nx; i++ {
			s.ewt[i] = 1 / (s.atol[i] + s.rtol*math.Max(math.Abs(x[i]), math.Abs(ynew[i])))
		}
		if s.errcon {
			m := s.nsp
			for i := 0; i < nx; i++ {
				for c := 0; c < m; c++ {
					j := nx + i*m + c
					s.ewt[j] = 1 / (s.atol[i]*s.atolS[c] + s.rtol*math.Max(math.Abs(x[j]), math.Abs(ynew[j])))
				}
			}
		}
		err := s.errNorm(e)
		if err != err || math.IsInf(err, 0) {
			// Non-finite stage values: treat as a large error and retry
			// with a much smaller step; report if that cannot help.
			if i := firstNonFinite(ynew[:nx]); i >= 0 && math.Abs(h) < 1e-12*math.Max(1, math.Abs(t)) {
				return s.fail(ErrNonFinite, t, h, i, "stage values")
			}
			s.stats.Rejected++
			h *= 0.1
			reject = true
			continue
		}
		fac11 := math.Pow(err, dpExpo1)
		fac := fac11 / math.Pow(facold, dpBeta)
		fac = math.Max(dpFacc2, math.Min(dpFacc1, fac/dpSafe))
		hnew := h / fac
		if err <= 1 {
			facold = math.Max(err, 1e-4)
			s.stats.Steps++
			told := t
			t = tph
			// The quartic coefficient of the continuous extension, from
			// the stages of this step (before the buffers are swapped).
			r5 := s.tmp[:nz]
			for i := range r5 {
				r5[i] = h * (dpD1*k1[i] + dpD3*k3[i] + dpD4*k4[i] + dpD5*k5[i] + dpD6*k6[i] + dpD7*k7[i])
			}
			// Accept: swap buffers so that zn[0] = new x, zn[1] = its f.
			s.zn[0], s.y = s.y, s.zn[0]
			s.zn[1], s.k[6] = s.k[6], s.zn[1]
			x, k1 = s.zn[0][:nz], s.zn[1][:nz]
			if i := firstNonFinite(x[:nx]); i >= 0 {
				return s.fail(ErrNonFinite, t, h, i, "state")
			}
			tr.appendQuartic(t, x[:nx], k1[:nx], r5[:nx])
			if interp {
				for iout < len(tout) && tout[iout] <= t {
					if s.sens {
						blk := nx * s.nsp
						// The continuous extension on S: cubic Hermite with
						// S' = Jx S + Jp at both ends plus the quartic term.
						xo, ko := s.y[nx:nz], s.k[6][nx:nz]
						d := dstS[iout*blk : (iout+1)*blk]
						hermiteTo(d, tout[iout], told, t, xo, x[nx:nz], ko, k1[nx:nz])
						th := (tout[iout] - told) / (t - told)
						c := th * th * (1 - th) * (1 - th)
						for i, v := range r5[nx:nz] {
							d[i] += c * v
						}
					}
					iout++
				}
			} else {
				for iout < len(tout) && tout[iout] <= t {
					s.output(tr, dstS, iout, x)
					iout++
				}
				if iout < len(tout) {
					tstop = tout[iout]
				}
			}
			if iout == len(tout) || s.stop != nil && s.stop(tr) {
				return nil
			}
			if math.Abs(hnew) > hmax {
				hnew = hmax
			}
			if reject {
				hnew = math.Min(hnew, h)
			}
			reject = false
			h = hnew
		} else {
			s.stats.Rejected++
			s.stats.ErrFails++
			h /= math.Min(dpFacc1, fac11/dpSafe)
			reject = true
		}
	}
}

// hinitDP is dopri5.f's initial step guess: a step for which an explicit
// Euler step's error is about the tolerance (order 5 scaling).
func (s *Solver) hinitDP(p []float64, t0, tend, hmax float64) (float64, error) {
	nx, nz := s.nx, s.nz
	x, f0 := s.zn[0][:nz], s.zn[1][:nz]
	var dnf, dny float64
	for i := 0; i < nx; i++ {
		sk := s.atol[i] + s.rtol*math.Abs(x[i])
		dnf += (f0[i] / sk) * (f0[i] / sk)
		dny += (x[i] / sk) * (x[i] / sk)
	}
	var h float64
	if dnf <= 1e-10 || dny <= 1e-10 {
		h = 1e-6
	} else {
		h = math.Sqrt(dny/dnf) * 0.01
	}
	h = math.Min(h, hmax)
	h = math.Min(h, tend-t0)
	y1, f1 := s.tmp[:nz], s.k[1][:nz]
	for i := range y1 {
		y1[i] = x[i] + h*f0[i]
	}
	if err := s.rhsAug(f1, t0+h, y1, p); err != nil {
		return 0, err
	}
	var der2 float64
	for i := 0; i < nx; i++ {
		sk := s.atol[i] + s.rtol*math.Abs(x[i])
		d := (f1[i] - f0[i]) / sk
		der2 += d * d
	}
	der2 = math.Sqrt(der2) / h
	der12 := math.Max(math.Abs(der2), math.Sqrt(dnf))
	var h1 float64
	if der12 <= 1e-15 || der12 != der12 {
		h1 = math.Max(1e-6, math.Abs(h)*1e-3)
	} else {
		h1 = math.Pow(0.01/der12, 1.0/5)
	}
	h = math.Min(math.Min(100*math.Abs(h), h1), hmax)
	return h, nil
}
