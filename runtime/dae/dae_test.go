package dae_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/pbgen/pbgen/runtime/dae"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sens"
)

// cubic is a hand-written index-1 DAE with an exact solution:
//
//	x' = -p0 z,  y' = z,  0 = z^3 + z - x^3 - x,  x(0) = p1, y(0) = 0,
//
// whose residual, monotone in z, forces z = x, so x = p1 e^{-p0 t} and
// y = p1 (1 - e^{-p0 t}) / p0. The first guess of z is 0 (inconsistent),
// so the initial state and every F go through Newton's method on a
// nonlinear residual.
type cubic struct{}

func (cubic) Name() string                  { return "cubic" }
func (cubic) StateNames() []string          { return []string{"x", "y", "z"} }
func (cubic) ParamNames() []string          { return []string{"p0", "p1"} }
func (cubic) DefaultParams(dst []float64)   { copy(dst, []float64{0.8, 1.5}) }
func (cubic) NumAlgebraic() int             { return 1 }
func (cubic) InitialState(dst, p []float64) { copy(dst, []float64{p[1], 0, 0}) }
func (cubic) InitialSens(dst, p []float64)  { copy(dst, []float64{0, 1, 0, 0, 0, 0}) }
func (cubic) F(dst []float64, t float64, x, p []float64) {
	dst[0] = -p[0] * x[2]
	dst[1] = x[2]
	dst[2] = x[2]*x[2]*x[2] + x[2] - x[0]*x[0]*x[0] - x[0]
}
func (cubic) JxPattern() *model.Pattern {
	return &model.Pattern{Rows: 3, Cols: 3, RowPtr: []int{0, 1, 2, 4}, ColIdx: []int{2, 2, 0, 2}}
}
func (cubic) Jx(dst []float64, t float64, x, p []float64) {
	dst[0], dst[1] = -p[0], 1
	dst[2], dst[3] = -(3*x[0]*x[0] + 1), 3*x[2]*x[2]+1
}
func (cubic) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: 3, Cols: 2, RowPtr: []int{0, 1, 1, 1}, ColIdx: []int{0}}
}
func (cubic) Jp(dst []float64, t float64, x, p []float64)        { dst[0] = -x[2] }
func (cubic) ResidualT(dst []float64, t float64, x, p []float64) { dst[0] = 0 }

func TestCubicExact(t *testing.T) {
	m, err := dae.New(cubic{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.StateNames(); len(got) != 2 || got[0] != "x" || got[1] != "y" {
		t.Fatalf("StateNames = %v", got)
	}
	// Reduced patterns: x' = -p0 z(x) depends on x and p0; y' = z(x) on x.
	if jx := m.JxPattern(); jx.NNZ() != 2 || jx.ColIdx[0] != 0 || jx.ColIdx[1] != 0 {
		t.Errorf("reduced Jx pattern %+v", jx)
	}
	p := []float64{0.8, 1.5}
	ts := []float64{0, 0.5, 1, 2, 5}
	for _, meth := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
		res, err := sens.Solve(m, p, ts, &sens.Options{Method: meth, ErrCon: true, RTol: 1e-10, ATol: 1e-12})
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		worst := 0.0
		for k, tk := range ts {
			e := math.Exp(-p[0] * tk)
			x := []float64{p[1] * e, p[1] * (1 - e) / p[0]}
			// S rows x, y; columns p0, p1.
			S := []float64{
				-tk * p[1] * e, e,
				p[1] * (tk*e*p[0] - (1 - e)) / (p[0] * p[0]), (1 - e) / p[0],
			}
			for i, v := range x {
				worst = math.Max(worst, math.Abs(res.XAt(k)[i]-v)/1.5)
			}
			for i, v := range S {
				worst = math.Max(worst, math.Abs(res.SAt(k)[i]-v)/5)
			}
		}
		t.Logf("%v: worst error against the exact solution %.2g", meth, worst)
		limit := map[sens.Method]float64{sens.FS: 1e-8, sens.PBSR: 1e-7, sens.Exp: 1e-4}[meth]
		if worst > limit {
			t.Errorf("%v: error %.2g against the exact solution", meth, worst)
		}
	}
	z := make([]float64, 1)
	if err := m.Consistent(z, p); err != nil || math.Abs(z[0]-p[1]) > 1e-14 {
		t.Errorf("Consistent: z0 = %v, %v; want %v", z, err, p[1])
	}
	outs := m.Outputs()
	if len(outs) != 1 || outs[0] != "z" {
		t.Errorf("Outputs = %v, want [z]", outs)
	}
}

// singular has g = z^2 + 1, which has no real root: g_z = 2z is
// singular at the guess 0 and Newton cannot converge elsewhere.
type singular struct{ cubic }

func (singular) F(dst []float64, t float64, x, p []float64) {
	dst[0], dst[1], dst[2] = -p[0]*x[2], x[2], x[2]*x[2]+1
}
func (singular) Jx(dst []float64, t float64, x, p []float64) {
	dst[0], dst[1], dst[2], dst[3] = -p[0], 1, 0, 2*x[2]
}

func TestNoSolution(t *testing.T) {
	m, err := dae.New(singular{})
	if err != nil {
		t.Fatal(err)
	}
	p := []float64{0.8, 1.5}
	if err := m.Consistent(nil, p); err == nil {
		t.Fatal("Consistent found a root of z^2 + 1")
	}
	f := make([]float64, 2)
	m.F(f, 0, []float64{1, 0}, p)
	if !math.IsNaN(f[0]) {
		t.Errorf("F = %v, want NaN where z cannot be solved", f)
	}
	if _, err := sens.Solve(m, p, []float64{0, 1}, nil); err == nil {
		t.Error("sens.Solve succeeded on a DAE without solution")
	}
}

// structural has a residual row that does not depend on z.
type structural struct{ cubic }

func (structural) JxPattern() *model.Pattern {
	return &model.Pattern{Rows: 3, Cols: 3, RowPtr: []int{0, 1, 2, 3}, ColIdx: []int{2, 2, 0}}
}

func TestStructurallySingular(t *testing.T) {
	_, err := dae.New(structural{})
	if !errors.Is(err, dae.ErrStructure) {
		t.Fatalf("New: %v, want ErrStructure", err)
	}
}

// TestNoAlloc checks that F, Jx and Jp allocate nothing in steady state.
func TestNoAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items: allocation counts are meaningless")
	}
	m, err := dae.New(cubic{})
	if err != nil {
		t.Fatal(err)
	}
	p, x := []float64{0.8, 1.5}, []float64{1.2, 0.1}
	f, jx, jp := make([]float64, 2), make([]float64, m.JxPattern().NNZ()), make([]float64, m.JpPattern().NNZ())
	n := testing.AllocsPerRun(100, func() {
		m.F(f, 0, x, p)
		m.Jx(jx, 0, x, p)
		m.Jp(jp, 0, x, p)
	})
	if n > 0 {
		t.Errorf("F, Jx, Jp allocate %v times per call", n)
	}
}

