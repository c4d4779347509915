package parser

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
)

// TestAKAP79 reads the real L2v4 AKAP79 network: 16 reactions, assignment
// rules for rate constants. Every state must have a finite initial value
// and a finite rate at t = 0 at the default parameters.
func TestAKAP79(t *testing.T) {
	akapFile := suites.Testdata(t, "models/AKAP79.xml")
	m, err := ReadFile(akapFile)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Summary()
	t.Logf("summary: %+v", s)
	if s.Reactions != 16 {
		t.Errorf("reactions: got %d, want 16", s.Reactions)
	}
	ode, err := m.ODE(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("states %d, params %d, outputs %d", len(ode.States), len(ode.Params), len(ode.Outputs))
	if len(ode.States) == 0 || len(ode.Params) == 0 {
		t.Fatalf("empty ODE: %d states, %d params", len(ode.States), len(ode.Params))
	}
	cm := compile(ode)
	x := cm.init()
	dx := make([]float64, len(x))
	cm.rhs(dx, 0, x)
	for i, st := range ode.States {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(dx[i]) || math.IsInf(dx[i], 0) {
			t.Errorf("state %s: x0 = %v, f = %v", st.Name, x[i], dx[i])
		}
	}
}
