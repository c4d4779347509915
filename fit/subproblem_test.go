package fit

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestTrustRegionKKT checks the exact subproblem solver against the
// optimality conditions of Moré and Sorensen: there is lambda >= 0 with
// (H + lambda I)s = -g, H + lambda I positive semi-definite, |s| <= delta
// and lambda (delta - |s|) = 0; the conditions are necessary and
// sufficient for a global minimiser. Random symmetric H, definite and
// indefinite, and hard cases (g orthogonal to the lowest eigenvector).
func TestTrustRegionKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var tr trSolver
	for trial := range 300 {
		k := 1 + trial%6
		q := randomOrthogonal(rng, k)
		l := make([]float64, k)
		for i := range l {
			l[i] = rng.NormFloat64() * 3
			if trial%3 == 0 {
				l[i] = math.Abs(l[i]) + 0.1
			}
		}
		h := make([]float64, k*k)
		for i := range k {
			for j := range k {
				for a := range k {
					h[i*k+j] += q.At(i, a) * l[a] * q.At(j, a)
				}
			}
		}
		g := make([]float64, k)
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		hard := trial%5 == 4 && k > 1
		if hard {
			// Remove g's component along the lowest eigenvector and make
			// that eigenvalue clearly the lowest and negative.
			amin := 0
			for a := range l {
				if l[a] < l[amin] {
					amin = a
				}
			}
			l[amin] = -10
			for i := range k {
				for j := range k {
					h[i*k+j] = 0
					for a := range k {
						h[i*k+j] += q.At(i, a) * l[a] * q.At(j, a)
					}
				}
			}
			c := 0.0
			for i := range k {
				c += q.At(i, amin) * g[i]
			}
			for i := range k {
				g[i] -= c * q.At(i, amin)
			}
		}
		delta := math.Exp(rng.NormFloat64())
		s := make([]float64, k)
		psi, ok := tr.solve(s, h, g, delta)
		if !ok {
			t.Fatalf("trial %d: solve failed", trial)
		}
		checkKKT(t, trial, h, g, s, delta, psi, hard)
	}
}

func checkKKT(t *testing.T, trial int, h, g, s []float64, delta, psi float64, hard bool) {
	t.Helper()
	k := len(g)
	ns := math.Sqrt(dot(s, s))
	if ns > delta*(1+1e-9) {
		t.Errorf("trial %d: |s| = %g > delta %g", trial, ns, delta)
	}
	// lambda from the residual: (H s + g) = -lambda s.
	r := make([]float64, k)
	for i := range k {
		r[i] = dot(h[i*k:(i+1)*k], s) + g[i]
	}
	lambda := 0.0
	if ns > 0 {
		lambda = -dot(r, s) / (ns * ns)
	}
	scale := 1 + math.Sqrt(dot(g, g)) + maxAbs(h)*ns
	for i := range k {
		if math.Abs(r[i]+lambda*s[i]) > 1e-8*scale {
			t.Errorf("trial %d (hard %v): (H + %g I)s + g has entry %d = %g", trial, hard, lambda, i, r[i]+lambda*s[i])
			return
		}
	}
	if lambda < -1e-8*scale {
		t.Errorf("trial %d: lambda %g < 0", trial, lambda)
	}
	if lambda > 1e-8*scale && math.Abs(ns-delta) > 1e-8*delta {
		t.Errorf("trial %d: lambda %g > 0 but |s| %g != delta %g", trial, lambda, ns, delta)
	}
	var eig mat.EigenSym
	hs := mat.NewSymDense(k, append([]float64(nil), h...))
	if !eig.Factorize(hs, false) {
		t.Fatal("eigen")
	}
	if lmin := eig.Values(nil)[0]; lmin+lambda < -1e-8*scale {
		t.Errorf("trial %d (hard %v): H + lambda I not semi-definite: lambda_min %g, lambda %g", trial, hard, lmin, lambda)
	}
	want := dot(g, s)
	for i := range k {
		want += 0.5 * s[i] * dot(h[i*k:(i+1)*k], s)
	}
	if math.Abs(psi-want) > 1e-10*scale {
		t.Errorf("trial %d: psi %g, model at s %g", trial, psi, want)
	}
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}

// randomOrthogonal returns a random k x k orthogonal matrix (QR of a
// Gaussian matrix).
func randomOrthogonal(rng *rand.Rand, k int) *mat.Dense {
	a := mat.NewDense(k, k, nil)
	for i := range k {
		for j := range k {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	return &q
}
