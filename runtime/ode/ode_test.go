package ode

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/pbgen/pbgen/internal/testode"
	"github.com/pbgen/pbgen/runtime/model"
)

var workPrecision = flag.Bool("workprecision", false, "print the work-precision table (TestWorkPrecision)")

// setup returns default parameters and initial state of a problem.
func setup(pr testode.Problem) (p, x0 []float64) {
	m := pr.Model
	p = make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	x0 = make([]float64, model.NumStates(m))
	m.InitialState(x0, p)
	return p, x0
}

func refTimes(pr testode.Problem) []float64 {
	var ts []float64
	for _, c := range pr.Refs {
		ts = append(ts, c.T)
	}
	return ts
}

// scaledError is max over checkpoints and components of
// |x - ref| / (rtol |ref| + atol_i): the global error in units of the local
// error tolerance. 1 means "as accurate as one step's tolerance".
func scaledError(pr testode.Problem, tr *Trajectory, st Settings) float64 {
	var worst float64
	for k, c := range pr.Refs {
		x := tr.XAt(tr.Out[k])
		for i := range x {
			atol := st.ATol
			if st.ATolVec != nil {
				atol = st.ATolVec[i]
			}
			worst = math.Max(worst, math.Abs(x[i]-c.X[i])/(st.RTol*math.Abs(c.X[i])+atol))
		}
	}
	return worst
}

func problemSettings(pr testode.Problem, rtol float64) Settings {
	st := Settings{RTol: rtol, ATol: 1e-2 * rtol}
	if pr.ATolMax != nil {
		st.ATolVec = make([]float64, len(pr.ATolMax))
		for i, a := range pr.ATolMax {
			st.ATolVec[i] = math.Min(st.ATol, a)
		}
	}
	return st
}

// maxGlobalToLocal bounds the global error in units of the local tolerance
// (scaledError). Local error control does not bound global error by the
// tolerance itself; the factor is problem dependent. For reference, CVODE
// 6.4.1 on HIRES at rtol 1e-6, atol 1e-8 (testdata/cvode_hires.c) ends with
// |y6 - ref| = 1.7e-6, a scaled error of 106; we measure 110 at the same
// settings. At rtol 1e-10 the factor on HIRES and OREGO is at the mercy of
// rounding: with rtol multiplied by 1 + k 1e-9, k = 0..7 (no change an
// error control can see), OREGO's ranged from 220 to 475 and HIRES's from
// 199 to 516 with the row-by-row dense solve, from 243 to 586 and 236 to
// 364 with the column-by-column one of SUNDIALS's order (dense.Solve);
// the other problems stay below 40 (ROBER), 80 (VDPOL), 8 (E5) and 37
// (POLLU) either way. The bound sits above that spread.
const maxGlobalToLocal = 700

// TestReferenceProblems solves every stiff reference problem with BDF at a
// moderate (rtol 1e-6) and a tight (rtol 1e-10) tolerance, atol = rtol/100
// capped by the problem's ATolMax, and checks the error against the [S7] references.
func TestReferenceProblems(t *testing.T) {
	for _, pr := range testode.All() {
		for _, rtol := range []float64{1e-6, 1e-10} {
			st := problemSettings(pr, rtol)
			p, x0 := setup(pr)
			s := NewSolver(pr.Model, &st)
			var tr Trajectory
			tout := refTimes(pr)
			if err := s.Integrate(&tr, p, x0, pr.T0, tout); err != nil {
				t.Fatalf("%s rtol %g: %v", pr.Name, rtol, err)
			}
			for i, k := range tr.Out {
				if tr.T[k] != tout[i] {
					t.Errorf("%s: output %d at t=%v, want exactly %v", pr.Name, i, tr.T[k], tout[i])
				}
			}
			e := scaledError(pr, &tr, st)
			atol := st.ATol
			if st.ATolVec != nil {
				atol = floats.Min(st.ATolVec)
			}
			t.Logf("%-6s rtol %.0e atol >= %.0e: error/tolerance %.3g, %d steps", pr.Name, rtol, atol, e, s.Stats().Steps)
			if !(e <= maxGlobalToLocal) {
				t.Errorf("%s rtol %g: error %.3g tolerances, want <= %d", pr.Name, rtol, e, maxGlobalToLocal)
			}
		}
	}
}