// reduced is the ODE that cubic reduces to, written out (z = x):
// x' = -p0 x, y' = x.
type reduced struct{ cubic }

func (reduced) StateNames() []string          { return []string{"x", "y"} }
func (reduced) NumAlgebraic() int             { return 0 }
func (reduced) InitialState(dst, p []float64) { copy(dst, []float64{p[1], 0}) }
func (reduced) InitialSens(dst, p []float64)  { copy(dst, []float64{0, 1, 0, 0}) }
func (reduced) F(dst []float64, t float64, x, p []float64) {
	dst[0], dst[1] = -p[0]*x[0], x[0]
}
func (reduced) JxPattern() *model.Pattern {
	return &model.Pattern{Rows: 2, Cols: 2, RowPtr: []int{0, 1, 2}, ColIdx: []int{0, 0}}
}
func (reduced) Jx(dst []float64, t float64, x, p []float64) { dst[0], dst[1] = -p[0], 1 }
func (reduced) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: 2, Cols: 2, RowPtr: []int{0, 1, 1}, ColIdx: []int{0}}
}
func (reduced) Jp(dst []float64, t float64, x, p []float64) { dst[0] = -x[0] }

// TestReductionCostsNothing compares each method's error against the
// exact solution on the DAE cubic with its error on the ODE cubic reduces
// to, written out: the elimination must not add error (at most 1.5 times
// the ODE's, plus 1e-9). Measured at rtol 1e-10: FS 1.3e-10 and 8.9e-11,
// PBSR 8.6e-10 on both (4.6e-8 before its order 3 steps), Exp 6.1e-6 and 6.0e-6 (Exp's steps follow
// rounding differences in f, so its DAE and ODE solutions differ by up to
// 1e-6, within its own error).
func TestReductionCostsNothing(t *testing.T) {
	m, err := dae.New(cubic{})
	if err != nil {
		t.Fatal(err)
	}
	p := []float64{0.8, 1.5}
	ts := []float64{0, 0.5, 1, 2, 5}
	exactErr := func(res *sens.Result) float64 {
		worst := 0.0
		for k, tk := range ts {
			e := math.Exp(-p[0] * tk)
			x := []float64{p[1] * e, p[1] * (1 - e) / p[0]}
			S := []float64{-tk * p[1] * e, e, p[1] * (tk*e*p[0] - (1 - e)) / (p[0] * p[0]), (1 - e) / p[0]}
			for i, v := range x {
				worst = math.Max(worst, math.Abs(res.XAt(k)[i]-v)/1.5)
			}
			for i, v := range S {
				worst = math.Max(worst, math.Abs(res.SAt(k)[i]-v)/5)
			}
		}
		return worst
	}
	for _, meth := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
		opt := &sens.Options{Method: meth, ErrCon: true, RTol: 1e-10, ATol: 1e-12}
		a, err := sens.Solve(m, p, ts, opt)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sens.Solve(reduced{}, p, ts, opt)
		if err != nil {
			t.Fatal(err)
		}
		ea, eb := exactErr(a), exactErr(b)
		t.Logf("%v: error against the exact solution %.2g on the DAE, %.2g on its reduced ODE", meth, ea, eb)
		if ea > 1.5*eb+1e-9 {
			t.Errorf("%v: the DAE's error %.2g exceeds its reduced ODE's %.2g", meth, ea, eb)
		}
	}
}

// TestConcurrent calls F from several goroutines on one Model (each call
// borrows its own scratch space and warm start) and checks every result
// against z = x.
func TestConcurrent(t *testing.T) {
	m, err := dae.New(cubic{})
	if err != nil {
		t.Fatal(err)
	}
	p := []float64{0.8, 1.5}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			f := make([]float64, 2)
			for i := 0; i < 200; i++ {
				x := []float64{0.1 + float64(g) + 0.01*float64(i), 0}
				m.F(f, 0, x, p)
				if math.Abs(f[1]-x[0]) > 1e-13*x[0] || math.Abs(f[0]+p[0]*x[0]) > 1e-13*x[0] {
					errs <- fmt.Errorf("goroutine %d: F(%v) = %v", g, x, f)
					return
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
