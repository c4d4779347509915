package ode

import "sort"

// Trajectory is the accepted step grid of one integration: the times
// T[0] < T[1] < ... of every accepted step (the output times among them),
// the state X and its derivative F = f(t, x, p) at each grid point, and the
// integrator's own dense output on every step, so that x can be evaluated
// anywhere in [T[0], T[len-1]] to the integrator's accuracy.
//
// The dense output is the method's own interpolant: for BDF the Nordsieck
// polynomial of the step (CVODE's CVodeGetDky), for DOPRI5 the fourth-order
// continuous extension of Dormand and Prince. A cubic Hermite interpolant
// through (x, f) at the two ends is not enough for stiff models: f at a
// computed state amplifies the state's error in stiff directions by
// ||Jx|| (f is the derivative of the exact solution only up to ||Jx|| times
// the state's error), and a long step at quasi-steady state then
// interpolates with slopes that are far off. On CaMKII with kf__CaM__Ca =
// 1e9 the Hermite interpolant was 2% off at t = 1 with the state integrated
// at rtol 1e-8. Points appended by Append alone (no dense output) fall back
// to the cubic Hermite interpolant.
//
// Its slices are reused across integrations: Reset keeps capacity.
type Trajectory struct {
	NX  int
	T   []float64 // grid times
	X   []float64 // len(T)*NX, row k = x(T[k])
	F   []float64 // len(T)*NX, row k = f(T[k], x(T[k]), p)
	Out []int     // for each requested output time, its index in T (when outputs land on the grid)

	// Dense output of the step (T[k-1], T[k]], stored at grid point k:
	// kind[k] = q >= 1, the Nordsieck columns z_1..z_q (each NX long) of
	// the BDF step of length dh[k] ending at T[k], so that x(t) = X[k] +
	// sum_j z_j r^j with r = (t - T[k])/dh[k]; kind[k] = kindQuartic, one
	// vector r5 of DOPRI5's continuous extension, x = Hermite(t) +
	// theta^2 (1-theta)^2 r5 with theta = (t - T[k-1])/(T[k] - T[k-1]);
	// kind[k] = 0, the cubic Hermite interpolant. The vectors start at
	// doff[k] in dz.
	kind []int8
	dh   []float64
	doff []int
	dz   []float64
}

// kindQuartic marks a step with DOPRI5's quartic dense output.
const kindQuartic = -1

// Reset empties the trajectory for n states, keeping its storage.
func (tr *Trajectory) Reset(nx int) {
	tr.NX = nx
	tr.T = tr.T[:0]
	tr.X = tr.X[:0]
	tr.F = tr.F[:0]
	tr.Out = tr.Out[:0]
	tr.kind = tr.kind[:0]
	tr.dh = tr.dh[:0]
	tr.doff = tr.doff[:0]
	tr.dz = tr.dz[:0]
}

// Append adds a grid point (t, x, f); x and f are copied. The step ending
// at it is interpolated by cubic Hermite.
func (tr *Trajectory) Append(t float64, x, f []float64) {
	tr.T = append(tr.T, t)
	tr.X = append(tr.X, x...)
	tr.F = append(tr.F, f...)
	tr.kind = append(tr.kind, 0)
	tr.dh = append(tr.dh, 0)
	tr.doff = append(tr.doff, len(tr.dz))
}

// appendNordsieck adds a BDF grid point with the Nordsieck columns
// zn[1..q] (their first NX entries) of the step h ending at it.
func (tr *Trajectory) appendNordsieck(t float64, x, f []float64, h float64, zn *[lmax][]float64, q int) {
	tr.Append(t, x, f)
	k := len(tr.T) - 1
	tr.kind[k], tr.dh[k] = int8(q), h
	for j := 1; j <= q; j++ {
		tr.dz = append(tr.dz, zn[j][:tr.NX]...)
	}
}

// appendQuartic adds a DOPRI5 grid point with the quartic coefficient r5
// of the step ending at it.
func (tr *Trajectory) appendQuartic(t float64, x, f, r5 []float64) {
	tr.Append(t, x, f)
	tr.kind[len(tr.T)-1] = kindQuartic
	tr.dz = append(tr.dz, r5...)
}

