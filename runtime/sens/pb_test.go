package sens

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// These tests drive the Peano-Baker engine on trajectories built from exact
// solutions, so that they measure the sensitivity discretisation alone.

type exacter interface {
	Exact(dstX, dstS []float64, t float64, p []float64)
}

// exactTrajectory samples the exact solution on the grid ts.
func exactTrajectory(m model.Model, e exacter, p, ts []float64) *ode.Trajectory {
	nx := model.NumStates(m)
	tr := &ode.Trajectory{}
	tr.Reset(nx)
	x, f := make([]float64, nx), make([]float64, nx)
	s := make([]float64, nx*model.NumParams(m))
	for i, t := range ts {
		e.Exact(x, s, t, p)
		m.F(f, t, x, p)
		tr.Append(t, x, f)
		tr.Out = append(tr.Out, i)
	}
	return tr
}

// linearTrajectory integrates a LinearConst model exactly (via gonum's
// exponential of the augmented matrix) on the grid ts.
func linearTrajectory(m *testmodels.LinearConst, p, ts []float64) *ode.Trajectory {
	n := m.N
	tr := &ode.Trajectory{}
	tr.Reset(n)
	bp := mat.NewVecDense(n, nil)
	bp.MulVec(mat.NewDense(n, m.NP, m.B), mat.NewVecDense(m.NP, p))
	f := make([]float64, n)
	for i, t := range ts {
		// x(t) = e^{tA} x0 + (int_0^t e^{sA} ds) B p.
		e, w := gonumExpInt(m.A, n, t)
		var x mat.VecDense
		x.MulVec(e, mat.NewVecDense(n, m.X0))
		var y mat.VecDense
		y.MulVec(w, bp)
		x.AddVec(&x, &y)
		m.F(f, t, x.RawVector().Data, p)
		tr.Append(t, x.RawVector().Data, f)
		tr.Out = append(tr.Out, i)
	}
	return tr
}

// gonumExpInt returns e^{tA} and int_0^t e^{sA} ds from gonum's exponential
// of t [[A, I],[0, 0]].
func gonumExpInt(a []float64, n int, t float64) (*mat.Dense, *mat.Dense) {
	aug := mat.NewDense(2*n, 2*n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			aug.Set(i, j, t*a[i*n+j])
		}
		aug.Set(i, n+i, t)
	}
	var e mat.Dense
	e.Exp(aug)
	return mat.DenseCopyOf(e.Slice(0, n, 0, n)), mat.DenseCopyOf(e.Slice(0, n, n, 2*n))
}

func runEngine(m model.Model, o *Options, tr *ode.Trajectory, p, ts []float64) ([]float64, Stats) {
	cfg, err := resolve(o)
	if err != nil {
		panic(err)
	}
	nx, np := model.NumStates(m), model.NumParams(m)
	params := make([]int, np)
	for i := range params {
		params[i] = i
	}
	en := newEngine(m, &cfg, params)
	var st Stats
	en.stats = &st
	dst := make([]float64, len(ts)*nx*np)
	en.run(tr, dst, p, make([]float64, nx*np), ts, make([]float64, nx*np))
	return dst, st
}

func maxAbsDiff(a, b []float64) (d, m float64) {
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		m = math.Max(m, math.Abs(b[i]))
	}
	return d, m
}

func uniform(t0, t1 float64, n int) []float64 {
	ts := make([]float64, n+1)
	for i := range ts {
		ts[i] = t0 + (t1-t0)*float64(i)/float64(n)
	}
	ts[n] = t1
	return ts
}

// TestConstantTheorem1 compares S for a constant-coefficient system with
// invertible A against Theorem 1, S(t) = e^{tA}(I - e^{-tA}) A^{-1} B
// (S(0) = 0), evaluated with gonum's exponential and inverse. Exp, PBSR
// (both modes) and PBS with its exponential branch are exact up to rounding
// for constant A, B.
func TestConstantTheorem1(t *testing.T) {
	a := []float64{-2, 1, 0, 0.5, -3, 1, 0.2, 0, -1}
	b := []float64{1, 0, 0.3, 2, 1, -1}
	m := testmodels.NewLinearConst(a, b, []float64{1, 2, 0.5}, []float64{0.5, 1})
	p := []float64{0.5, 1}
	ts := uniform(0, 5, 40)
	tr := linearTrajectory(m, p, ts)
	n := 3
	am := mat.NewDense(n, n, a)
	var ainv mat.Dense
	if err := ainv.Inverse(am); err != nil {
		t.Fatal(err)
	}
	want := make([]float64, len(ts)*n*2)
	for k, tt := range ts {
		var e, em mat.Dense
		e.Exp(scaled(am, tt))
		em.Exp(scaled(am, -tt))
		id := mat.NewDiagDense(n, []float64{1, 1, 1})
		var imE, s mat.Dense
		imE.Sub(id, &em)
		s.Product(&e, &imE, &ainv, mat.NewDense(n, 2, b))
		copy(want[k*n*2:], s.RawMatrix().Data)
	}
	for _, o := range []Options{{Method: Exp}, {Method: Exp, Paper: true}, {Method: PBSR}, {Method: PBSR, Paper: true}, {Method: PBS}} {
		got, st := runEngine(m, &o, tr, p, ts)
		d, mx := maxAbsDiff(got, want)
		// The reference itself goes through A^{-1} and e^{-tA}: a few
		// 1e-12 relative.
		if d > 1e-11*mx || st.PBSSteps != 0 {
			t.Errorf("%v paper=%v: max abs err %.3g (max |S| %.3g), PBS steps %d", o.Method, o.Paper, d, mx, st.PBSSteps)
		}
	}
}

