package ode

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/pbgen/pbgen/runtime/model"
)

// sqrtEdge is x' = 1, y' = sqrt(k - x) with k = p[0]: f is NaN once x
// passes k, as with a rate law that is undefined past a threshold. From
// x(0) = 0 the exact solution reaches the edge at t = k.
type sqrtEdge struct{}

func (sqrtEdge) Name() string                  { return "sqrtEdge" }
func (sqrtEdge) StateNames() []string          { return []string{"x", "y"} }
func (sqrtEdge) ParamNames() []string          { return []string{"k"} }
func (sqrtEdge) DefaultParams(dst []float64)   { dst[0] = 2 }
func (sqrtEdge) InitialState(dst, p []float64) { dst[0], dst[1] = 0, 0 }
func (sqrtEdge) InitialSens(dst, p []float64)  { clear(dst) }
func (sqrtEdge) F(dst []float64, t float64, x, p []float64) {
	dst[0] = 1
	dst[1] = math.Sqrt(p[0] - x[0])
}
func (sqrtEdge) JxPattern() *model.Pattern {
	return &model.Pattern{Rows: 2, Cols: 2, RowPtr: []int{0, 0, 1}, ColIdx: []int{0}}
}
func (sqrtEdge) Jx(dst []float64, t float64, x, p []float64) { dst[0] = -0.5 / math.Sqrt(p[0]-x[0]) }
func (sqrtEdge) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: 2, Cols: 1, RowPtr: []int{0, 0, 1}, ColIdx: []int{0}}
}
func (sqrtEdge) Jp(dst []float64, t float64, x, p []float64) { dst[0] = 0.5 / math.Sqrt(p[0]-x[0]) }

// TestBDFNonFiniteF: with BDF, an f that turns NaN mid-solve is reported as
// ErrNonFinite naming the component, not as a step size underflow (which is
// what the step cuts after the NaN trials used to end in).
//
// T is the last accepted time. x' = 1 is integrated exactly by BDF (the
// predictor reproduces polynomials), so x = t up to the rounding of the
// sums t + h, at most half an ulp of 2 (2.2e-16) per step over a few
// hundred steps; an accepted x never exceeds 2 (f is evaluated there and
// would be NaN); and the solver only gives up when steps near 1e-16 from x
// still meet NaN, so 2 - x is a few ulps. |T - 2| <= 1e-12 leaves a wide
// margin over these bounds while still failing for a report at an earlier
// step (the old underflow also came at t ~ 2; its kind is what changed).
func TestBDFNonFiniteF(t *testing.T) {
	const edge = 2
	cases := []struct {
		name   string
		st     Settings
		x0     []float64
		sens   *SensSettings
		wantT  float64
		reason string
	}{
		{"default", Settings{}, []float64{0, 0}, nil, edge, "underflowed"},
		{"rtol 1e-4", Settings{RTol: 1e-4, ATol: 1e-6}, []float64{0, 0}, nil, edge, "underflowed"},
		{"rtol 1e-10", Settings{RTol: 1e-10, ATol: 1e-12}, []float64{0, 0}, nil, edge, "underflowed"},
		{"interpolate", Settings{Interpolate: true}, []float64{0, 0}, nil, edge, "underflowed"},
		{"sens", Settings{}, []float64{0, 0}, &SensSettings{}, edge, "underflowed"},
		{"sens errcon", Settings{}, []float64{0, 0}, &SensSettings{ErrCon: true}, edge, "underflowed"},
		// Starting on the edge: every forward trial is NaN, t0 + h never
		// underflows at t0 = 0, and the corrector failure limit ends it.
		{"at the edge", Settings{}, []float64{edge, 0}, nil, 0, "repeatedly"},
	}
	p := []float64{edge}
	tout := []float64{1, 5}
	for _, c := range cases {
		s := NewSolver(sqrtEdge{}, &c.st)
		var tr Trajectory
		var err error
		if c.sens != nil {
			dst := make([]float64, len(tout)*2)
			err = s.IntegrateSens(&tr, dst, p, c.x0, nil, 0, tout, c.sens)
		} else {
			err = s.Integrate(&tr, p, c.x0, 0, tout)
		}
		var se *StepError
		if !errors.As(err, &se) {
			t.Fatalf("%s: error %v, want *StepError", c.name, err)
		}
		t.Logf("%s: %v (%d steps, %d rejected)", c.name, err, s.Stats().Steps, s.Stats().Rejected)
		if se.Kind != ErrNonFinite || se.Index != 1 {
			t.Errorf("%s: kind %v index %d, want %v index 1", c.name, se.Kind, se.Index, ErrNonFinite)
		}
		if !(math.Abs(se.T-c.wantT) <= 1e-12) || !(se.H > 0) {
			t.Errorf("%s: T = %v H = %v, want T within 1e-12 of %v and H > 0", c.name, se.T, se.H, c.wantT)
		}
		// X is the last accepted state up to rounding: retries undo the
		// prediction by subtracting the Nordsieck columns again (cvRestore).
		last := tr.Len() - 1
		if tr.T[last] != se.T || len(se.X) != 2 || !floats.EqualApprox(se.X, tr.XAt(last), 1e-15) {
			t.Errorf("%s: error at T=%v X=%v, last accepted point t=%v x=%v", c.name, se.T, se.X, tr.T[last], tr.XAt(last))
		}
		if !(se.X[0] <= edge && se.X[0] >= edge-1e-12) {
			t.Errorf("%s: x = %v at the failure, want just below %v", c.name, se.X[0], edge)
		}
		if msg := err.Error(); !strings.Contains(msg, "component 1") || !strings.Contains(msg, c.reason) {
			t.Errorf("%s: message %q, want component 1 and %q", c.name, msg, c.reason)
		}
		if c.st.Interpolate || c.wantT == 0 {
			continue
		}
		// The output before the failure is kept: y(1) = 2/3 (2^1.5 - 1).
		if len(tr.Out) != 1 || math.Abs(tr.XAt(tr.Out[0])[1]-2.0/3*(math.Pow(2, 1.5)-1)) > 1e-3 {
			t.Errorf("%s: output at t=1 lost or wrong", c.name)
		}
	}
}

