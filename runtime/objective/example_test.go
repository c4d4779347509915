package objective_test

import (
	"fmt"

	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// ExampleObjective evaluates the log-likelihood, its gradient and the
// Fisher information of a decay x' = -k x observed as y = s x with
// estimated noise, at the parameter table's nominal values. The model
// (decay, in this package's tests) implements model.Model and
// model.Observables, as generated packages and the PEtab lowering do.
func ExampleObjective() {
	th := func(a int) objective.Value { return objective.Value{Theta: a} }
	u := []objective.Value{th(2), th(3)} // observable placeholder s, noise sigma
	datum := func(t, y float64) objective.Datum { return objective.Datum{Obs: 0, T: t, Y: y, U: u} }
	prob := &objective.Problem{
		Params: []objective.Param{
			{ID: "k", Scale: objective.Log10, Nominal: 0.7, Estimate: true},
			{ID: "x0", Scale: objective.Lin, Nominal: 2, Estimate: true},
			{ID: "s", Scale: objective.Log, Nominal: 1.5, Estimate: true},
			{ID: "sigma", Scale: objective.Log10, Nominal: 0.3, Estimate: true,
				Prior: objective.Prior{Kind: objective.LogNormal, Par: [2]float64{-1, 0.5}}},
		},
		Estimated:   []int{0, 1, 2, 3},
		Observables: []objective.Observable{{ID: "y", Transform: objective.TransformLin, Noise: objective.Normal}},
		Conditions:  []objective.Condition{{ID: "c", P: []objective.Value{th(0), th(1)}}},
		Experiments: []objective.Experiment{{Preeq: -1, Sim: 0, Data: []objective.Datum{
			datum(0.5, 2.2), datum(1, 1.4), datum(2, 0.9), datum(4, 0.2),
		}}},
	}
	o, err := objective.New(newDecay(), prob, &objective.Options{Method: sens.PBSR, RTol: 1e-8, ATol: 1e-10, Grad: true, FIM: true})
	if err != nil {
		panic(err)
	}
	defer o.Close()
	theta := o.Nominal() // on the parameter scales: log10(0.7), 2, log(1.5), log10(0.3)
	var r objective.Result
	if err := o.Eval(theta, &r); err != nil {
		panic(err)
	}
	fmt.Printf("params   %v\n", o.Params())
	fmt.Printf("llh      %.4f  chi2 %.4f  log-posterior %.4f\n", r.LLH, r.Chi2, r.LogPost)
	fmt.Printf("gradient %.3f\n", r.Grad)
	fmt.Printf("FIM[0,:] %.3f\n", r.FIM[:4])
	// Output:
	// params   [k x0 s sigma]
	// llh      0.9100  chi2 0.4602  log-posterior 1.8050
	// gradient [-3.707 0.943 1.885 -8.151]
	// FIM[0,:] [174.879 -50.877 -101.754 0.000]
}
