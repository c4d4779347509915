package sens_test

import (
	"fmt"

	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/runtime/sens"
)

// ExampleSolve computes the sensitivities of Chua's circuit on its limit
// cycle with the default PBSR and compares them with forward sensitivity.
func ExampleSolve() {
	m := testmodels.NewChua()
	p := []float64{7, 15}
	ts := []float64{0, 2.5, 5, 10}
	res, err := sens.Solve(m, p, ts, &sens.Options{RTol: 1e-8, ATol: 1e-10})
	if err != nil {
		panic(err)
	}
	ref, err := sens.Solve(m, p, ts, &sens.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12})
	if err != nil {
		panic(err)
	}
	s := res.SAt(3) // 3 x 2: rows x1..x3, columns p1, p2
	r := ref.SAt(3)
	fmt.Printf("x(10)         = %.4f %.4f %.4f\n", res.XAt(3)[0], res.XAt(3)[1], res.XAt(3)[2])
	fmt.Printf("dx1/dp at 10  = %.4f %.4f (PBSR)\n", s[0], s[1])
	fmt.Printf("dx1/dp at 10  = %.4f %.4f (FS)\n", r[0], r[1])
	// Output:
	// x(10)         = -1.4006 -0.0102 1.1937
	// dx1/dp at 10  = 0.0320 -0.1043 (PBSR)
	// dx1/dp at 10  = 0.0320 -0.1043 (FS)
}
