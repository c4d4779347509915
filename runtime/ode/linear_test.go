package ode

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/internal/testode"
	"github.com/pbgen/pbgen/runtime/model"
)

// The dense and sparse LUs of the Newton systems: agreement, the Auto
// choice, allocation and singular matrices. The cost measurements behind
// AutoSparse are the benchmarks at the end.

// linSolveFresh integrates m from its defaults to tend at outputs tout
// with the linear solver ls; with nsp > 0 the sensitivities of the first
// nsp parameters are computed too and returned after the states, with the
// sensitivity corrector's freshCols set (0: the default): 1 always
// rebuilds M at the converged state and runs sensNewtonExact, a large value
// never does.
func linSolveFresh(t testing.TB, m model.Model, ls LinearSolver, tout []float64, nsp int, errcon bool, freshCols int) (x, S []float64, st Stats) {
	t.Helper()
	nx, np := model.NumStates(m), model.NumParams(m)
	p := make([]float64, np)
	m.DefaultParams(p)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	s := NewSolver(m, &Settings{LinearSolver: ls, RTol: 1e-8, ATol: 1e-10})
	if freshCols > 0 {
		s.freshCols = freshCols
	}
	if want := ls == LinearSparse; s.UsesSparse() != want {
		t.Fatalf("%v: UsesSparse = %v", ls, s.UsesSparse())
	}
	var tr Trajectory
	var err error
	if nsp > 0 {
		ps := make([]int, min(nsp, np))
		for j := range ps {
			ps[j] = j
		}
		S = make([]float64, len(tout)*nx*len(ps))
		err = s.IntegrateSens(&tr, S, p, x0, nil, 0, tout, &SensSettings{Params: ps, ErrCon: errcon})
	} else {
		err = s.Integrate(&tr, p, x0, 0, tout)
	}
	if err != nil {
		t.Fatalf("%v: %v", ls, err)
	}
	for _, i := range tr.Out {
		x = append(x, tr.X[i*nx:(i+1)*nx]...)
	}
	return x, S, s.Stats()
}

// relDiff is max |a - b| / (|b| + scale) over the entries, with scale the
// largest |b|·1e-3 so that entries near zero are compared absolutely.
func relDiff(a, b []float64) float64 {
	var big float64
	for _, v := range b {
		big = math.Max(big, math.Abs(v))
	}
	sc := 1e-3 * big
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i])/(math.Abs(b[i])+sc))
	}
	return d
}

// TestSparseMatchesDense: the two LUs solve the same systems (to rounding:
// TestSolveAgreement), so on these networks the step sequences agree and
// the results differ only where rounding moves the Newton iteration's
// stopping point: below 1e-9 relative at rtol 1e-8. A wrong sparse solve
// would change the step sequence or the values far more.
func TestSparseMatchesDense(t *testing.T) {
	type tc struct {
		name string
		m    model.Model
		tout []float64
	}
	// POLLU (20 states, 25 reactions) is the reference problem shaped like
	// a reaction network; the others (VDPOL, OREGO, E5 ...) run thousands
	// of steps through near-discontinuities where a last-bit difference in
	// one solve changes a later step decision, so they cannot agree to
	// rounding level and test nothing about the LU.
	pr := testode.Pollu()
	cases := []tc{{pr.Name, pr.Model, []float64{pr.T0 + (pr.TEnd-pr.T0)/3, pr.TEnd}}}
	for _, sh := range []scalenet.Shape{scalenet.Chain, scalenet.Grid} {
		for _, n := range []int{30, 150} {
			net := scalenet.New(sh, n)
			cases = append(cases, tc{net.Name(), net, []float64{1, 10}})
		}
	}
	for _, c := range cases {
		if model.NumStates(c.m) == 0 {
			continue
		}
		for _, nsp := range []int{0, 20} {
			// Both sensitivity correctors: CVODES's (never fresh) and the
			// exact one (always), the same on both LUs.
			for _, fresh := range []int{1 << 30, 1} {
				for _, errcon := range []bool{false, true} {
					if nsp == 0 && (errcon || fresh == 1) {
						continue
					}
					name := fmt.Sprintf("%s/nsp=%d/errcon=%v/exact=%v", c.name, nsp, errcon, fresh == 1)
					t.Run(name, func(t *testing.T) {
						xd, Sd, sd := linSolveFresh(t, c.m, LinearDense, c.tout, nsp, errcon, fresh)
						xs, Ss, ss := linSolveFresh(t, c.m, LinearSparse, c.tout, nsp, errcon, fresh)
						if sd.Steps != ss.Steps || sd.LUs != ss.LUs {
							t.Errorf("steps %d vs %d, LUs %d vs %d (dense vs sparse)", sd.Steps, ss.Steps, sd.LUs, ss.LUs)
						}
						if d := relDiff(xs, xd); d > 1e-9 {
							t.Errorf("states differ by %.3g relative", d)
						}
						if d := relDiff(Ss, Sd); d > 1e-8 {
							t.Errorf("sensitivities differ by %.3g relative", d)
						}
					})
				}
			}
		}
	}
}

