package sparse

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMapCols: the pattern and values of MapCols/MapAdd equal A P computed
// densely, where P maps several columns onto one, drops some and scales
// each, and the result's columns are increasing in every row.
func TestMapCols(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20; trial++ {
		r, c := 1+rng.IntN(9), 1+rng.IntN(9)
		a, ad := randomCSR(rng, r, c)
		nc := 1 + rng.IntN(4)
		col := make([]int, c)
		scale := make([]float64, c)
		for j := range col {
			col[j] = rng.IntN(nc+1) - 1 // -1: dropped
			scale[j] = rng.Float64() + 0.5
		}
		pat, to := MapCols(a.Pat, col, nc)
		if err := pat.Validate(); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		val := make([]float64, pat.NNZ())
		MapAdd(val, a.Val, to, a.Pat.ColIdx, scale)
		got := make([]float64, r*nc)
		CSR{Pat: pat, Val: val}.ScatterTo(got)
		want := make([]float64, r*nc)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if col[j] >= 0 {
					want[i*nc+col[j]] += ad[i*c+j] * scale[j]
				}
			}
			for k := pat.RowPtr[i] + 1; k < pat.RowPtr[i+1]; k++ {
				if pat.ColIdx[k] <= pat.ColIdx[k-1] {
					t.Fatalf("trial %d: row %d columns not increasing: %v", trial, i, pat.ColIdx[pat.RowPtr[i]:pat.RowPtr[i+1]])
				}
			}
		}
		for k := range want {
			if math.Abs(got[k]-want[k]) > 1e-14*(1+math.Abs(want[k])) {
				t.Fatalf("trial %d: entry %d: got %v, want %v", trial, k, got[k], want[k])
			}
		}
	}
}