// TestCVODEStatistics checks that the BDF reproduces CVODE's step sequence:
// HIRES at rtol 1e-4, atol 1e-6 to 321.8122 with analytic Jacobian, run with
// SUNDIALS 6.4.1 CVODE (testdata/cvode_hires.c), takes 188 steps with 12
// error test failures, 8 Jacobian evaluations, 45 linear solver setups and
// 308 nonlinear iterations.
func TestCVODEStatistics(t *testing.T) {
	pr := testode.Hires()
	p, x0 := setup(pr)
	s := NewSolver(pr.Model, &Settings{RTol: 1e-4, ATol: 1e-6})
	var tr Trajectory
	if err := s.Integrate(&tr, p, x0, 0, []float64{pr.TEnd}); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	want := Stats{Steps: 188, ErrFails: 12, JacEvals: 8, LUs: 45, NewtonIters: 308}
	got := Stats{Steps: st.Steps, ErrFails: st.ErrFails, JacEvals: st.JacEvals, LUs: st.LUs, NewtonIters: st.NewtonIters}
	if got != want {
		t.Errorf("HIRES statistics %+v, CVODE has %+v", got, want)
	}
	if tr.Len() != st.Steps+1 {
		t.Errorf("trajectory has %d points for %d steps", tr.Len(), st.Steps)
	}
}

// TestDOPRI5 checks the explicit method on non-stiff problems with closed
// form solutions: the linear chain (a, b) = (1, 2) and the nonlinear
// y' = y^2 up to t = 0.9 (y = 10).
func TestDOPRI5(t *testing.T) {
	for _, pr := range []testode.Problem{testode.Linear(1, 2), testode.Blowup()} {
		for _, rtol := range []float64{1e-6, 1e-10} {
			st := Settings{Method: DOPRI5, RTol: rtol, ATol: rtol * 1e-2}
			p, x0 := setup(pr)
			s := NewSolver(pr.Model, &st)
			var tr Trajectory
			tout := refTimes(pr)
			if err := s.Integrate(&tr, p, x0, 0, tout); err != nil {
				t.Fatal(err)
			}
			e := scaledError(pr, &tr, st)
			t.Logf("%-6s DOPRI5 rtol %.0e: error/tolerance %.3g, %d steps, %d f", pr.Name, rtol, e, s.Stats().Steps, s.Stats().FEvals)
			// The 5th-order solution is propagated; global errors stay
			// within a few tolerances on these problems.
			if !(e <= 10) {
				t.Errorf("%s rtol %g: error %.3g tolerances", pr.Name, rtol, e)
			}
			for i, k := range tr.Out {
				if tr.T[k] != tout[i] {
					t.Errorf("output %d at %v, want %v", i, tr.T[k], tout[i])
				}
			}
			// Every grid point carries f(t, x) (FSAL).
			f := make([]float64, tr.NX)
			for k := 0; k < tr.Len(); k++ {
				pr.Model.F(f, tr.T[k], tr.XAt(k), p)
				for i := range f {
					if f[i] != tr.FAt(k)[i] {
						t.Fatalf("grid point %d: F is not f(t, x)", k)
					}
				}
			}
		}
	}
}

