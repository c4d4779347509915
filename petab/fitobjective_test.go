package petab

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// TestFitObjective checks the optimiser's objective on CaMKII, which has
// priors: f is -(llh + log prior) of Evaluate (the independent path
// through linear values), the gradient is the central finite difference
// of f, and the Hessian approximation is the FIM minus the log prior's
// (diagonal) Hessian, symmetric.
func TestFitObjective(t *testing.T) {
	p, err := Load(camkii)
	if err != nil {
		t.Fatal(err)
	}
	// Without S in FS's error test the steps are the state's alone, so f
	// is smooth in theta where the step sequence does not change and the
	// central difference below holds to 1e-4; with it (the default) S's
	// error moves the steps too, and f's differences at h = 1e-5 carry
	// its integration error (measured: up to 2.7e-4 on a component of
	// 0.009 at rtol 1e-10).
	o, err := p.FitObjective(&FitOptions{Method: sens.FS, FIM: true, RTol: 1e-10, ATol: 1e-12, NoErrCon: true})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	n := o.Dim()
	theta, err := p.Theta(nil)
	if err != nil {
		t.Fatal(err)
	}
	lin := append([]float64(nil), theta...)
	for a, i := range p.Objective.Estimated {
		theta[a] = objective.ToScale(p.Objective.Params[i].Scale, theta[a])
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for a := range theta {
		theta[a] += 0.05 * rng.NormFloat64()
		lin[a], _ = objective.FromScale(p.Objective.Params[p.Objective.Estimated[a]].Scale, theta[a])
	}
	g, h := make([]float64, n), make([]float64, n*n)
	f, err := o.Eval(theta, g, h)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := p.Evaluate(lin, &EvalOptions{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, FIM: true})
	if err != nil {
		t.Fatal(err)
	}
	if ref.LogPrior == 0 {
		t.Fatal("CaMKII without priors: the test would not test them")
	}
	if want := -(ref.LLH + ref.LogPrior); math.Abs(f-want) > 1e-9*math.Abs(want) {
		t.Errorf("f = %.12g, -(llh + log prior) = %.12g", f, want)
	}
	for a := range n {
		hh := 1e-5
		th := append([]float64(nil), theta...)
		th[a] += hh
		fp, err1 := o.Eval(th, nil, nil)
		th[a] -= 2 * hh
		fm, err2 := o.Eval(th, nil, nil)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if fd := (fp - fm) / (2 * hh); math.Abs(fd-g[a]) > 1e-4*(1+math.Abs(g[a])) {
			t.Errorf("parameter %d: gradient %g, central difference %g", a, g[a], fd)
		}
		for b := range n {
			if math.Abs(h[a*n+b]-h[b*n+a]) > 1e-12*(1+math.Abs(h[a*n+b])) {
				t.Errorf("Hessian not symmetric at (%d, %d)", a, b)
			}
		}
	}
	// The Hessian approximation against the FIM and the prior's Hessian at
	// theta itself.
	if _, err := o.Eval(theta, g, h); err != nil {
		t.Fatal(err)
	}
	hp := append([]float64(nil), o.Last().HessPrior...)
	for a := range n {
		for b := range n {
			want := ref.FIM[a][b]
			if a == b {
				want -= hp[a]
			}
			if math.Abs(h[a*n+b]-want) > 1e-6*(1+math.Abs(want)) {
				t.Errorf("hess(%d, %d) = %g, FIM - diag(HessPrior) = %g", a, b, h[a*n+b], want)
			}
		}
	}
	if _, err := (&FitObjective{o: o.o, n: n, lo: o.lo, hi: o.hi}).Eval(theta, nil, h); err == nil {
		t.Error("Hessian requested of an objective built without FIM: no error")
	}
	if _, err := o.Eval(theta[:1], nil, nil); err == nil {
		t.Error("theta of the wrong length: no error")
	}
}

// TestDrawInitPriors: entries with an initialization prior are redrawn
// within the bounds (a normal prior centred on the lower bound, half of
// whose mass lies outside), the others are kept.
func TestDrawInitPriors(t *testing.T) {
	p, err := Load(camkii)
	if err != nil {
		t.Fatal(err)
	}
	n := len(p.Objective.Estimated)
	q0 := &p.Objective.Params[p.Objective.Estimated[0]]
	lo0, hi0 := objective.ToScale(q0.Scale, q0.Lower), objective.ToScale(q0.Scale, q0.Upper)
	q0.InitPrior = objective.Prior{Kind: objective.ParameterScaleNormal, Par: [2]float64{lo0, hi0 - lo0}}
	rng := rand.New(rand.NewPCG(3, 3))
	theta := make([]float64, n)
	seen := map[float64]bool{}
	for range 200 {
		for i := range theta {
			theta[i] = -1234
		}
		p.DrawInitPriors(rng, theta)
		seen[theta[0]] = true
		for a, i := range p.Objective.Estimated {
			q := p.Objective.Params[i]
			lo, hi := objective.ToScale(q.Scale, q.Lower), objective.ToScale(q.Scale, q.Upper)
			switch {
			case q.InitPrior.Kind == objective.NoPrior && theta[a] != -1234:
				t.Fatalf("%s without an initialization prior changed to %g", q.ID, theta[a])
			case q.InitPrior.Kind != objective.NoPrior && !(theta[a] >= lo && theta[a] <= hi):
				t.Fatalf("%s: draw %g outside [%g, %g]", q.ID, theta[a], lo, hi)
			}
		}
	}
	if len(seen) < 190 {
		t.Errorf("%d distinct draws of 200", len(seen))
	}
}
