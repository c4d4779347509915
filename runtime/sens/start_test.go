package sens

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/internal/testmodels"
)

// A solve restarted at t1 from the state and sensitivities it had reached
// there continues the solve that did not stop: SolveFrom carries S0.
func TestSolveFromContinues(t *testing.T) {
	m := testmodels.NewIsomerization()
	p := make([]float64, 2)
	m.DefaultParams(p)
	for _, meth := range []Method{FS, PBSR, Exp} {
		opt := &Options{Method: meth, RTol: 1e-8, ATol: 1e-10}
		whole, err := Solve(m, p, []float64{0, 1, 2}, opt)
		if err != nil {
			t.Fatal(err)
		}
		s := NewSolver(m, opt)
		var first, second Result
		if err := s.Solve(&first, p, nil, 0, []float64{1}); err != nil {
			t.Fatal(err)
		}
		st := &Start{T0: 1, X0: first.XAt(0), S0: append([]float64(nil), first.SAt(0)...)}
		if err := s.SolveFrom(&second, p, st, []float64{2}); err != nil {
			t.Fatal(err)
		}
		want, got := whole.SAt(2), second.SAt(0)
		for i := range want {
			if d := math.Abs(got[i] - want[i]); d > 1e-5*(1+math.Abs(want[i])) {
				t.Errorf("%v: S[%d] restarted %.8g, whole %.8g", meth, i, got[i], want[i])
			}
		}
		// Without S0 the restart treats x(1) as independent of p.
		if err := s.SolveFrom(&second, p, &Start{T0: 1, X0: first.XAt(0)}, []float64{2}); err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(second.SAt(0)[0] - want[0]); d < 1e-3*math.Abs(want[0]) {
			t.Errorf("%v: a restart without S0 matched the whole solve; the test cannot tell S0 is used", meth)
		}
	}
}
