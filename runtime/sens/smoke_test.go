package sens

import (
	"fmt"
	"math"
	"testing"

	"github.com/pbgen/pbgen/runtime/testmodels"
)

func TestSmoke(t *testing.T) {
	m := testmodels.NewChua()
	p := []float64{7, 15}
	ts := make([]float64, 101)
	for i := range ts {
		ts[i] = float64(i) * 0.1
	}
	ref, err := Solve(m, p, ts, &Options{Method: FS, RTol: 1e-10, ATol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{Method: PBS, JacTol: -1}, {Method: PBSR, Paper: true, JpCheck: true}, {Method: PBSR, Paper: true, JpCheck: true, Interp: InterpDense}, {Method: PBSR, Paper: true, NMax: 100, JpCheck: true},{Method: PBSR, Paper: true}, {Method: Exp, Paper: true}, {Method: PBSR}, {Method: Exp}, {Method: PBS}} {
		o.RTol, o.ATol = 1e-6, 1e-8
		r, err := Solve(m, p, ts, &o)
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for k := 1; k < len(ts); k++ {
			var d, n float64
			for i, x := range r.SAt(k) {
				d += (x - ref.SAt(k)[i]) * (x - ref.SAt(k)[i])
				n += ref.SAt(k)[i] * ref.SAt(k)[i]
			}
			worst = math.Max(worst, math.Sqrt(d/n))
		}
		fmt.Printf("%v paper=%v: max rel err %.3g, steps %d, stats %+v\n", o.Method, o.Paper, worst, r.Stats.ODE.Steps, statsShort(r.Stats))
	}
}

func statsShort(s Stats) string {
	return fmt.Sprintf("int %d ref %d pbs %d exp %d expm %d reuse %d sq %d jac %d", s.Intervals, s.Refinements, s.PBSSteps, s.ExpSteps, s.Exponentials, s.ExpReuses, s.Squarings, s.JacEvals)
}
