package expm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/runtime/sparse"
)

func TestStiffActionAgainstDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	type tc struct {
		name string
		a    *sparse.CSR
		norm float64 // ||tA||_1 wanted
	}
	var cases []tc
	for _, nrm := range []float64{10, 1e3, 1e4, 1e5} {
		cases = append(cases,
			tc{fmt.Sprintf("grid ||tA||=%g", nrm), networkCSR(scalenet.Grid, 150), nrm},
			tc{fmt.Sprintf("chain ||tA||=%g", nrm), networkCSR(scalenet.Chain, 150), nrm})
	}
	cases = append(cases, tc{"stiff random", stiffCSR(rng, 80, 3, 1, 1e4), 1e4})
	for _, c := range cases {
		n := c.a.Pat.Rows
		tt := c.norm / colSumMax(c.a, 0, make([]float64, n))
		for _, k := range []int{1, 20} {
			b, g0, g1 := randBlock(rng, n*k), randBlock(rng, n*k), randBlock(rng, n*k)
			s := NewStiffAction(c.a.Pat, k)
			for _, phi := range []bool{false, true} {
				got := make([]float64, n*k)
				var want []float64
				var err error
				if phi {
					err = s.PhiTo(got, c.a, tt, b, g0, g1)
					want = denseAction(c.a, tt, b, g0, g1, k)
				} else {
					err = s.PhiTo(got, c.a, tt, b, nil, nil)
					want = denseAction(c.a, tt, b, nil, nil, k)
				}
				if err != nil {
					t.Errorf("%s k=%d phi=%v: %v", c.name, k, phi, err)
					continue
				}
				e := actErr(got, want)
				t.Logf("%s k=%d phi=%v: %d steps, error %.2g", c.name, k, phi, s.Last.Steps, e)
				// The dense reference is good to about 5e-16 ||tA|| (the
				// Taylor action agrees with it to that level); the Krylov
				// approximation stops at a relative change of 1e-11, or
				// at its rounding floor, a few u ||tA||.
				if tol := math.Max(1e-11, 5e-15*c.norm); !(e <= tol) {
					t.Errorf("%s k=%d phi=%v: relative error %g (tol %g)", c.name, k, phi, e, tol)
				}
			}
		}
	}
}

func TestStiffActionZeroAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	a := networkCSR(scalenet.Grid, 200)
	n := a.Pat.Rows
	const k = 20
	s := NewStiffAction(a.Pat, k)
	b, g0 := randBlock(rng, n*k), randBlock(rng, n*k)
	dst := make([]float64, n*k)
	if err := s.PhiTo(dst, a, 50, b, g0, nil); err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(5, func() {
		if err := s.PhiTo(dst, a, 50, b, g0, nil); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("%g allocations per call, want 0", allocs)
	}
}