// TestOutputGrid checks landing on output times (including t0 and a
// repeated time) for both methods, and the Interpolate mode.
func TestOutputGrid(t *testing.T) {
	pr := testode.Linear(1, 2)
	p, x0 := setup(pr)
	tout := []float64{0, 0.1, 0.1, 0.37, 1, 2.5, 2.5000001, 10}
	want := make([]float64, 2)
	for _, meth := range []Method{BDF, DOPRI5, Adams, CashKarp} {
		s := NewSolver(pr.Model, &Settings{Method: meth, RTol: 1e-8, ATol: 1e-10})
		var tr Trajectory
		if err := s.Integrate(&tr, p, x0, 0, tout); err != nil {
			t.Fatal(err)
		}
		if len(tr.Out) != len(tout) || tr.T[0] != 0 {
			t.Fatalf("%v: %d outputs, T[0] = %v", meth, len(tr.Out), tr.T[0])
		}
		for i, k := range tr.Out {
			if tr.T[k] != tout[i] {
				t.Errorf("%v: output %d at %v, want %v", meth, i, tr.T[k], tout[i])
			}
			testode.LinearSolution(want, tout[i], p)
			for j, v := range tr.XAt(k) {
				if math.Abs(v-want[j]) > 1e-7 {
					t.Errorf("%v: x%d(%v) = %v, want %v", meth, j, tout[i], v, want[j])
				}
			}
		}
		for k := 1; k < tr.Len(); k++ {
			if !(tr.T[k] > tr.T[k-1]) {
				t.Fatalf("%v: grid not increasing at %d", meth, k)
			}
		}
		// Interpolate: fewer grid points, none past the end, x by Hermite.
		si := NewSolver(pr.Model, &Settings{Method: meth, RTol: 1e-8, ATol: 1e-10, Interpolate: true})
		var tri Trajectory
		if err := si.Integrate(&tri, p, x0, 0, tout); err != nil {
			t.Fatal(err)
		}
		if tri.Out != nil || tri.T[tri.Len()-1] != 10 || tri.Len() >= tr.Len() {
			t.Errorf("%v interpolate: Out %v, last T %v, %d vs %d points", meth, tri.Out, tri.T[tri.Len()-1], tri.Len(), tr.Len())
		}
		x := make([]float64, 2)
		for _, tt := range tout {
			tri.InterpTo(x, tt)
			testode.LinearSolution(want, tt, p)
			for j := range x {
				if math.Abs(x[j]-want[j]) > 1e-5 {
					t.Errorf("%v interpolate: x%d(%v) = %v, want %v", meth, j, tt, x[j], want[j])
				}
			}
		}
	}
}

// TestSensLinear checks forward sensitivities against the closed form, for
// both methods, with and without ErrCon, for a parameter subset and a
// non-zero S(t0), in landing and in Interpolate mode.
func TestSensLinear(t *testing.T) {
	for _, pr := range []testode.Problem{testode.Linear(1, 2), testode.Linear(1, 1000)} {
		p, x0 := setup(pr)
		tout := []float64{0, 0.5, 1, 3, 10}
		want := make([]float64, 4)
		for _, meth := range []Method{BDF, DOPRI5, Adams, CashKarp} {
			if meth != BDF && pr.Stiff {
				continue
			}
			for _, errcon := range []bool{false, true} {
				for _, interp := range []bool{false, true} {
					name := fmt.Sprintf("%s/%v/errcon=%v/interp=%v", pr.Name, meth, errcon, interp)
					rtol := 1e-8
					s := NewSolver(pr.Model, &Settings{Method: meth, RTol: rtol, ATol: 1e-10, Interpolate: interp})
					var tr Trajectory
					dst := make([]float64, len(tout)*4)
					if err := s.IntegrateSens(&tr, dst, p, x0, nil, 0, tout, &SensSettings{ErrCon: errcon}); err != nil {
						t.Fatal(name, err)
					}
					var worst float64
					for i, tt := range tout {
						testode.LinearSens(want, tt, p)
						for j := range want {
							worst = math.Max(worst, math.Abs(dst[i*4+j]-want[j])/(rtol*math.Abs(want[j])+1e-10))
						}
					}
					st := s.Stats()
					t.Logf("%s: S error/tolerance %.3g, %d steps, %d sens iterations", name, worst, st.Steps, st.SensNewtonIters)
					// With ErrCon the sensitivities are under error control;
					// without it they follow the state's steps, which on
					// this problem is as accurate. Interpolation (cubic
					// Hermite for DOPRI5) costs accuracy between steps.
					bound := 100.0
					if interp {
						bound = 1e4
					}
					if !(worst <= bound) {
						t.Errorf("%s: S error %.3g tolerances, want <= %g", name, worst, bound)
					}
				}
			}
			// Subset of parameters (b only) and S(t0) != 0: S(t) for
			// S(0) = s0 is the sum of the closed form and the state
			// transition applied to s0, checked here against a solve
			// of the variational equation with s0 as initial state.
			s := NewSolver(pr.Model, &Settings{Method: meth, RTol: 1e-9, ATol: 1e-12})
			var tr Trajectory
			dst := make([]float64, len(tout)*2)
			if err := s.IntegrateSens(&tr, dst, p, x0, nil, 0, tout, &SensSettings{Params: []int{1}, ErrCon: true}); err != nil {
				t.Fatal(err)
			}
			for i, tt := range tout {
				testode.LinearSens(want, tt, p)
				for r := 0; r < 2; r++ {
					if math.Abs(dst[i*2+r]-want[r*2+1]) > 1e-7 {
						t.Errorf("%v subset: dx%d/db(%v) = %v, want %v", meth, r, tt, dst[i*2+r], want[r*2+1])
					}
				}
			}
		}
	}
}

