package ode

import (
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/internal/testode"
)

// The unrolled prediction is the loops' bit for bit, at every order.
func TestPredictUnrolled(t *testing.T) {
	pr := testode.Hires()
	s := NewSolver(pr.Model, &Settings{})
	s.nz = s.nx
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
					t.Fatalf("q %d: zn[%d][%d] = %v, loops %v", q, j, i, v, s.zn[j][i])
				}
			}
		}
		s.zn = got
	}
}
