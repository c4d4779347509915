//go:build cvodes

package cvodes

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/pbgen/pbgen/runtime/model"
)

// solveAll runs one solve with a fresh Solver and returns x and S.
func solveAll(t testing.TB, m model.Model, opt Options, p []float64, tout []float64) (x, S []float64, st Stats) {
	t.Helper()
	s, err := New(m, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	nx, np := model.NumStates(m), model.NumParams(m)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	x = nanSlice(len(tout) * nx)
	if opt.Sens {
		if opt.Params != nil {
			np = len(opt.Params)
		}
		S = nanSlice(len(tout) * nx * np)
	}
	if err := s.Solve(p, x0, 0, tout, x, S); err != nil {
		t.Fatal(err)
	}
	return x, S, s.LastStats()
}

func nanSlice(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

func defaults(m model.Model) []float64 {
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	return p
}

func linspace(a, b float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = a + (b-a)*float64(i)/float64(n-1)
	}
	return v
}

func TestLinearClosedForm(t *testing.T) {
	m := linModel{}
	p := defaults(m)
	tout := linspace(0, 10, 21) // includes t0 = 0
	for _, errcon := range []bool{false, true} {
		t.Run(fmt.Sprintf("errcon=%v", errcon), func(t *testing.T) {
			x, S, st := solveAll(t, m, Options{RTol: 1e-10, ATol: 1e-12, Sens: true, ErrCon: errcon}, p, tout)
			wx, wS := make([]float64, 2), make([]float64, 6)
			for k, tk := range tout {
				linExact(wx, wS, tk, p)
				for i := range wx {
					if !scalar.EqualWithinAbsOrRel(x[k*2+i], wx[i], 1e-9, 1e-8) {
						t.Errorf("t=%g x%d = %.12g, want %.12g", tk, i, x[k*2+i], wx[i])
					}
				}
				for i := range wS {
					if !scalar.EqualWithinAbsOrRel(S[k*6+i], wS[i], 1e-8, 1e-7) {
						t.Errorf("t=%g S[%d,%d] = %.12g, want %.12g", tk, i/3, i%3, S[k*6+i], wS[i])
					}
				}
			}
			if st.Steps == 0 || st.SensFEvals == 0 || st.JacEvals == 0 || st.LUs == 0 {
				t.Errorf("stats %+v: want steps, sensitivity evaluations, Jacobians and LUs", st)
			}
			if st.FEvalsSens != 0 {
				t.Errorf("FEvalsSens = %d, want 0 with an analytic sensitivity right-hand side", st.FEvalsSens)
			}
			if !errcon && st.SensErrFails != 0 {
				t.Errorf("SensErrFails = %d without ErrCon", st.SensErrFails)
			}
		})
	}
}

// rob40 is the quadruple-precision recomputation of ROBER at t = 40, the
// reference internal/testode uses.
var rob40 = []float64{7.15827068719405090e-1, 9.18553476455776390e-6, 2.84163745745830352e-1}

func TestRobertsonReference(t *testing.T) {
	m := robModel{}
	p := defaults(m)
	for _, sens := range []bool{false, true} {
		x, _, st := solveAll(t, m, Options{RTol: 1e-8, ATol: 1e-14, Sens: sens, ErrCon: true}, p, []float64{0.4, 4, 40})
		for i, want := range rob40 {
			got := x[2*3+i]
			t.Logf("sens=%v y%d(40) = %.15g, rel err %.2e", sens, i+1, got, math.Abs(got-want)/want)
			if !scalar.EqualWithinAbsOrRel(got, want, 0, 5e-7) {
				t.Errorf("sens=%v y%d(40) = %.15g, want %.15g", sens, i+1, got, want)
			}
		}
		t.Logf("sens=%v stats %+v", sens, st)
	}
}

// centralFD returns the central-difference sensitivities dx(tout)/dp
// (row-major nx x np per time) with relative steps h, each x solved with opt
// and Sens off.
func centralFD(t *testing.T, m model.Model, opt Options, p, tout []float64, h float64) []float64 {
	nx, np := model.NumStates(m), model.NumParams(m)
	opt.Sens = false
	S := make([]float64, len(tout)*nx*np)
	q := make([]float64, np)
	for j := 0; j < np; j++ {
		dp := h * math.Abs(p[j])
		copy(q, p)
		q[j] = p[j] + dp
		xp, _, _ := solveAll(t, m, opt, q, tout)
		q[j] = p[j] - dp
		xm, _, _ := solveAll(t, m, opt, q, tout)
		for k := range tout {
			for i := 0; i < nx; i++ {
				S[k*nx*np+i*np+j] = (xp[k*nx+i] - xm[k*nx+i]) / (2 * dp)
			}
		}
	}
	return S
}

// checkFD compares S with finite differences, scaled to p_j S_ij so that
// parameters of very different size weigh alike, with an absolute floor
// relative to the largest scaled entry of each state.
func checkFD(t *testing.T, m model.Model, opt Options, p, tout []float64, h, tol float64) {
	nx, np := model.NumStates(m), model.NumParams(m)
	// The differences are taken from solves 100 times more accurate, so
	// that their noise (about rtol*|x|/h) stays below tol.
	fdOpt := opt
	fdOpt.RTol /= 100
	fdOpt.ATol /= 100
	fdS := centralFD(t, m, fdOpt, p, tout, h)
	for _, errcon := range []bool{false, true} {
		o := opt
		o.Sens, o.ErrCon = true, errcon
		_, S, _ := solveAll(t, m, o, p, tout)
		worst := 0.0
		for k, tk := range tout {
			for i := 0; i < nx; i++ {
				scale := 0.0
				for j := 0; j < np; j++ {
					scale = math.Max(scale, math.Abs(p[j]*fdS[k*nx*np+i*np+j]))
				}
				for j := 0; j < np; j++ {
					got, want := p[j]*S[k*nx*np+i*np+j], p[j]*fdS[k*nx*np+i*np+j]
					d := math.Abs(got-want) / (scale + 1e-300)
					worst = math.Max(worst, d)
					if d > tol {
						t.Errorf("errcon=%v t=%g p_j*S[%d,%d] = %.10g, finite differences %.10g", errcon, tk, i, j, got, want)
					}
				}
			}
		}
		t.Logf("errcon=%v worst scaled difference from finite differences %.2e", errcon, worst)
	}
}

func TestSensFiniteDifferences(t *testing.T) {
	t.Run("lin", func(t *testing.T) {
		m := linModel{}
		checkFD(t, m, Options{RTol: 1e-11, ATol: 1e-13, MaxSteps: 1e5}, defaults(m), []float64{0.5, 2, 8}, 1e-4, 1e-6)
	})
	t.Run("rober", func(t *testing.T) {
		m := robModel{}
		checkFD(t, m, Options{RTol: 1e-11, ATol: 1e-16, MaxSteps: 1e5}, defaults(m), []float64{0.4, 4, 40}, 1e-4, 1e-6)
	})
	t.Run("chain", func(t *testing.T) {
		m := chainModel(21)
		checkFD(t, m, Options{RTol: 1e-10, ATol: 1e-13, MaxSteps: 1e5}, defaults(m), []float64{1, 10, 100}, 1e-4, 5e-6)
	})
}

// TestModelJacobians checks the test models' own Jx and Jp against finite
// differences, so that the FS tests above test the solver, not the models.
func TestModelJacobians(t *testing.T) {
	for _, m := range []model.Model{linModel{}, robModel{}, chainModel(21)} {
		nx, np := model.NumStates(m), model.NumParams(m)
		p := defaults(m)
		x := make([]float64, nx)
		m.InitialState(x, p)
		for i := range x {
			x[i] += 0.1 * float64(i+1)
		}
		jx := make([]float64, m.JxPattern().NNZ())
		m.Jx(jx, 0, x, p)
		got := make([]float64, nx*nx)
		m.JxPattern().ScatterTo(got, jx)
		want := mat.NewDense(nx, nx, nil)
		fd.Jacobian(want, func(dst, y []float64) { m.F(dst, 0, y, p) }, x, &fd.JacobianSettings{Formula: fd.Central})
		if !mat.EqualApprox(mat.NewDense(nx, nx, got), want, 1e-5*mat.Norm(want, math.Inf(1))) {
			t.Errorf("%s: Jx differs from finite differences", m.Name())
		}
		jp := make([]float64, m.JpPattern().NNZ())
		m.Jp(jp, 0, x, p)
		gotp := make([]float64, nx*np)
		m.JpPattern().ScatterTo(gotp, jp)
		wantp := mat.NewDense(nx, np, nil)
		fd.Jacobian(wantp, func(dst, q []float64) { m.F(dst, 0, x, q) }, p, &fd.JacobianSettings{Formula: fd.Central})
		if !mat.EqualApprox(mat.NewDense(nx, np, gotp), wantp, 1e-5*mat.Norm(wantp, math.Inf(1))) {
			t.Errorf("%s: Jp differs from finite differences", m.Name())
		}
	}
}

func TestReuse(t *testing.T) {
	m := robModel{}
	p := defaults(m)
	s, err := New(m, Options{RTol: 1e-6, ATol: 1e-10, Sens: true, ErrCon: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tout := []float64{1, 10, 100}
	x0 := []float64{1, 0, 0}
	run := func(p []float64) ([]float64, []float64, Stats) {
		x, S := nanSlice(9), nanSlice(27)
		if err := s.Solve(p, x0, 0, tout, x, S); err != nil {
			t.Fatal(err)
		}
		return x, S, s.LastStats()
	}
	x1, S1, st1 := run(p)
	q := append([]float64(nil), p...)
	q[0] *= 2
	xq, _, _ := run(q)
	x2, S2, st2 := run(p)
	if st1 != st2 {
		t.Errorf("stats of identical solves differ: %+v vs %+v", st1, st2)
	}
	for i := range x1 {
		if x1[i] != x2[i] {
			t.Errorf("x[%d]: %v then %v for the same inputs", i, x1[i], x2[i])
		}
	}
	for i := range S1 {
		if S1[i] != S2[i] {
			t.Errorf("S[%d]: %v then %v for the same inputs", i, S1[i], S2[i])
		}
	}
	if scalar.EqualWithinAbsOrRel(xq[0], x1[0], 0, 1e-3) {
		t.Errorf("doubling k1 did not change y1(1): %v", xq[0])
	}
	// A fresh Solver with the doubled k1 gives the same answer as the reused one.
	xf, _, _ := solveAll(t, m, Options{RTol: 1e-6, ATol: 1e-10, Sens: true, ErrCon: true}, q, tout)
	for i := range xf {
		if xf[i] != xq[i] {
			t.Errorf("reused solver x[%d] = %v, fresh solver %v", i, xq[i], xf[i])
		}
	}
	tot := s.Stats()
	if tot.Solves != 3 || tot.Steps <= st1.Steps || tot.Steps >= 3*st1.Steps+1000 {
		t.Errorf("total stats %+v after 3 solves of %+v", tot, st1)
	}
}

func TestSolveAllocs(t *testing.T) {
	m := chainModel(21)
	p := defaults(m)
	s, err := New(m, Options{Sens: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tout := linspace(1, 60, 60)
	x0 := make([]float64, 21)
	m.InitialState(x0, p)
	x, S := make([]float64, 60*21), make([]float64, 60*21*40)
	allocs := testing.AllocsPerRun(5, func() {
		if err := s.Solve(p, x0, 0, tout, x, S); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Solve allocates %v times per call", allocs)
	}
}

func TestTooMuchWork(t *testing.T) {
	m := robModel{}
	opt := Options{RTol: 1e-8, ATol: 1e-14, MaxSteps: 50, Sens: true}
	s, err := New(m, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := defaults(m)
	x0 := []float64{1, 0, 0}
	x, S := make([]float64, 3), make([]float64, 9)
	err = s.Solve(p, x0, 0, []float64{40}, x, S)
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("Solve = %v, want *Error", err)
	}
	if ce.Name != "CV_TOO_MUCH_WORK" || ce.Op != "CVode" || !(ce.T > 0 && ce.T < 40) || ce.Tout != 40 {
		t.Errorf("error %+v, want CV_TOO_MUCH_WORK in CVode at 0 < t < 40", ce)
	}
	t.Log(err)
	// Afterwards the Solver gives, bit for bit, what a fresh one gives on a
	// problem within the step budget: outputs close enough to each other.
	tout := make([]float64, 200)
	for k := range tout {
		tout[k] = 1e-6 * math.Pow(40e6, float64(k)/199)
	}
	x, S = make([]float64, 3*len(tout)), make([]float64, 9*len(tout))
	if err := s.Solve(p, x0, 0, tout, x, S); err != nil {
		t.Fatalf("solve after a failure: %v", err)
	}
	fx, fS, _ := solveAll(t, m, opt, p, tout)
	for i := range fx {
		if x[i] != fx[i] {
			t.Errorf("x[%d] = %v after a failure, %v from a fresh Solver", i, x[i], fx[i])
		}
	}
	for i := range fS {
		if S[i] != fS[i] {
			t.Errorf("S[%d] = %v after a failure, %v from a fresh Solver", i, S[i], fS[i])
		}
	}
	if !scalar.EqualWithinAbsOrRel(x[len(x)-3], rob40[0], 0, 1e-6) {
		t.Errorf("y1(40) = %v, want %v", x[len(x)-3], rob40[0])
	}
}

// badModel wraps linModel with a right-hand side that fails from time
// from on: it panics or returns NaN.
type badModel struct {
	linModel
	from   float64
	panics bool
}

func (b badModel) F(dst []float64, t float64, x, p []float64) {
	b.linModel.F(dst, t, x, p)
	if t >= b.from {
		if b.panics {
			panic("boom")
		}
		dst[0] = math.NaN()
	}
}

func TestCallbackFailures(t *testing.T) {
	p := defaults(linModel{})
	cases := []struct {
		name   string
		m      badModel
		flag   string
		output bool // the output at t=0.5 is computed before the failure
	}{
		{"panic", badModel{from: 1, panics: true}, "CV_RHSFUNC_FAIL", true},
		{"panic at t0", badModel{from: 0, panics: true}, "CV_RHSFUNC_FAIL", false},
		// Recoverable failures from t=1 on make CVODES creep up to t=1.
		{"NaN", badModel{from: 1}, "CV_TOO_MUCH_WORK", true},
		{"NaN at t0", badModel{from: 0}, "CV_FIRST_RHSFUNC_ERR", false},
	}
	for _, c := range cases {
		s, err := New(c.m, Options{Sens: true})
		if err != nil {
			t.Fatal(err)
		}
		x, S := nanSlice(4), nanSlice(12)
		err = s.Solve(p, []float64{2, 0}, 0, []float64{0.5, 5}, x, S)
		var ce *Error
		if !errors.As(err, &ce) {
			t.Fatalf("%s: Solve = %v, want *Error", c.name, err)
		}
		t.Logf("%s: %v", c.name, err)
		if ce.Name != c.flag || ce.Msg == "" {
			t.Errorf("%s: error %+v, want %s with a message", c.name, ce, c.flag)
		}
		if c.m.panics != (ce.Cause != nil) || c.m.panics && !strings.Contains(ce.Cause.Error(), "boom") {
			t.Errorf("%s: cause %v", c.name, ce.Cause)
		}
		if c.output {
			wx, wS := make([]float64, 2), make([]float64, 6)
			linExact(wx, wS, 0.5, p)
			if !scalar.EqualWithinAbsOrRel(x[0], wx[0], 1e-4, 1e-4) {
				t.Errorf("%s: x1(0.5) = %v, want %v", c.name, x[0], wx[0])
			}
		}
		s.Close()
		s.Close() // idempotent
	}
	// After a recovered panic the Solver still works and reports no stale cause.
	s, err := New(badModel{from: 1, panics: true}, Options{Sens: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x, S := make([]float64, 2), make([]float64, 6)
	if err := s.Solve(p, []float64{2, 0}, 0, []float64{5}, x, S); err == nil {
		t.Fatal("no error from a panicking model")
	}
	if err := s.Solve(p, []float64{2, 0}, 0, []float64{0.5}, x, S); err != nil {
		t.Errorf("solve after a callback failure: %v", err)
	}
}

func TestMisusePanics(t *testing.T) {
	m := linModel{}
	s, err := New(m, Options{Sens: true})
	if err != nil {
		t.Fatal(err)
	}
	p := defaults(m)
	x0 := []float64{2, 0}
	x, S := make([]float64, 4), make([]float64, 12)
	cases := []struct {
		name string
		fn   func()
		msg  string
	}{
		{"p", func() { s.Solve(p[:2], x0, 0, []float64{1, 2}, x, S) }, "cvodes: p length mismatch"},
		{"x0", func() { s.Solve(p, x0[:1], 0, []float64{1, 2}, x, S) }, "cvodes: x0 length mismatch"},
		{"dstX", func() { s.Solve(p, x0, 0, []float64{1, 2}, x[:3], S) }, "cvodes: dstX length mismatch"},
		{"dstS", func() { s.Solve(p, x0, 0, []float64{1, 2}, x, S[:6]) }, "cvodes: dstS length mismatch"},
		{"order", func() { s.Solve(p, x0, 0, []float64{2, 1}, x, S) }, "cvodes: output times"},
		{"before", func() { s.Solve(p, x0, 3, []float64{1, 2}, x, S) }, "cvodes: output times"},
		{"nan", func() { s.Solve(p, x0, 0, []float64{1, math.NaN()}, x, S) }, "cvodes: output times"},
		{"tol", func() { New(m, Options{RTol: -1}) }, "cvodes: negative or NaN tolerance"},
		{"closed", func() { s.Close(); s.Solve(p, x0, 0, []float64{1, 2}, x, S) }, "cvodes: Solve on a closed Solver"},
	}
	for _, c := range cases {
		msg := func() (msg string) {
			defer func() { msg = fmt.Sprint(recover()) }()
			c.fn()
			return ""
		}()
		if !strings.HasPrefix(msg, c.msg) {
			t.Errorf("%s: panic %q, want %q", c.name, msg, c.msg)
		}
	}
}

func TestNoSens(t *testing.T) {
	m := linModel{}
	p := defaults(m)
	x, S, st := solveAll(t, m, Options{RTol: 1e-10, ATol: 1e-12}, p, []float64{3})
	if S != nil || st.SensFEvals != 0 {
		t.Errorf("sensitivities computed without Sens: %+v", st)
	}
	wx, wS := make([]float64, 2), make([]float64, 6)
	linExact(wx, wS, 3, p)
	if !scalar.EqualWithinAbsOrRel(x[0], wx[0], 1e-9, 1e-8) {
		t.Errorf("x1(3) = %v, want %v", x[0], wx[0])
	}
}

// TestErrConAccuracy runs the chain at the paper's tolerances with and
// without the sensitivities in the error test and measures S against a
// tight-tolerance reference: error control must not make S worse, and it
// costs steps.
func TestErrConAccuracy(t *testing.T) {
	m := chainModel(11)
	nx, np := model.NumStates(m), model.NumParams(m)
	p := defaults(m)
	tout := linspace(10, 200, 20)
	_, ref, _ := solveAll(t, m, Options{RTol: 1e-11, ATol: 1e-13, MaxSteps: -1, Sens: true, ErrCon: true}, p, tout)
	errOf := func(errcon bool) (float64, Stats) {
		_, S, st := solveAll(t, m, Options{RTol: 1e-5, ATol: 1e-6, MaxSteps: -1, Sens: true, ErrCon: errcon}, p, tout)
		worst := 0.0
		for k := range tout {
			for i := 0; i < nx; i++ {
				for j := 0; j < np; j++ {
					q := k*nx*np + i*np + j
					// The error test weighs S with rtol*|S| + atol (pbar = 1).
					worst = math.Max(worst, math.Abs(S[q]-ref[q])/(1e-5*math.Abs(ref[q])+1e-6))
				}
			}
		}
		return worst, st
	}
	off, stOff := errOf(false)
	on, stOn := errOf(true)
	t.Logf("worst S error in units of the error weight: errcon off %.3g (%d steps), on %.3g (%d steps)", off, stOff.Steps, on, stOn.Steps)
	if on > 100 {
		t.Errorf("with error control S is off by %.3g error weights", on)
	}
	if on > off*1.01 {
		t.Errorf("error control made S worse: %.3g > %.3g error weights", on, off)
	}
	if stOn.Steps < stOff.Steps || stOn.SensErrFails == 0 && stOn.Steps == stOff.Steps {
		t.Errorf("error control on S took %d steps, %d without", stOn.Steps, stOff.Steps)
	}
}
