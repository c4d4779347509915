package sens

import (
	"errors"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/runtime/model"
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

// TestRoundingFloor: with kf__CaM__Ca scaled by 1e12, S of PBSR and Exp is
// dominated by rounding (3e-2 off at rtol 1e-6 and no better at 1e-9,
// with a nil error). Every Peano-Baker method now gives up with a
// *MethodError that recommends FS, and FS is accurate there; at the issue's
// 1e9 (TestStiffStatesAtOutputs) they still solve.
func TestRoundingFloor(t *testing.T) {
	m := camkii.New()
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	p[camkii.ParamKf__CaM__Ca] *= 1e12
	ts := uniform(0, 10, 100)
	ref := mustSolve(t, m, p, ts, &Options{Method: FS, RTol: 1e-10, ATol: 1e-12})
	for _, o := range []Options{{Method: PBSR}, {Method: Exp}, {Method: PBSR, Paper: true}, {Method: Exp, Paper: true}, {Method: PBS}} {
		_, err := Solve(m, p, ts, &o)
		var me *MethodError
		if !errors.As(err, &me) {
			t.Errorf("%s: err %v, want a MethodError", describe(&o), err)
			continue
		}
		t.Log(err)
		if me.Method != o.Method || !(me.T >= 0 && me.T <= 10) || (o.Method != PBS && me.Alternative != FS) ||
			!strings.Contains(err.Error(), "gave up at t = ") {
			t.Errorf("%s: %+v", describe(&o), me)
		}
	}
	r := mustSolve(t, m, p, ts, &Options{Method: FS})
	if e := maxRelFro(r, ref); !(e <= 1e-3) {
		t.Errorf("FS: max rel err %.3g", e)
	}
}
