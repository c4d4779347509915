package expm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// The exponential step of the Peano-Baker methods needs
// S(t+h) = e^{hA} S + h phi1(hA) Jp for an nx x ns block (ns = 20 here).
// BenchmarkStepAction does it with PhiTo on the sparse Jx;
// BenchmarkStepDense with the dense pair ExpIntTo and two products, as
// runtime/sens does today. Both on the grid network's Jx, at h with
// ||hJx||_1 = 10 (a moderate step) and 1000 (a stiff one).

var actionSizes = []int{50, 200, 500, 1000}

const actionCols = 20

func benchStep(b *testing.B, fn func(b *testing.B, a *sparse.CSR, h float64, s, g []float64)) {
	benchStepAt(b, []float64{10, 1000}, fn)
}

// benchStepAt is benchStep at the given norms ||hJx||_1.
func benchStepAt(b *testing.B, targets []float64, fn func(b *testing.B, a *sparse.CSR, h float64, s, g []float64)) {
	for _, n := range actionSizes {
		a := networkCSR(scalenet.Grid, n)
		nx := a.Pat.Rows
		nrm := colSumMax(a, 0, make([]float64, nx))
		rng := rand.New(rand.NewPCG(1, 1))
		s, g := randBlock(rng, nx*actionCols), randBlock(rng, nx*actionCols)
		for _, target := range targets {
			b.Run(fmt.Sprintf("n=%d/norm=%g", nx, target), func(b *testing.B) {
				b.ReportAllocs()
				fn(b, a, target/nrm, s, g)
			})
		}
	}
}

var sinkBlock []float64

func BenchmarkStepAction(b *testing.B) {
	benchStepAt(b, []float64{10, 1000, 10000}, func(b *testing.B, a *sparse.CSR, h float64, s, g []float64) {
		nx := a.Pat.Rows
		w := NewAction(nx, actionCols)
		dst := make([]float64, nx*actionCols)
		for b.Loop() {
			w.PhiTo(dst, a, h, s, g, nil)
		}
		b.ReportMetric(float64(w.Last.Products), "products")
		sinkBlock = dst
	})
}

func BenchmarkStepDense(b *testing.B) {
	benchStep(b, func(b *testing.B, a *sparse.CSR, h float64, s, g []float64) {
		nx := a.Pat.Rows
		ad := make([]float64, nx*nx)
		e, wi := make([]float64, nx*nx), make([]float64, nx*nx)
		ws := NewWorkspace(nx)
		dst := make([]float64, nx*actionCols)
		for b.Loop() {
			a.Pat.ScatterTo(ad, a.Val)
			ws.ExpIntTo(e, wi, ad, h)
			dense.MulAdd(dst, e, s, nx, nx, actionCols, 1, 0)
			dense.MulAdd(dst, wi, g, nx, nx, actionCols, 1, 1)
		}
		sinkBlock = dst
	})
}

// BenchmarkStepDenseReuse is the dense step when E and W are reused from
// an earlier step (runtime/sens reuses them while Jx moves little): only
// the two products E S + W Jp. The action has no such reuse.
func BenchmarkStepDenseReuse(b *testing.B) {
	benchStep(b, func(b *testing.B, a *sparse.CSR, h float64, s, g []float64) {
		nx := a.Pat.Rows
		ad := make([]float64, nx*nx)
		e, wi := make([]float64, nx*nx), make([]float64, nx*nx)
		a.Pat.ScatterTo(ad, a.Val)
		NewWorkspace(nx).ExpIntTo(e, wi, ad, h)
		dst := make([]float64, nx*actionCols)
		for b.Loop() {
			dense.MulAdd(dst, e, s, nx, nx, actionCols, 1, 0)
			dense.MulAdd(dst, wi, g, nx, nx, actionCols, 1, 1)
		}
		sinkBlock = dst
	})
}

// BenchmarkStepStiff is the step by shift-and-invert Krylov (StiffAction),
// including the refactorisation of I - gamma Jx that each new h needs.
func BenchmarkStepStiff(b *testing.B) {
	benchStepAt(b, []float64{10, 1000, 10000}, func(b *testing.B, a *sparse.CSR, h float64, s, g []float64) {
		nx := a.Pat.Rows
		w := NewStiffAction(a.Pat, actionCols)
		dst := make([]float64, nx*actionCols)
		for b.Loop() {
			if err := w.PhiTo(dst, a, h, s, g, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(w.Last.Steps), "solves")
		sinkBlock = dst
	})
}
