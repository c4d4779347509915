package sens

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// rescaled is a model m with its parameters read as q_j = p_j / c_j: its
// S columns are c_j dx/dp_j. With c_j powers of two every product and
// quotient of the solve scales exactly, so a rule for S's error weights
// that does not depend on the parameters' units takes bit for bit the
// same steps on it as on m. Test use only: it keeps a buffer for p and so
// is not safe for concurrent use.
type rescaled struct {
	model.Model
	c, p []float64
	cols []int // Jp's column of each entry
}

func newRescaled(m model.Model, c []float64) *rescaled {
	pat := m.JpPattern()
	return &rescaled{Model: m, c: c, p: make([]float64, len(c)), cols: pat.ColIdx}
}

func (r *rescaled) toP(q []float64) []float64 {
	for j, v := range q {
		r.p[j] = v * r.c[j]
	}
	return r.p
}

func (r *rescaled) DefaultParams(dst []float64) {
	r.Model.DefaultParams(dst)
	for j := range dst {
		dst[j] /= r.c[j]
	}
}

func (r *rescaled) InitialState(dst, q []float64) { r.Model.InitialState(dst, r.toP(q)) }

func (r *rescaled) InitialSens(dst, q []float64) {
	r.Model.InitialSens(dst, r.toP(q))
	np := len(r.c)
	for k := range dst {
		dst[k] *= r.c[k%np]
	}
}

func (r *rescaled) F(dst []float64, t float64, x, q []float64) { r.Model.F(dst, t, x, r.toP(q)) }

func (r *rescaled) Jx(dst []float64, t float64, x, q []float64) { r.Model.Jx(dst, t, x, r.toP(q)) }

func (r *rescaled) Jp(dst []float64, t float64, x, q []float64) {
	r.Model.Jp(dst, t, x, r.toP(q))
	for k, j := range r.cols {
		dst[k] *= r.c[j]
	}
}

// camkiiRescaled is CaMKII with its non-zero parameters rescaled by
// 2^-40, 2^30 and 1 in turn (a zero parameter keeps its scale 1: its
// column's scale is 1 under either rule).
func camkiiRescaled() (model.Model, *rescaled) {
	m := camkii.New()
	p := defaultParams(m)
	c := make([]float64, len(p))
	for j := range c {
		c[j] = [...]float64{0x1p-40, 0x1p30, 1}[j%3]
		if p[j] == 0 {
			c[j] = 1
		}
	}
	return m, newRescaled(m, c)
}

// TestSensScaleUnits: with ScaleParams (the default) FS with ErrCon takes
// the same steps on CaMKII whatever the units of its parameters (each
// rescaled by 2^-40, 2^30 or 1), and S's columns are those of the
// original times the scales, bit for bit; with ScaleNone (pbar = 1, the
// weights of S in dx/dp units) the steps change: the columns made 2^30
// times larger are held to far more digits than their effect on x has,
// and FS fails as on Lang_PLOSComputBiol2024 (measured: 558 steps with
// ScaleParams either way, 763 with ScaleNone on CaMKII and 56666 on it
// rescaled; here more than MaxSteps = 5000).
func TestSensScaleUnits(t *testing.T) {
	m, r := camkiiRescaled()
	p, q := defaultParams(m), defaultParams(r)
	ts := uniform(0, 10, 100)
	steps := func(mm model.Model, pp []float64, sc SensScale) (*Result, int) {
		res := mustSolve(t, mm, pp, ts, &Options{Method: FS, ErrCon: true, SensScale: sc, ODE: ode.Settings{MaxSteps: 5000}})
		return res, res.Stats.ODE.Steps
	}
	a, na := steps(m, p, ScaleParams)
	b, nb := steps(r, q, ScaleParams)
	if na != nb {
		t.Errorf("ScaleParams: %d steps on CaMKII, %d on it rescaled", na, nb)
	}
	np := len(p)
	for k, v := range a.S {
		if w := b.S[k]; w != v*r.c[k%np] {
			t.Fatalf("ScaleParams: S entry %d (column %d) is %g rescaled, want %g x %g", k, k%np, w, v, r.c[k%np])
		}
	}
	_, n1 := steps(m, p, ScaleNone)
	t.Logf("FS ErrCon steps: ScaleParams %d, %d rescaled; ScaleNone %d", na, nb, n1)
	_, err := Solve(r, q, ts, &Options{Method: FS, ErrCon: true, SensScale: ScaleNone, ODE: ode.Settings{MaxSteps: 5000}})
	var se *ode.StepError
	if !errors.As(err, &se) || se.Kind != ode.ErrTooManySteps {
		t.Errorf("ScaleNone on CaMKII rescaled: %v, want too many steps", err)
	}
}