// nanBelow is the stiff decay x' = -k x (k = p[0]) whose f is NaN for
// x < -1/2, a region the solution e^{-kt} never enters. A trial step with
// h > 1.5/k from x = 1 predicts x = 1 - kh < -1/2 and meets the NaN.
type nanBelow struct{}

func (nanBelow) Name() string                  { return "nanBelow" }
func (nanBelow) StateNames() []string          { return []string{"x"} }
func (nanBelow) ParamNames() []string          { return []string{"k"} }
func (nanBelow) DefaultParams(dst []float64)   { dst[0] = 1000 }
func (nanBelow) InitialState(dst, p []float64) { dst[0] = 1 }
func (nanBelow) InitialSens(dst, p []float64)  { dst[0] = 0 }
func (nanBelow) F(dst []float64, t float64, x, p []float64) {
	if x[0] < -0.5 {
		dst[0] = math.NaN()
		return
	}
	dst[0] = -p[0] * x[0]
}
func (nanBelow) JxPattern() *model.Pattern {
	return &model.Pattern{Rows: 1, Cols: 1, RowPtr: []int{0, 1}, ColIdx: []int{0}}
}
func (nanBelow) Jx(dst []float64, t float64, x, p []float64) { dst[0] = -p[0] }
func (nanBelow) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: 1, Cols: 1, RowPtr: []int{0, 1}, ColIdx: []int{0}}
}
func (nanBelow) Jp(dst []float64, t float64, x, p []float64) { dst[0] = -x[0] }

// nanCount counts the NaN evaluations of nanBelow's f (a test-only
// mutable model, used from one goroutine).
type nanCount struct {
	nanBelow
	n *int
}

func (m nanCount) F(dst []float64, t float64, x, p []float64) {
	m.nanBelow.F(dst, t, x, p)
	if dst[0] != dst[0] {
		*m.n++
	}
}

// TestBDFNonFiniteRecovers: a NaN at an overly large trial step is a
// recoverable failure, as in CVODE. With H0 = 0.01 and k = 1000 the
// predictor (explicit Euler for the first step) gives x = -9 and, after one
// cut by 1/4, -1.5, both NaN; the third trial, h = 6.25e-4, predicts 0.375,
// its corrector converges and the error test takes over the step control.
// The solve then finishes with the accuracy of the same solve started from
// the automatic step, which never meets the NaN.
func TestBDFNonFiniteRecovers(t *testing.T) {
	p := []float64{1000}
	tout := []float64{0.01, 0.1, 1}
	for _, h0 := range []float64{0, 0.01} {
		name := fmt.Sprintf("H0=%g", h0)
		var nan int
		s := NewSolver(nanCount{n: &nan}, &Settings{RTol: 1e-6, ATol: 1e-10, H0: h0})
		var tr Trajectory
		if err := s.Integrate(&tr, p, []float64{1}, 0, tout); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		st := s.Stats()
		t.Logf("%s: %d steps, %d NaN evaluations, %d Newton failures, first step %g", name, st.Steps, nan, st.NewtonFails, tr.T[1])
		want := 0
		if h0 > 0 {
			want = 2
		}
		// f is linear with an exact Jx, so the corrector fails only on NaN.
		if nan != want || st.NewtonFails != want {
			t.Errorf("%s: %d NaN evaluations, %d Newton failures; want %d of each", name, nan, st.NewtonFails, want)
		}
		for i, k := range tr.Out {
			got, want := tr.XAt(k)[0], math.Exp(-p[0]*tout[i])
			// Global error of a few hundred local tolerances (see
			// maxGlobalToLocal), relative to x or to atol near 0.
			if math.Abs(got-want) > maxGlobalToLocal*(1e-6*want+1e-10) {
				t.Errorf("%s: x(%v) = %v, want %v", name, tout[i], got, want)
			}
		}
	}
}
