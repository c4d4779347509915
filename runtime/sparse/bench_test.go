package sparse

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/model"
)

// newtonMatrix returns I - gamma Jx of a scalenet network at its initial
// state and default parameters, sharing the network's Jx pattern (whose
// diagonal is structurally present).
func newtonMatrix(tb testing.TB, shape scalenet.Shape, n int, gamma float64) *CSR {
	net := scalenet.New(shape, n)
	nx, np := model.NumStates(net), model.NumParams(net)
	x, p := make([]float64, nx), make([]float64, np)
	net.DefaultParams(p)
	net.InitialState(x, p)
	// Away from the initial state, where the complexes are zero.
	for i := range x {
		x[i] += 0.3
	}
	pat := net.JxPattern()
	a := New(pat)
	net.Jx(a.Val, 0, x, p)
	diag := 0
	for i := 0; i < nx; i++ {
		for q := pat.RowPtr[i]; q < pat.RowPtr[i+1]; q++ {
			a.Val[q] *= -gamma
			if pat.ColIdx[q] == i {
				a.Val[q]++
				diag++
			}
		}
	}
	if diag != nx {
		tb.Fatalf("Jx pattern lacks %d diagonal entries", nx-diag)
	}
	return a
}

func TestNewtonMatrices(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, shape := range []scalenet.Shape{scalenet.Chain, scalenet.Grid} {
		for _, n := range []int{50, 500, 2000} {
			a := newtonMatrix(t, shape, n, 0.5)
			nx := a.Pat.Rows
			f := NewLU(Analyze(a.Pat, OrderAMD))
			if err := f.Factor(a); err != nil {
				t.Fatal(err)
			}
			nat := NewLU(Analyze(a.Pat, OrderNatural))
			if err := nat.Factor(a); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s n=%d: nnz(A) %d, nnz(L+U) AMD %d, natural %d, off-diagonal pivots %d",
				shape, nx, a.Pat.NNZ(), f.NNZ(), nat.NNZ(), f.Stats.OffDiag)
			if f.NNZ() > nat.NNZ() {
				t.Errorf("%s n=%d: AMD fill %d above natural order's %d", shape, nx, f.NNZ(), nat.NNZ())
			}
			const k = 20
			b := randVec(rng, nx*k)
			x := make([]float64, len(b))
			f.SolveTo(x, b, k)
			if n <= 500 {
				if e := relDiff(x, denseSolve(t, a, b, k)); e > 1e-12 {
					t.Errorf("%s n=%d: differs from dense by %g", shape, nx, e)
				}
			}
			if e := relDiff(mulBlock(a, x, k), b); e > 1e-13 {
				t.Errorf("%s n=%d: residual %g", shape, nx, e)
			}
		}
	}
}

var benchSizes = []int{12, 24, 50, 100, 200, 500, 1000, 2000}

// benchLU runs fn for the grid network's Newton matrix at every size.
func benchLU(b *testing.B, fn func(b *testing.B, a *CSR)) {
	for _, n := range benchSizes {
		a := newtonMatrix(b, scalenet.Grid, n, 0.5)
		b.Run(fmt.Sprintf("n=%d", a.Pat.Rows), func(b *testing.B) {
			b.ReportAllocs()
			fn(b, a)
		})
	}
}

var sinkErr error

func BenchmarkAnalyze(b *testing.B) {
	benchLU(b, func(b *testing.B, a *CSR) {
		for b.Loop() {
			_ = Analyze(a.Pat, OrderAMD)
		}
	})
}

func BenchmarkFactor(b *testing.B) {
	benchLU(b, func(b *testing.B, a *CSR) {
		f := NewLU(Analyze(a.Pat, OrderAMD))
		for b.Loop() {
			sinkErr = f.Factor(a)
		}
	})
}

func BenchmarkRefactor(b *testing.B) {
	benchLU(b, func(b *testing.B, a *CSR) {
		f := NewLU(Analyze(a.Pat, OrderAMD))
		sinkErr = f.Factor(a)
		for b.Loop() {
			sinkErr = f.Refactor(a)
		}
	})
}

func BenchmarkSolve20(b *testing.B) {
	benchLU(b, func(b *testing.B, a *CSR) {
		const k = 20
		n := a.Pat.Rows
		f := NewLU(Analyze(a.Pat, OrderAMD))
		sinkErr = f.Factor(a)
		rhs := randVec(rand.New(rand.NewPCG(1, 1)), n*k)
		x := make([]float64, n*k)
		for b.Loop() {
			f.SolveTo(x, rhs, k)
		}
	})
}

// BenchmarkDenseFactor and BenchmarkDenseSolve20 are the dense LU of
// runtime/internal/dense that the BDF uses today, on the same matrices.
func BenchmarkDenseFactor(b *testing.B) {
	benchLU(b, func(b *testing.B, a *CSR) {
		n := a.Pat.Rows
		d0 := toDense(a)
		d := make([]float64, n*n)
		piv := make([]int, n)
		for b.Loop() {
			copy(d, d0)
			dense.Factor(d, n, piv)
		}
	})
}

func BenchmarkDenseSolve20(b *testing.B) {
	benchLU(b, func(b *testing.B, a *CSR) {
		const k = 20
		n := a.Pat.Rows
		d := toDense(a)
		piv := make([]int, n)
		dense.Factor(d, n, piv)
		rhs := randVec(rand.New(rand.NewPCG(1, 1)), n*k)
		x := make([]float64, n*k)
		for b.Loop() {
			copy(x, rhs)
			dense.SolveMulti(d, n, piv, x, k)
		}
	})
}

// BenchmarkMulShiftedBlock20 is the product of runtime/expm's Taylor
// action on runtime/sens's sparse steps: (Jx - mu I) X for X of 20
// columns, on a scalenet chain's Jx.
func BenchmarkMulShiftedBlock20(b *testing.B) {
	for _, n := range []int{198, 999} {
		a := newtonMatrix(b, scalenet.Chain, n, 1)
		nx := a.Pat.Rows
		rng := rand.New(rand.NewPCG(3, 4))
		x := make([]float64, nx*20)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		y := make([]float64, nx*20)
		b.Run(fmt.Sprintf("n=%d", nx), func(b *testing.B) {
			for b.Loop() {
				a.MulShiftedBlockTo(y, x, 20, 0.5)
			}
		})
	}
}