// TestAutoChoice: the automatic choice follows AutoSparse, and small or
// dense models keep the dense LU.
func TestAutoChoice(t *testing.T) {
	for _, c := range []struct {
		nx, nnz int
		want    bool
	}{
		{21, 90, false},     // CaMKII's size
		{29, 120, false},    // below the crossover
		{34, 164, true},     // Laske_PLOSComputBiol2019's
		{75, 1542, true},    // SalazarCavazos_MBoC2020's (27% full)
		{40, 500, false},    // 31% full
		{300, 1200, true},   // a large chain
		{300, 40000, false}, // large but nearly full
	} {
		if got := AutoSparse(c.nx, c.nnz); got != c.want {
			t.Errorf("AutoSparse(%d, %d) = %v, want %v", c.nx, c.nnz, got, c.want)
		}
	}
	for _, n := range []int{30, 300} {
		net := scalenet.New(scalenet.Chain, n)
		s := NewSolver(net, nil)
		if want := AutoSparse(model.NumStates(net), net.JxPattern().NNZ()); s.UsesSparse() != want {
			t.Errorf("%s: UsesSparse = %v, want %v", net.Name(), s.UsesSparse(), want)
		}
		if s := NewSolver(net, &Settings{Method: DOPRI5, LinearSolver: LinearSparse}); s.UsesSparse() {
			t.Errorf("%s: DOPRI5 reports a sparse LU", net.Name())
		}
	}
	if err := NewSolver(scalenet.New(scalenet.Chain, 30), &Settings{LinearSolver: 7}).Err(); !errors.Is(err, ErrInvalid) {
		t.Errorf("LinearSolver(7): %v, want ErrInvalid", err)
	}
}

// TestSparseZeroAllocs: after the first integration the sparse path
// allocates nothing, with and without sensitivities.
func TestSparseZeroAllocs(t *testing.T) {
	net := scalenet.New(scalenet.Grid, 120)
	nx, np := model.NumStates(net), model.NumParams(net)
	p := make([]float64, np)
	net.DefaultParams(p)
	x0 := make([]float64, nx)
	net.InitialState(x0, p)
	s := NewSolver(net, &Settings{LinearSolver: LinearSparse})
	var tr Trajectory
	tout := []float64{1, 5}
	ps := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	dst := make([]float64, len(tout)*nx*len(ps))
	run := func() {
		if err := s.Integrate(&tr, p, x0, 0, tout); err != nil {
			t.Fatal(err)
		}
	}
	runS := func() {
		if err := s.IntegrateSens(&tr, dst, p, x0, nil, 0, tout, &SensSettings{Params: ps, ErrCon: true}); err != nil {
			t.Fatal(err)
		}
	}
	runS()
	run()
	if a := testing.AllocsPerRun(3, run); a != 0 {
		t.Errorf("Integrate: %v allocations per run", a)
	}
	if a := testing.AllocsPerRun(3, runS); a != 0 {
		t.Errorf("IntegrateSens: %v allocations per run", a)
	}
	if s.Stats().LUs == 0 {
		t.Error("no factorisation counted")
	}
}

// singular is dx/dt = (-k a, 0) with a Jx that reads the solver's gamma
// so that M(1,1) = 1 - gamma Jx(1,1) is exactly zero at every setup: the
// iteration matrix stays singular whatever the step cuts do.
type singular struct{ gammaSrc *Solver }

