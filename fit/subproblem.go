package fit

import "math"

// This file solves the trust-region subproblem
//
//	minimise  psi(s) = g's + s'Hs/2  subject to |s| <= delta
//
// exactly for a symmetric (possibly indefinite) H: the solution is
// s = -(H + lambda I)^+ g with lambda >= max(0, -lambda_min(H)) and
// lambda (|s| - delta) = 0 (Moré and Sorensen 1983). With H = V diag(l) V'
// and c = V'g, |s(lambda)|^2 = sum c_i^2 / (l_i + lambda)^2; lambda solves
// the secular equation 1/|s(lambda)| = 1/delta, which is nearly linear in
// lambda, by safeguarded Newton steps. The hard case (c orthogonal to the
// eigenspace of l_min and |s(-l_min)| < delta) adds a multiple of the
// eigenvector of l_min to reach the boundary.

// trSolver solves subproblems of dimension up to its capacity, reusing
// its eigendecomposition and vectors.
type trSolver struct {
	eig  symEig
	c, w []float64 // V'g, and coefficients of s in V's basis
}

// solve writes the minimiser into s (length k = len(g)) for H (k x k,
// row-major, symmetric; read only) and returns psi(s). It reports ok =
// false only if the eigendecomposition fails (non-finite H).
func (t *trSolver) solve(s, h, g []float64, delta float64) (psi float64, ok bool) {
	k := len(g)
	if !t.eig.factor(h, k) {
		return 0, false
	}
	l := t.eig.vals // ascending
	t.c = resize(t.c, k)
	t.w = resize(t.w, k)
	c, w := t.c, t.w
	for i := range k {
		sum := 0.0
		for j := range k {
			sum += t.eig.vec(j, i) * g[j]
		}
		c[i] = sum
	}
	norm := func(lambda float64) float64 {
		n2 := 0.0
		for i := range k {
			d := l[i] + lambda
			if d == 0 {
				if c[i] != 0 {
					return math.Inf(1)
				}
				continue
			}
			n2 += c[i] * c[i] / (d * d)
		}
		return math.Sqrt(n2)
	}
	lmin := l[0]
	gnorm := math.Sqrt(dot(g, g))
	scale := max(math.Abs(l[0]), math.Abs(l[k-1]), 1e-300)
	lambda := 0.0
	switch {
	case lmin > 0 && norm(0) <= delta:
		// Interior Newton step.
	default:
		lo := max(0, -lmin)
		// Hard case: no component of g along l_min's eigenspace.
		hard := lmin < 0
		for i := 0; i < k && l[i] <= lmin+1e-12*scale; i++ {
			if math.Abs(c[i]) > 1e-12*max(gnorm, 1e-300) {
				hard = false
			}
		}
		if hard {
			for i := range k {
				if l[i] <= lmin+1e-12*scale {
					c[i] = 0
				}
			}
			if n := norm(lo); n <= delta {
				for i := range k {
					w[i] = 0
					if d := l[i] + lo; c[i] != 0 {
						w[i] = -c[i] / d
					}
				}
				w[0] += math.Sqrt(max(0, delta*delta-n*n))
				return t.finish(s, l, c, w, g), true
			}
		}
		lambda = secular(l, c, delta, lo, gnorm/delta-lmin+1e-300, norm)
	}
	for i := range k {
		w[i] = 0
		if d := l[i] + lambda; c[i] != 0 && d != 0 {
			w[i] = -c[i] / d
		}
	}
	return t.finish(s, l, c, w, g), true
}

// finish forms s = V w and returns psi(s) = c'w + w'diag(l)w/2, c the
// original V'g (recomputed, since the hard case zeroes some).
func (t *trSolver) finish(s, l, c, w, g []float64) float64 {
	k := len(g)
	psi := 0.0
	for i := range k {
		ci := 0.0
		for j := range k {
			ci += t.eig.vec(j, i) * g[j]
		}
		psi += ci*w[i] + 0.5*l[i]*w[i]*w[i]
	}
	for j := range k {
		sum := 0.0
		for i := range k {
			sum += t.eig.vec(j, i) * w[i]
		}
		s[j] = sum
	}
	return psi
}

// secular returns lambda in [lo, hi] with |s(lambda)| = delta, by Newton's
// method on 1/|s| - 1/delta with bisection as the safeguard.
func secular(l, c []float64, delta, lo, hi float64, norm func(float64) float64) float64 {
	if norm(hi) > delta { // hi is an upper bound up to rounding; widen
		for range 60 {
			hi = 2*hi + 1e-300
			if norm(hi) <= delta {
				break
			}
		}
	}
	lambda := lo
	if math.IsInf(norm(lo), 1) {
		lambda = lo + 1e-12*max(hi-lo, 1e-300)
	}
	for range 100 {
		n := norm(lambda)
		if math.Abs(n-delta) <= 1e-12*delta {
			return lambda
		}
		if n > delta {
			lo = lambda
		} else {
			hi = lambda
		}
		// d|s|/dlambda = -sum c^2/(l+lambda)^3 / |s|.
		d3 := 0.0
		for i := range l {
			if d := l[i] + lambda; c[i] != 0 {
				d3 += c[i] * c[i] / (d * d * d)
			}
		}
		next := lambda + (n/delta-1)*n*n/d3 // Newton on 1/|s| - 1/delta
		if !(next > lo && next < hi) || math.IsNaN(next) {
			next = 0.5 * (lo + hi)
		}
		if next == lambda {
			return lambda
		}
		lambda = next
	}
	return lambda
}

func resize(v []float64, n int) []float64 {
	if cap(v) < n {
		return make([]float64, n)
	}
	return v[:n]
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
