package tables_test

import (
	"fmt"

	"github.com/pbgen/pbgen/internal/tables"
)

// Load Chua's circuit from its tables and evaluate dx/dt at the initial
// state and default parameters: x(0) = (0, 0, -0.1), so g(x1) = 0 and
// f = (7*(0-0-0), 0-0-0.1, -15*0).
func ExampleLoad() {
	n, err := tables.Load("testdata/Chua")
	if err != nil {
		fmt.Println(err)
		return
	}
	x := make([]float64, n.NumStates())
	p := make([]float64, n.NumParams())
	n.InitialState(x)
	n.DefaultParams(p)
	f := make([]float64, n.NumStates())
	n.F(f, 0, x, p)
	fmt.Println("states", n.NumStates(), "parameters", n.NumParams(), "reactions", n.NumReactions())
	fmt.Println("x0", x, "p", p)
	fmt.Println("f", f)
	// Output:
	// states 3 parameters 2 reactions 3
	// x0 [0 0 -0.1] p [7 15]
	// f [0 -0.1 0]
}