func (m *singular) Name() string                            { return "singular" }
func (m *singular) StateNames() []string                    { return []string{"a", "b"} }
func (m *singular) ParamNames() []string                    { return []string{"k"} }
func (m *singular) DefaultParams(dst []float64)             { dst[0] = 1 }
func (m *singular) InitialState(dst []float64, p []float64) { dst[0], dst[1] = 1, 1 }
func (m *singular) InitialSens(dst []float64, p []float64)  { clear(dst) }
func (m *singular) JxPattern() *model.Pattern {
	return &model.Pattern{Rows: 2, Cols: 2, RowPtr: []int{0, 1, 2}, ColIdx: []int{0, 1}}
}
func (m *singular) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: 2, Cols: 1, RowPtr: []int{0, 1, 1}, ColIdx: []int{0}}
}
func (m *singular) F(dst []float64, t float64, x, p []float64) { dst[0], dst[1] = -p[0]*x[0], 0 }

// Jx makes M(1,1) = 1 - gamma*Jx(1,1) exactly zero at every setup.
func (m *singular) Jx(dst []float64, t float64, x, p []float64) {
	dst[0], dst[1] = -p[0], 1/m.gammaSrc.gamma
}
func (m *singular) Jp(dst []float64, t float64, x, p []float64) { dst[0] = -x[0] }

// TestSingularIterationMatrix: a matrix that stays singular is the
// ErrSingular StepError on both paths, with no NaN in the state, and the
// sparse path names the state whose column had no pivot.
func TestSingularIterationMatrix(t *testing.T) {
	for _, ls := range []LinearSolver{LinearDense, LinearSparse} {
		m := &singular{}
		s := NewSolver(m, &Settings{LinearSolver: ls})
		m.gammaSrc = s
		var tr Trajectory
		err := s.Integrate(&tr, []float64{1}, []float64{1, 1}, 0, []float64{1})
		var se *StepError
		if !errors.As(err, &se) || se.Kind != ErrSingular {
			t.Fatalf("%v: %v, want an ErrSingular StepError", ls, err)
		}
		if firstNonFinite(se.X) >= 0 {
			t.Errorf("%v: state %v is not finite", ls, se.X)
		}
		if ls == LinearSparse && se.Index != 1 {
			t.Errorf("%v: Index %d, want 1 (state b): %v", ls, se.Index, err)
		}
		if ls == LinearDense && se.Index != -1 {
			t.Errorf("%v: Index %d, want -1", ls, se.Index)
		}
	}
}

// Measurements behind AutoSparse and the growth of the FS cost.
//
// BenchmarkLinearCrossover integrates scalenet chains and grids of n
// states, the states alone and with 20 sensitivities, with each LU:
//
//	go test ./runtime/ode -run XXX -bench LinearCrossover -benchtime 3x
//
// BenchmarkSensGrowth is the FS cost on chains of n = 50 .. 1000 with 20
// parameters on the solver LinearAuto picks (sparse at these sizes). By
// user CPU of the test binary, one size per run (-benchtime 20x, 22
// solves with the warm-ups, mean of 3), per solve: 5.8, 12.1, 25.3, 69.8,
// 108.5 ms at n = 48, 99, 198, 498, 999 (215, 207, 225, 237, 189 steps);
// the least-squares exponent of time against n is 0.99 per solve, 1.01
// per step (issue #13's target: at most 1.5). The dense LU at n = 501
// took 174 ms against the sparse 73 ms (BenchmarkLinearCrossover).
func BenchmarkLinearCrossover(b *testing.B) {
	ns := []int{21, 30, 45, 60, 90, 150, 300, 501}
	for _, sh := range []scalenet.Shape{scalenet.Chain, scalenet.Grid} {
		for _, n := range ns {
			net := scalenet.New(sh, n)
			for _, nsp := range []int{0, 20} {
				for _, ls := range []LinearSolver{LinearDense, LinearSparse} {
					b.Run(fmt.Sprintf("%s/n=%d/nsp=%d/%v", sh, model.NumStates(net), nsp, ls), func(b *testing.B) {
						benchNet(b, net, ls, nsp)
					})
				}
			}
		}
	}
}

func BenchmarkSensGrowth(b *testing.B) {
	for _, n := range []int{50, 100, 200, 500, 1000} {
		net := scalenet.New(scalenet.Chain, n)
		b.Run(fmt.Sprintf("n=%d", model.NumStates(net)), func(b *testing.B) {
			benchNet(b, net, LinearAuto, 20)
		})
	}
}

