package sens

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

var verbose = flag.Bool("sensv", false, "print the accuracy tables of the sensitivity tests")

// maxRelFro is max over outputs k >= 1 of ||S_k - R_k||_F / ||R_k||_F.
func maxRelFro(got, ref *Result) float64 {
	var worst float64
	for k := 1; k < len(ref.T); k++ {
		var d, n float64
		r := ref.SAt(k)
		for i, x := range got.SAt(k) {
			d += (x - r[i]) * (x - r[i])
			n += r[i] * r[i]
		}
		if n > 0 {
			worst = math.Max(worst, math.Sqrt(d/n))
		}
	}
	return worst
}

func mustSolve(t *testing.T, m model.Model, p, ts []float64, o *Options) *Result {
	t.Helper()
	r, err := Solve(m, p, ts, o)
	if err != nil {
		t.Fatalf("%v: %v", o.Method, err)
	}
	return r
}

func describe(o *Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v", o.Method)
	if o.Paper {
		b.WriteString(" paper")
	}
	if o.Tuning.JpCheck {
		b.WriteString(" +JpCheck")
	}
	if o.Tuning.NMax != 0 {
		fmt.Fprintf(&b, " NMax=%d", o.Tuning.NMax)
	}
	if o.ODE.Interpolate {
		b.WriteString(" interpolate")
		if o.Tuning.Grid == GridState {
			b.WriteString(" state grid")
		}
	}
	return b.String()
}

// TestChua: on the limit cycle, p = (7, 15), [0, 10], x0 = (0, 0, -0.1),
// state tolerances rtol 1e-6, atol 1e-8, errors against FS at rtol 1e-10.
// The default PBSR must be at least 5x more accurate than the paper's Exp,
// and the paper's PBSR (with the published code's Jp test) too.
func TestChua(t *testing.T) {
	m := testmodels.NewChua()
	p := []float64{7, 15}
	ts := make([]float64, 101)
	for i := range ts {
		ts[i] = float64(i) * 0.1
	}
	ref := mustSolve(t, m, p, ts, &Options{Method: FS, RTol: 1e-10, ATol: 1e-12, ErrCon: true})
	errs := map[string]float64{}
	for _, o := range []*Options{
		{Method: Exp, Paper: true},
		{Method: PBS, Paper: true},
		{Method: PBSR, Paper: true},
		{Method: PBSR, Paper: true, Tuning: Tuning{JpCheck: true}},
		{Method: PBSR, Paper: true, Tuning: Tuning{JpCheck: true, NMax: 100}},
		{Method: Exp},
		{Method: PBS},
		{Method: PBSR},
		{Method: PBSR, ODE: odeInterp()},
		// The integrator steps over the outputs; on the state grid the
		// interval holding an output is cut there (what CutAtOutputs once
		// selected).
		{Method: PBSR, ODE: odeInterp(), Tuning: Tuning{Grid: GridState}},
		{Method: FS},
	} {
		o.RTol, o.ATol = 1e-6, 1e-8
		r := mustSolve(t, m, p, ts, o)
		e := maxRelFro(r, ref)
		errs[describe(o)] = e
		if *verbose || testing.Verbose() {
			st := r.Stats
			t.Logf("%-40s max rel err %.3g  (steps %d, intervals %d, refinements %d, PBS %d, exp %d, expm %d)",
				describe(o), e, st.ODE.Steps, st.Intervals, st.Refinements, st.PBSSteps, st.ExpSteps, st.Exponentials)
		}
	}
	exp := errs["Exp paper"]
	for _, k := range []string{"PBSR", "PBSR paper +JpCheck"} {
		if !(errs[k]*5 <= exp) {
			t.Errorf("%s: error %.3g is not 5x below paper Exp's %.3g", k, errs[k], exp)
		}
	}
	if errs["PBSR"] > 1e-3 {
		t.Errorf("default PBSR error %.3g > 1e-3", errs["PBSR"])
	}
}

func odeInterp() (s odeSettings) { s.Interpolate = true; return s }

// TestRandomLinear: n = np = 20, all methods agree with FS at rtol 1e-10
// within the error implied by the state tolerance rtol 1e-6.
func TestRandomLinear(t *testing.T) {
	m := testmodels.NewRandomLinear(20, 1)
	p := make([]float64, 20)
	m.DefaultParams(p)
	ts := []float64{0, 0.5, 1, 2, 5, 10}
	ref := mustSolve(t, m, p, ts, &Options{Method: FS, RTol: 1e-10, ATol: 1e-12, ErrCon: true})
	for _, o := range []*Options{{Method: FS}, {Method: PBS}, {Method: PBSR}, {Method: Exp}, {Method: PBSR, Paper: true}, {Method: Exp, Paper: true}} {
		o.RTol, o.ATol = 1e-6, 1e-8
		r := mustSolve(t, m, p, ts, o)
		e := maxRelFro(r, ref)
		t.Logf("%-20s max rel err %.3g", describe(o), e)
		if e > 1e-4 {
			t.Errorf("%s: max rel err %.3g > 1e-4", describe(o), e)
		}
	}
}

