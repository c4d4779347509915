package fit

import (
	"context"
	"testing"
)

// TestIterationAllocs: an iteration allocates nothing (the difference
// between runs of 40 and 20 iterations; setting up a run does).
func TestIterationAllocs(t *testing.T) {
	for _, sub := range []Subspace{TwoD, Full} {
		for _, h := range []Hessian{FIM, BFGS} {
			obj := rosenbrock(6, nil, nil)
			x0 := []float64{-1.2, 1, -1.2, 1, -1.2, 1}
			run := func(iters int) float64 {
				return testing.AllocsPerRun(5, func() {
					if _, err := Minimize(context.Background(), obj, x0, &Options{Hessian: h, Subspace: sub, MaxIter: iters, FATol: -1, FRTol: -1, GATol: -1}); err != nil {
						t.Fatal(err)
					}
				})
			}
			per := (run(40) - run(20)) / 20
			if per > 0 {
				t.Errorf("%v %v: %.2f allocations per iteration", sub, h, per)
			}
		}
	}
}
