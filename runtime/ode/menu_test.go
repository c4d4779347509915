package ode

import (
	"testing"

	"github.com/pbgen/pbgen/internal/testode"
)

// TestMenuReferenceProblems: the non-stiff methods on the reference
// problems they can integrate, against the quadruple-precision
// references, in units of the local tolerance (scaledError). Cash-Karp,
// like DOPRI5, propagates the fifth-order solution and stays within 10
// tolerances on HIRES (rtol 1e-6, 1e-10; measured 0.36, 0.080) and VDPOL
// (rtol 1e-6, a million stability-bound steps; measured 4.1). Adams on
// HIRES at rtol 1e-6 is within the BDF's bound maxGlobalToLocal (measured
// 64.7; at rtol 1e-10 its steps are stability-bound and the error is 6.7e3
// tolerances, as CVODES's CV_ADAMS's: TestAdamsReferenceProblems in
// internal/cvodes). ROBER, OREGO, E5 and POLLU are too stiff for any of
// them (millions of steps; the BDF's problems).
func TestMenuReferenceProblems(t *testing.T) {
	for _, c := range []struct {
		pr    testode.Problem
		meth  Method
		rtol  float64
		bound float64
	}{
		{testode.Hires(), CashKarp, 1e-6, 10},
		{testode.Hires(), CashKarp, 1e-10, 10},
		{testode.VdPol(), CashKarp, 1e-6, 10},
		{testode.Hires(), Adams, 1e-6, maxGlobalToLocal},
	} {
		st := problemSettings(c.pr, c.rtol)
		st.Method = c.meth
		st.MaxSteps = 3000000
		p, x0 := setup(c.pr)
		s := NewSolver(c.pr.Model, &st)
		var tr Trajectory
		tout := refTimes(c.pr)
		if err := s.Integrate(&tr, p, x0, c.pr.T0, tout); err != nil {
			t.Fatalf("%s %v rtol %g: %v", c.pr.Name, c.meth, c.rtol, err)
		}
		for i, k := range tr.Out {
			if tr.T[k] != tout[i] {
				t.Errorf("%s %v: output %d at t=%v, want exactly %v", c.pr.Name, c.meth, i, tr.T[k], tout[i])
			}
		}
		e := scaledError(c.pr, &tr, st)
		t.Logf("%-6s %v rtol %.0e: error/tolerance %.3g, %d steps", c.pr.Name, c.meth, c.rtol, e, s.Stats().Steps)
		if !(e <= c.bound) {
			t.Errorf("%s %v rtol %g: error %.3g tolerances, want <= %g", c.pr.Name, c.meth, c.rtol, e, c.bound)
		}
	}
}
