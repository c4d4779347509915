package objective_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/pbgen/pbgen/runtime/sens"

	"github.com/pbgen/pbgen/runtime/objective"
)

// LogPrior against gonum's densities (of the linear value, or of theta for
// the parameterScale priors) and GradPrior against central differences.
func TestPriors(t *testing.T) {
	type oracle func(theta, x float64) float64
	cases := []struct {
		kind objective.PriorKind
		par  [2]float64
		f    oracle
	}{
		{objective.Uniform, [2]float64{0.01, 5}, func(_, x float64) float64 { return distuv.Uniform{Min: 0.01, Max: 5}.LogProb(x) }},
		{objective.NormalPrior, [2]float64{1, 0.7}, func(_, x float64) float64 { return distuv.Normal{Mu: 1, Sigma: 0.7}.LogProb(x) }},
		{objective.LaplacePrior, [2]float64{0.2, 0.5}, func(_, x float64) float64 { return distuv.Laplace{Mu: 0.2, Scale: 0.5}.LogProb(x) }},
		{objective.LogNormal, [2]float64{-0.3, 0.8}, func(_, x float64) float64 { return distuv.LogNormal{Mu: -0.3, Sigma: 0.8}.LogProb(x) }},
		{objective.LogLaplace, [2]float64{0.1, 0.6}, func(_, x float64) float64 {
			return distuv.Laplace{Mu: 0.1, Scale: 0.6}.LogProb(math.Log(x)) - math.Log(x)
		}},
		{objective.ParameterScaleUniform, [2]float64{-2, 3}, func(th, _ float64) float64 { return distuv.Uniform{Min: -2, Max: 3}.LogProb(th) }},
		{objective.ParameterScaleNormal, [2]float64{0.5, 1.5}, func(th, _ float64) float64 { return distuv.Normal{Mu: 0.5, Sigma: 1.5}.LogProb(th) }},
		{objective.ParameterScaleLaplace, [2]float64{-0.5, 2}, func(th, _ float64) float64 { return distuv.Laplace{Mu: -0.5, Scale: 2}.LogProb(th) }},
		{objective.Cauchy, [2]float64{0.4, 0.9}, func(_, x float64) float64 { return distuv.StudentsT{Mu: 0.4, Sigma: 0.9, Nu: 1}.LogProb(x) }},
		{objective.ChiSquare, [2]float64{3, 0}, func(_, x float64) float64 { return distuv.ChiSquared{K: 3}.LogProb(x) }},
		{objective.Exponential, [2]float64{1.7, 0}, func(_, x float64) float64 { return distuv.Exponential{Rate: 1 / 1.7}.LogProb(x) }},
		{objective.Gamma, [2]float64{2.5, 0.8}, func(_, x float64) float64 { return distuv.Gamma{Alpha: 2.5, Beta: 1 / 0.8}.LogProb(x) }},
		{objective.LogUniform, [2]float64{0.1, 10}, func(_, x float64) float64 {
			return distuv.Uniform{Min: math.Log(0.1), Max: math.Log(10)}.LogProb(math.Log(x)) - math.Log(x)
		}},
		{objective.Rayleigh, [2]float64{1.2, 0}, func(_, x float64) float64 { return distuv.Weibull{K: 2, Lambda: 1.2 * math.Sqrt2}.LogProb(x) }},
	}
	for _, c := range cases {
		prob := decayProblem()
		for i := range prob.Params {
			prob.Params[i].Prior = objective.Prior{Kind: c.kind, Par: c.par}
		}
		o, err := objective.New(newDecay(), prob, &objective.Options{Method: sens.FS, Grad: true, FIM: true})
		if err != nil {
			t.Fatal(err)
		}
		theta := o.Nominal()
		r := evalAt(t, o, theta)
		want := 0.0
		for a, th := range theta {
			x, _ := objective.FromScale(prob.Params[a].Scale, th)
			want += c.f(th, x)
		}
		if !close(r.LogPrior, want, 1e-12) || !close(r.LogPost, r.LLH+want, 1e-12) {
			t.Errorf("prior %d: LogPrior %.12g, want %.12g (LogPost %.12g, LLH %.12g)", c.kind, r.LogPrior, want, r.LogPost, r.LLH)
		}
		th := append([]float64(nil), theta...)
		for a := range theta {
			h := 1e-5
			th[a] = theta[a] + h
			up := evalAt(t, o, th)
			upV, upG := up.LogPrior, up.GradPrior[a]
			th[a] = theta[a] - h
			dn := evalAt(t, o, th)
			th[a] = theta[a]
			if fd := (upV - dn.LogPrior) / (2 * h); !close(r.GradPrior[a], fd, 1e-6) {
				t.Errorf("prior %d: GradPrior[%d] %.10g, finite differences %.10g", c.kind, a, r.GradPrior[a], fd)
			}
			if fd := (upG - dn.GradPrior[a]) / (2 * h); !close(r.HessPrior[a], fd, 1e-6) {
				t.Errorf("prior %d: HessPrior[%d] %.10g, finite differences of GradPrior %.10g", c.kind, a, r.HessPrior[a], fd)
			}
		}
		o.Close()
	}
}

