package mcmc_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/pbgen/pbgen/mcmc"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
)

// End to end through runtime/objective: an ODE model, a PEtab-style
// problem and the adapter a command would write (see the package doc).
// Only this external test imports the objective; package mcmc does not.

// decayODE is x' = -k x, x(0) = x0, parameters (k, x0), observed as y = x
// with noise 0.15.
type decayODE struct{ jx, jp *model.Pattern }

func newDecayODE() *decayODE {
	return &decayODE{
		jx: &model.Pattern{Rows: 1, Cols: 1, RowPtr: []int{0, 1}, ColIdx: []int{0}},
		jp: &model.Pattern{Rows: 1, Cols: 2, RowPtr: []int{0, 1}, ColIdx: []int{0}},
	}
}

func (*decayODE) Name() string                                { return "decay" }
func (*decayODE) StateNames() []string                        { return []string{"x"} }
func (*decayODE) ParamNames() []string                        { return []string{"k", "x0"} }
func (*decayODE) DefaultParams(dst []float64)                 { dst[0], dst[1] = 0.5, 2 }
func (*decayODE) InitialState(dst, p []float64)               { dst[0] = p[1] }
func (*decayODE) InitialSens(dst, p []float64)                { dst[0], dst[1] = 0, 1 }
func (*decayODE) F(dst []float64, _ float64, x, p []float64)  { dst[0] = -p[0] * x[0] }
func (d *decayODE) JxPattern() *model.Pattern                 { return d.jx }
func (*decayODE) Jx(dst []float64, _ float64, x, p []float64) { dst[0] = -p[0] }
func (d *decayODE) JpPattern() *model.Pattern                 { return d.jp }
func (*decayODE) Jp(dst []float64, _ float64, x, p []float64) { dst[0] = -x[0] }
func (*decayODE) ObservableIDs() []string                     { return []string{"y"} }
func (*decayODE) Placeholders(int) (int, int)                 { return 0, 0 }
func (*decayODE) Observe(_ int, _ float64, x, _, _ []float64, d *model.ObsDeriv) (float64, float64) {
	if d != nil {
		d.HX[0], d.HP[0], d.HP[1] = 1, 0, 0
		d.SX[0], d.SP[0], d.SP[1] = 0, 0, 0
	}
	return x[0], 0.15
}

// decayProblem estimates log10 k in [-2, 1] and log10 x0 in [-1, 1] with
// uniform priors from four noisy measurements of 2 e^{-0.5 t}.
func decayProblem() *objective.Problem {
	th := func(a int) objective.Value { return objective.Value{Theta: a} }
	var data []objective.Datum
	for i, t := range []float64{0.5, 1, 2, 4} {
		noise := []float64{0.12, -0.2, 0.05, -0.1}[i]
		data = append(data, objective.Datum{Obs: 0, T: t, Y: 2*math.Exp(-0.5*t) + noise})
	}
	return &objective.Problem{
		Params: []objective.Param{
			{ID: "k", Scale: objective.Log10, Lower: 0.01, Upper: 10, Nominal: 0.5, Estimate: true},
			{ID: "x0", Scale: objective.Log10, Lower: 0.1, Upper: 10, Nominal: 2, Estimate: true},
		},
		Estimated:   []int{0, 1},
		Observables: []objective.Observable{{ID: "y"}},
		Conditions:  []objective.Condition{{ID: "c", P: []objective.Value{th(0), th(1)}}},
		Experiments: []objective.Experiment{{Preeq: -1, Sim: 0, Data: data}},
	}
}

// petabTarget adapts an Objective to mcmc.Target.
type petabTarget struct {
	o      *objective.Objective
	res    objective.Result
	lo, hi []float64
}

func newPetabTarget(grad bool) (*petabTarget, error) {
	prob := decayProblem()
	o, err := objective.New(newDecayODE(), prob, &objective.Options{RTol: 1e-8, ATol: 1e-10, Grad: grad, FIM: grad})
	if err != nil {
		return nil, err
	}
	t := &petabTarget{o: o}
	for _, a := range prob.Estimated {
		p := prob.Params[a]
		t.lo = append(t.lo, objective.ToScale(p.Scale, p.Lower))
		t.hi = append(t.hi, objective.ToScale(p.Scale, p.Upper))
	}
	return t, nil
}

func (t *petabTarget) Dim() int                   { return len(t.lo) }
func (t *petabTarget) Bounds() (lo, hi []float64) { return t.lo, t.hi }
func (t *petabTarget) Eval(theta, grad, metric []float64) (float64, error) {
	if err := t.o.Eval(theta, &t.res); err != nil {
		return 0, err
	}
	if grad != nil {
		if t.res.Grad == nil {
			return 0, errors.New("objective built without gradient")
		}
		for i := range grad {
			grad[i] = t.res.Grad[i] + t.res.GradPrior[i]
		}
	}
	if metric != nil {
		if t.res.FIM == nil {
			return 0, errors.New("objective built without FIM")
		}
		copy(metric, t.res.FIM) // uniform priors: no curvature to add
	}
	return t.res.LogPost, nil
}

