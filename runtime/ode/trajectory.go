package ode

import "sort"

// Trajectory is the accepted step grid of one integration: the times
// T[0] < T[1] < ... of every accepted step (the output times among them),
// the state X and its derivative F = f(t, x, p) at each grid point, so that
// x can be evaluated anywhere in [T[0], T[len-1]] by cubic Hermite
// interpolation (third-order dense output, independent of the integrator).
//
// Its slices are reused across integrations: Reset keeps capacity.
type Trajectory struct {
	NX  int
	T   []float64 // grid times
	X   []float64 // len(T)*NX, row k = x(T[k])
	F   []float64 // len(T)*NX, row k = f(T[k], x(T[k]), p)
	Out []int     // for each requested output time, its index in T (when outputs land on the grid)
}

// Reset empties the trajectory for n states, keeping its storage.
func (tr *Trajectory) Reset(nx int) {
	tr.NX = nx
	tr.T = tr.T[:0]
	tr.X = tr.X[:0]
	tr.F = tr.F[:0]
	tr.Out = tr.Out[:0]
}

// Append adds a grid point (t, x, f); x and f are copied.
func (tr *Trajectory) Append(t float64, x, f []float64) {
	tr.T = append(tr.T, t)
	tr.X = append(tr.X, x...)
	tr.F = append(tr.F, f...)
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

// InterpTo writes x(t) into dst by cubic Hermite interpolation on the grid
// interval containing t. It allocates nothing.
func (tr *Trajectory) InterpTo(dst []float64, t float64) {
	if len(tr.T) == 1 {
		copy(dst, tr.XAt(0))
		return
	}
	k := tr.Step(t)
	HermiteTo(dst, t, tr.T[k], tr.T[k+1], tr.XAt(k), tr.XAt(k+1), tr.FAt(k), tr.FAt(k+1))
}

// HermiteTo writes the cubic Hermite interpolant through (ta, xa, fa) and
// (tb, xb, fb) evaluated at t into dst.
func HermiteTo(dst []float64, t, ta, tb float64, xa, xb, fa, fb []float64) {
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
