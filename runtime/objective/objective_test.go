package objective_test

import (
	"math"
	"strings"
	"testing"

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
		o, err := objective.New(newDecay(), prob, &objective.Options{Method: meth, RTol: 1e-12, ATol: 1e-14, Grad: true, FIM: true})
		if err != nil {
			t.Fatal(err)
		}
		var res objective.Result
		if err := o.Eval(theta, &res); err != nil {
			t.Fatal(err)
		}
		if !close(res.LLH, llh, 1e-8) {
			t.Errorf("%v: llh %.12g, want %.12g", meth, res.LLH, llh)
		}
		for a := range grad {
			if !close(res.Grad[a], grad[a], 1e-8) {
				t.Errorf("%v: grad[%d] %.12g, want %.12g", meth, a, res.Grad[a], grad[a])
			}
		}
		for i := range fim {
			if !close(res.FIM[i], fim[i], 1e-8) {
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
func fdStep(th float64) float64 { return 1e-4 * math.Max(1, math.Abs(th)) }

// The gradient on the nonlinear problem (every path to theta) against
// central differences of the llh computed with FS at rtol 1e-10.
func TestGradientFD(t *testing.T) {
	prob := abcProblem()
	ref, err := objective.New(newABC(), prob, &objective.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	theta := ref.Nominal()
	fd := make([]float64, len(theta))
	th := append([]float64(nil), theta...)
	for a := range theta {
		h := fdStep(theta[a])
		th[a] = theta[a] + h
		up := evalAt(t, ref, th).LLH
		th[a] = theta[a] - h
		dn := evalAt(t, ref, th).LLH
		th[a] = theta[a]
		fd[a] = (up - dn) / (2 * h)
	}
	for _, meth := range methods {
		o, err := objective.New(newABC(), prob, &objective.Options{Method: meth, RTol: 1e-8, ATol: 1e-10, Grad: true})
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
			if e > 1e-4 {
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
	ref, err := objective.New(newABC(), prob, &objective.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12})
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
	for a := range theta {
		h := fdStep(theta[a])
		th[a] = theta[a] + h
		up := evalAt(t, ref, th)
		upSim, upSig := append([]float64(nil), up.Sim...), append([]float64(nil), up.Sigma...)
		th[a] = theta[a] - h
		dn := evalAt(t, ref, th)
		th[a] = theta[a]
		for i := 0; i < nd; i++ {
			tr := obs[i].Transform
			jh[i*nt+a] = (z(tr, upSim[i]) - z(tr, dn.Sim[i])) / (2 * h)
			js[i*nt+a] = (upSig[i] - dn.Sigma[i]) / (2 * h)
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