// TestSensInitial: with S(t0) = s0 and dx/dt linear, S(t) = closed form +
// Phi(t) s0; for s0 = dx0/d(x0) directions we use the fact that Phi(t) e1 is
// the solution from x0 = e1 with no forcing: x1 = e^{-at}, x2 = a/(b-a)(...).
func TestSensInitial(t *testing.T) {
	pr := testode.Linear(1, 2)
	p, x0 := setup(pr)
	// s0: column 0 = e1, column 1 = 0. Then S[:,0](t) = dx/da + Phi(t) e1,
	// and Phi(t) e1 = x(t) since x0 = e1.
	s0 := []float64{1, 0, 0, 0}
	tout := []float64{1, 4}
	for _, meth := range []Method{BDF, DOPRI5} {
		s := NewSolver(pr.Model, &Settings{Method: meth, RTol: 1e-9, ATol: 1e-12})
		var tr Trajectory
		dst := make([]float64, 8)
		if err := s.IntegrateSens(&tr, dst, p, x0, s0, 0, tout, &SensSettings{ErrCon: true}); err != nil {
			t.Fatal(err)
		}
		sa, x := make([]float64, 4), make([]float64, 2)
		for i, tt := range tout {
			testode.LinearSens(sa, tt, p)
			testode.LinearSolution(x, tt, p)
			for r := 0; r < 2; r++ {
				w := sa[r*2] + x[r]
				if math.Abs(dst[i*4+r*2]-w) > 1e-7 {
					t.Errorf("%v: S[%d,0](%v) = %v, want %v", meth, r, tt, dst[i*4+r*2], w)
				}
			}
		}
	}
}

