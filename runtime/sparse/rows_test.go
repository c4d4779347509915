package sparse

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pbgen/pbgen/runtime/internal/dense"
)

// TestSolveRowsMatchesCols: the solve by rows (dense.GatherRow over row
// copies of L and U) gives the column sweeps' result to the bit, for
// diagonal and off-diagonal pivots, after Factor and after Refactor
// (whose new values the row copies must pick up), with dst = b and
// apart, and SolveTo takes it from rowsMin columns.
func TestSolveRowsMatchesCols(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	offDiag := 0
	for trial := 0; trial < 12; trial++ {
		n := 5 + rng.IntN(60)
		p := randPattern(t, rng, n, 1+rng.IntN(4), true)
		a := &CSR{Pat: p, Val: make([]float64, p.NNZ())}
		// Weak diagonals in odd trials: pivots off the diagonal.
		dom := 2.0
		if trial%2 == 1 {
			dom = 0
		}
		fill(rng, a, dom, 2)
		f := NewLU(Analyze(p, OrderAMD))
		if err := f.Factor(a); err != nil {
			continue
		}
		offDiag += f.Stats.OffDiag
		for round := 0; round < 2; round++ {
			if round == 1 {
				// New values on the same pattern: Refactor (or its
				// fallback to Factor).
				for q := range a.Val {
					a.Val[q] *= 1 + 0.1*rng.NormFloat64()
				}
				if err := f.Refactor(a); err != nil {
					continue
				}
			}
			for _, k := range []int{rowsMin, 13, 40} {
				b := randVec(rng, n*k)
				rows, cols := make([]float64, n*k), make([]float64, n*k)
				f.solveRows(rows, b, make([]float64, n*k), k)
				f.solveCols(cols, b, make([]float64, n*k), k)
				for i := range rows {
					if rows[i] != cols[i] && !(rows[i] == 0 && cols[i] == 0) {
						t.Fatalf("trial %d round %d k=%d (off-diagonal pivots %d): by rows %v, by columns %v at %d",
							trial, round, k, f.Stats.OffDiag, rows[i], cols[i], i)
					}
				}
				inPlace := slices.Clone(b)
				f.SolveTo(inPlace, inPlace, k)
				if !slices.Equal(inPlace, cols) {
					t.Fatalf("trial %d round %d k=%d: SolveTo in place differs from the column sweeps by %g", trial, round, k, relDiff(inPlace, cols))
				}
			}
		}
	}
	if offDiag == 0 {
		t.Error("no trial pivoted off the diagonal")
	}
}

// TestMulBlockRowsMatchesAxpy: the products by rows (dense.GatherRow)
// give the row updates' result (dense.Axpy per entry, in pattern order)
// to the bit, plain and added, and refuse a short block.
func TestMulBlockRowsMatchesAxpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	p := randPattern(t, rng, 50, 4, true)
	a := CSR{Pat: p, Val: randVec(rng, p.NNZ())}
	for _, k := range []int{rowsMin, 37, 317} {
		x := randVec(rng, p.Cols*k)
		y0 := randVec(rng, p.Rows*k)
		for _, add := range []bool{false, true} {
			want := slices.Clone(y0)
			for i := 0; i < p.Rows; i++ {
				d := want[i*k : (i+1)*k]
				if !add {
					clear(d)
				}
				for q := p.RowPtr[i]; q < p.RowPtr[i+1]; q++ {
					dense.Axpy(d, x[p.ColIdx[q]*k:], a.Val[q])
				}
			}
			got := slices.Clone(y0)
			if add {
				a.MulAddBlockTo(got, x, k)
			} else {
				a.MulBlockTo(got, x, k)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("k=%d add=%v: by rows %.3g apart from the row updates", k, add, relDiff(got, want))
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("MulBlockTo with a short X did not panic")
		}
	}()
	a.MulBlockTo(make([]float64, p.Rows*rowsMin), make([]float64, p.Cols*rowsMin-1), rowsMin)
}
