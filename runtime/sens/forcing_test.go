package sens

import (
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/model"
	"gonum.org/v1/gonum/floats/scalar"
)

// TestForcingKernel compares addForcing (the column-wise dense.ForceCols
// and dense.AddTrans4 path with AVX2, plus the edges added here) with the row-wise addForcingGo with random matrices
// and values on the Jp patterns of CaMKII (nx 21: a row pass of 16 plain
// and a masked rest), PKA (nx 11: masked only) and a random linear system
// of dimension 40 (a full pass of 32, then a masked one).
func TestForcingKernel(t *testing.T) {
	for _, m := range []model.Model{camkii.New(), pka.New(), testmodels.NewRandomLinear(40, 1)} {
		s := NewSolver(m, nil)
		en := s.en
		nx, ns := en.nx, en.ns
		rng := rand.New(rand.NewPCG(1, 1))
		sl := &en.endpoint.slots[0]
		for i := range sl.wt {
			sl.wt[i], sl.ph[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		for i := 0; i < nx; i++ {
			for j := 0; j < nx; j++ {
				sl.wpT[j*nx+i] = sl.wt[i*nx+j]
				sl.wpT[(nx+j)*nx+i] = sl.ph[i*nx+j]
			}
		}
		va, vb := make([]float64, len(en.jac.from)), make([]float64, len(en.jac.from))
		for i := range va {
			va[i], vb[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		got, want := make([]float64, nx*ns), make([]float64, nx*ns)
		for i := range got {
			got[i] = rng.NormFloat64()
			want[i] = got[i]
		}
		t.Logf("nx %d, ns %d, %d Jp entries", nx, ns, len(va))
		en.addForcing(got, sl, va, vb)
		en.addForcingGo(want, sl.wt, va, sl.ph, vb)
		for i := range got {
			if !scalar.EqualWithinAbsOrRel(got[i], want[i], 1e-12, 1e-12) {
				t.Fatalf("nx %d entry %d: %v, want %v (AVX2 %v)", nx, i, got[i], want[i], dense.HasFMA)
			}
		}
	}
}