// TestSensFiniteDifferences compares FS on HIRES and ROBER (all parameters,
// ErrCon, rtol 1e-10) with central differences of the state in p, each
// solved at rtol 1e-12, with relative steps 1e-4.
func TestSensFiniteDifferences(t *testing.T) {
	r := testode.Rober()
	r.TEnd = 40
	for _, pr := range []testode.Problem{testode.Hires(), r} {
		p, x0 := setup(pr)
		nx, np := len(x0), len(p)
		tout := []float64{pr.TEnd / 10, pr.TEnd}
		atol := 1e-14
		s := NewSolver(pr.Model, &Settings{RTol: 1e-10, ATol: atol})
		var tr Trajectory
		dst := make([]float64, len(tout)*nx*np)
		if err := s.IntegrateSens(&tr, dst, p, x0, nil, 0, tout, &SensSettings{ErrCon: true}); err != nil {
			t.Fatal(err)
		}
		fine := NewSolver(pr.Model, &Settings{RTol: 1e-12, ATol: 1e-16})
		var trp, trm Trajectory
		pp := make([]float64, np)
		// central returns the central difference quotients of x at the
		// outputs for parameter j and step h, row-major len(tout) x nx.
		central := func(dst []float64, j int, h float64) {
			copy(pp, p)
			pp[j] += h
			if err := fine.Integrate(&trp, pp, x0, 0, tout); err != nil {
				t.Fatal(err)
			}
			pp[j] -= 2 * h
			if err := fine.Integrate(&trm, pp, x0, 0, tout); err != nil {
				t.Fatal(err)
			}
			for o := range tout {
				xp, xm := trp.XAt(trp.Out[o]), trm.XAt(trm.Out[o])
				for i := 0; i < nx; i++ {
					dst[o*nx+i] = (xp[i] - xm[i]) / (2 * h)
				}
			}
		}
		d1, d2 := make([]float64, len(tout)*nx), make([]float64, len(tout)*nx)
		var worst float64
		for j := 0; j < np; j++ {
			// Richardson extrapolation of central differences (steps
			// 1e-4 p and 5e-5 p): truncation O(h^4), solver noise about
			// 1e-12/1e-4 relative.
			h := 1e-4 * p[j]
			central(d1, j, h)
			central(d2, j, h/2)
			for o := range tout {
				xo := trm.XAt(trm.Out[o])
				for i := 0; i < nx; i++ {
					fd := (4*d2[o*nx+i] - d1[o*nx+i]) / 3
					got := dst[o*nx*np+i*np+j]
					// Logarithmic sensitivity error d x_i / d log p_j,
					// relative to |x_i|.
					e := math.Abs(fd-got) * p[j] / (math.Abs(xo[i]) + 1e-10)
					worst = math.Max(worst, e)
					if e > 1e-6 {
						t.Errorf("%s t=%g dx%d/dp%d: FS %.10g, FD %.10g", pr.Name, tout[o], i, j, got, fd)
					}
				}
			}
		}
		t.Logf("%s: max |FS - FD| * p/|x| = %.2e (%d steps)", pr.Name, worst, s.Stats().Steps)
	}
}

// TestBlowup: y' = y^2 from y(0) = 1 past t = 1 must return a StepError near
// t = 1, not panic or loop.
func TestBlowup(t *testing.T) {
	pr := testode.Blowup()
	p, x0 := setup(pr)
	for _, meth := range []Method{BDF, DOPRI5, Adams, CashKarp} {
		s := NewSolver(pr.Model, &Settings{Method: meth})
		var tr Trajectory
		err := s.Integrate(&tr, p, x0, 0, []float64{0.5, 2})
		var se *StepError
		if !errors.As(err, &se) {
			t.Fatalf("%v: error %v, want *StepError", meth, err)
		}
		t.Logf("%v: %v", meth, err)
		if se.T < 0.99 || se.T > 1.0001 || len(se.X) != 1 || !strings.HasPrefix(err.Error(), "ode: ") {
			t.Errorf("%v: error at t=%v x=%v", meth, se.T, se.X)
		}
		if len(tr.Out) != 1 || math.Abs(tr.XAt(tr.Out[0])[0]-2) > 1e-4 {
			t.Errorf("%v: output before the failure lost", meth)
		}
	}
}

// TestNonFinite: a NaN initial value is an error value with its index.
func TestNonFinite(t *testing.T) {
	pr := testode.Hires()
	p, x0 := setup(pr)
	x0[3] = math.NaN()
	var tr Trajectory
	err := NewSolver(pr.Model, nil).Integrate(&tr, p, x0, 0, []float64{1})
	var se *StepError
	if !errors.As(err, &se) || se.Kind != ErrNonFinite || se.Index != 3 {
		t.Fatalf("got %v", err)
	}
}

// TestTooManySteps: MaxSteps is honoured.
func TestTooManySteps(t *testing.T) {
	pr := testode.Rober()
	p, x0 := setup(pr)
	var tr Trajectory
	err := NewSolver(pr.Model, &Settings{MaxSteps: 50}).Integrate(&tr, p, x0, 0, []float64{pr.TEnd})
	var se *StepError
	if !errors.As(err, &se) || se.Kind != ErrTooManySteps || tr.Len() != 51 {
		t.Fatalf("got %v with %d points", err, tr.Len())
	}
}

