//go:build cvodes

package cvodes

import (
	"flag"
	"fmt"
	"math"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

var scatter = flag.Bool("scatter", false, "TestAccuracyMatchesCVODES: also CVODES's reference error and the errors on CaMKII at rtol 1e-10 perturbed by 1e-12 to 1e-6 of itself")

// TestAccuracyMatchesCVODES measures the global error of S from our FS
// (runtime/ode's BDF, ErrCon, Interpolate) and from CVODES (errconS,
// CV_NORMAL) at equal tolerances, rtol 1e-6, 1e-8 and 1e-10 with atol =
// rtol/100, on CaMKII and PKA (outputs t = 0, 1, ..., 600): the largest
// over the outputs of ||S - S_ref||_F / ||S_ref||_F, S_ref our FS at
// rtol 1e-12, atol 1e-14 (CVODES's at those tolerances is within 1.6e-9
// of it on CaMKII, 1.1e-11 on PKA; -scatter checks). Measured (ours,
// CVODES):
//
//	         rtol 1e-6          1e-8               1e-10
//	CaMKII   2.0e-5, 2.0e-5     4.4e-7, 4.4e-7     3.5e-8, 2.3e-8
//	PKA      8.3e-7, 8.3e-7     2.1e-8, 2.1e-8     3.7e-10, 4.0e-10
//
// At 1e-6 and 1e-8 the errors agree to two digits (the two take the
// same steps, or part on rounding late in the run; see
// TestStepSequenceMatchesCVODES); the bound is 1.05 times CVODES's. At
// 1e-10 the sequences part on rounding after about a thousand steps (on
// CaMKII at step 1089 of some 3000), and the error is a draw of the
// sequence: perturbing rtol by 1e-12 to 1e-6 of itself moves it on
// CaMKII within [1.2e-8, 3.7e-8] for ours and [1.7e-8, 3.7e-8] for
// CVODES (go test -tags cvodes -run TestAccuracyMatchesCVODES -v
// -scatter ./internal/cvodes), on PKA within [2.7e-10, 6.9e-10] and
// [4.0e-10, 8.5e-10]; the bound is twice CVODES's error.
//
// With pbar = |p| in both (runtime/sens's default ScaleParams;
// CVodeSetSensParams), at rtol 1e-6 and 1e-8: CaMKII 2.4e-4, 2.4e-4 and
// 7.7e-6, 7.8e-6; PKA 2.3e-6, 7.3e-7 (the sequences part at step 232 of
// 344 and 375; bound 3.5 times CVODES's) and 1.3e-8, 1.3e-8 (bound 1.05
// times). In this norm (dominated by the columns of the smallest
// parameters, which pbar = |p| holds to atol/|p_j|) the errors are larger
// than with pbar = 1: the norm of that rule, per column of p_j S_ij, is
// measured by cmd/pbgen's TestSensScaleColumns.
//
// Landing on every output (Interpolate off, the default) is CVODES with
// a stop time at each output (Trace with stop times): at rtol 1e-6 and
// 1e-8 ours is 1.8e-5 and 4.0e-7 on CaMKII against CVODES's 1.0e-4 and
// 1.3e-6, 1.5e-6 and 1.8e-8 on PKA as CVODES's (bound: 1.05 times
// CVODES's).
func TestAccuracyMatchesCVODES(t *testing.T) {
	ts := make([]float64, 601)
	for i := range ts {
		ts[i] = float64(i)
	}
	for _, c := range []struct {
		name string
		m    model.Model
	}{{"CaMKII", camkii.New()}, {"PKA", pka.New()}} {
		m := c.m
		nx, np := model.NumStates(m), model.NumParams(m)
		p := make([]float64, np)
		m.DefaultParams(p)
		x0 := make([]float64, nx)
		m.InitialState(x0, p)
		s0 := make([]float64, nx*np)
		m.InitialSens(s0, p)
		var pbar []float64 // nil: CVODES's default 1; paramScales(p) below
		ours := func(rtol, atol float64, interp bool) []float64 {
			sv := ode.NewSolver(m, &ode.Settings{RTol: rtol, ATol: atol, MaxSteps: 1000000, Interpolate: interp})
			var tr ode.Trajectory
			S := make([]float64, len(ts)*nx*np)
			if err := sv.IntegrateSens(&tr, S, p, x0, s0, 0, ts, &ode.SensSettings{ErrCon: true, PBar: pbar}); err != nil {
				t.Fatal(err)
			}
			return S
		}
		theirs := func(rtol, atol float64) []float64 {
			cv, err := New(m, Options{RTol: rtol, ATol: atol, Sens: true, ErrCon: true, MaxSteps: -1, PBar: pbar})
			if err != nil {
				t.Fatal(err)
			}
			defer cv.Close()
			xs, S := make([]float64, len(ts)*nx), make([]float64, len(ts)*nx*np)
			if err := cv.Solve(p, x0, 0, ts, xs, S); err != nil {
				t.Fatal(err)
			}
			return S
		}
		ref := ours(1e-12, 1e-14, false)
		blk := nx * np
		if *scatter {
			// 35 s on CaMKII: 196203 steps (ours 204347 for the reference).
			t.Logf("%s: CVODES at rtol 1e-12 is %.2g off the reference", c.name, maxRelFro(theirs(1e-12, 1e-14), ref, blk))
		}
		for _, rtol := range []float64{1e-6, 1e-8, 1e-10} {
			atol := rtol / 100
			eo, ec := maxRelFro(ours(rtol, atol, true), ref, blk), maxRelFro(theirs(rtol, atol), ref, blk)
			t.Logf("%s rtol %g: ours %.2g, CVODES %.2g (ratio %.2f)", c.name, rtol, eo, ec, eo/ec)
			bound := 1.05 * ec
			if rtol < 1e-9 {
				bound = 2 * ec
			}
			if eo > bound {
				t.Errorf("%s rtol %g: our error %.2g, CVODES's %.2g", c.name, rtol, eo, ec)
			}
			if rtol > 1e-9 {
				// Landing on every output, and CVODES with a stop time
				// at each.
				tr, err := func() ([]TraceStep, error) {
					cv, err := New(m, Options{RTol: rtol, ATol: atol, Sens: true, ErrCon: true, MaxSteps: -1})
					if err != nil {
						return nil, err
					}
					defer cv.Close()
					return cv.Trace(p, x0, s0, 0, ts[1], ts[len(ts)-1], ts[1:], 1000000)
				}()
				if err != nil {
					t.Fatal(err)
				}
				sc := make([]float64, len(ts)*blk)
				copy(sc, s0)
				k := 1
				for _, st := range tr {
					if k < len(ts) && math.Abs(st.T-ts[k]) <= 1e-9*ts[k] {
						copy(sc[k*blk:(k+1)*blk], st.S)
						k++
					}
				}
				if k != len(ts) {
					t.Fatalf("%s rtol %g: CVODES with stop times landed on %d of %d outputs", c.name, rtol, k, len(ts))
				}
				lo, lc := maxRelFro(ours(rtol, atol, false), ref, blk), maxRelFro(sc, ref, blk)
				t.Logf("%s rtol %g, landing on the outputs: ours %.2g, CVODES with stop times %.2g (ratio %.2f)", c.name, rtol, lo, lc, lo/lc)
				if lo > 1.05*lc {
					t.Errorf("%s rtol %g, landing: our error %.2g, CVODES's with stop times %.2g", c.name, rtol, lo, lc)
				}
			}
			if *scatter && rtol < 1e-9 && c.name == "CaMKII" {
				so, sc := "", ""
				for _, f := range []float64{1 + 1e-12, 1 - 1e-12, 1 + 1e-9, 1 - 1e-9, 1 + 1e-6, 1 - 1e-6} {
					so += fmt.Sprintf(" %.2g", maxRelFro(ours(rtol*f, atol, true), ref, blk))
					sc += fmt.Sprintf(" %.2g", maxRelFro(theirs(rtol*f, atol), ref, blk))
				}
				t.Logf("%s rtol %g (1 +- 1e-12, 1e-9, 1e-6): ours%s; CVODES%s", c.name, rtol, so, sc)
			}
		}
		// With S's columns scaled by |p| (runtime/sens's ScaleParams) in
		// both, against the same reference.
		pbar = paramScales(p)
		for _, rtol := range []float64{1e-6, 1e-8} {
			atol := rtol / 100
			eo, ec := maxRelFro(ours(rtol, atol, true), ref, blk), maxRelFro(theirs(rtol, atol), ref, blk)
			t.Logf("%s rtol %g, pbar |p|: ours %.2g, CVODES %.2g (ratio %.2f)", c.name, rtol, eo, ec, eo/ec)
			bound := 1.05 * ec
			if c.name == "PKA" && rtol == 1e-6 {
				// The sequences part at step 232 (ours 344 steps, CVODES
				// 375; TestStepSequenceMatchesCVODES): 2.3e-6 against
				// 7.3e-7, a draw of the sequence as at rtol 1e-10.
				bound = 3.5 * ec
			}
			if eo > bound {
				t.Errorf("%s rtol %g, pbar |p|: our error %.2g, CVODES's %.2g", c.name, rtol, eo, ec)
			}
		}
	}
}

// maxRelFro is the largest over the outputs of ||s - ref||_F / ||ref||_F,
// the blocks of blk entries.
func maxRelFro(s, ref []float64, blk int) float64 {
	w := 0.0
	for k := 0; k < len(ref)/blk; k++ {
		var d, n float64
		for e := k * blk; e < (k+1)*blk; e++ {
			d += (s[e] - ref[e]) * (s[e] - ref[e])
			n += ref[e] * ref[e]
		}
		if n > 0 {
			w = math.Max(w, math.Sqrt(d/n))
		}
	}
	return w
}
