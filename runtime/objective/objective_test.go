package objective_test

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

var methods = []sens.Method{sens.FS, sens.PBSR, sens.Exp}

// decayProblem: theta = (log10 k, x0, ln s, log10 sigma); condition "a"
// estimates k and x0, condition "b" fixes x0 = 3 (so its experiment has
// one sensitivity column: a second column group).
func decayProblem() *objective.Problem {
	th := func(a int) objective.Value { return objective.Value{Theta: a} }
	u := []objective.Value{th(2), th(3)}
	d := func(t, y float64) objective.Datum { return objective.Datum{Obs: 0, T: t, Y: y, U: u} }
	return &objective.Problem{
		Params: []objective.Param{
			{ID: "k", Scale: objective.Log10, Nominal: 0.7, Estimate: true},
			{ID: "x0", Scale: objective.Lin, Nominal: 2, Estimate: true},
			{ID: "s", Scale: objective.Log, Nominal: 1.5, Estimate: true},
			{ID: "sigma", Scale: objective.Log10, Nominal: 0.3, Estimate: true},
		},
		Estimated:   []int{0, 1, 2, 3},
		Observables: []objective.Observable{{ID: "y"}},
		Conditions: []objective.Condition{
			{ID: "a", P: []objective.Value{th(0), th(1)}},
			{ID: "b", P: []objective.Value{th(0), {Theta: -1, Const: 3}}},
		},
		Experiments: []objective.Experiment{
			{Preeq: -1, Sim: 0, Data: []objective.Datum{d(0.5, 2.2), d(1, 1.4), d(1, 1.7), d(2, 0.9)}},
			{Preeq: -1, Sim: 1, T0: 0.25, Data: []objective.Datum{d(0.25, 4.0), d(3, 0.6)}},
		},
	}
}

// The linear model's llh, gradient and FIM in closed form.
func TestDecayAnalytic(t *testing.T) {
	prob := decayProblem()
	theta := []float64{math.Log10(0.7), 2, math.Log(1.5), math.Log10(0.3)}
	k, s, sg := 0.7, 1.5, 0.3
	var llh float64
	grad := make([]float64, 4)
	fim := make([]float64, 16)
	for e, ex := range prob.Experiments {
		for _, d := range ex.Data {
			x0, dx0 := 2.0, 1.0
			if e == 1 {
				x0, dx0 = 3, 0
			}
			ekt := math.Exp(-k * (d.T - ex.T0))
			x := x0 * ekt
			h := s * x
			r := (h - d.Y) / sg
			llh += -0.5*math.Log(2*math.Pi*sg*sg) - 0.5*r*r
			dh := []float64{s * (-(d.T - ex.T0) * x) * k * math.Ln10, s * ekt * dx0, h, 0}
			ds := []float64{0, 0, 0, sg * math.Ln10}
			for a := range grad {
				grad[a] += -r/sg*dh[a] + (r*r-1)/sg*ds[a]
				for b := range grad {
					fim[a*4+b] += (dh[a]*dh[b] + 2*ds[a]*ds[b]) / (sg * sg)
				}
			}
		}
	}
	for _, meth := range methods {
		// sens.Exp (no local error control) reaches only ~1e-5 in S on this
		// problem at these tolerances (measured: 1e-5 on dx/dk at rtol
		// 1e-12 in sens.Solve itself), so it gets a tolerance of its own.
		tol := 1e-8
		if meth == sens.Exp {
			tol = 1e-4
		}
		o, err := objective.New(newDecay(), prob, &objective.Options{Method: meth, RTol: 1e-12, ATol: 1e-14, Grad: true, FIM: true})
		if err != nil {
			t.Fatal(err)
		}
		var res objective.Result
		if err := o.Eval(theta, &res); err != nil {
			t.Fatal(err)
		}
		if !close(res.LLH, llh, tol) {
			t.Errorf("%v: llh %.12g, want %.12g", meth, res.LLH, llh)
		}
		for a := range grad {
			if !close(res.Grad[a], grad[a], tol) {
				t.Errorf("%v: grad[%d] %.12g, want %.12g", meth, a, res.Grad[a], grad[a])
			}
		}
		for i := range fim {
			if !close(res.FIM[i], fim[i], tol) {
				t.Errorf("%v: FIM[%d,%d] %.12g, want %.12g", meth, i/4, i%4, res.FIM[i], fim[i])
			}
		}
		if n := o.NumData(); len(res.Sim) != n || n != 6 {
			t.Errorf("%v: %d simulated values, NumData %d, want 6", meth, len(res.Sim), n)
		}
		o.Close()
	}
}