func scaled(a *mat.Dense, c float64) *mat.Dense {
	var r mat.Dense
	r.Scale(c, a)
	return &r
}

// TestConstantSingularInverseFree uses a singular constant A (a
// conservation law, as in closed reaction networks) and checks S against the
// inverse-free form S(t) = (int_0^t e^{sA} ds) B.
func TestConstantSingularInverseFree(t *testing.T) {
	a := []float64{-1, 2, 0, 1, -2, 0, 0, 0, 0} // columns sum to zero: A singular
	b := []float64{1, 0, -1, 2, 0.5, 0.5}
	m := testmodels.NewLinearConst(a, b, []float64{1, 0, 3}, []float64{1, 2})
	p := []float64{1, 2}
	ts := uniform(0, 50, 10)
	tr := linearTrajectory(m, p, ts)
	n := 3
	want := make([]float64, len(ts)*n*2)
	for k, tt := range ts {
		_, w := gonumExpInt(a, n, tt)
		var s mat.Dense
		s.Mul(w, mat.NewDense(n, 2, b))
		copy(want[k*n*2:], s.RawMatrix().Data)
	}
	for _, o := range []Options{{Method: Exp}, {Method: Exp, Paper: true}, {Method: PBSR}, {Method: PBSR, Paper: true}} {
		got, _ := runEngine(m, &o, tr, p, ts)
		d, mx := maxAbsDiff(got, want)
		if d > 1e-12*mx {
			t.Errorf("%v paper=%v: max abs err %.3g (max |S| %.3g)", o.Method, o.Paper, d, mx)
		}
	}
}

// TestTimeVarying checks S against the closed form for a Jacobian that
// varies in time (TimeVarying, exact solution on the grid).
func TestTimeVarying(t *testing.T) {
	var m testmodels.TimeVarying
	p := []float64{1, 2}
	ts := uniform(0, 4, 200)
	tr := exactTrajectory(m, m, p, ts)
	want := make([]float64, len(ts)*4)
	x := make([]float64, 2)
	for k, tt := range ts {
		m.Exact(x, want[k*4:(k+1)*4], tt, p)
	}
	for _, c := range []struct {
		o   Options
		tol float64
	}{
		{Options{Method: PBS, Tuning: Tuning{JacTol: -1}}, 1e-4},
		{Options{Method: PBSR, RTol: 1e-8}, 3e-6},
		{Options{Method: Exp}, 3e-4},
		{Options{Method: Exp, Paper: true}, 2e-2},
	} {
		got, _ := runEngine(m, &c.o, tr, p, ts)
		d, mx := maxAbsDiff(got, want)
		t.Logf("%v paper=%v: max rel err %.3g", c.o.Method, c.o.Paper, d/mx)
		if d > c.tol*mx {
			t.Errorf("%v paper=%v: max abs err %.3g > %.3g * max|S| %.3g", c.o.Method, c.o.Paper, d, c.tol, mx)
		}
	}
}

// TestPBSOrder fits the global order of PBS on uniform grids dt, dt/2,
// dt/4, dt/8 (exact states, so the state error does not interfere).
func TestPBSOrder(t *testing.T) {
	var m testmodels.TimeVarying
	p := []float64{1, 2}
	want := make([]float64, 4)
	x := make([]float64, 2)
	m.Exact(x, want, 3, p)
	var errs []float64
	for _, n := range []int{20, 40, 80, 160} {
		ts := uniform(0, 3, n)
		tr := exactTrajectory(m, m, p, ts)
		got, _ := runEngine(m, &Options{Method: PBS, Tuning: Tuning{JacTol: -1}}, tr, p, ts)
		d, _ := maxAbsDiff(got[n*4:], want)
		errs = append(errs, d)
	}
	// Least-squares slope of log(err) against log(dt).
	var sx, sy, sxx, sxy float64
	for i, e := range errs {
		lx, ly := -float64(i)*math.Ln2, math.Log(e)
		sx, sy, sxx, sxy = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly
	}
	k := float64(len(errs))
	order := (k*sxy - sx*sy) / (k*sxx - sx*sx)
	t.Logf("PBS errors %v, fitted order %.3f", errs, order)
	if order < 1.8 || order > 2.2 {
		t.Errorf("fitted order %.3f not in [1.8, 2.2] (errors %v)", order, errs)
	}
}