// TestMisuse: arguments a user's data can produce (lengths, output times,
// parameter lists) return errors wrapping ErrInvalid; only a nil
// Trajectory (a programming error) panics.
func TestMisuse(t *testing.T) {
	pr := testode.Hires()
	p, x0 := setup(pr)
	s := NewSolver(pr.Model, nil)
	var tr Trajectory
	cases := map[string]func() error{
		"short p":     func() error { return s.Integrate(&tr, p[:2], x0, 0, []float64{1}) },
		"short x0":    func() error { return s.Integrate(&tr, p, x0[:2], 0, []float64{1}) },
		"descending":  func() error { return s.Integrate(&tr, p, x0, 0, []float64{2, 1}) },
		"before t0":   func() error { return s.Integrate(&tr, p, x0, 1, []float64{0.5}) },
		"no outputs":  func() error { return s.Integrate(&tr, p, x0, 0, nil) },
		"NaN output":  func() error { return s.Integrate(&tr, p, x0, 0, []float64{1, math.NaN()}) },
		"Inf output":  func() error { return s.Integrate(&tr, p, x0, 0, []float64{math.Inf(1)}) },
		"NaN start":   func() error { return s.Integrate(&tr, p, x0, math.NaN(), []float64{1}) },
		"dstS length": func() error { return s.IntegrateSens(&tr, make([]float64, 3), p, x0, nil, 0, []float64{1}, nil) },
		"s0 length": func() error {
			return s.IntegrateSens(&tr, make([]float64, 8*10), p, x0, make([]float64, 3), 0, []float64{1}, nil)
		},
		"param range": func() error {
			return s.IntegrateSens(&tr, make([]float64, 8), p, x0, nil, 0, []float64{1}, &SensSettings{Params: []int{10}})
		},
		"atolvec length": func() error {
			return NewSolver(pr.Model, &Settings{ATolVec: []float64{1}}).Integrate(&tr, p, x0, 0, []float64{1})
		},
		"param repeated": func() error {
			return s.IntegrateSens(&tr, make([]float64, 16), p, x0, nil, 0, []float64{1}, &SensSettings{Params: []int{1, 1}})
		},
	}
	for name, f := range cases {
		if err := f(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want an error wrapping ErrInvalid", name, err)
		}
	}
	func() {
		defer func() {
			if r, ok := recover().(string); !ok || !strings.HasPrefix(r, "ode: ") {
				t.Errorf("nil Trajectory: recovered %v, want an ode: panic", r)
			}
		}()
		s.Integrate(nil, p, x0, 0, []float64{1})
	}()
}

// TestBadSettings: every setting a user can pass that cannot be used makes
// NewSolver record an error (no panic) that Validate, Err, Integrate and
// IntegrateSens return. rtol 1e300 used to be accepted and gave whatever
// one step gives; -1 panicked.
func TestBadSettings(t *testing.T) {
	pr := testode.Hires()
	p, x0 := setup(pr)
	nan, inf := math.NaN(), math.Inf(1)
	for _, st := range []Settings{
		{RTol: -1}, {RTol: 1e300}, {RTol: 1}, {RTol: nan}, {RTol: inf}, {RTol: 1e-20},
		{ATol: -1}, {ATol: nan}, {ATol: inf},
		{MaxSteps: -1}, {H0: -1}, {H0: nan}, {HMax: -1}, {HMax: inf},
		{Method: 7}, {Method: -1},
		{ATolVec: []float64{1, 1, 1, 1, 1, 1, 1, 0}}, {ATolVec: []float64{1, 1, 1, 1, 1, 1, 1, nan}},
		{ATolVec: []float64{1, 1, 1, 1, 1, 1, 1, -1}},
	} {
		desc := fmt.Sprintf("%+v", st)
		if err := st.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Validate returned %v", desc, err)
		}
		s := NewSolver(pr.Model, &st)
		if !errors.Is(s.Err(), ErrInvalid) {
			t.Errorf("%s: Err returned %v", desc, s.Err())
		}
		var tr Trajectory
		if err := s.Integrate(&tr, p, x0, 0, []float64{1}); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Integrate returned %v", desc, err)
		}
		if err := s.IntegrateSens(&tr, make([]float64, 80), p, x0, nil, 0, []float64{1}, nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: IntegrateSens returned %v", desc, err)
		}
	}
	for _, st := range []Settings{{}, {RTol: 0.5, ATol: 0}, {RTol: 1e-12, ATol: 1e-20, MaxSteps: 1, H0: 1e-3, HMax: 10}} {
		if err := st.Validate(); err != nil {
			t.Errorf("%+v: %v", st, err)
		}
	}
}

