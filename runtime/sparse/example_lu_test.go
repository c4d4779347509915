package sparse_test

import (
	"fmt"
	"log"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// The Newton matrix of a BDF step, M = I - gamma Jx, is analysed once per
// pattern, factorised at the first step and refactorised (same pivots, no
// searches) when gamma or Jx change; the sensitivity columns are solved
// together as one row-major block.
func ExampleLU() {
	// Jx of A <-> B <-> C (rates 2, 1 forward and 1, 1 back).
	pat := &model.Pattern{Rows: 3, Cols: 3,
		RowPtr: []int{0, 2, 5, 7},
		ColIdx: []int{0, 1, 0, 1, 2, 1, 2}}
	jx := []float64{-2, 1, 2, -2, 1, 1, -1}
	m := sparse.New(pat)
	newton := func(gamma float64) {
		for i := 0; i < 3; i++ {
			for q := pat.RowPtr[i]; q < pat.RowPtr[i+1]; q++ {
				m.Val[q] = -gamma * jx[q]
				if pat.ColIdx[q] == i {
					m.Val[q]++
				}
			}
		}
	}
	sym := sparse.Analyze(pat, sparse.OrderAMD) // once per pattern
	lu := sparse.NewLU(sym)
	newton(0.1)
	if err := lu.Factor(m); err != nil {
		log.Fatal(err)
	}
	newton(0.05)
	if err := lu.Refactor(m); err != nil {
		log.Fatal(err)
	}
	// Two right-hand sides as a 3 x 2 row-major block.
	b := []float64{1, 0, 0, 1, 0, 0}
	lu.SolveTo(b, b, 2)
	for i := 0; i < 3; i++ {
		fmt.Printf("%.6f %.6f\n", b[2*i], b[2*i+1])
	}
	fmt.Printf("%+v\n", lu.Stats)
	// Output:
	// 0.912871 0.041584
	// 0.083168 0.914851
	// 0.003960 0.043564
	// {Factors:1 Refactors:1 Fallbacks:0 OffDiag:0}
}
