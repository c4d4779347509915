package ode

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/internal/testode"
	"github.com/pbgen/pbgen/runtime/model"
)

// The unrolled prediction, and dense.Predict's kernel on long vectors
// (with the sensitivities' length), are the loops' bit for bit, at every
// order.
func TestPredictUnrolled(t *testing.T) {
	pr := testode.Hires()
	s := NewSolver(pr.Model, &Settings{})
	if s.nx >= predictKernelMin || len(s.zn[0]) < predictKernelMin {
		t.Fatalf("Hires has %d states and %d entries with sensitivities: the test needs one length on either side of %d", s.nx, len(s.zn[0]), predictKernelMin)
	}
	for _, nz := range []int{s.nx, len(s.zn[0])} {
		s.nz = nz
		predictUnrolled(t, s)
	}
}

func predictUnrolled(t *testing.T, s *Solver) {
	rng := rand.New(rand.NewPCG(1, 1))
	var want [lmax][]float64
	for q := 1; q <= qmax; q++ {
		s.q, s.h, s.tn, s.tstop = q, 0.1, 0, 1
		for j := 0; j <= q; j++ {
			for i := range s.zn[j][:s.nz] {
				s.zn[j][i] = rng.NormFloat64() * float64(1+10*j)
			}
			want[j] = append(want[j][:0], s.zn[j][:s.nz]...)
		}
		s.predict()
		got := s.zn
		s.zn = want
		s.predictLoops()
		for j := 0; j <= q; j++ {
			for i, v := range got[j][:s.nz] {
				if v != s.zn[j][i] {
					t.Fatalf("nz %d q %d: zn[%d][%d] = %v, loops %v", s.nz, q, j, i, v, s.zn[j][i])
				}
			}
		}
		s.zn = got
	}
}

// rootN is math.Pow(x, 1/n) bit for bit on the values the step-size
// selection passes it (norms: non-negative, possibly 0, +Inf or NaN).
func TestRootN(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	xs := []float64{0, 1, math.Inf(1), math.NaN(), math.SmallestNonzeroFloat64, math.MaxFloat64, 1e-300, 0.5, 2}
	for range 100000 {
		xs = append(xs, math.Exp(rng.Float64()*80-60))
	}
	for n := 1; n <= qmax+2; n++ {
		for _, x := range xs {
			got, want := rootN(x, n), math.Pow(x, 1/float64(n))
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("rootN(%v, %d) = %v, math.Pow %v", x, n, got, want)
			}
		}
	}
}

// keepH is where etaq = 1/((bias2 dsm)^(1/L) + addon) falls below thresh,
// with room to spare: just above it the computed etaq is below thresh.
func TestKeepH(t *testing.T) {
	for l := 2; l <= lmax; l++ {
		x := keepH[l]
		if eta := 1 / (rootN(x, l) + addon); !(eta < thresh) {
			t.Errorf("L %d: etaq %v at keepH, want < %v", l, eta, thresh)
		}
		if eta := 1 / (rootN(x*(1-1e-4), l) + addon); !(eta > thresh*(1-1e-4)) {
			t.Errorf("L %d: etaq %v just below keepH: the bound is not tight", l, eta)
		}
	}
}

// TestDkySensUnrolled: dkySens's unrolled Horner schemes give dkySensLoops's
// results to the bit at every order.
func TestDkySensUnrolled(t *testing.T) {
	pr := testode.Hires()
	s := NewSolver(pr.Model, &Settings{})
	s.nsp = model.NumParams(pr.Model)
	s.nz = s.nx * (1 + s.nsp)
	n := s.nx * s.nsp
	if n == 0 {
		t.Fatal("Hires has no parameters: no sensitivity block to interpolate")
	}
	rng := rand.New(rand.NewPCG(2, 2))
	got, want := make([]float64, n), make([]float64, n)
	for q := 1; q <= qmax; q++ {
		s.q, s.h, s.tn = q, 0.3, 2
		for j := 0; j <= q; j++ {
			for i := range s.zn[j][:s.nz] {
				s.zn[j][i] = rng.NormFloat64() * float64(1+10*j)
			}
		}
		for _, tt := range []float64{1.7, 1.9, 1.95} {
			s.dkySens(got, tt)
			s.dkySensLoops(want, (tt-s.tn)/s.h)
			for e := range got {
				if got[e] != want[e] {
					t.Fatalf("q %d t %g: entry %d %v, loops %v", q, tt, e, got[e], want[e])
				}
			}
		}
	}
}