// TestCheckReferenceScale: the check's reference takes the user's
// SensScale; where it fails with ScaleNone (CaMKII rescaled, as in
// TestSensScaleUnits) it is solved again with ScaleParams and the check
// goes on, and where that fails too the *CheckError says which reference
// failed and what to do. The method checked is FS without ErrCon, whose
// steps are the state's (fewer than the reference's at rtol / 10).
func TestCheckReferenceScale(t *testing.T) {
	_, r := camkiiRescaled()
	q := defaultParams(r)
	ts := uniform(0, 10, 100)
	// The bound is out of the way: FS without ErrCon leaves the columns
	// made 2^40 times smaller uncontrolled in dx/dp units (1.55e4
	// tolerances off per column), and only the reference is tested here.
	o := Options{Method: FS, SensScale: ScaleNone, Check: true, CheckBound: math.MaxFloat64, ODE: ode.Settings{MaxSteps: 5000}}
	res, err := Solve(r, q, ts, &o)
	if err != nil {
		t.Fatalf("ScaleNone reference, retried with ScaleParams: %v", err)
	}
	t.Logf("checked FS: %d steps, estimate %.3g tolerances", res.Stats.ODE.Steps, res.Stats.Check.Err)
	// A step limit the reference at rtol 1e-7 exceeds with either scale
	// (ScaleParams: 558 steps at rtol 1e-6), the state alone does not.
	o.ODE.MaxSteps = 600
	_, err = Solve(r, q, ts, &o)
	var ce *CheckError
	var se *ode.StepError
	if !errors.As(err, &ce) || !ce.Retried || ce.Scale != ScaleParams || !errors.As(err, &se) {
		t.Fatalf("MaxSteps 600: %v, want a *CheckError after both scales", err)
	}
	for _, w := range []string{"reference solve", "then scaled by |p_j|", "FS solve, which succeeded", "larger RTol", "Check off"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message %q lacks %q", err, w)
		}
	}
}

// maxColScaled is the largest over outputs k >= 1 and columns j of
// ||S_kj - R_kj||_2 / (rtol ||R_kj||_2 + atol/pbar_j), pbar_j = |p of
// column j| (1 at 0): the error of p_j S_ij in units of the state's
// tolerances, per column, the norm in which ScaleParams holds S.
func maxColScaled(got, ref *Result, p []float64, params []int, rtol, atol float64) float64 {
	nx, ns := got.NX, got.NS
	var worst float64
	for k := 1; k < len(ref.T); k++ {
		g, r := got.SAt(k), ref.SAt(k)
		for j := 0; j < ns; j++ {
			var d2, r2 float64
			for i := 0; i < nx; i++ {
				d := g[i*ns+j] - r[i*ns+j]
				d2 += d * d
				r2 += r[i*ns+j] * r[i*ns+j]
			}
			pj := j
			if params != nil {
				pj = params[j]
			}
			pb := math.Abs(p[pj])
			if pb == 0 {
				pb = 1
			}
			worst = math.Max(worst, math.Sqrt(d2)/(rtol*math.Sqrt(r2)+atol/pb))
		}
	}
	return worst
}