// quadrature returns the posterior mean and covariance of a 2-D target by
// the midpoint rule: a coarse grid over the box finds where the mass is,
// a fine grid there integrates.
func quadrature(t mcmc.Target) (mu, cov []float64, err error) {
	lo, hi := t.Bounds()
	grid := func(lo, hi []float64, n int, f func(a, b, lp float64)) error {
		x := make([]float64, 2)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				x[0] = lo[0] + (float64(i)+0.5)*(hi[0]-lo[0])/float64(n)
				x[1] = lo[1] + (float64(j)+0.5)*(hi[1]-lo[1])/float64(n)
				lp, err := t.Eval(x, nil, nil)
				if err != nil {
					return err
				}
				f(x[0], x[1], lp)
			}
		}
		return nil
	}
	type pt struct{ a, b, lp float64 }
	var coarse []pt
	maxLP := math.Inf(-1)
	if err := grid(lo, hi, 40, func(a, b, lp float64) {
		coarse = append(coarse, pt{a, b, lp})
		maxLP = math.Max(maxLP, lp)
	}); err != nil {
		return nil, nil, err
	}
	wlo, whi := []float64{hi[0], hi[1]}, []float64{lo[0], lo[1]}
	step := []float64{(hi[0] - lo[0]) / 40, (hi[1] - lo[1]) / 40}
	for _, p := range coarse {
		if p.lp > maxLP-25 {
			wlo[0], whi[0] = math.Min(wlo[0], p.a-step[0]), math.Max(whi[0], p.a+step[0])
			wlo[1], whi[1] = math.Min(wlo[1], p.b-step[1]), math.Max(whi[1], p.b+step[1])
		}
	}
	for i := range wlo {
		wlo[i], whi[i] = math.Max(wlo[i], lo[i]), math.Min(whi[i], hi[i])
	}
	var z, m1, m2, s11, s12, s22 float64
	if err := grid(wlo, whi, 120, func(a, b, lp float64) {
		w := math.Exp(lp - maxLP)
		z += w
		m1 += w * a
		m2 += w * b
		s11 += w * a * a
		s12 += w * a * b
		s22 += w * b * b
	}); err != nil {
		return nil, nil, err
	}
	m1, m2 = m1/z, m2/z
	c12 := s12/z - m1*m2
	return []float64{m1, m2}, []float64{s11/z - m1*m1, c12, c12, s22/z - m2*m2}, nil
}

// TestSMMALAOnObjective samples the ODE posterior with SMMALA through the
// adapter and compares its moments with quadrature of the same
// objective's log posterior.
func TestSMMALAOnObjective(t *testing.T) {
	ref, err := newPetabTarget(false)
	if err != nil {
		t.Fatal(err)
	}
	mu, cov, err := quadrature(ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("quadrature: mean %.4f %.4f, sd %.4f %.4f", mu[0], mu[1], math.Sqrt(cov[0]), math.Sqrt(cov[3]))
	res, err := mcmc.Run(context.Background(), func() (mcmc.Target, error) { return newPetabTarget(true) },
		&mcmc.Options{Sampler: mcmc.SMMALA, Chains: 4, Warmup: 200, Samples: 600, Seed: 11, Names: []string{"k", "x0"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Chains {
		if c.Failed != 0 {
			t.Errorf("chain %d: %d failed solves: %s", c.Index+1, c.Failed, c.FirstFailure)
		}
	}
	rows := mcmc.Summarize(res)[2:]
	for i, r := range rows {
		if d := math.Abs(r.Mean - mu[i]); !(d <= 4*r.MCSE) {
			t.Errorf("%s: mean %.4f, quadrature %.4f ± 4×%.2g", r.Name, r.Mean, mu[i], r.MCSE)
		}
		if sd := math.Sqrt(cov[i*2+i]); !(math.Abs(r.StdDev-sd) <= 0.1*sd) {
			t.Errorf("%s: sd %.4f, quadrature %.4f", r.Name, r.StdDev, sd)
		}
		if !(r.Rhat < 1.02) {
			t.Errorf("%s: R-hat %.3f", r.Name, r.Rhat)
		}
		t.Logf("%s: mean %.4f sd %.4f, ESS bulk %.0f, R-hat %.3f", r.Name, r.Mean, r.StdDev, r.ESSBulk, r.Rhat)
	}
}
