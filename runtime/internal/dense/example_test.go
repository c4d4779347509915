package dense_test

import (
	"fmt"

	"github.com/pbgen/pbgen/runtime/internal/dense"
)

// A product, then the solve that undoes it: b = A x with MulAdd, then
// x back from FactorFull and SolveFull (the same on every architecture;
// the AVX2 kernels only where dense.HasFMA).
func ExampleFactorFull() {
	a := []float64{
		2, 1, 0,
		1, 3, 1,
		0, 1, 4,
	}
	x := []float64{1, -2, 3} // one column
	b := make([]float64, 3)
	dense.MulAdd(b, a, x, 3, 3, 1, 1, 0)
	fmt.Println("A x =", b)
	lu, piv := append([]float64(nil), a...), make([]int, 3)
	dense.FactorFull(lu, piv, 3)
	dense.SolveFull(lu, piv, 3, b, 1)
	fmt.Printf("solved back: %.3f\n", b)
	// Output:
	// A x = [0 -2 10]
	// solved back: [1.000 -2.000 3.000]
}
