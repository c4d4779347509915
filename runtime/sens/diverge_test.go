package sens

import (
	"errors"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/testmodels"
)

// TestPBSDivergence: PBS on the stiff networks (pbgen sim -method pbs
// CaMKII printed S of order 1e105 with exit status 0) returns a
// *MethodError naming PBS, the time and PBSR, at the first step where the
// truncated series is unstable; on Chua's circuit (not stiff) it still
// solves. PBSR in paper mode, whose PBS sub-steps are short, solves the
// stiff networks.
func TestPBSDivergence(t *testing.T) {
	ts := uniform(0, 10, 100)
	for _, c := range []struct {
		name string
		m    model.Model
	}{{"CaMKII", camkii.New()}, {"PKA", pka.New()}} {
		p := make([]float64, model.NumParams(c.m))
		c.m.DefaultParams(p)
		for _, o := range []Options{{Method: PBS}, {Method: PBS, Paper: true}} {
			r, err := Solve(c.m, p, ts, &o)
			var me *MethodError
			if !errors.As(err, &me) {
				t.Errorf("%s %s: err %v, max |S| %.3g", c.name, describe(&o), err, maxAbs(r.S))
				continue
			}
			msg := err.Error()
			t.Log(msg)
			if me.Method != PBS || me.Alternative != PBSR || !(me.T >= 0 && me.T < 10) ||
				!strings.HasPrefix(msg, "sens: PBS") || !strings.Contains(msg, "gave up at t = ") || !strings.Contains(msg, "Use PBSR") {
				t.Errorf("%s %s: %+v", c.name, describe(&o), me)
			}
		}
		if _, err := Solve(c.m, p, ts, &Options{Method: PBSR, Paper: true}); err != nil {
			t.Errorf("%s PBSR paper: %v", c.name, err)
		}
	}
	m := testmodels.NewChua()
	if _, err := Solve(m, []float64{7, 15}, uniform(0, 10, 100), &Options{Method: PBS}); err != nil {
		t.Errorf("Chua PBS: %v", err)
	}
}

func maxAbs(v []float64) float64 {
	var mx float64
	for _, x := range v {
		if x < 0 {
			x = -x
		}
		if !(x <= mx) {
			mx = x
		}
	}
	return mx
}
