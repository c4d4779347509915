package petab

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

const camkii = "../networks/petab/CaMKII/problem.yaml"

// priorOnly returns a Target on p's model whose problem has one estimated
// parameter with prior pr on scale s and no data: its log posterior is the
// prior's log density in theta.
func priorOnly(t *testing.T, p *Problem, pr objective.Prior, s objective.Scale) *Target {
	t.Helper()
	prob := &objective.Problem{
		Params:      []objective.Param{{ID: "q", Scale: s, Lower: 1e-300, Upper: 1e300, Nominal: 1, Estimate: true, Prior: pr}},
		Estimated:   []int{0},
		Observables: p.Objective.Observables,
	}
	if s == objective.Lin {
		prob.Params[0].Lower = -1e300
	}
	tg, err := newTarget(p.Model, prob, &TargetOptions{Grad: true, FIM: true})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// TestTargetPriorDensity: with the change-of-variables term, every prior
// kind is a normalised density of theta on every scale (its integral over
// theta is 1, which the objective's LogPrior alone is not for a prior on
// the linear value of a log-scaled parameter); the gradient is the
// derivative of the value, and the metric's prior term is the negative
// second derivative, clipped at 0.
func TestTargetPriorDensity(t *testing.T) {
	p, err := Load(camkii)
	if err != nil {
		t.Fatal(err)
	}
	type tc struct {
		name string
		pr   objective.Prior
	}
	cases := []tc{
		{"normal", objective.Prior{Kind: objective.NormalPrior, Par: [2]float64{3, 1.5}}},
		{"laplace", objective.Prior{Kind: objective.LaplacePrior, Par: [2]float64{2, 0.7}}},
		{"logNormal", objective.Prior{Kind: objective.LogNormal, Par: [2]float64{0.5, 0.8}}},
		{"logLaplace", objective.Prior{Kind: objective.LogLaplace, Par: [2]float64{-0.3, 0.6}}},
		{"cauchy", objective.Prior{Kind: objective.Cauchy, Par: [2]float64{4, 0.5}}},
		{"chisquare", objective.Prior{Kind: objective.ChiSquare, Par: [2]float64{5, 0}}},
		{"exponential", objective.Prior{Kind: objective.Exponential, Par: [2]float64{2, 0}}},
		{"gamma", objective.Prior{Kind: objective.Gamma, Par: [2]float64{3, 0.5}}},
		{"gamma<1", objective.Prior{Kind: objective.Gamma, Par: [2]float64{0.7, 2}}},
		{"logUniform", objective.Prior{Kind: objective.LogUniform, Par: [2]float64{0.1, 20}}},
		{"rayleigh", objective.Prior{Kind: objective.Rayleigh, Par: [2]float64{1.5, 0}}},
		{"uniform", objective.Prior{Kind: objective.Uniform, Par: [2]float64{0.5, 3}}},
		{"psNormal", objective.Prior{Kind: objective.ParameterScaleNormal, Par: [2]float64{0.2, 0.4}}},
		{"psLaplace", objective.Prior{Kind: objective.ParameterScaleLaplace, Par: [2]float64{0.2, 0.4}}},
	}
	for _, c := range cases {
		for _, s := range []objective.Scale{objective.Lin, objective.Log, objective.Log10} {
			positive := linearPrior(c.pr.Kind) && c.pr.Kind != objective.NormalPrior && c.pr.Kind != objective.LaplacePrior && c.pr.Kind != objective.Cauchy && c.pr.Kind != objective.Uniform
			if s != objective.Lin && linearPrior(c.pr.Kind) && !positive && c.pr.Kind != objective.Uniform {
				continue // a density with mass at x <= 0 is no prior of a log-scaled parameter
			}
			tg := priorOnly(t, p, c.pr, s)
			// Integrate exp(log density) over theta on a grid wide enough
			// to hold the mass (the density is 0 or negligible beyond).
			a, b := -60.0, 60.0
			if s != objective.Lin {
				a, b = -25, 25
			}
			if c.pr.Kind == objective.Cauchy {
				a, b = -2e3, 2e3 // heavy tails: the mass beyond is about 2*0.5/(pi*2e3)
			}
			const n = 100000
			h := (b - a) / n
			var sum float64
			grad, metric := []float64{0}, []float64{0}
			th := []float64{0}
			for i := 0; i <= n; i++ {
				th[0] = a + float64(i)*h
				lp, err := tg.Eval(th, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				w := 1.0
				if i == 0 || i == n {
					w = 0.5
				}
				sum += w * math.Exp(lp)
			}
			sum *= h
			tol := 2e-3
			if c.pr.Kind == objective.Cauchy {
				tol = 1e-4 + 2*0.5/(math.Pi*2e3)
			}
			// x^(shape-1) is unbounded at 0 for shape < 1: the trapezoid
			// rule misses mass there on the linear scale.
			singular := c.name == "gamma<1" && s == objective.Lin
			if math.Abs(sum-1) > tol && !singular {
				t.Errorf("%s on %v scale: density integrates to %.6f, want 1", c.name, s, sum)
			}
			// Derivatives at points in the support, away from kinks.
			for _, x0 := range []float64{0.7, 1.9, 3.3} {
				v := objective.ToScale(s, x0)
				if c.pr.Kind == objective.ParameterScaleNormal || c.pr.Kind == objective.ParameterScaleLaplace {
					v = x0 - 1.5
				}
				if c.pr.Kind == objective.Uniform && (x0 < 0.5 || x0 > 3) {
					continue
				}
				f := func(v float64) (lp, g, m float64) {
					th[0] = v
					lp, err := tg.Eval(th, grad, metric)
					if err != nil {
						t.Fatal(err)
					}
					return lp, grad[0], metric[0]
				}
				const d = 1e-5
				lp0, g0, m0 := f(v)
				lpp, gp, _ := f(v + d)
				lpm, gm, _ := f(v - d)
				if math.IsInf(lp0, -1) {
					t.Errorf("%s on %v scale: -Inf at %g inside the support", c.name, s, v)
					continue
				}
				if fd := (lpp - lpm) / (2 * d); math.Abs(fd-g0) > 1e-5*(1+math.Abs(g0)) {
					t.Errorf("%s on %v scale at %g: gradient %g, finite difference %g", c.name, s, v, g0, fd)
				}
				if fd := -(gp - gm) / (2 * d); math.Abs(max(fd, 0)-m0) > 1e-4*(1+math.Abs(m0)) {
					t.Errorf("%s on %v scale at %g: metric %g, clipped negative second difference %g", c.name, s, v, m0, fd)
				}
			}
		}
	}
}

// TestTargetCaMKII: on the shipped problem the gradient is that of the log
// posterior, the metric is the Fisher information plus the priors'
// curvature (1/sigma^2 of the parameterScaleNormal priors), a metric asked
// of a target built without FIM (MALA, RWM) is the same, and an
// evaluation does not depend on what the objective evaluated before (so a
// chain is the same whichever worker ran other chains first).
func TestTargetCaMKII(t *testing.T) {
	p, err := Load(camkii)
	if err != nil {
		t.Fatal(err)
	}
	// Tight tolerances, so that finite differences of the log posterior
	// (hundreds of data) are not solver noise.
	full, err := p.Target(&TargetOptions{Method: sens.FS, Grad: true, FIM: true, RTol: 1e-10, ATol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	n := full.Dim()
	th := full.Nominal()
	th[0] += 0.1
	th[3] -= 0.05
	grad, metric := make([]float64, n), make([]float64, n*n)
	lp, err := full.Eval(th, grad, metric)
	if err != nil {
		t.Fatal(err)
	}
	fim, err := p.Evaluate(linear(p, th), &EvalOptions{Method: sens.FS, FIM: true, RTol: 1e-10, ATol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			want := fim.FIM[i][j]
			if i == j {
				want += 1 // parameterScaleNormal with sd 1
			}
			if got := metric[i*n+j]; math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
				t.Errorf("metric[%d][%d] = %g, want FIM + prior curvature %g", i, j, got, want)
			}
		}
	}
	for a := 0; a < n; a++ {
		const d = 1e-4
		tp := append([]float64(nil), th...)
		tp[a] += d
		lpp, err1 := full.Eval(tp, nil, nil)
		tp[a] -= 2 * d
		lpm, err2 := full.Eval(tp, nil, nil)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if fd := (lpp - lpm) / (2 * d); math.Abs(fd-grad[a]) > 1e-3*(1+math.Abs(grad[a])) {
			t.Errorf("d log post / d theta[%d] = %g, finite difference %g", a, grad[a], fd)
		}
	}
	// History: evaluate elsewhere first, then at th; a fresh target at th.
	lean, err := p.Target(&TargetOptions{Method: sens.FS, RTol: 1e-10, ATol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	m2 := make([]float64, n*n)
	lp2, err := lean.Eval(th, nil, m2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m2 {
		if math.Abs(m2[i]-metric[i]) > 1e-12*(1+math.Abs(metric[i])) {
			t.Fatalf("metric of a target without FIM differs at %d: %g, %g", i, m2[i], metric[i])
		}
	}
	if _, err := lean.Eval(th, grad, nil); err == nil {
		t.Error("gradient of a target built without Grad: no error")
	}
	// The lean target's density is its own llh-only objective's, with or
	// without the metric; FS with S in its error test (the default) takes
	// other steps when S is integrated, so the full target's value agrees
	// to the integration error only (bit for bit without ErrCon).
	if lp3, err := lean.Eval(th, nil, nil); err != nil || math.Float64bits(lp3) != math.Float64bits(lp2) || math.Abs(lp3-lp) > 1e-6*(1+math.Abs(lp)) {
		t.Errorf("log posterior after other evaluations %v, %v, fresh %v (%v)", lp3, lp2, lp, err)
	}
	leanOff, err := p.Target(&TargetOptions{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, NoErrCon: true})
	if err != nil {
		t.Fatal(err)
	}
	fullOff, err := p.Target(&TargetOptions{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, NoErrCon: true, Grad: true, FIM: true})
	if err != nil {
		t.Fatal(err)
	}
	a, errA := leanOff.Eval(th, nil, nil)
	b, errB := fullOff.Eval(th, grad, metric)
	if errA != nil || errB != nil || math.Float64bits(a) != math.Float64bits(b) {
		t.Errorf("without ErrCon: log posterior of the llh-only target %v, of the full one %v (%v, %v)", a, b, errA, errB)
	}
	if _, err := full.Eval(th[:2], nil, nil); err == nil {
		t.Error("theta of the wrong length: no error")
	}
}

// linear maps theta on the parameter scales to linear values.
func linear(p *Problem, th []float64) []float64 {
	x := make([]float64, len(th))
	for a, i := range p.Objective.Estimated {
		x[a], _ = objective.FromScale(p.Objective.Params[i].Scale, th[a])
	}
	return x
}

// TestInitialPoint: draws lie within the bounds, depend on the generator
// only, follow the initialization prior (mean of a normal one) and fall
// back to the bounds' uniform on the parameter scale without one.
func TestInitialPoint(t *testing.T) {
	p, err := Load(camkii)
	if err != nil {
		t.Fatal(err)
	}
	ob := p.Objective
	ob.Params[ob.Estimated[1]].InitPrior = objective.Prior{Kind: objective.ParameterScaleNormal, Par: [2]float64{3.2, 0.1}}
	ob.Params[ob.Estimated[2]].InitPrior = objective.Prior{Kind: objective.LogNormal, Par: [2]float64{math.Log(3.4e-5), 0.5}}
	tg, err := p.Target(nil)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := tg.Bounds()
	n := tg.Dim()
	const draws = 4000
	mean := make([]float64, n)
	x, y := make([]float64, n), make([]float64, n)
	r1, r2 := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
	for k := 0; k < draws; k++ {
		if err := p.InitialPoint(InitPrior, r1, x); err != nil {
			t.Fatal(err)
		}
		if err := p.InitialPoint(InitPrior, r2, y); err != nil {
			t.Fatal(err)
		}
		for a := range x {
			if x[a] != y[a] {
				t.Fatalf("same generator, different draws: %v, %v", x, y)
			}
			if !(x[a] >= lo[a] && x[a] <= hi[a]) {
				t.Fatalf("draw %v outside [%v, %v]", x, lo, hi)
			}
			mean[a] += x[a] / draws
		}
	}
	want0 := (lo[0] + hi[0]) / 2
	sd0 := (hi[0] - lo[0]) / math.Sqrt(12*draws)
	if math.Abs(mean[0]-want0) > 5*sd0 {
		t.Errorf("mean of a parameter without initialization prior %g, want the bounds' midpoint %g", mean[0], want0)
	}
	if math.Abs(mean[1]-3.2) > 5*0.1/math.Sqrt(draws) {
		t.Errorf("mean of the parameterScaleNormal draws %g, want 3.2", mean[1])
	}
	if want := math.Log10(3.4e-5); math.Abs(mean[2]-want) > 5*0.5/math.Ln10/math.Sqrt(draws) {
		t.Errorf("mean of the logNormal draws on log10 scale %g, want %g", mean[2], want)
	}
	if err := p.InitialPoint(InitNominal, r1, x); err != nil {
		t.Fatal(err)
	}
	for a, v := range tg.Nominal() {
		if x[a] != v {
			t.Errorf("nominal start %v, want %v", x, tg.Nominal())
		}
	}
	if err := p.InitialPoint(InitPrior, r1, x[:1]); err == nil {
		t.Error("short dst: no error")
	}
}