// TestSingularExact: A <-> B started at its equilibrium, so Jx (singular)
// and Jp are constant along the trajectory and the exponential step is
// exact: Exp and PBSR must match the closed form to rounding.
func TestSingularExact(t *testing.T) {
	m := testmodels.NewIsomerization()
	p := []float64{3, 0.5}
	m.X0 = [2]float64{0.5 / 3.5, 3 / 3.5}
	ts := []float64{0, 0.1, 1, 5, 50, 1000}
	want := make([]float64, 4)
	x := make([]float64, 2)
	for _, o := range []*Options{{Method: Exp}, {Method: PBSR}, {Method: Exp, Paper: true}, {Method: PBSR, Paper: true}} {
		r := mustSolve(t, m, p, ts, o)
		for k, tt := range ts {
			m.Exact(x, want, tt, p)
			d, mx := maxAbsDiff(r.SAt(k), want)
			if d > 1e-12*math.Max(mx, 1e-3) {
				t.Errorf("%s t=%g: S %v, want %v", describe(o), tt, r.SAt(k), want)
			}
		}
	}
	// Away from equilibrium the default PBSR follows the closed form to
	// the accuracy of the state.
	m.X0 = [2]float64{1, 0}
	for _, o := range []*Options{{Method: PBSR, RTol: 1e-9, ATol: 1e-12}} {
		r := mustSolve(t, m, p, ts, o)
		for k, tt := range ts {
			m.Exact(x, want, tt, p)
			d, mx := maxAbsDiff(r.SAt(k), want)
			if d > 1e-6*math.Max(mx, 1e-3) {
				t.Errorf("%s from (1, 0), t=%g: S %v, want %v", describe(o), tt, r.SAt(k), want)
			}
		}
	}
}