// Len is the number of grid points.
func (tr *Trajectory) Len() int { return len(tr.T) }

// XAt returns the stored state at grid point k (a view, do not modify).
func (tr *Trajectory) XAt(k int) []float64 { return tr.X[k*tr.NX : (k+1)*tr.NX] }

// FAt returns the stored derivative at grid point k (a view).
func (tr *Trajectory) FAt(k int) []float64 { return tr.F[k*tr.NX : (k+1)*tr.NX] }

// Step returns k such that T[k] <= t <= T[k+1] (clamped to the grid).
func (tr *Trajectory) Step(t float64) int {
	n := len(tr.T)
	k := sort.SearchFloat64s(tr.T, t) - 1
	if k < 0 {
		k = 0
	}
	if k > n-2 {
		k = n - 2
	}
	return k
}

// InterpTo writes x(t) into dst with the integrator's dense output on the
// grid interval containing t. It allocates nothing.
func (tr *Trajectory) InterpTo(dst []float64, t float64) {
	if len(tr.T) == 1 {
		copy(dst, tr.XAt(0))
		return
	}
	tr.InterpStep(dst, t, tr.Step(t))
}

// InterpStep writes x(t) into dst with the dense output of grid interval
// k, [T[k], T[k+1]] (t is not checked against it: outside, the step's
// polynomial is extrapolated).
func (tr *Trajectory) InterpStep(dst []float64, t float64, k int) {
	ta, tb := tr.T[k], tr.T[k+1]
	if t == tb {
		copy(dst, tr.XAt(k+1))
		return
	}
	if t == ta {
		copy(dst, tr.XAt(k))
		return
	}
	nx := tr.NX
	switch q := int(tr.kind[k+1]); {
	case q > 0:
		// Horner in r over X[k+1], z_1, ..., z_q.
		r := (t - tb) / tr.dh[k+1]
		z := tr.dz[tr.doff[k+1]:]
		z = z[:q*nx]
		xb := tr.XAt(k + 1)
		dst = dst[:nx]
		for i := range dst {
			v := z[(q-1)*nx+i]
			for j := q - 2; j >= 0; j-- {
				v = z[j*nx+i] + r*v
			}
			dst[i] = xb[i] + r*v
		}
	case q == kindQuartic:
		hermiteTo(dst, t, ta, tb, tr.XAt(k), tr.XAt(k+1), tr.FAt(k), tr.FAt(k+1))
		th := (t - ta) / (tb - ta)
		c := th * th * (1 - th) * (1 - th)
		r5 := tr.dz[tr.doff[k+1]:]
		r5 = r5[:nx]
		for i := range dst[:nx] {
			dst[i] += c * r5[i]
		}
	default:
		hermiteTo(dst, t, ta, tb, tr.XAt(k), tr.XAt(k+1), tr.FAt(k), tr.FAt(k+1))
	}
}

// hermiteTo writes the cubic Hermite interpolant through (ta, xa, fa) and
// (tb, xb, fb) evaluated at t into dst.
func hermiteTo(dst []float64, t, ta, tb float64, xa, xb, fa, fb []float64) {
	h := tb - ta
	s := (t - ta) / h
	s2, s3 := s*s, s*s*s
	h00 := 2*s3 - 3*s2 + 1
	h10 := s3 - 2*s2 + s
	h01 := -2*s3 + 3*s2
	h11 := s3 - s2
	for i := range dst {
		dst[i] = h00*xa[i] + h10*h*fa[i] + h01*xb[i] + h11*h*fb[i]
	}
}

// Bytes is the memory the trajectory's grid and dense output hold (their
// lengths, not capacities): about (q + 3) nx words per BDF step of order q.
// runtime/objective's adjoint reports it for its forward solves, which are
// its checkpoints.
func (tr *Trajectory) Bytes() int64 {
	words := len(tr.T) + len(tr.X) + len(tr.F) + len(tr.dh) + len(tr.doff) + len(tr.dz) + len(tr.Out)
	return 8*int64(words) + int64(len(tr.kind))
}
