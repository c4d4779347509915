package fit

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// symEig computes eigendecompositions of symmetric matrices in reused
// storage (LAPACK's dsyev through gonum), so that an iteration of the
// optimiser allocates nothing once the sizes are known.
type symEig struct {
	vecs []float64 // k x k row-major: vecs[i*k+j] is component i of eigenvector j
	vals []float64 // ascending
	work []float64
	k    int
}

// factor decomposes the k x k symmetric matrix h (row-major, read only)
// and reports whether LAPACK converged.
func (e *symEig) factor(h []float64, k int) bool {
	e.k = k
	e.vecs = resize(e.vecs, k*k)
	e.vals = resize(e.vals, k)
	copy(e.vecs, h)
	a := blas64.Symmetric{N: k, Stride: max(1, k), Data: e.vecs, Uplo: blas.Upper}
	if len(e.work) < 3*k {
		var q [1]float64
		lapack64.Syev(lapack.EVCompute, a, e.vals, q[:], -1)
		e.work = make([]float64, max(int(q[0]), 3*k))
	}
	return lapack64.Syev(lapack.EVCompute, a, e.vals, e.work, len(e.work))
}

// vec returns component i of eigenvector j.
func (e *symEig) vec(i, j int) float64 { return e.vecs[i*e.k+j] }

// cholSolve solves H d = b for the m x m symmetric h by Cholesky in the
// reused storage l, writing d; it reports false if h is not positive
// definite.
func cholSolve(l, d, h, b []float64, m int) bool {
	copy(l, h)
	t, ok := lapack64.Potrf(blas64.Symmetric{N: m, Stride: max(1, m), Data: l, Uplo: blas.Upper})
	if !ok {
		return false
	}
	copy(d, b)
	lapack64.Potrs(t, blas64.General{Rows: m, Cols: 1, Stride: 1, Data: d})
	return true
}
