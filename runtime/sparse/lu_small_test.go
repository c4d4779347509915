package sparse

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
)

// TestLUSolveWidths checks that SolveTo's paths for few right-hand sides
// (k < smallBlock: k = 1 and the inline rows) and for many (dense.Axpy)
// agree: each column of a block solve equals the solve of that column
// alone, and the block is A^{-1} B (A X = B to round-off).
func TestLUSolveWidths(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 30
	// A diagonally dominant random sparse matrix: nonsingular whatever the
	// draw.
	p := &model.Pattern{Rows: n, Cols: n, RowPtr: make([]int, n+1)}
	var v []float64
	d := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j || rng.IntN(4) == 0 {
				x := rng.NormFloat64()
				if i == j {
					x += 2 * n
				}
				p.ColIdx = append(p.ColIdx, j)
				v = append(v, x)
				d[i*n+j] = x
			}
		}
		p.RowPtr[i+1] = len(p.ColIdx)
	}
	a := CSR{Pat: p, Val: v}
	f := NewLU(Analyze(a.Pat, OrderAMD))
	if err := f.Factor(&a); err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{2, 3, 6, smallBlock - 1, smallBlock, smallBlock + 3} {
		b := randVec(rng, n*k)
		x := make([]float64, n*k)
		f.SolveTo(x, b, k)
		col, xc := make([]float64, n), make([]float64, n)
		for c := 0; c < k; c++ {
			for i := 0; i < n; i++ {
				col[i] = b[i*k+c]
			}
			f.SolveTo(xc, col, 1)
			for i := 0; i < n; i++ {
				if diff := math.Abs(xc[i] - x[i*k+c]); diff > 1e-12*(1+math.Abs(xc[i])) {
					t.Fatalf("k=%d column %d row %d: block %g, alone %g", k, c, i, x[i*k+c], xc[i])
				}
			}
			// Residual of the single solve against the dense copy.
			for i := 0; i < n; i++ {
				var s float64
				for j := 0; j < n; j++ {
					s += d[i*n+j] * xc[j]
				}
				if diff := math.Abs(s - col[i]); diff > 1e-10*(1+math.Abs(col[i])) {
					t.Fatalf("k=%d column %d: residual %g in row %d", k, c, diff, i)
				}
			}
		}
	}
}
