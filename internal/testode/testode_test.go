package testode

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
)

func allWithAnalytic() []Problem {
	return append(All(), Linear(1, 2), Linear(1, 1000), Blowup())
}

// TestJacobians checks the hand-written Jx and Jp of every problem against
// central finite differences of F at seeded random points near the initial
// and reference values.
func TestJacobians(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, pr := range allWithAnalytic() {
		m := pr.Model
		nx, np := model.NumStates(m), model.NumParams(m)
		p := make([]float64, np)
		m.DefaultParams(p)
		x := make([]float64, nx)
		for trial := 0; trial < 5; trial++ {
			for i := range x {
				x[i] = 0.1 + rng.Float64()
			}
			checkJac(t, pr.Name+" Jx", m.JxPattern(), nx, nx, func(dst []float64) { m.Jx(dst, 0, x, p) },
				func(dst []float64, j int, h float64) {
					xs := append([]float64(nil), x...)
					xs[j] += h
					m.F(dst, 0, xs, p)
				}, x)
			checkJac(t, pr.Name+" Jp", m.JpPattern(), nx, np, func(dst []float64) { m.Jp(dst, 0, x, p) },
				func(dst []float64, j int, h float64) {
					ps := append([]float64(nil), p...)
					ps[j] += h
					m.F(dst, 0, x, ps)
				}, p)
		}
	}
}

func checkJac(t *testing.T, name string, pat *model.Pattern, rows, cols int, jac func([]float64), fshift func([]float64, int, float64), at []float64) {
	t.Helper()
	if err := pat.Validate(); err != nil || pat.Rows != rows || pat.Cols != cols {
		t.Fatalf("%s: bad pattern %v", name, err)
	}
	vals := make([]float64, pat.NNZ())
	for i := range vals {
		vals[i] = math.NaN()
	}
	jac(vals)
	dense := make([]float64, rows*cols)
	pat.ScatterTo(dense, vals)
	fp, fm := make([]float64, rows), make([]float64, rows)
	for j := 0; j < cols; j++ {
		h := 1e-6 * math.Max(math.Abs(at[j]), 1e-3)
		fshift(fp, j, h)
		fshift(fm, j, -h)
		for i := 0; i < rows; i++ {
			fd := (fp[i] - fm[i]) / (2 * h)
			got := dense[i*cols+j]
			scale := math.Max(math.Abs(fd), math.Abs(got))
			// Relative to the entry, with an absolute floor from the
			// rounding error of the differences of f.
			tol := 1e-6*scale + 1e-8*(math.Abs(fp[i])+math.Abs(fm[i]))/h
			if math.Abs(fd-got) > tol || got != got {
				t.Errorf("%s[%d,%d]: analytic %g, finite difference %g", name, i, j, got, fd)
			}
		}
	}
}

// TestLinearClosedForm checks the closed-form sensitivities of Linear by
// central differences of the closed-form solution.
func TestLinearClosedForm(t *testing.T) {
	p := []float64{0.7, 3}
	s := make([]float64, 4)
	xp, xm := make([]float64, 2), make([]float64, 2)
	for _, tt := range []float64{0.1, 1, 5} {
		LinearSens(s, tt, p)
		for j := 0; j < 2; j++ {
			h := 1e-6
			pp := append([]float64(nil), p...)
			pp[j] += h
			LinearSolution(xp, tt, pp)
			pp[j] -= 2 * h
			LinearSolution(xm, tt, pp)
			for i := 0; i < 2; i++ {
				fd := (xp[i] - xm[i]) / (2 * h)
				if math.Abs(fd-s[i*2+j]) > 1e-8 {
					t.Errorf("t=%g dx%d/dp%d: closed form %g, fd %g", tt, i, j, s[i*2+j], fd)
				}
			}
		}
	}
}

// TestInvariants checks the conservation laws stated in REFERENCE.md on the
// reference values (a transcription check).
func TestInvariants(t *testing.T) {
	r := Rober().Refs[1].X
	if d := r[0] + r[1] + r[2] - 1; math.Abs(d) > 1e-16 {
		t.Errorf("ROBER sum defect %g", d)
	}
	h := Hires().Refs[0].X
	if d := h[6] + h[7] - 0.0057; math.Abs(d) > 1e-17 {
		t.Errorf("HIRES y7+y8 defect %g", d)
	}
}
