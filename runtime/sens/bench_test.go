package sens

import (
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// stepBench prepares one end-point step of the default PBSR/Exp on the
// generated CaMKII network inside its initial transient (t = 0.5, h =
// 1/64): the trajectory comes from a real solve, the step reuses the
// exponential of Jx(0.5) at the end point Jx(0.5 + h) (the common case of
// the W-method correction), and S is that of the solve at t = 0.5.
func stepBench(b *testing.B) (en *engine, src, dst []float64, h float64) {
	m := camkii.New()
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	ts := []float64{0, 0.5, 1}
	s := NewSolver(m, &Options{RTol: 1e-5, ATol: 1e-6})
	var res Result
	if err := s.Solve(&res, p, nil, 0, ts); err != nil {
		b.Fatal(err)
	}
	en = s.en
	h = 1.0 / 64
	a, bb := &en.a, &en.b
	a.t, bb.t = 0.5, 0.5+h
	s.tr.InterpTo(a.x, a.t)
	s.tr.InterpTo(bb.x, bb.t)
	en.eval(a)
	en.eval(bb)
	for i := range en.endpoint.slots {
		en.endpoint.slots[i].valid = false
	}
	en.slotFor(a.jx, a.jx, h) // the cached exponential, An = Jx(0.5)
	src = append([]float64(nil), res.SAt(1)...)
	dst = make([]float64, len(src))
	return en, src, dst, h
}

// BenchmarkCaMKIIPBSRStep is one accepted PBSR sub-step: the end-point
// step with the W-method correction, the probes at the new point and the
// local error estimate.
func BenchmarkCaMKIIPBSRStep(b *testing.B) {
	en, src, dst, h := stepBench(b)
	a, bb := &en.a, &en.b
	nS := frob(src)
	tau := en.cfg.srtol*nS + en.cfg.satol
	en.probeAt(&en.control.nodes[0], src, a)
	en.probeAt(&en.control.nodes[1], src, a)
	n0 := en.stats.Exponentials
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		en.endpointStep(dst, src, a, bb, h, nS, tau)
		en.probeAt(&en.control.nodes[2], dst, bb)
		sink = en.localError(&en.control.nodes[2], &en.control.nodes[1], &en.control.nodes[0], a.t, bb.t, a.t-h, true)
	}
	if n := en.stats.Exponentials - n0; n != 0 {
		b.Fatalf("%d exponentials in the loop, want 0 (reuse)", n)
	}
}

// BenchmarkCaMKIIExpStep is one step of the default Exp: the end-point
// step with the W-method correction.
func BenchmarkCaMKIIExpStep(b *testing.B) {
	en, src, dst, h := stepBench(b)
	a, bb := &en.a, &en.b
	nS := frob(src)
	tau := en.cfg.srtol*nS + en.cfg.satol
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		en.endpointStep(dst, src, a, bb, h, nS, tau)
	}
	sink = dst[0]
}

// benchCaMKIISolve is one whole solve of generated CaMKII at the paper's
// settings (outputs t = 0, 1, ..., 600), the workspace reused: the unit
// that pbbench times, here for pprof.
func benchCaMKIISolve(b *testing.B, opt Options) {
	m, p, ts := camkiiPaper()
	opt.RTol, opt.ATol = 1e-5, 1e-6
	s := NewSolver(m, &opt)
	var res Result
	// A first solve sizes res: the timed solves reuse the workspace and
	// res, as an MCMC user's do, and must allocate nothing.
	if err := s.Solve(&res, p, nil, 0, ts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Solve(&res, p, nil, 0, ts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCaMKIISolvePBSR(b *testing.B) { benchCaMKIISolve(b, Options{Method: PBSR}) }
func BenchmarkCaMKIISolveExp(b *testing.B)  { benchCaMKIISolve(b, Options{Method: Exp}) }

// BenchmarkCaMKIISolveFS is FS with ErrCon and every output a grid point
// (the default); ...FSInterp steps over the outputs as CVODES does.
func BenchmarkCaMKIISolveFS(b *testing.B) {
	benchCaMKIISolve(b, Options{Method: FS, ErrCon: true})
}
func BenchmarkCaMKIISolveFSInterp(b *testing.B) {
	benchCaMKIISolve(b, Options{Method: FS, ErrCon: true, ODE: ode.Settings{Interpolate: true}})
}

// camkiiPaper is generated CaMKII with its default parameters and the
// paper's outputs t = 0, 1, ..., 600.
func camkiiPaper() (model.Model, []float64, []float64) {
	m := camkii.New()
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	ts := make([]float64, 601)
	for i := range ts {
		ts[i] = float64(i)
	}
	return m, p, ts
}

// benchStiffSolve is one solve of CaMKII with kf__CaM__Ca = 1e9 (issue
// #16) as pbgen sim runs it (outputs every 0.1 on [0, 10], rtol 1e-6),
// workspace reused: the stiff case where PBSR must not fall far behind FS.
func benchStiffSolve(b *testing.B, opt Options) {
	m, p := stiffCaMKII()
	ts := uniform(0, 10, 100)
	s := NewSolver(m, &opt)
	var res Result
	if err := s.Solve(&res, p, nil, 0, ts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Solve(&res, p, nil, 0, ts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStiffSolvePBSR(b *testing.B) { benchStiffSolve(b, Options{Method: PBSR}) }
func BenchmarkStiffSolveExp(b *testing.B)  { benchStiffSolve(b, Options{Method: Exp}) }
func BenchmarkStiffSolveFS(b *testing.B)   { benchStiffSolve(b, Options{Method: FS}) }
func BenchmarkStiffSolveFSErrCon(b *testing.B) {
	benchStiffSolve(b, Options{Method: FS, ErrCon: true})
}
