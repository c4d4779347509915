package sens

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/internal/testmodels"
)

// isoSensErr is the largest error of S at the outputs of r against the
// closed form of A <-> B.
func isoSensErr(m *testmodels.Isomerization, p []float64, r *Result) float64 {
	x, s := make([]float64, 2), make([]float64, 4)
	worst := 0.0
	for k, t := range r.T {
		m.Exact(x, s, t, p)
		for i, v := range s {
			worst = math.Max(worst, math.Abs(r.SAt(k)[i]-v))
		}
	}
	return worst
}

// TestOrder3 compares PBSR's order 2 and order 3 steps (Tuning.Order)
// on A <-> B, whose S has a closed form (|S| <= 0.9 on [0, 5]): order 3
// must be within 10 tolerances of it at rtol 1e-8 and 1e-10 and take
// fewer steps than order 2, which is more than 10 tolerances off; its
// error must fall faster than order 2's from 1e-8 to 1e-10. Measured:
// order 2 2.6e-7 (873 steps) and 1.2e-8 (4034 steps), order 3 1.2e-8
// (411) and 3.5e-10 (1288). Order 3 is the default at these
// tolerances (order3Below).
func TestOrder3(t *testing.T) {
	m := testmodels.NewIsomerization()
	p := []float64{0.9, 0.5}
	ts := []float64{0, 1, 2, 3, 5}
	var errs [2][2]float64
	for i, rt := range []float64{1e-8, 1e-10} {
		var steps [2]int
		for k, ord := range []int{2, 0} {
			r := mustSolve(t, m, p, ts, &Options{Method: PBSR, RTol: rt, ATol: rt * 1e-2, Tuning: Tuning{Order: ord}})
			errs[i][k], steps[k] = isoSensErr(m, p, r), r.Stats.Intervals
			corr := r.Stats.Corrections
			if (ord == 2) != (corr == 0) {
				t.Errorf("rtol %g order %d: %d corrections", rt, ord, corr)
			}
			t.Logf("rtol %g order %d (0: default): error %.2g, %d steps, %d corrections", rt, ord, errs[i][k], steps[k], corr)
		}
		if errs[i][1] > 10*rt || errs[i][0] <= 10*rt {
			t.Errorf("rtol %g: error %.2g with order 3 (want <= %g), %.2g with order 2 (want above)", rt, errs[i][1], 10*rt, errs[i][0])
		}
		if steps[1] >= steps[0] {
			t.Errorf("rtol %g: order 3 took %d steps, order 2 %d", rt, steps[1], steps[0])
		}
	}
	if g2, g3 := errs[0][0]/errs[1][0], errs[0][1]/errs[1][1]; g3 <= g2 {
		t.Errorf("from rtol 1e-8 to 1e-10 the error of order 3 fell by %.3g, of order 2 by %.3g", g3, g2)
	}
}

// TestOrder3Chua: on Chua's circuit (nonlinear, Jx jumps at the kinks of
// the diode) order 3 must be at least 5 times more accurate than order 2
// at rtol 1e-8 against FS at 1e-11 (measured 2.1e-5 and 1.4e-6, the
// default, order 3, with its local error at a tenth of the tolerance),
// and the sparse exponential path, which takes order 2 steps whatever
// Order says, must make no correction.
func TestOrder3Chua(t *testing.T) {
	m := testmodels.NewChua()
	p := []float64{7, 15}
	ts := make([]float64, 51)
	for i := range ts {
		ts[i] = 0.2 * float64(i)
	}
	ref := mustSolve(t, m, p, ts, &Options{Method: FS, RTol: 1e-11, ATol: 1e-13, ErrCon: true})
	var e [2]float64
	for k, ord := range []int{2, 3} {
		r := mustSolve(t, m, p, ts, &Options{Method: PBSR, RTol: 1e-8, ATol: 1e-10, Tuning: Tuning{Order: ord}})
		e[k] = maxRelFro(r, ref)
		t.Logf("order %d: error %.2g, %d steps", ord, e[k], r.Stats.Intervals)
	}
	if !(e[1] <= e[0]/5) {
		t.Errorf("order 3 error %.2g, order 2 %.2g: want 5 times smaller", e[1], e[0])
	}
	r := mustSolve(t, m, p, ts, &Options{Method: PBSR, RTol: 1e-8, ATol: 1e-10, Tuning: Tuning{Order: 3, ExpAction: ExpActionSparse}})
	if r.Stats.Corrections != 0 {
		t.Errorf("sparse path: %d corrections, want 0", r.Stats.Corrections)
	}
}

// TestOrderDefault: order 3 where SensRTol <= order3Below on PBSR's
// dyadic grid, order 2 elsewhere or when asked for.
func TestOrderDefault(t *testing.T) {
	for _, c := range []struct {
		o     Options
		order int
	}{
		{Options{}, 2},
		{Options{RTol: 1e-8}, 3},
		{Options{RTol: 1e-6, Tuning: Tuning{SensRTol: 1e-9}}, 3},
		{Options{RTol: 1e-10, Tuning: Tuning{Order: 2}}, 2},
		{Options{RTol: 1e-6, Tuning: Tuning{Order: 3}}, 3},
		{Options{RTol: 1e-10, Method: Exp}, 2},
		{Options{RTol: 1e-10, Paper: true}, 2},
		{Options{RTol: 1e-10, Tuning: Tuning{Grid: GridState}}, 2},
	} {
		r, err := resolve(&c.o)
		if err != nil {
			t.Fatal(err)
		}
		if r.order != c.order {
			t.Errorf("%+v: order %d, want %d", c.o, r.order, c.order)
		}
	}
}

// TestOrderForLargeModels checks the default order of PBSR at rtol 1e-6:
// 2 on small models, 3 from order3States states on the dense
// exponential path, 2 on the sparse path (which has no order 3 steps),
// and what Tuning.Order asks for whatever the size.
func TestOrderForLargeModels(t *testing.T) {
	for _, c := range []struct {
		order, nx, nnz int
		action         ExpAction
		meth           Method
		want           int
	}{
		{0, 21, 260, ExpActionAuto, PBSR, 2},                // CaMKII
		{0, order3States - 1, 2000, ExpActionAuto, PBSR, 2}, // below the size
		{0, 124, 1175, ExpActionAuto, PBSR, 3},              // Lang: dense exponentials
		{0, 124, 1175, ExpActionSparse, PBSR, 2},            // forced sparse path
		{0, 198, 4 * 198, ExpActionAuto, PBSR, 2},           // a chain: sparse path
		{0, 124, 1175, ExpActionAuto, Exp, 2},               // Exp has no corrector
		{2, 124, 1175, ExpActionAuto, PBSR, 2},              // asked for
		{3, 21, 260, ExpActionAuto, PBSR, 3},                // asked for
	} {
		cfg, err := resolve(&Options{Method: c.meth, Tuning: Tuning{Order: c.order, ExpAction: c.action}})
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.orderFor(c.nx, c.nnz); got != c.want {
			t.Errorf("%+v: order %d, want %d", c, got, c.want)
		}
	}
}