// TestNoAllocs: repeated Solve allocates nothing.
func TestNoAllocs(t *testing.T) {
	m := testmodels.NewChua()
	p := []float64{7, 15}
	ts := []float64{0, 1, 2.5, 5, 10}
	for _, o := range []*Options{{Method: PBSR}, {Method: PBSR, Paper: true}, {Method: Exp}, {Method: PBS}, {Method: FS},
		{Method: PBSR, ODE: odeInterp()}, {Method: PBSR, Params: []int{1}, Tuning: Tuning{Norm: Norm2}},
		{Method: PBSR, Tuning: Tuning{Order: 3}}} {
		s := NewSolver(m, o)
		var res Result
		if err := s.Solve(&res, p, nil, 0, ts); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(5, func() {
			if err := s.Solve(&res, p, nil, 0, ts); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per Solve, want 0", describe(o), allocs)
		}
	}
}

// TestParamsSubset: S for a subset of parameters equals those columns of
// the full S, for the methods whose step decisions do not depend on S
// (the local error test of the default PBSR and FS's error control do).
func TestParamsSubset(t *testing.T) {
	m := testmodels.NewChua()
	p := []float64{7, 15}
	ts := []float64{0, 1, 3}
	for _, meth := range []Method{PBSR, PBS, Exp} {
		full := mustSolve(t, m, p, ts, &Options{Method: meth, Paper: true})
		sub := mustSolve(t, m, p, ts, &Options{Method: meth, Paper: true, Params: []int{1}})
		for k := range ts {
			for i := 0; i < 3; i++ {
				if a, b := sub.SAt(k)[i], full.SAt(k)[i*2+1]; math.Abs(a-b) > 1e-12*math.Max(1, math.Abs(b)) {
					t.Errorf("%v t=%g row %d: subset %v, full %v", meth, ts[k], i, a, b)
				}
			}
		}
	}
}

func TestParseMethod(t *testing.T) {
	for _, m := range []Method{FS, PBS, PBSR, Exp} {
		got, err := ParseMethod(strings.ToLower(m.String()))
		if err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseMethod("rk4"); err == nil {
		t.Errorf("ParseMethod(rk4) did not fail")
	}
}

type odeSettings = ode.Settings

var sink float64

func benchSolve(b *testing.B, m model.Model, o *Options, t1 float64) {
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	ts := make([]float64, 11)
	for i := range ts {
		ts[i] = t1 * float64(i) / 10
	}
	s := NewSolver(m, o)
	var res Result
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := s.Solve(&res, p, nil, 0, ts); err != nil {
			b.Fatal(err)
		}
	}
	sink = res.S[len(res.S)-1]
}

func BenchmarkChuaFS(b *testing.B)   { benchSolve(b, testmodels.NewChua(), &Options{Method: FS}, 10) }
func BenchmarkChuaExp(b *testing.B)  { benchSolve(b, testmodels.NewChua(), &Options{Method: Exp}, 10) }
func BenchmarkChuaPBSR(b *testing.B) { benchSolve(b, testmodels.NewChua(), &Options{Method: PBSR}, 10) }
func BenchmarkChuaPBSRPaper(b *testing.B) {
	benchSolve(b, testmodels.NewChua(), &Options{Method: PBSR, Paper: true}, 10)
}
func BenchmarkRandom20FS(b *testing.B) {
	benchSolve(b, testmodels.NewRandomLinear(20, 1), &Options{Method: FS}, 10)
}
func BenchmarkRandom20PBSR(b *testing.B) {
	benchSolve(b, testmodels.NewRandomLinear(20, 1), &Options{Method: PBSR}, 10)
}
func BenchmarkRandom20Exp(b *testing.B) {
	benchSolve(b, testmodels.NewRandomLinear(20, 1), &Options{Method: Exp}, 10)
}

// TestRepeatedOutputTimes: an output time given twice (after t0) gives the
// same S twice, with every method, as a solve without the repeat (found in
// review: the dyadic grid looped forever on a zero-length interval for
// PBSR and returned NaN for Exp).
func TestRepeatedOutputTimes(t *testing.T) {
	m := testmodels.NewChua()
	p := []float64{7, 15}
	for _, meth := range []Method{PBSR, Exp, PBS, FS} {
		once := mustSolve(t, m, p, []float64{0, 1, 2}, &Options{Method: meth})
		for _, ts := range [][]float64{{0, 1, 1, 2}, {0, 1, 2, 2}} {
			r := mustSolve(t, m, p, ts, &Options{Method: meth})
			for k, tk := range ts {
				j := int(tk) // index of tk in once
				for i, v := range r.SAt(k) {
					w := once.SAt(j)[i]
					if math.IsNaN(v) || math.Abs(v-w) > 1e-6*(1+math.Abs(w)) {
						t.Fatalf("%v ts=%v: S(t=%g)[%d] = %g, without the repeat %g", meth, ts, tk, i, v, w)
					}
				}
			}
		}
	}
}

// nanJac is x' = -p x whose Jacobians turn NaN after t = 0.5 while f stays
// finite: a broken model that only the sensitivity engine can notice.
type nanJac struct{}

func (nanJac) Name() string                               { return "nanjac" }
func (nanJac) StateNames() []string                       { return []string{"x"} }
func (nanJac) ParamNames() []string                       { return []string{"p"} }
func (nanJac) DefaultParams(dst []float64)                { dst[0] = 1 }
func (nanJac) InitialState(dst, p []float64)              { dst[0] = 1 }
func (nanJac) InitialSens(dst, p []float64)               { dst[0] = 0 }
func (nanJac) F(dst []float64, t float64, x, p []float64) { dst[0] = -p[0] * x[0] }
func (nanJac) JxPattern() *model.Pattern {
	return &model.Pattern{Rows: 1, Cols: 1, RowPtr: []int{0, 1}, ColIdx: []int{0}}
}
func (nanJac) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: 1, Cols: 1, RowPtr: []int{0, 1}, ColIdx: []int{0}}
}
func (nanJac) Jx(dst []float64, t float64, x, p []float64) { dst[0] = nanAfter(t, -p[0]) }
func (nanJac) Jp(dst []float64, t float64, x, p []float64) { dst[0] = nanAfter(t, -x[0]) }

func nanAfter(t, v float64) float64 {
	if t > 0.5 {
		return math.NaN()
	}
	return v
}

// TestNonFiniteJacobianIsAnError: NaN Jacobians give an error naming the
// time, never NaN in S with a nil error (found in review).
func TestNonFiniteJacobianIsAnError(t *testing.T) {
	for _, o := range []Options{
		{Method: PBSR, ODE: ode.Settings{Method: ode.DOPRI5}},
		{Method: PBS},
		{Method: Exp, ODE: ode.Settings{Method: ode.DOPRI5}},
		{Method: PBSR, Paper: true},
	} {
		_, err := Solve(nanJac{}, []float64{1}, []float64{0, 1, 2}, &o)
		var se *ode.StepError
		if !errors.As(err, &se) || se.Kind != ode.ErrNonFinite || se.T > 1 {
			t.Errorf("%s: err = %v, want a non-finite error by t = 1", describe(&o), err)
		}
	}
}
