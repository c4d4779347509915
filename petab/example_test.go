package petab_test

import (
	"fmt"
	"log"

	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/sens"
)

// Example loads a PEtab problem and evaluates the log-likelihood and its
// gradient at the nominal parameter values, with k1 set to 0.5.
func Example() {
	p, err := petab.Load("testdata/conv/problem.yaml")
	if err != nil {
		log.Fatal(err) // an ErrorList: file, line and column of every problem
	}
	theta, err := p.Theta(map[string]float64{"k1": 0.5}) // linear scale
	if err != nil {
		log.Fatal(err)
	}
	r, err := p.Evaluate(theta, &petab.EvalOptions{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, Grad: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("llh %.3f\n", r.LLH)
	for k, id := range p.EstimatedIDs() {
		fmt.Printf("dllh/d%s %.3f\n", id, r.Grad[k]) // on the parameter's scale
	}
	// Output:
	// llh -2.662
	// dllh/dk1 -1.552
	// dllh/dscale 8.041
	// dllh/dsd -4.000
}
