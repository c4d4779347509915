package sens

import (
	"fmt"
	"testing"

	"github.com/pbgen/pbgen/runtime/testmodels"
)

func TestDiag5(t *testing.T) {
	if !*measure {
		t.Skip()
	}
	var m testmodels.TimeVarying
	p := []float64{1, 2}
	ts := uniform(0, 4, 200)
	tr := exactTrajectory(m, m, p, ts)
	want := make([]float64, len(ts)*4)
	x := make([]float64, 2)
	for k, tt := range ts {
		m.Exact(x, want[k*4:(k+1)*4], tt, p)
	}
	for _, o := range []Options{{Method: PBSR, RTol: 1e-8}, {Method: PBSR, RTol: 1e-8, RefTheta: -1}, {Method: PBSR, RTol: 1e-10}, {Method: PBSR, RTol: 1e-10, RefTheta: -1}, {Method: Exp, RefTheta: -1}} {
		got, st := runEngine(m, &o, tr, p, ts)
		d, mx := maxAbsDiff(got, want)
		fmt.Printf("%+v: rel %.3g int %d ref %d expm %d\n", o.RTol, d/mx, st.Intervals, st.Refinements, st.Exponentials)
	}
}
