package mcmc

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// TestLinalg checks the small kernels against gonum on a seeded SPD
// matrix: the factor, the solves, the inverse and the log-determinant.
func TestLinalg(t *testing.T) {
	_, a := rand5()
	const n = 5
	l := make([]float64, n*n)
	for i := range l {
		l[i] = math.NaN() // every entry must be written
	}
	if !cholTo(l, a, n) {
		t.Fatal("SPD matrix reported not positive definite")
	}
	var ref mat.Cholesky
	if !ref.Factorize(mat.NewSymDense(n, append([]float64(nil), a...))) {
		t.Fatal("gonum: not SPD")
	}
	var rl mat.TriDense
	ref.LTo(&rl)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if !scalar.EqualWithinAbsOrRel(l[i*n+j], rl.At(i, j), 1e-12, 1e-12) {
				t.Errorf("L[%d,%d] = %v, gonum %v", i, j, l[i*n+j], rl.At(i, j))
			}
		}
	}
	inv := make([]float64, n*n)
	invertSPDTo(inv, l, make([]float64, n), n)
	var prod mat.Dense
	prod.Mul(mat.NewDense(n, n, inv), mat.NewDense(n, n, a))
	if !mat.EqualApprox(&prod, eye(n), 1e-10) {
		t.Errorf("inverse × A =\n%v", mat.Formatted(&prod))
	}
	ld, ok := factorSPD(make([]float64, n*n), make([]float64, n*n), a, n)
	if !ok || !scalar.EqualWithinAbsOrRel(ld, ref.LogDet(), 1e-12, 1e-12) {
		t.Errorf("log det %v (ok %v), gonum %v", ld, ok, ref.LogDet())
	}
	// A solve and a product are inverse to each other.
	x := []float64{1, -2, 3, 0.5, -1}
	b := make([]float64, n)
	mulLowerTo(b, l, x, n)
	solveLower(l, b, n)
	for i := range x {
		if !scalar.EqualWithinAbsOrRel(b[i], x[i], 1e-12, 1e-12) {
			t.Errorf("L⁻¹Lx[%d] = %v, want %v", i, b[i], x[i])
		}
	}
	// |Lᵀx|² = xᵀAx.
	var ax mat.VecDense
	ax.MulVec(mat.NewDense(n, n, a), mat.NewVecDense(n, x))
	if q := normLowerT(l, x, n); !scalar.EqualWithinAbsOrRel(q, mat.Dot(&ax, mat.NewVecDense(n, x)), 1e-12, 1e-12) {
		t.Errorf("|Lᵀx|² = %v, xᵀAx = %v", q, mat.Dot(&ax, mat.NewVecDense(n, x)))
	}
}

func eye(n int) *mat.Dense {
	d := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		d.Set(i, i, 1)
	}
	return d
}

func TestFactorSPDRegularises(t *testing.T) {
	singular := []float64{1, 1, 1, 1}
	if cholTo(make([]float64, 4), singular, 2) {
		t.Error("singular matrix factorised without a ridge")
	}
	ld, ok := factorSPD(make([]float64, 4), make([]float64, 4), singular, 2)
	if !ok || math.IsNaN(ld) || math.IsInf(ld, 0) {
		t.Errorf("singular metric: ok %v, log det %v", ok, ld)
	}
	if _, ok := factorSPD(make([]float64, 4), make([]float64, 4), []float64{math.NaN(), 0, 0, 1}, 2); ok {
		t.Error("NaN metric factorised")
	}
	if _, ok := factorSPD(make([]float64, 4), make([]float64, 4), []float64{-1, 0, 0, -1}, 2); ok {
		t.Error("negative definite metric factorised (a ridge of the mean diagonal cannot fix it)")
	}
}
