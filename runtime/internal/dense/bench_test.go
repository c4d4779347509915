package dense

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randomSystem(n int, rng *rand.Rand) []float64 {
	a := make([]float64, n*n)
	for i := range a {
		if rng.Float64() < 0.3 {
			a[i] = rng.NormFloat64()
		}
	}
	for i := 0; i < n; i++ {
		a[i*n+i] += 1
	}
	return a
}

// TestLU checks the in-place LU solves against gonum's mat.LU, with
// nrhs right-hand sides for SolveMulti (3: its rows are a tail only; 9:
// two unrolled blocks of four and a tail).
func TestLU(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 5, 21, 60} {
		for _, nrhs := range []int{3, 9} {
			a := randomSystem(n, rng)
			b := make([]float64, n*nrhs)
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			var lu mat.LU
			lu.Factorize(mat.NewDense(n, n, append([]float64(nil), a...)))
			want := mat.NewDense(n, nrhs, nil)
			if err := lu.SolveTo(want, false, mat.NewDense(n, nrhs, append([]float64(nil), b...))); err != nil {
				t.Fatal(err)
			}
			f := append([]float64(nil), a...)
			piv := make([]int, n)
			if !Factor(f, n, piv) {
				t.Fatalf("n=%d: singular", n)
			}
			multi := append([]float64(nil), b...)
			SolveMulti(f, n, piv, multi, nrhs)
			col := make([]float64, n)
			for c := 0; c < nrhs; c++ {
				for i := 0; i < n; i++ {
					col[i] = b[i*nrhs+c]
				}
				Solve(f, n, piv, col)
				for i := 0; i < n; i++ {
					w := want.At(i, c)
					if math.Abs(col[i]-w) > 1e-10*(1+math.Abs(w)) || math.Abs(multi[i*nrhs+c]-w) > 1e-10*(1+math.Abs(w)) {
						t.Errorf("n=%d x[%d,%d]: %v / %v, gonum %v", n, i, c, col[i], multi[i*nrhs+c], w)
					}
				}
			}
		}
	}
	if Factor([]float64{1, 2, 2, 4}, 2, make([]int, 2)) {
		t.Error("singular matrix factored")
	}
}

// The measurement behind the choice of the hand-written LU (factor + one
// solve, n = 21 with 30% fill as in a reaction network's iteration matrix).
func BenchmarkLUOwn21(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	n := 21
	a := randomSystem(n, rng)
	f := make([]float64, n*n)
	piv := make([]int, n)
	x := make([]float64, n)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		copy(f, a)
		Factor(f, n, piv)
		for j := range x {
			x[j] = 1
		}
		Solve(f, n, piv, x)
	}
}

func BenchmarkLUGonum21(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	n := 21
	a := mat.NewDense(n, n, randomSystem(n, rng))
	var lu mat.LU
	x := mat.NewVecDense(n, nil)
	rhs := mat.NewVecDense(n, nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		lu.Factorize(a)
		for j := 0; j < n; j++ {
			rhs.SetVec(j, 1)
		}
		_ = lu.SolveVecTo(x, false, rhs)
	}
}

// The measurement behind keeping two LU factorizations: Factor (zero
// multipliers skipped) and FactorFull (AVX2 rank-1 updates) on a 21 x 21
// iteration matrix with 30% fill and on a full one.
func BenchmarkFactorChoice21(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 21
	full := make([]float64, n*n)
	for i := range full {
		full[i] = rng.NormFloat64()
	}
	for _, m := range []struct {
		name string
		a    []float64
	}{{"sparse", randomSystem(n, rng)}, {"full", full}} {
		f, piv := make([]float64, n*n), make([]int, n)
		b.Run(m.name+"/Factor", func(b *testing.B) {
			for b.Loop() {
				copy(f, m.a)
				Factor(f, n, piv)
			}
		})
		b.Run(m.name+"/FactorFull", func(b *testing.B) {
			for b.Loop() {
				copy(f, m.a)
				FactorFull(f, piv, n)
			}
		})
	}
}