// Truncated priors (PEtab v2) are renormalised to the parameter bounds:
// against gonum's CDFs.
func TestTruncatedPriors(t *testing.T) {
	cases := []struct {
		kind objective.PriorKind
		par  [2]float64
		dist interface {
			LogProb(float64) float64
			CDF(float64) float64
		}
	}{
		{objective.Uniform, [2]float64{0.01, 5}, distuv.Uniform{Min: 0.01, Max: 5}},
		{objective.NormalPrior, [2]float64{1, 0.7}, distuv.Normal{Mu: 1, Sigma: 0.7}},
		{objective.LaplacePrior, [2]float64{0.2, 0.5}, distuv.Laplace{Mu: 0.2, Scale: 0.5}},
		{objective.LogNormal, [2]float64{-0.3, 0.8}, distuv.LogNormal{Mu: -0.3, Sigma: 0.8}},
		{objective.LogLaplace, [2]float64{0.1, 0.6}, logOf{distuv.Laplace{Mu: 0.1, Scale: 0.6}}},
		{objective.Cauchy, [2]float64{0.4, 0.9}, distuv.StudentsT{Mu: 0.4, Sigma: 0.9, Nu: 1}},
		{objective.ChiSquare, [2]float64{3, 0}, distuv.ChiSquared{K: 3}},
		{objective.Exponential, [2]float64{1.7, 0}, distuv.Exponential{Rate: 1 / 1.7}},
		{objective.Gamma, [2]float64{2.5, 0.8}, distuv.Gamma{Alpha: 2.5, Beta: 1 / 0.8}},
		{objective.LogUniform, [2]float64{0.05, 10}, logOf{distuv.Uniform{Min: math.Log(0.05), Max: math.Log(10)}}},
		{objective.Rayleigh, [2]float64{1.2, 0}, distuv.Weibull{K: 2, Lambda: 1.2 * math.Sqrt2}},
	}
	for _, c := range cases {
		prob := decayProblem()
		for i := range prob.Params {
			prob.Params[i].Lower, prob.Params[i].Upper = 0.1, 2.5
			prob.Params[i].Prior = objective.Prior{Kind: c.kind, Par: c.par, Truncate: true}
		}
		o, err := objective.New(newDecay(), prob, &objective.Options{Method: sens.FS, Grad: true})
		if err != nil {
			t.Fatal(err)
		}
		theta := o.Nominal()
		want := 0.0
		for a, th := range theta {
			x, _ := objective.FromScale(prob.Params[a].Scale, th)
			want += c.dist.LogProb(x) - math.Log(c.dist.CDF(2.5)-c.dist.CDF(0.1))
		}
		if r := evalAt(t, o, theta); !close(r.LogPrior, want, 1e-12) {
			t.Errorf("prior %d truncated: LogPrior %.12g, want %.12g", c.kind, r.LogPrior, want)
		}
		theta[1] = 3 // x0 beyond the upper bound
		if r := evalAt(t, o, theta); !math.IsInf(r.LogPrior, -1) {
			t.Errorf("prior %d truncated: LogPrior %g outside the bounds, want -Inf", c.kind, r.LogPrior)
		}
		o.Close()
	}
	// parameterScale priors are truncated to the bounds on the scale.
	prob := decayProblem()
	nd := distuv.Normal{Mu: 0.5, Sigma: 1.5}
	for i := range prob.Params {
		prob.Params[i].Lower, prob.Params[i].Upper = 0.1, 2.5
		prob.Params[i].Prior = objective.Prior{Kind: objective.ParameterScaleNormal, Par: [2]float64{0.5, 1.5}, Truncate: true}
	}
	o, err := objective.New(newDecay(), prob, &objective.Options{Method: sens.FS})
	if err != nil {
		t.Fatal(err)
	}
	theta := o.Nominal()
	want := 0.0
	for a, th := range theta {
		s := prob.Params[a].Scale
		want += nd.LogProb(th) - math.Log(nd.CDF(objective.ToScale(s, 2.5))-nd.CDF(objective.ToScale(s, 0.1)))
	}
	if r := evalAt(t, o, theta); !close(r.LogPrior, want, 1e-12) {
		t.Errorf("truncated parameterScaleNormal: LogPrior %.12g, want %.12g", r.LogPrior, want)
	}
	o.Close()

	prob = decayProblem()
	prob.Params[0].Prior = objective.Prior{Kind: objective.NormalPrior, Par: [2]float64{1, -1}}
	if _, err := objective.New(newDecay(), prob, nil); err == nil {
		t.Error("normal prior with negative standard deviation accepted")
	}
}

// logOf is the distribution of x = exp(y) for y distributed as d.
type logOf struct {
	d interface {
		LogProb(float64) float64
		CDF(float64) float64
	}
}

func (l logOf) LogProb(x float64) float64 { return l.d.LogProb(math.Log(x)) - math.Log(x) }
func (l logOf) CDF(x float64) float64     { return l.d.CDF(math.Log(x)) }
