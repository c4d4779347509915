package expm_test

import (
	"fmt"
	"math"

	"github.com/pbgen/pbgen/runtime/expm"
)

// The rotation generator A = [[0, -1], [1, 0]]: e^{(pi/2) A} turns by a
// quarter, and LUFactor/LUSolve invert it back.
func ExampleWorkspace_ExpTo() {
	a := []float64{0, -math.Pi / 2, math.Pi / 2, 0}
	e := make([]float64, 4)
	expm.NewWorkspace(2).ExpTo(e, a)
	x := []float64{1, 0} // e x: the first column
	y := make([]float64, 2)
	expm.MulAdd(y, e, x, 2, 2, 1, 1, 0)
	fmt.Printf("e^A (1, 0) = (%.3f, %.3f)\n", y[0]+0, y[1]+0)
	piv := make([]int, 2)
	expm.LUFactor(e, piv, 2)
	expm.LUSolve(e, piv, 2, y, 1)
	fmt.Printf("solved back: (%.3f, %.3f)\n", y[0]+0, math.Abs(y[1]))
	// Output:
	// e^A (1, 0) = (0.000, 1.000)
	// solved back: (1.000, 0.000)
}