func benchNet(b *testing.B, net *scalenet.Network, ls LinearSolver, nsp int) {
	nx, np := model.NumStates(net), model.NumParams(net)
	p := make([]float64, np)
	net.DefaultParams(p)
	x0 := make([]float64, nx)
	net.InitialState(x0, p)
	s := NewSolver(net, &Settings{LinearSolver: ls})
	var tr Trajectory
	tout := []float64{10}
	ps := make([]int, min(nsp, np))
	for j := range ps {
		ps[j] = j
	}
	dst := make([]float64, nx*len(ps))
	run := func() error {
		if nsp == 0 {
			return s.Integrate(&tr, p, x0, 0, tout)
		}
		return s.IntegrateSens(&tr, dst, p, x0, nil, 0, tout, &SensSettings{Params: ps})
	}
	if err := run(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sinkErr = run()
	}
	b.StopTimer()
	b.ReportMetric(float64(s.Stats().Steps), "steps")
	b.ReportMetric(float64(s.Stats().LUs), "LUs")
}

// TestSolveAgreement: the two LUs factorise the same M = I - gamma Jx and
// solve the same systems, the state's (one column) and the sensitivity
// block's (20 columns), to rounding level: each solution's backward error
// |b - M x| / (|M| |x| + |b|) (max norms, per column) is a few units of
// rounding, and the two solutions agree to 1e-11 relative where M is well
// conditioned (E5's M reaches a condition number near 1e8 at gamma = 10,
// where the forward difference is cond x rounding and says nothing). This
// is the check that the sparse path solves the right system; the
// integrations above then differ only by where rounding moves the Newton
// iteration's stopping point.
func TestSolveAgreement(t *testing.T) {
	type tc struct {
		m             model.Model
		wellCondition bool
	}
	var cs []tc
	for _, pr := range testode.All() {
		cs = append(cs, tc{pr.Model, pr.Name != "E5"})
	}
	cs = append(cs, tc{scalenet.New(scalenet.Chain, 300), true}, tc{scalenet.New(scalenet.Grid, 150), true})
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range cs {
		m := c.m
		nx, np := model.NumStates(m), model.NumParams(m)
		if nx == 0 {
			continue
		}
		p := make([]float64, np)
		m.DefaultParams(p)
		x := make([]float64, nx)
		m.InitialState(x, p)
		for i := range x {
			x[i] += 0.1 * rng.Float64()
		}
		const k = 21
		r := rand.New(rand.NewPCG(3, 4))
		b := make([]float64, nx*k)
		for i := range b {
			b[i] = r.NormFloat64()
		}
		for _, gamma := range []float64{1e-3, 0.1, 10} {
			var sol [2][]float64
			for n, ls := range []LinearSolver{LinearDense, LinearSparse} {
				s := NewSolver(m, &Settings{LinearSolver: ls})
				s.gamma, s.gammap, s.nst = gamma, gamma, 0
				if !s.lsetup(failOther, x, p, false) {
					t.Fatalf("%s gamma=%g %v: setup failed (%v)", m.Name(), gamma, ls, s.lastFail)
				}
				// The state's column, then the row-major nx x 20 block,
				// as newton and sensNewton solve them.
				y := append([]float64(nil), b...)
				s.solveState(y[:nx])
				s.solveBlock(y[nx:], k-1)
				if e := backwardError(s, b, y, k); e > 1e-14 {
					t.Errorf("%s gamma=%g %v: backward error %.3g", m.Name(), gamma, ls, e)
				}
				sol[n] = y
			}
			if !c.wellCondition {
				continue
			}
			var big, d float64
			for i, v := range sol[0] {
				big = math.Max(big, math.Abs(v))
				d = math.Max(d, math.Abs(v-sol[1][i]))
			}
			if !(d <= 1e-11*big) {
				t.Errorf("%s gamma=%g: solves differ by %.3g (max |x| %.3g)", m.Name(), gamma, d, big)
			}
		}
	}
}

