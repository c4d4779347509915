package ode_test

import (
	"fmt"

	"github.com/pbgen/pbgen/internal/testode"
	"github.com/pbgen/pbgen/runtime/ode"
)

// Solve Robertson's problem with the default BDF and read the outputs from
// the grid, then compute the sensitivities with respect to k1 only.
func Example() {
	pr := testode.Rober()
	m := pr.Model
	p := make([]float64, 3)
	m.DefaultParams(p)
	x0 := make([]float64, 3)
	m.InitialState(x0, p)

	s := ode.NewSolver(m, &ode.Settings{RTol: 1e-8, ATol: 1e-12})
	var tr ode.Trajectory
	tout := []float64{0.4, 40}
	if err := s.Integrate(&tr, p, x0, 0, tout); err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range tr.Out {
		x := tr.XAt(k)
		fmt.Printf("t=%-4g y1=%.6f y3=%.6f\n", tr.T[k], x[0], x[2])
	}

	dS := make([]float64, len(tout)*3*1) // 3 states x 1 parameter per output
	if err := s.IntegrateSens(&tr, dS, p, x0, nil, 0, tout, &ode.SensSettings{Params: []int{0}}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("dy1/dk1(40) = %.4f\n", dS[3])
	// Output:
	// t=0.4  y1=0.985172 y3=0.014794
	// t=40   y1=0.715827 y3=0.284164
	// dy1/dk1(40) = -4.2476
}
