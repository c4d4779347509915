package expm_test

import (
	"fmt"
	"math"

	"github.com/pbgen/pbgen/runtime/expm"
)

// The rotation generator A = [[0, -1], [1, 0]]: e^{(pi/2) A} turns by a
// quarter, so its first column is (0, 1).
func ExampleWorkspace_ExpTo() {
	a := []float64{0, -math.Pi / 2, math.Pi / 2, 0}
	e := make([]float64, 4)
	expm.NewWorkspace(2).ExpTo(e, a)
	fmt.Printf("e^A (1, 0) = (%.3f, %.3f)\n", e[0]+0, e[2]+0)
	// Output:
	// e^A (1, 0) = (0.000, 1.000)
}
