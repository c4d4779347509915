package objective_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// The adjoint gradient of the linear model against its closed form (the
// llh and gradient of TestDecayAnalytic, recomputed here): both experiments
// start at T0 > 0 or 0, one has a datum at T0, data share output times.
func TestAdjointDecayClosedForm(t *testing.T) {
	prob := decayProblem()
	theta := []float64{math.Log10(0.7), 2, math.Log(1.5), math.Log10(0.3)}
	k, s, sg := 0.7, 1.5, 0.3
	var llh float64
	grad := make([]float64, 4)
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
			}
		}
	}
	o, err := objective.New(newDecay(), prob, &objective.Options{Method: sens.FS, RTol: 1e-12, ATol: 1e-14,
		Grad: true, Gradient: objective.GradAdjoint})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	res := evalAt(t, o, theta)
	if !close(res.LLH, llh, 1e-9) {
		t.Errorf("llh %.14g, want %.14g", res.LLH, llh)
	}
	for a := range grad {
		if !close(res.Grad[a], grad[a], 1e-9) {
			t.Errorf("grad[%d] %.14g, want %.14g", a, res.Grad[a], grad[a])
		}
	}
	if res.Stats.AdjointSteps == 0 || res.Stats.AdjointBytes == 0 {
		t.Errorf("no adjoint steps counted: %+v", res.Stats)
	}
}

// abcPlain is abcProblem's experiment without pre-equilibration or
// steady-state data (Laplace and normal noise, log and log10
// observables, state-dependent noise, observable and noise placeholders,
// a parameter in an observable), and a second experiment on the other
// condition that starts at T0 = 0.5 with data at T0.
func abcPlain() *objective.Problem {
	p := abcProblem()
	e := p.Experiments[1]
	e2 := p.Experiments[1]
	e2.Sim, e2.T0 = 1, 0.5
	e2.Data = append([]objective.Datum(nil), e.Data[1:]...)
	e2.Data[0].T = 0.5
	p.Experiments = []objective.Experiment{e, e2}
	return p
}

// The adjoint gradient on the nonlinear model against FS at tight
// tolerances and against central differences of the llh.
func TestAdjointVsForward(t *testing.T) {
	prob := abcPlain()
	ref, err := objective.New(newABC(), prob, &objective.Options{Method: sens.FS, RTol: 1e-12, ATol: 1e-14, Grad: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	theta := ref.Nominal()
	fs := evalAt(t, ref, theta)
	o, err := objective.New(newABC(), prob, &objective.Options{Method: sens.FS, RTol: 1e-12, ATol: 1e-14,
		Grad: true, Gradient: objective.GradAdjoint})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	ad := evalAt(t, o, theta)
	if !close(ad.LLH, fs.LLH, 1e-10) {
		t.Errorf("llh %.14g, FS %.14g", ad.LLH, fs.LLH)
	}
	var gmax float64
	for _, g := range fs.Grad {
		gmax = math.Max(gmax, math.Abs(g))
	}
	for a := range fs.Grad {
		if d := math.Abs(ad.Grad[a] - fs.Grad[a]); d > 1e-9*gmax {
			t.Errorf("grad[%d] adjoint %.14g, FS %.14g (|d| %.2g, bound %.2g)", a, ad.Grad[a], fs.Grad[a], d, 1e-9*gmax)
		}
	}
	// Central differences of the llh at the default tolerances' adjoint.
	od, err := objective.New(newABC(), prob, &objective.Options{Grad: true, Gradient: objective.GradAdjoint})
	if err != nil {
		t.Fatal(err)
	}
	defer od.Close()
	g := evalAt(t, od, theta).Grad
	th := append([]float64(nil), theta...)
	for a := range theta {
		hs := 1e-4 * math.Max(1, math.Abs(theta[a]))
		th[a] = theta[a] + hs
		up := evalAt(t, ref, th).LLH
		th[a] = theta[a] - hs
		dn := evalAt(t, ref, th).LLH
		th[a] = theta[a]
		fd := (up - dn) / (2 * hs)
		if math.Abs(g[a]-fd) > 1e-3+1e-2*math.Abs(fd) {
			t.Errorf("grad[%d] adjoint (default tolerances) %.8g, central difference %.8g", a, g[a], fd)
		}
	}
}

// An Eval with the adjoint gradient allocates nothing after the first,
// with one worker and with two, and the result does not depend on
// Workers (bit for bit).
func TestAdjointAllocs(t *testing.T) {
	var first []float64
	for _, workers := range []int{1, 2} {
		o, err := objective.New(newABC(), abcPlain(), &objective.Options{Grad: true, Gradient: objective.GradAdjoint, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		theta := o.Nominal()
		var res objective.Result
		if err := o.Eval(theta, &res); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(5, func() { _ = o.Eval(theta, &res) }); n != 0 {
			t.Errorf("workers %d: %v allocations per Eval", workers, n)
		}
		if first == nil {
			first = append([]float64(nil), res.Grad...)
		} else {
			for a := range first {
				if res.Grad[a] != first[a] {
					t.Errorf("workers %d: grad[%d] %v, one worker %v", workers, a, res.Grad[a], first[a])
				}
			}
		}
		o.Close()
	}
}

// What the adjoint does not cover yet is refused by name.
func TestAdjointRefusals(t *testing.T) {
	cases := []struct {
		prob *objective.Problem
		opt  objective.Options
		want string
	}{
		{abcProblem(), objective.Options{Grad: true}, "pre-equilibration"},
		{abcPlain(), objective.Options{Grad: true, FIM: true}, "Fisher information"},
		{abcPlain(), objective.Options{}, "Options.Grad"},
	}
	for _, cs := range cases {
		cs.opt.Gradient = objective.GradAdjoint
		_, err := objective.New(newABC(), cs.prob, &cs.opt)
		if !errors.Is(err, objective.ErrAdjoint) || !strings.Contains(err.Error(), cs.want) {
			t.Errorf("want ErrAdjoint naming %q, got %v", cs.want, err)
		}
	}
}

// A forward solve whose checkpoints would pass Options.AdjMemoryLimit
// stops, and Eval says so (ErrAdjoint); a limit it fits in changes
// nothing.
func TestAdjointMemoryLimit(t *testing.T) {
	var res objective.Result
	ok, err := objective.New(newABC(), abcPlain(), &objective.Options{Grad: true, Gradient: objective.GradAdjoint})
	if err != nil {
		t.Fatal(err)
	}
	defer ok.Close()
	theta := ok.Nominal()
	if err := ok.Eval(theta, &res); err != nil {
		t.Fatal(err)
	}
	need := res.Stats.AdjointBytes
	want := res.Grad[0]
	fits, err := objective.New(newABC(), abcPlain(), &objective.Options{Grad: true, Gradient: objective.GradAdjoint, AdjMemoryLimit: need + 1})
	if err != nil {
		t.Fatal(err)
	}
	defer fits.Close()
	if err := fits.Eval(theta, &res); err != nil || res.Grad[0] != want {
		t.Errorf("limit %d: grad[0] %v (want %v), error %v", need+1, res.Grad[0], want, err)
	}
	small, err := objective.New(newABC(), abcPlain(), &objective.Options{Grad: true, Gradient: objective.GradAdjoint, AdjMemoryLimit: need / 4})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	if err := small.Eval(theta, &res); !errors.Is(err, objective.ErrAdjoint) || !strings.Contains(err.Error(), "AdjMemoryLimit") {
		t.Errorf("limit %d: want ErrAdjoint naming AdjMemoryLimit, got %v", need/4, err)
	}
}