// wide is a model of n states with empty Jacobian patterns: only its size
// matters.
type wide struct{ n int }

func (w wide) Name() string                             { return "wide" }
func (w wide) StateNames() []string                     { return make([]string, w.n) }
func (wide) ParamNames() []string                       { return []string{"k"} }
func (wide) DefaultParams(dst []float64)                {}
func (wide) InitialState(dst, p []float64)              {}
func (wide) InitialSens(dst, p []float64)               {}
func (wide) F(dst []float64, t float64, x, p []float64) { clear(dst) }
func (w wide) JxPattern() *model.Pattern {
	return &model.Pattern{Rows: w.n, Cols: w.n, RowPtr: make([]int, w.n+1)}
}
func (wide) Jx(dst []float64, t float64, x, p []float64) {}
func (w wide) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: w.n, Cols: 1, RowPtr: make([]int, w.n+1)}
}
func (wide) Jp(dst []float64, t float64, x, p []float64) {}

// TestMemoryLimit: a model whose dense iteration matrix exceeds the limit
// gets a *MemoryError from NewSolver's solver, with nothing allocated,
// instead of running the program out of memory.
func TestMemoryLimit(t *testing.T) {
	m := wide{20000}
	need := MemoryEstimate(20000, 1)
	if need < 20000*20000*8 {
		t.Fatalf("estimate %d below the iteration matrix", need)
	}
	var me *MemoryError
	s := NewSolver(m, &Settings{MemoryLimit: 1 << 30, LinearSolver: LinearDense})
	if !errors.As(s.Err(), &me) || me.Need != need || me.Limit != 1<<30 {
		t.Fatalf("got %v", s.Err())
	}
	t.Log(me)
	var tr Trajectory
	if err := s.Integrate(&tr, []float64{1}, make([]float64, 20000), 0, []float64{1}); !errors.As(err, &me) {
		t.Errorf("Integrate returned %v", err)
	}
	// The default limit refuses a model that fits no machine (320 GB).
	if err := NewSolver(wide{200000}, &Settings{LinearSolver: LinearDense}).Err(); DefaultMemoryLimit() > 0 && !errors.As(err, &me) {
		t.Errorf("200000 states with the default limit (%d): got %v", DefaultMemoryLimit(), err)
	}
	// No limit: a small model is unaffected either way.
	if err := NewSolver(wide{10}, &Settings{MemoryLimit: -1}).Err(); err != nil {
		t.Error(err)
	}
}

// TestZeroAllocs: repeated integrations with the same solver and trajectory
// allocate nothing.
func TestZeroAllocs(t *testing.T) {
	pr := testode.Hires()
	p, x0 := setup(pr)
	tout := []float64{1, 10, 100, pr.TEnd}
	for _, meth := range []Method{BDF, DOPRI5, Adams, CashKarp} {
		end := tout
		if meth != BDF {
			end = tout[:2] // HIRES is stiff; keep the non-stiff runs short
		}
		s := NewSolver(pr.Model, &Settings{Method: meth})
		var tr Trajectory
		dst := make([]float64, len(end)*8*10)
		run := func() {
			if err := s.Integrate(&tr, p, x0, 0, end); err != nil {
				t.Fatal(err)
			}
		}
		runS := func() {
			if err := s.IntegrateSens(&tr, dst, p, x0, nil, 0, end, &SensSettings{ErrCon: true}); err != nil {
				t.Fatal(err)
			}
		}
		runS()
		run()
		if a := testing.AllocsPerRun(5, run); a != 0 {
			t.Errorf("%v Integrate: %v allocations per run", meth, a)
		}
		if a := testing.AllocsPerRun(5, runS); a != 0 {
			t.Errorf("%v IntegrateSens: %v allocations per run", meth, a)
		}
	}
}

