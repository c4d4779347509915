package ode

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/internal/testode"
)

// IntegrateState ends where Integrate ends, bit for bit, with the same
// statistics, for both methods; it allocates nothing, leaves x unchanged
// on failure and returns Integrate's argument errors.
func TestIntegrateState(t *testing.T) {
	for _, meth := range []Method{BDF, DOPRI5} {
		for _, pr := range testode.All() {
			if meth == DOPRI5 && pr.Name != "VDPOL" {
				continue // stiff: DOPRI5 would take too long
			}
			st := problemSettings(pr, 1e-6)
			st.Method = meth
			st.MaxSteps = 1000000
			p, x0 := setup(pr)
			t1 := refTimes(pr)[0]
			if meth == DOPRI5 {
				t1 = pr.T0 + 0.3
			}
			s := NewSolver(pr.Model, &st)
			var tr Trajectory
			if err := s.Integrate(&tr, p, x0, pr.T0, []float64{t1}); err != nil {
				t.Fatal(err)
			}
			want, wantSt := tr.XAt(tr.Len()-1), s.Stats()
			x := append([]float64(nil), x0...)
			if err := s.IntegrateState(x, p, pr.T0, t1); err != nil {
				t.Fatal(err)
			}
			for i := range x {
				if math.Float64bits(x[i]) != math.Float64bits(want[i]) {
					t.Errorf("%v %s: x[%d] = %v, Integrate %v", meth, pr.Name, i, x[i], want[i])
				}
			}
			if s.Stats() != wantSt {
				t.Errorf("%v %s: stats %+v, Integrate %+v", meth, pr.Name, s.Stats(), wantSt)
			}
			if a := testing.AllocsPerRun(3, func() {
				copy(x, x0)
				s.IntegrateState(x, p, pr.T0, t1)
			}); a != 0 {
				t.Errorf("%v %s: %v allocations", meth, pr.Name, a)
			}
		}
	}
	pr := testode.All()[0]
	p, x0 := setup(pr)
	st := problemSettings(pr, 1e-6)
	st.MaxSteps = 3
	s := NewSolver(pr.Model, &st)
	x := append([]float64(nil), x0...)
	if err := s.IntegrateState(x, p, 0, 1e5); err == nil {
		t.Error("3 steps to t = 1e5: no error")
	}
	for i := range x {
		if x[i] != x0[i] {
			t.Errorf("x[%d] changed on failure", i)
		}
	}
	if err := s.IntegrateState(x, p, 1, 0); err == nil {
		t.Error("t1 < t0: no error")
	}
	if err := s.IntegrateState(x[:1], p, 0, 1); err == nil {
		t.Error("short x: no error")
	}
}
