package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSingular(t *testing.T) {
	a := []float64{1, 2, 2, 4}
	piv := make([]int, 2)
	if Factor(a, 2, piv) {
		t.Error("singular matrix reported nonsingular")
	}
	b := []float64{1, 1}
	Solve(a, 2, piv, b)
	if !math.IsInf(b[1], 0) && !math.IsNaN(b[1]) {
		t.Errorf("solve with a zero pivot gave %v, want Inf or NaN", b)
	}
	nan := []float64{math.NaN(), 0, 0, 1}
	if Factor(nan, 2, piv) {
		t.Error("NaN matrix reported nonsingular")
	}
}

func TestNoAllocation(t *testing.T) {
	n, m := 21, 59
	a, b, piv := make([]float64, n*n), make([]float64, n*m), make([]int, n)
	if got := testing.AllocsPerRun(10, func() {
		for i := 0; i < n; i++ {
			a[i*n+i] = 2
		}
		Factor(a, n, piv)
		SolveMulti(a, n, piv, b, m)
	}); got != 0 {
		t.Errorf("%v allocations", got)
	}
}

var sink float64

func BenchmarkFactorSolveMulti21x59(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	n, m := 21, 59
	a0, b0 := make([]float64, n*n), make([]float64, n*m)
	for i := range a0 {
		a0[i] = r.NormFloat64()
	}
	for i := range b0 {
		b0[i] = r.NormFloat64()
	}
	a, x, piv := make([]float64, n*n), make([]float64, n*m), make([]int, n)
	b.ReportAllocs()
	for b.Loop() {
		copy(a, a0)
		copy(x, b0)
		Factor(a, n, piv)
		SolveMulti(a, n, piv, x, m)
	}
	sink = x[0]
}
