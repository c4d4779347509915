//go:build !pbgen_objective

package petab

import "errors"

// evaluate stands in for eval.go until runtime/objective's evaluation API
// is merged: loading and checking work, evaluating does not.
func evaluate(p *Problem, theta []float64, opt *EvalOptions) (*EvalResult, error) {
	return nil, errors.New("petab: evaluating needs runtime/objective (build with -tags pbgen_objective once it is merged)")
}