// backwardError is the largest over the columns of |b - M y| / (|M| |y| +
// |b|) in the max norm, for the state column y[:nx] and the row-major
// block y[nx:], with M = I - gamma Jx from the solver's Jacobian values.
func backwardError(s *Solver, b, y []float64, k int) float64 {
	nx, pat, jv := s.nx, s.jxPat, s.jv
	var mnorm float64 // max row sum of |M|
	for i := 0; i < nx; i++ {
		sum, diag := 0.0, 1.0
		for q := pat.RowPtr[i]; q < pat.RowPtr[i+1]; q++ {
			if pat.ColIdx[q] == i {
				diag -= s.gamma * jv[q]
			} else {
				sum += math.Abs(s.gamma * jv[q])
			}
		}
		mnorm = math.Max(mnorm, sum+math.Abs(diag))
	}
	worst := 0.0
	col := func(v []float64, stride, off int) []float64 {
		out := make([]float64, nx)
		for i := range out {
			out[i] = v[i*stride+off]
		}
		return out
	}
	check := func(bc, yc []float64) {
		var rn, yn, bn float64
		for i := 0; i < nx; i++ {
			mi := yc[i]
			for q := pat.RowPtr[i]; q < pat.RowPtr[i+1]; q++ {
				mi -= s.gamma * jv[q] * yc[pat.ColIdx[q]]
			}
			rn = math.Max(rn, math.Abs(bc[i]-mi))
			yn = math.Max(yn, math.Abs(yc[i]))
			bn = math.Max(bn, math.Abs(bc[i]))
		}
		worst = math.Max(worst, rn/(mnorm*yn+bn))
	}
	check(b[:nx], y[:nx])
	for c := 0; c < k-1; c++ {
		check(col(b[nx:], k-1, c), col(y[nx:], k-1, c))
	}
	return worst
}

// TestSensExactCorrector: the exact corrector (M rebuilt at the converged
// state, per-column tests: sensNewtonExact) is as accurate as CVODES's
// against a tight reference, with no more sensitivity iterations, on both
// LUs, with and without ErrCon.
func TestSensExactCorrector(t *testing.T) {
	net := scalenet.New(scalenet.Chain, 150)
	pr := testode.Pollu()
	for _, c := range []struct {
		name string
		m    model.Model
		tout []float64
	}{
		{"chain150", net, []float64{1, 5, 10}},
		{"pollu", pr.Model, []float64{pr.T0 + (pr.TEnd-pr.T0)/3, pr.TEnd}},
	} {
		nx, np := model.NumStates(c.m), model.NumParams(c.m)
		ps := make([]int, min(20, np))
		for j := range ps {
			ps[j] = j
		}
		p := make([]float64, np)
		c.m.DefaultParams(p)
		x0 := make([]float64, nx)
		c.m.InitialState(x0, p)
		solve := func(ls LinearSolver, rtol, atol float64, errcon bool, fresh int) ([]float64, Stats) {
			s := NewSolver(c.m, &Settings{LinearSolver: ls, RTol: rtol, ATol: atol})
			s.freshCols = fresh
			S := make([]float64, len(c.tout)*nx*len(ps))
			var tr Trajectory
			if err := s.IntegrateSens(&tr, S, p, x0, nil, 0, c.tout, &SensSettings{Params: ps, ErrCon: errcon}); err != nil {
				t.Fatal(err)
			}
			if s.freshS != (fresh <= len(ps)) {
				t.Fatalf("freshS %v with freshCols %d and %d columns", s.freshS, fresh, len(ps))
			}
			return S, s.Stats()
		}
		ref, _ := solve(LinearDense, 1e-11, 1e-13, true, 1<<30)
		for _, ls := range []LinearSolver{LinearDense, LinearSparse} {
			for _, errcon := range []bool{false, true} {
				Sc, stc := solve(ls, 1e-6, 1e-8, errcon, 1<<30)
				Se, ste := solve(ls, 1e-6, 1e-8, errcon, 1)
				ec, ee := relDiff(Sc, ref), relDiff(Se, ref)
				t.Logf("%s %v errcon=%v: error CVODES corrector %.3g (%d steps, %d sens iterations), exact %.3g (%d steps, %d iterations)",
					c.name, ls, errcon, ec, stc.Steps, stc.SensNewtonIters, ee, ste.Steps, ste.SensNewtonIters)
				if !(ee <= 2*ec+1e-6) {
					t.Errorf("%s %v errcon=%v: exact corrector's error %.3g, CVODES's %.3g", c.name, ls, errcon, ee, ec)
				}
				if ste.SensNewtonIters > stc.SensNewtonIters {
					t.Errorf("%s %v errcon=%v: exact corrector took %d sensitivity iterations, CVODES's %d", c.name, ls, errcon, ste.SensNewtonIters, stc.SensNewtonIters)
				}
			}
		}
	}
}