// TestWorkPrecision prints, for each problem and rtol 1e-4 .. 1e-10
// (atol = rtol/100, E5 1e-24), the scaled error, f evaluations, steps and
// wall time. Run with
//
//	go test ./runtime/ode -run WorkPrecision -v -args -workprecision
func TestWorkPrecision(t *testing.T) {
	if !*workPrecision {
		t.Skip("enable with -args -workprecision")
	}
	fmt.Printf("%-7s %-6s %7s %12s %8s %7s %6s %5s %11s\n", "problem", "method", "rtol", "err/tol", "maxrel", "f", "steps", "LUs", "time")
	probs := append(testode.All(), testode.Linear(1, 1000))
	for _, pr := range probs {
		for _, rtol := range []float64{1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10} {
			st := problemSettings(pr, rtol)
			p, x0 := setup(pr)
			s := NewSolver(pr.Model, &st)
			var tr Trajectory
			tout := refTimes(pr)
			err := s.Integrate(&tr, p, x0, pr.T0, tout)
			if err != nil {
				fmt.Printf("%-7s BDF    %7.0e  error: %v\n", pr.Name, rtol, err)
				continue
			}
			n := 0
			start := time.Now()
			for time.Since(start) < 50*time.Millisecond {
				_ = s.Integrate(&tr, p, x0, pr.T0, tout)
				n++
			}
			el := time.Since(start) / time.Duration(n)
			e := scaledError(pr, &tr, st)
			var rel float64
			for k, c := range pr.Refs {
				for i, v := range tr.XAt(tr.Out[k]) {
					if math.Abs(c.X[i]) > 1e3*st.ATol {
						rel = math.Max(rel, math.Abs(v-c.X[i])/math.Abs(c.X[i]))
					}
				}
			}
			ss := s.Stats()
			fmt.Printf("%-7s BDF    %7.0e %12.3g %8.1e %7d %6d %5d %11v\n", pr.Name, rtol, e, rel, ss.FEvals, ss.Steps, ss.LUs, el)
		}
	}
}

// TestStartForms: IntegrateFrom and IntegrateSensFrom, which take the
// start as one value, give what Integrate and IntegrateSens give from the
// same (t0, x0, s0), bit for bit (the same solve), from a start t0 != 0
// and a non-zero s0, so that a swapped field would show.
func TestStartForms(t *testing.T) {
	pr := testode.Linear(1, 2)
	p, x0 := setup(pr)
	s0 := []float64{1, 0.5, 0, 2}
	tout := []float64{1, 4}
	s := NewSolver(pr.Model, &Settings{RTol: 1e-8, ATol: 1e-10})
	var a, b Trajectory
	if err := s.Integrate(&a, p, x0, 0.25, tout); err != nil {
		t.Fatal(err)
	}
	if err := s.IntegrateFrom(&b, p, &Start{T0: 0.25, X0: x0}, tout); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.T, b.T) || !slices.Equal(a.X, b.X) {
		t.Errorf("IntegrateFrom: steps %v, want %v", b.T, a.T)
	}
	da, db := make([]float64, 8), make([]float64, 8)
	ss := &SensSettings{ErrCon: true}
	if err := s.IntegrateSens(&a, da, p, x0, s0, 0.25, tout, ss); err != nil {
		t.Fatal(err)
	}
	if err := s.IntegrateSensFrom(&b, db, ss, p, &Start{T0: 0.25, X0: x0, S0: s0}, tout); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(da, db) || !slices.Equal(a.T, b.T) {
		t.Errorf("IntegrateSensFrom: S %v, want %v", db, da)
	}
}
