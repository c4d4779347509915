package expm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/internal/scalenet"
)

// BenchmarkStepCrossover times the Taylor action (Action) and
// shift-and-invert Krylov (StiffAction) on the end-point step's form,
// e^{hA} S + h phi1 G0 + h^2 phi2 G1 with 20 columns, on scalenet chains
// at ||hA||_1 from 3 to 1000: the crossover that runtime/sens's
// stiffActionNorm is set from.
func BenchmarkStepCrossover(b *testing.B) {
	for _, n := range []int{198, 999} {
		a := networkCSR(scalenet.Chain, n)
		nx := a.Pat.Rows
		nrm := colSumMax(a, 0, make([]float64, nx))
		rng := rand.New(rand.NewPCG(1, 1))
		s, g := randBlock(rng, nx*actionCols), randBlock(rng, nx*actionCols)
		for _, target := range []float64{3, 30, 100, 300, 1000} {
			h := target / nrm
			b.Run(fmt.Sprintf("taylor/n=%d/norm=%g", nx, target), func(b *testing.B) {
				w := NewAction(nx, actionCols)
				dst := make([]float64, nx*actionCols)
				for b.Loop() {
					w.PhiTo(dst, a, h, s, g, g)
				}
				b.ReportMetric(float64(w.Last.Products), "products")
			})
			b.Run(fmt.Sprintf("stiff/n=%d/norm=%g", nx, target), func(b *testing.B) {
				w := NewStiffAction(a.Pat, actionCols)
				dst := make([]float64, nx*actionCols)
				for b.Loop() {
					if err := w.PhiTo(dst, a, h, s, g, g); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(w.Last.Steps), "solves")
			})
		}
	}
}
