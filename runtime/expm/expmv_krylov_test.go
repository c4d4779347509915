package expm

import (
	"github.com/pbgen/pbgen/runtime/internal/dense"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// TestKrylovDimension is a measurement, not a method: how many products
// with A a polynomial Krylov (Arnoldi) approximation e^{tA} b ~ beta V_m
// e^{t H_m} e_1 needs for a relative error of 1e-12 on the grid network's
// Jx, against the products the Taylor action takes at the same ||tA||.
// It backs the choice in the report: Taylor's count grows like ||tA||,
// Krylov's like its square root on these matrices, but each Krylov step
// also orthogonalises against all earlier vectors (m n flops) and needs a
// dense m x m exponential to test convergence, and a block of k columns
// needs k bases (or one of dimension m k).
func TestKrylovDimension(t *testing.T) {
	if testing.Short() {
		t.Skip("measurement")
	}
	a := networkCSR(scalenet.Grid, 300)
	n := a.Pat.Rows
	rng := rand.New(rand.NewPCG(7, 7))
	b := randBlock(rng, n)
	nrm := colSumMax(a, 0, make([]float64, n))
	for _, target := range []float64{10, 100, 1000, 10000} {
		tt := target / nrm
		want := denseAction(a, tt, b, nil, nil, 1)
		w := NewAction(n, 1)
		got := make([]float64, n)
		w.ExpTo(got, a, tt, b)
		taylor := w.Last.Products
		// The dense reference itself is only good to about 1e-12 at the
		// largest norm.
		tol := math.Max(1e-12, 10*actErr(got, want))
		m := arnoldiDim(a, tt, b, want, tol, 500)
		nnz := float64(a.Pat.NNZ())
		// Flops: a product is 2 nnz; modified Gram-Schmidt at step j is
		// 4 n j, 2 m^2 n in all.
		ft := float64(taylor) * 2 * nnz
		fa := float64(m)*2*nnz + 2*float64(m*m)*float64(n)
		t.Logf("||tA||_1 %6g: Taylor %5d products (error %.1e, %.2g flops), Arnoldi %4d products for %.0e (%.2g flops with orthogonalisation)",
			target, taylor, actErr(got, want), ft, m, tol, fa)
		if m < 0 {
			t.Errorf("Arnoldi did not reach %g within 500", tol)
		}
	}
}

// arnoldiDim returns the smallest m (checked every 5) at which the Arnoldi
// approximation reaches a relative error of tol against want, or -1.
func arnoldiDim(a *sparse.CSR, t float64, b, want []float64, tol float64, mmax int) int {
	n := a.Pat.Rows
	V := make([][]float64, 0, mmax+1)
	H := make([]float64, (mmax+1)*mmax) // H[i*mmax+j]
	beta := math.Sqrt(dot(b, b))
	v := make([]float64, n)
	for i := range v {
		v[i] = b[i] / beta
	}
	V = append(V, v)
	for j := 0; j < mmax; j++ {
		w := make([]float64, n)
		opVec(w, V[j], a, 1, 0, false)
		for i := 0; i <= j; i++ { // modified Gram-Schmidt
			h := dot(w, V[i])
			H[i*mmax+j] = h
			for r := range w {
				w[r] -= h * V[i][r]
			}
		}
		h := math.Sqrt(dot(w, w))
		H[(j+1)*mmax+j] = h
		m := j + 1
		if m%5 == 0 || h < 1e-14 {
			hm := make([]float64, m*m)
			for r := 0; r < m; r++ {
				for c := 0; c < m; c++ {
					hm[r*m+c] = t * H[r*mmax+c]
				}
			}
			e := make([]float64, m*m)
			NewWorkspace(m).ExpTo(e, hm)
			x := make([]float64, n)
			for c := 0; c < m; c++ {
				y := beta * e[c*m]
				for r := range x {
					x[r] += y * V[c][r]
				}
			}
			if actErr(x, want) <= tol {
				return m
			}
		}
		if h < 1e-14 {
			return -1
		}
		for r := range w {
			w[r] /= h
		}
		V = append(V, w)
	}
	return -1
}

func dot(x, y []float64) float64 {
	var s float64
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

// TestShiftInvertDimension measures the shift-and-invert (restricted
// denominator) Krylov method of J. van den Eshof and M. Hochbruck
// ("Preconditioning Lanczos approximations to the matrix exponential",
// SIAM J. Sci. Comput. 27(4), 2006): Arnoldi on Z = (I - gamma A)^{-1}
// with the sparse LU of runtime/sparse, e^{tA} b ~ beta V_m
// e^{(t/gamma)(I - H_m^{-1})} e_1. The number of LU solves it needs does
// not grow with ||tA||, which is what stiff exponential steps need; the
// test logs it next to the Taylor action's products.
func TestShiftInvertDimension(t *testing.T) {
	if testing.Short() {
		t.Skip("measurement")
	}
	a := networkCSR(scalenet.Grid, 300)
	n := a.Pat.Rows
	rng := rand.New(rand.NewPCG(8, 8))
	b := randBlock(rng, n)
	nrm := colSumMax(a, 0, make([]float64, n))
	shifted := sparse.NewShifted(a.Pat)
	m := sparse.New(shifted.Pat)
	lu := sparse.NewLU(sparse.Analyze(shifted.Pat, sparse.OrderAMD))
	for _, target := range []float64{10, 100, 1000, 10000} {
		tt := target / nrm
		want := denseAction(a, tt, b, nil, nil, 1)
		w := NewAction(n, 1)
		got := make([]float64, n)
		w.ExpTo(got, a, tt, b)
		tol := math.Max(1e-12, 10*actErr(got, want))
		for _, div := range []float64{5, 10, 20} {
			gamma := tt / div
			shifted.Fill(m, 1, -gamma, a.Val)
			if err := lu.Factor(m); err != nil {
				t.Fatal(err)
			}
			k := shiftInvertDim(lu, n, tt, gamma, b, want, tol, 80)
			t.Logf("||tA||_1 %6g gamma = t/%g: %3d LU solves for %.0e (Taylor: %d products)", target, div, k, tol, w.Last.Products)
			// The point of the method: a bounded number of solves at any
			// norm (at most 50 were needed when this was written).
			if k < 0 || k > 60 {
				t.Errorf("||tA||_1 %g gamma = t/%g: %d solves", target, div, k)
			}
		}
	}
}

// shiftInvertDim returns the smallest m at which the shift-and-invert
// approximation reaches tol against want, or -1.
func shiftInvertDim(lu *sparse.LU, n int, t, gamma float64, b, want []float64, tol float64, mmax int) int {
	V := make([][]float64, 0, mmax+1)
	H := make([]float64, (mmax+1)*mmax)
	beta := math.Sqrt(dot(b, b))
	v := make([]float64, n)
	for i := range v {
		v[i] = b[i] / beta
	}
	V = append(V, v)
	for j := 0; j < mmax; j++ {
		w := make([]float64, n)
		lu.SolveTo(w, V[j], 1)
		for i := 0; i <= j; i++ {
			h := dot(w, V[i])
			H[i*mmax+j] += h
			for r := range w {
				w[r] -= h * V[i][r]
			}
		}
		h := math.Sqrt(dot(w, w))
		H[(j+1)*mmax+j] = h
		mm := j + 1
		// (t/gamma)(I - H_m^{-1}) by a dense inverse of the small H_m.
		hm := make([]float64, mm*mm)
		for r := 0; r < mm; r++ {
			for c := 0; c < mm; c++ {
				hm[r*mm+c] = H[r*mmax+c]
			}
		}
		inv := make([]float64, mm*mm)
		for i := 0; i < mm; i++ {
			inv[i*mm+i] = 1
		}
		piv := make([]int, mm)
		dense.FactorFull(hm, piv, mm)
		dense.SolveFull(hm, piv, mm, inv, mm)
		for i := range inv {
			inv[i] *= -t / gamma
		}
		for i := 0; i < mm; i++ {
			inv[i*mm+i] += t / gamma
		}
		e := make([]float64, mm*mm)
		NewWorkspace(mm).ExpTo(e, inv)
		x := make([]float64, n)
		for c := 0; c < mm; c++ {
			y := beta * e[c*mm]
			for r := range x {
				x[r] += y * V[c][r]
			}
		}
		if actErr(x, want) <= tol {
			return mm
		}
		if h < 1e-14 {
			return -1
		}
		for r := range w {
			w[r] /= h
		}
		V = append(V, w)
	}
	return -1
}