// close reports |a-b| <= tol (1 + |b|).
func close(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }

// llhAt evaluates the llh of o at theta (nil on error).
func evalAt(t *testing.T, o *objective.Objective, theta []float64) *objective.Result {
	t.Helper()
	var r objective.Result
	if err := o.Eval(theta, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// fdStep is the central-difference step for theta component a.
func fdStep(th float64) float64 { return 3e-3 * math.Max(1, math.Abs(th)) }

// The gradient on the nonlinear problem (every path to theta) against
// central differences of the llh computed with FS at rtol 1e-10.
func TestGradientFD(t *testing.T) {
	prob := abcProblem()
	ref, err := objective.New(newABC(), prob, &objective.Options{Method: sens.FS, RTol: 1e-12, ATol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	theta := ref.Nominal()
	fd := make([]float64, len(theta))
	th := append([]float64(nil), theta...)
	llh := func(a int, h float64) float64 {
		th[a] = theta[a] + h
		defer func() { th[a] = theta[a] }()
		return evalAt(t, ref, th).LLH
	}
	for a := range theta {
		// Fourth-order central differences: the llh carries the
		// integrator's error (~1e-8 here), so a step small enough for
		// second order would drown in it.
		h := fdStep(theta[a])
		fd[a] = (8*(llh(a, h)-llh(a, -h)) - (llh(a, 2*h) - llh(a, -2*h))) / (12 * h)
	}
	for _, meth := range methods {
		o, err := objective.New(newABC(), prob, &objective.Options{Method: meth, RTol: 1e-10, ATol: 1e-12, Grad: true})
		if err != nil {
			t.Fatal(err)
		}
		r := evalAt(t, o, theta)
		worst, wa := 0.0, 0
		for a := range fd {
			e := math.Abs(r.Grad[a]-fd[a]) / (1 + math.Abs(fd[a]))
			if e > worst {
				worst, wa = e, a
			}
			if e > 1e-5 {
				t.Errorf("%v: grad[%d] (%s) %.9g, finite differences %.9g", meth, a, o.Params()[a], r.Grad[a], fd[a])
			}
		}
		t.Logf("%v: worst gradient error %.2e (component %d, %s); llh %.10g", meth, worst, wa, o.Params()[wa], r.LLH)
		o.Close()
	}
}

// The FIM equals the Gauss-Newton product of residual sensitivities taken
// by central differences of the simulated values and sigmas.
func TestFIMGaussNewton(t *testing.T) {
	prob := abcProblem()
	ref, err := objective.New(newABC(), prob, &objective.Options{Method: sens.FS, RTol: 1e-12, ATol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	theta := ref.Nominal()
	nt, nd := len(theta), ref.NumData()
	base := evalAt(t, ref, theta)
	jh := make([]float64, nd*nt) // d z(h_i) / d theta_a
	js := make([]float64, nd*nt) // d sigma_i / d theta_a
	th := append([]float64(nil), theta...)
	var obs []objective.Observable
	for _, ex := range prob.Experiments {
		for _, d := range ex.Data {
			obs = append(obs, prob.Observables[d.Obs])
		}
	}
	z := func(tr objective.Transform, h float64) float64 {
		switch tr {
		case objective.TransformLog:
			return math.Log(h)
		case objective.TransformLog10:
			return math.Log10(h)
		}
		return h
	}
	// at returns z(h_i) and sigma_i at theta + h e_a.
	at := func(a int, h float64) (zs, sg []float64) {
		th[a] = theta[a] + h
		r := evalAt(t, ref, th)
		th[a] = theta[a]
		for i := 0; i < nd; i++ {
			zs = append(zs, z(obs[i].Transform, r.Sim[i]))
		}
		return zs, append([]float64(nil), r.Sigma...)
	}
	for a := range theta {
		h := fdStep(theta[a])
		z1, s1 := at(a, h)
		z2, s2 := at(a, -h)
		z3, s3 := at(a, 2*h)
		z4, s4 := at(a, -2*h)
		for i := 0; i < nd; i++ {
			jh[i*nt+a] = (8*(z1[i]-z2[i]) - (z3[i] - z4[i])) / (12 * h)
			js[i*nt+a] = (8*(s1[i]-s2[i]) - (s3[i] - s4[i])) / (12 * h)
		}
	}
	want := make([]float64, nt*nt)
	for i := 0; i < nd; i++ {
		s2 := base.Sigma[i] * base.Sigma[i]
		ws := 2.0
		if obs[i].Noise == objective.Laplace {
			ws = 1
		}
		for a := 0; a < nt; a++ {
			for b := 0; b < nt; b++ {
				want[a*nt+b] += (jh[i*nt+a]*jh[i*nt+b] + ws*js[i*nt+a]*js[i*nt+b]) / s2
			}
		}
	}
	scale := 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for _, meth := range methods {
		o, err := objective.New(newABC(), prob, &objective.Options{Method: meth, RTol: 1e-8, ATol: 1e-10, FIM: true})
		if err != nil {
			t.Fatal(err)
		}
		r := evalAt(t, o, theta)
		worst := 0.0
		for i := range want {
			e := math.Abs(r.FIM[i]-want[i]) / scale
			worst = math.Max(worst, e)
			if e > 1e-5 {
				t.Errorf("%v: FIM[%d,%d] %.9g, Gauss-Newton from differences %.9g", meth, i/nt, i%nt, r.FIM[i], want[i])
			}
			if math.Abs(r.FIM[i]-r.FIM[(i%nt)*nt+i/nt]) > 1e-12*scale {
				t.Errorf("%v: FIM not symmetric at %d,%d", meth, i/nt, i%nt)
			}
		}
		t.Logf("%v: worst FIM error %.2e relative to max |FIM| %.3g", meth, worst, scale)
		o.Close()
	}
}

// Workers only parallelise: results are identical (bit for bit, as the
// summation order is fixed) and Eval allocates nothing after the first call.
func TestWorkersAndAllocs(t *testing.T) {
	prob := abcProblem()
	var first []float64
	for _, w := range []int{1, 3} {
		o, err := objective.New(newABC(), prob, &objective.Options{Workers: w, Grad: true, FIM: true})
		if err != nil {
			t.Fatal(err)
		}
		theta := o.Nominal()
		var r objective.Result
		if err := o.Eval(theta, &r); err != nil {
			t.Fatal(err)
		}
		got := append(append([]float64{r.LLH, r.Chi2, r.LogPost}, r.Grad...), r.FIM...)
		got = append(got, r.Sim...)
		if first == nil {
			first = got
		} else {
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(first[i]) {
					t.Errorf("Workers %d: value %d is %.17g, with 1 worker %.17g", w, i, got[i], first[i])
				}
			}
		}
		allocs := testing.AllocsPerRun(5, func() {
			if err := o.Eval(theta, &r); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("Workers %d: %v allocations per Eval", w, allocs)
		}
		o.Close()
	}
}

// Errors name the experiment and the condition.
func TestErrors(t *testing.T) {
	prob := decayProblem()
	prob.Experiments[1].Data[0].T = posInf
	prob.Conditions[1].P[0] = objective.Value{Theta: -1, Const: -1} // growth: no steady state
	o, err := objective.New(newDecay(), prob, &objective.Options{SteadyTMax: 1e3})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	var r objective.Result
	err = o.Eval(o.Nominal(), &r)
	if err == nil || !strings.Contains(err.Error(), `"b"`) || !strings.Contains(err.Error(), "steady state") {
		t.Fatalf("error %v, want one naming condition \"b\" and the steady state", err)
	}
	if err := o.Eval([]float64{math.NaN(), 0, 0, 0}, &r); err == nil {
		t.Error("NaN theta accepted")
	}
	bad := decayProblem()
	bad.Observables[0].Transform = objective.TransformLog
	bad.Experiments[0].Data[0].Y = -1
	if _, err := objective.New(newDecay(), bad, nil); err == nil || !strings.Contains(err.Error(), "not positive") {
		t.Errorf("negative measurement of a log observable: error %v", err)
	}
	bad = decayProblem()
	bad.Experiments[0].Data[0].U = bad.Experiments[0].Data[0].U[:1]
	if _, err := objective.New(newDecay(), bad, nil); err == nil {
		t.Error("datum with too few placeholders accepted")
	}
}

// Steady-state data equal the closed-form steady state of abc: A + B = T
// is conserved (through pre-equilibration too, as only C is
// re-initialised), k1 A = k2 B^2 gives B, and C = k3 A B / k4.
func TestSteadyStateValues(t *testing.T) {
	prob := abcProblem()
	for _, meth := range methods {
		o, err := objective.New(newABC(), prob, &objective.Options{Method: meth, RTol: 1e-10, ATol: 1e-12, Grad: true})
		if err != nil {
			t.Fatal(err)
		}
		theta := o.Nominal()
		r := evalAt(t, o, theta)
		lin := func(a int) float64 {
			x, _ := objective.FromScale(prob.Params[prob.Estimated[a]].Scale, theta[a])
			return x
		}
		ss := func(k1, k2, k3, k4, total float64) (a, b, c float64) {
			b = (-k1 + math.Sqrt(k1*k1+4*k2*k1*total)) / (2 * k2)
			a = total - b
			return a, b, k3 * a * b / k4
		}
		total := lin(5) + 0.3 // A0 + B0 of the pre-equilibration condition
		// Experiment 0 (simulation condition "stim"): data 6 (pC) and 7 (pB).
		_, b, c := ss(lin(0), lin(2), lin(3), lin(4), total)
		if !close(r.Sim[6], c, 1e-7) || !close(r.Sim[7], lin(7)*b, 1e-7) {
			t.Errorf("%v: steady state pC %.10g, pB %.10g; want %.10g, %.10g", meth, r.Sim[6], r.Sim[7], c, lin(7)*b)
		}
		// Experiment 2 (pre-equilibrated, then "plain" with k4 = 0.7): data
		// 13 (ratio) and 14 (AC).
		off := len(prob.Experiments[0].Data) + len(prob.Experiments[1].Data)
		a, b, c := ss(lin(0), lin(2), lin(3), 0.7, total)
		if !close(r.Sim[off], lin(3)*a/(a+b), 1e-7) || !close(r.Sim[off+1], a+c, 1e-7) {
			t.Errorf("%v: steady state ratio %.10g, AC %.10g; want %.10g, %.10g", meth, r.Sim[off], r.Sim[off+1], lin(3)*a/(a+b), a+c)
		}
		o.Close()
	}
}

// A simulated value outside a log transformation's domain is an error
// naming the experiment, the observable and the time.
func TestNonPositiveSimulation(t *testing.T) {
	prob := decayProblem()
	prob.Observables[0].Transform = objective.TransformLog
	prob.Experiments[1].Data[1].U = []objective.Value{{Theta: -1, Const: -1}, {Theta: 3}}
	o, err := objective.New(newDecay(), prob, &objective.Options{Grad: true})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	var r objective.Result
	err = o.Eval(o.Nominal(), &r)
	if err == nil || !strings.Contains(err.Error(), `"b"`) || !strings.Contains(err.Error(), "t = 3") {
		t.Fatalf("error %v, want one naming condition \"b\" and t = 3", err)
	}
}

// Without Grad and FIM no sensitivity columns are computed; the state and
// so the llh are those of the full evaluation. For FS that holds without
// S in the error test (NoErrCon), whose steps are the state's alone; with
// it (the default) S's error changes the steps, and the llh differs by
// the integration error (2.5e-6 relative here), checked to 1e-4.
func TestNoSensitivities(t *testing.T) {
	prob := abcProblem()
	for _, meth := range methods {
		if meth == sens.FS {
			def, err := objective.New(newABC(), prob, &objective.Options{Method: meth, Grad: true})
			if err != nil {
				t.Fatal(err)
			}
			bare, err := objective.New(newABC(), prob, &objective.Options{Method: meth})
			if err != nil {
				t.Fatal(err)
			}
			theta := def.Nominal()
			rd, rb := evalAt(t, def, theta), evalAt(t, bare, theta)
			if !close(rb.LLH, rd.LLH, 1e-4) {
				t.Errorf("FS with ErrCon: llh without sensitivities %.10g, with %.10g", rb.LLH, rd.LLH)
			}
			def.Close()
			bare.Close()
		}
		full, err := objective.New(newABC(), prob, &objective.Options{Method: meth, Grad: true, FIM: true, NoErrCon: true})
		if err != nil {
			t.Fatal(err)
		}
		bare, err := objective.New(newABC(), prob, &objective.Options{Method: meth})
		if err != nil {
			t.Fatal(err)
		}
		theta := full.Nominal()
		rf, rb := evalAt(t, full, theta), evalAt(t, bare, theta)
		if !close(rb.LLH, rf.LLH, 1e-6) || len(rb.Grad) != 0 || len(rb.FIM) != 0 {
			t.Errorf("%v: llh without sensitivities %.10g, with %.10g; grad length %d, FIM length %d", meth, rb.LLH, rf.LLH, len(rb.Grad), len(rb.FIM))
		}
		full.Close()
		bare.Close()
	}
}

// sqrtDecay is decay with f = -k sqrt(x - 1.8): not defined once x < 1.8 (at
// t = 1.28 from x0 = 2), so
// the integrator fails; the error names the experiment and the time.
type sqrtDecay struct{ *decay }

func (sqrtDecay) F(dst []float64, _ float64, x, p []float64) { dst[0] = -p[0] * math.Sqrt(x[0]-1.8) }
func (sqrtDecay) Jx(dst []float64, _ float64, x, p []float64) {
	dst[0] = -p[0] * 0.5 / math.Sqrt(x[0]-1.8)
}
func (sqrtDecay) Jp(dst []float64, _ float64, x, p []float64) { dst[0] = -math.Sqrt(x[0] - 1.8) }

func TestSolveFailure(t *testing.T) {
	prob := decayProblem()
	for _, meth := range methods {
		o, err := objective.New(sqrtDecay{newDecay()}, prob, &objective.Options{Method: meth, Grad: true})
		if err != nil {
			t.Fatal(err)
		}
		var r objective.Result
		err = o.Eval(o.Nominal(), &r)
		t.Logf("%v: %v", meth, err)
		if err == nil || !strings.Contains(err.Error(), `experiment 0 (simulation condition "a")`) || !strings.Contains(err.Error(), "t=") {
			t.Errorf("%v: error %v, want one naming experiment 0, condition \"a\" and the time", meth, err)
		}
		o.Close()
	}
}

// abc's steady states are solved for (Jx + L^T L with the conservation
// law A + B is regular), not integrated; a degenerate steady state (cubic
// decay x' = -k x^3, Jx = 0 at x = 0) falls back to integrating S, which
// still matches finite differences.
func TestSteadyStatePaths(t *testing.T) {
	o, err := objective.New(newABC(), abcProblem(), &objective.Options{Grad: true})
	if err != nil {
		t.Fatal(err)
	}
	r := evalAt(t, o, o.Nominal())
	if r.Stats.SensFallbacks != 0 {
		t.Errorf("abc: %d steady-state sensitivity fallbacks, want 0", r.Stats.SensFallbacks)
	}
	o.Close()

	prob := decayProblem()
	prob.Experiments = prob.Experiments[:1]
	prob.Experiments[0].Preeq = 0
	prob.Experiments[0].Reinit = []int{0}
	prob.Experiments[0].Data = []objective.Datum{
		{Obs: 0, T: posInf, Y: 0.1, U: prob.Experiments[0].Data[0].U},
	}
	// Steady state x = 0 of x' = -k x^3 is reached algebraically, so
	// loose steady-state tolerances; S ~ d x(t)/dtheta still converges.
	opt := &objective.Options{Method: sens.FS, Grad: true, SteadyATol: 1e-4, SteadyRTol: 1e-4}
	o, err = objective.New(cubic{newDecay()}, prob, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	r = evalAt(t, o, o.Nominal())
	if r.Stats.SensFallbacks == 0 {
		t.Errorf("cubic decay: steady-state sensitivities solved with a singular Jx")
	}
	if math.Abs(r.Sim[0]) > 0.05 {
		t.Errorf("cubic decay: steady state %g, want near 0", r.Sim[0])
	}
	// The next evaluation integrates S directly: no state-only chunks.
	first, llh := r.Stats, r.LLH
	r = evalAt(t, o, o.Nominal())
	if r.Stats.SensFallbacks != first.SensFallbacks || r.Stats.SteadyChunks >= first.SteadyChunks || !close(r.LLH, llh, 1e-6) {
		t.Errorf("cubic decay, second evaluation: stats %+v (first %+v), llh %.10g (first %.10g)", r.Stats, first, r.LLH, llh)
	}
}

// cubic is x' = -k x^3.
type cubic struct{ *decay }

func (cubic) F(dst []float64, _ float64, x, p []float64)  { dst[0] = -p[0] * x[0] * x[0] * x[0] }
func (cubic) Jx(dst []float64, _ float64, x, p []float64) { dst[0] = -3 * p[0] * x[0] * x[0] }
func (cubic) Jp(dst []float64, _ float64, x, p []float64) { dst[0] = -x[0] * x[0] * x[0] }

// New rejects inconsistent problems with an error (never a panic).
func TestNewErrors(t *testing.T) {
	cases := []struct {
		name string
		edit func(p *objective.Problem)
		want string
	}{
		{"observable id", func(p *objective.Problem) { p.Observables[0].ID = "z" }, `"z"`},
		{"observable count", func(p *objective.Problem) { p.Observables = nil }, "observables"},
		{"condition length", func(p *objective.Problem) { p.Conditions[0].P = p.Conditions[0].P[:1] }, `condition "a"`},
		{"theta index", func(p *objective.Problem) { p.Conditions[1].P[0].Theta = 7 }, "theta index 7"},
		{"estimated index", func(p *objective.Problem) { p.Estimated[0] = 9 }, "index 9"},
		{"scale", func(p *objective.Problem) { p.Params[1].Scale = 5 }, "scale"},
		{"noise", func(p *objective.Problem) { p.Observables[0].Noise = 4 }, "noise"},
		{"simulation condition", func(p *objective.Problem) { p.Experiments[0].Sim = 2 }, "condition index"},
		{"reinit", func(p *objective.Problem) {
			p.Experiments[0].Preeq = 1
			p.Experiments[0].Reinit = []int{1}
		}, "re-initialised state 1"},
		{"time before start", func(p *objective.Problem) { p.Experiments[1].Data[0].T = 0.1 }, "before the start"},
		{"measurement", func(p *objective.Problem) { p.Experiments[1].Data[0].Y = math.NaN() }, "measurement NaN"},
		{"observable index", func(p *objective.Problem) { p.Experiments[0].Data[2].Obs = 1 }, "observable 1 out of range"},
	}
	for _, c := range cases {
		p := decayProblem()
		c.edit(p)
		_, err := objective.New(newDecay(), p, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := objective.New(plainModel{newDecay()}, decayProblem(), nil); err == nil {
		t.Error("a model without observables accepted")
	}
}

// plainModel hides decay's Observables.
type plainModel struct{ model.Model }

// gcModel is abc collecting garbage in every Observe, so that an
// Objective's finalizer, if the Objective were unreachable during Eval,
// would run in the middle of it.
type gcModel struct{ *abc }

func (m gcModel) Observe(k int, t float64, x, p, u []float64, d *model.ObsDeriv) (float64, float64) {
	runtime.GC()
	return m.abc.Observe(k, t, x, p, u, d)
}

// An Objective whose last use is an Eval stays alive for it (Workers > 1:
// its finalizer, run by a collection inside Eval, would close the workers'
// channels, "send on closed channel" if before a send). A smoke test: the
// race it guards against depends on scheduling.
func TestFinalizerDuringEval(t *testing.T) {
	for i := 0; i < 5; i++ {
		var r objective.Result
		o, err := objective.New(gcModel{newABC()}, abcProblem(), &objective.Options{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		theta := o.Nominal()
		if err := o.Eval(theta, &r); err != nil {
			t.Fatal(err)
		}
		if err := o.Eval(theta, &r); err != nil { // the last use of o
			t.Fatal(err)
		}
		runtime.GC()
	}
}

// theta = -Inf on a log scale is the linear value 0 (PEtab nominal value
// 0 of a log-scaled parameter) with a zero derivative; on the linear scale
// it is an error.
func TestLogScaleZero(t *testing.T) {
	prob := decayProblem()
	o, err := objective.New(newDecay(), prob, &objective.Options{Method: sens.FS, Grad: true})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	theta := o.Nominal()
	theta[0] = math.Inf(-1) // k = 0: x stays at x0
	r := evalAt(t, o, theta)
	s := 1.5
	if !close(r.Sim[0], s*2, 1e-12) || r.Grad[0] != 0 || math.IsNaN(r.LLH) {
		t.Errorf("k = 0: y(0.5) = %g (want %g), dllh/dlog10 k = %g (want 0), llh %g", r.Sim[0], s*2, r.Grad[0], r.LLH)
	}
	theta[1] = math.Inf(-1) // x0 is on the linear scale
	if err := o.Eval(theta, r); err == nil {
		t.Error("theta = -Inf on the linear scale accepted")
	}
}

// A problem without experiments or estimated parameters evaluates to
// zero (no panic on degenerate input).
func TestEmptyProblem(t *testing.T) {
	o, err := objective.New(newDecay(), &objective.Problem{Observables: []objective.Observable{{ID: "y"}}}, &objective.Options{Grad: true, FIM: true, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	r := evalAt(t, o, nil)
	if r.LLH != 0 || r.LogPost != 0 || len(r.Grad) != 0 || len(r.Sim) != 0 {
		t.Errorf("empty problem: %+v", r)
	}
}

// A theta of the wrong length, and an Eval after Close, are errors a
// caller can handle, not panics.
func TestEvalMisuseIsAnError(t *testing.T) {
	o, err := objective.New(newDecay(), decayProblem(), &objective.Options{Method: sens.FS})
	if err != nil {
		t.Fatal(err)
	}
	var out objective.Result
	th := o.Nominal()
	if err := o.Eval(append(th, 1), &out); err == nil || !strings.Contains(err.Error(), "theta has") {
		t.Errorf("long theta: %v", err)
	}
	o.Close()
	if err := o.Eval(th, &out); err == nil || !strings.Contains(err.Error(), "after Close") {
		t.Errorf("Eval after Close: %v", err)
	}
}

// By default the integrator steps over the output times and interpolates
// (Options.OutputsOnGrid false): on data at many times it takes fewer
// steps than landing on each, and llh and gradient stay within the
// tolerance's reach of the tight values (the gradient by the
// finite-difference check's criterion, 1e-3 + 1e-2 |ref|), as on the grid.
func TestOutputsInterpolated(t *testing.T) {
	prob := decayProblem()
	u := prob.Experiments[0].Data[0].U
	var data []objective.Datum
	for i := 1; i <= 60; i++ {
		t := 0.05 * float64(i)
		data = append(data, objective.Datum{Obs: 0, T: t, Y: 2 * math.Exp(-0.7*t) * (1 + 0.1*math.Sin(float64(i))), U: u})
	}
	prob.Experiments = prob.Experiments[:1]
	prob.Experiments[0].Data = data
	theta := []float64{math.Log10(0.9), 1.8, math.Log(1.4), math.Log10(0.2)}
	eval := func(opt *objective.Options) *objective.Result {
		o, err := objective.New(newDecay(), prob, opt)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		return evalAt(t, o, theta)
	}
	ref := eval(&objective.Options{Method: sens.FS, RTol: 1e-12, ATol: 1e-14, Grad: true})
	interp := eval(&objective.Options{Method: sens.FS, Grad: true})
	grid := eval(&objective.Options{Method: sens.FS, Grad: true, OutputsOnGrid: true})
	for _, c := range []struct {
		name string
		r    *objective.Result
	}{{"interpolated", interp}, {"on the grid", grid}} {
		if !close(c.r.LLH, ref.LLH, 1e-4) {
			t.Errorf("%s: llh %.10g, want %.10g", c.name, c.r.LLH, ref.LLH)
		}
		for a := range ref.Grad {
			if !(math.Abs(c.r.Grad[a]-ref.Grad[a]) <= 1e-3+1e-2*math.Abs(ref.Grad[a])) {
				t.Errorf("%s: grad[%d] %.10g, want %.10g", c.name, a, c.r.Grad[a], ref.Grad[a])
			}
		}
	}
	if !(interp.Stats.Steps < grid.Stats.Steps) {
		t.Errorf("interpolated: %d steps, on the grid %d: want fewer", interp.Stats.Steps, grid.Stats.Steps)
	}
	t.Logf("steps: interpolated %d, on the grid %d", interp.Stats.Steps, grid.Stats.Steps)
}
