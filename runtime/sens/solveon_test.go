package sens

import (
	"testing"

	"github.com/pbgen/pbgen/internal/testode"
	"github.com/pbgen/pbgen/runtime/model"
)

// SolveOn on the state pass of a solver without columns is SolveFrom:
// PBSR and Exp integrate the state alone before S, with the same
// settings, so the two compute S on the same trajectory, to the bit.
// The other methods report that they cannot.
func TestSolveOnIsSolveFrom(t *testing.T) {
	pr := testode.Rober()
	m := pr.Model
	np, nx := model.NumParams(m), model.NumStates(m)
	p := make([]float64, np)
	m.DefaultParams(p)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	s0 := make([]float64, nx*np)
	ts := []float64{0.4, 4, 40}
	for _, meth := range []Method{PBSR, Exp, FS, PBS} {
		opt := &Options{Method: meth, RTol: 1e-6, ATol: 1e-10}
		var want, got, xr Result
		s := NewSolver(m, opt)
		if err := s.SolveFrom(&want, p, &Start{X0: x0, S0: s0}, ts); err != nil && meth != PBS {
			t.Fatal(err) // PBS gives up on Robertson: SolveOn's answer is all that counts
		}
		xopt := *opt
		xopt.Params = []int{}
		xs := NewSolver(m, &xopt)
		if err := xs.SolveFrom(&xr, p, &Start{X0: x0}, ts[len(ts)-1:]); err != nil {
			t.Fatal(err)
		}
		ok, err := s.SolveOn(&got, p, xs.Trajectory(), s0, ts)
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		if ok != (meth == PBSR || meth == Exp) {
			t.Fatalf("%v: SolveOn reports %v", meth, ok)
		}
		if !ok {
			continue
		}
		for i := range want.S {
			if got.S[i] != want.S[i] {
				t.Fatalf("%v: S[%d] on the given trajectory %.17g, SolveFrom %.17g", meth, i, got.S[i], want.S[i])
			}
		}
		for i := range want.X {
			if d := got.X[i] - want.X[i]; d > 1e-12 || d < -1e-12 {
				t.Fatalf("%v: x[%d] %.17g, SolveFrom %.17g", meth, i, got.X[i], want.X[i])
			}
		}
		// Outputs past the trajectory are an error, not a panic.
		if _, err := s.SolveOn(&got, p, xs.Trajectory(), s0, []float64{41}); err == nil {
			t.Errorf("%v: SolveOn past the trajectory's end: no error", meth)
		}
	}
}
