package capi

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

const (
	conv      = "../petab/testdata/conv/problem.yaml"
	camkiiXML = "../networks/CaMKII.xml"
	eventsXML = "../petab/testdata/events/model.xml"
	delayXML  = "../petab/testdata/delay/model.xml"
	algXML    = "../petab/testdata/alg/model.xml"
)

func bitsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestProblemEvalMatchesObjective checks each kind of request against
// objective.New and Eval with the same options: the same bits.
func TestProblemEvalMatchesObjective(t *testing.T) {
	p, err := LoadProblem(conv, &Options{Method: "fs"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	pp, err := petab.Load(conv)
	if err != nil {
		t.Fatal(err)
	}
	in := p.Info()
	nt, nd := len(in.ParameterIDs), len(in.DataTimes)
	th := slices.Clone([]float64(in.Nominal))
	th[0] += 0.1
	for _, c := range []struct{ grad, fim bool }{{false, false}, {true, false}, {true, true}} {
		o, err := objective.New(pp.Model, pp.Objective, &objective.Options{Method: sens.FS, Grad: c.grad, FIM: c.fim})
		if err != nil {
			t.Fatal(err)
		}
		var want objective.Result
		if err := o.Eval(th, &want); err != nil {
			t.Fatal(err)
		}
		o.Close()
		var llh, chi2, lp float64
		out := &Outputs{LLH: &llh, Chi2: &chi2, LogPrior: &lp, Res: make([]float64, nd)}
		if c.grad {
			out.Grad = make([]float64, nt)
		}
		if c.fim {
			out.FIM = make([]float64, nt*nt)
		}
		if err := p.Eval(th, out); err != nil {
			t.Fatal(err)
		}
		if !bitsEqual([]float64{llh, chi2, lp}, []float64{want.LLH, want.Chi2, want.LogPrior}) ||
			!bitsEqual(out.Res, want.Res) || c.grad && !bitsEqual(out.Grad, want.Grad) || c.fim && !bitsEqual(out.FIM, want.FIM) {
			t.Errorf("grad %v fim %v: capi and objective differ: llh %v vs %v, grad %v vs %v", c.grad, c.fim, llh, want.LLH, out.Grad, want.Grad)
		}
	}
}

func TestProblemErrors(t *testing.T) {
	if _, err := LoadProblem("no/such.yaml", nil); err == nil || !strings.Contains(err.Error(), "no/such.yaml") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LoadProblem(conv, &Options{Method: "rk4"}); err == nil || !strings.Contains(err.Error(), "rk4") {
		t.Errorf("bad method: %v", err)
	}
	if _, err := LoadProblem(conv, &Options{RTol: -1}); err == nil || !strings.Contains(err.Error(), "rtol") {
		t.Errorf("bad rtol: %v", err)
	}
	if _, err := CompiledProblem("nope", nil); err == nil || !strings.Contains(err.Error(), "camkiipetab") {
		t.Errorf("unknown compiled problem: %v", err)
	}
	p, err := LoadProblem(conv, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(p.Info().ParameterIDs)
	var llh float64
	for _, c := range []struct {
		theta []float64
		out   Outputs
		msg   string
	}{
		{make([]float64, n+1), Outputs{LLH: &llh}, "want 3"},
		{[]float64{math.NaN(), 0, 0}, Outputs{LLH: &llh}, "is NaN"},
		{make([]float64, n), Outputs{Grad: make([]float64, n-1)}, "grad buffer"},
		{make([]float64, n), Outputs{FIM: make([]float64, n)}, "fim buffer"},
		{make([]float64, n), Outputs{Res: make([]float64, 1)}, "res buffer"},
	} {
		if err := p.Eval(c.theta, &c.out); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("want an error with %q, got %v", c.msg, err)
		}
	}
	p.Close()
	if err := p.Eval(make([]float64, n), &Outputs{LLH: &llh}); err != errClosed {
		t.Errorf("after Close: %v", err)
	}
}

// TestInfoJSON checks that non-finite numbers survive as strings.
func TestInfoJSON(t *testing.T) {
	s, err := InfoJSON(struct {
		F Floats `json:"f"`
	}{Floats{1.5, math.Inf(1), math.Inf(-1), math.NaN(), 0.1}})
	if err != nil || s != `{"f":[1.5,"inf","-inf","nan",0.1]}` {
		t.Errorf("got %s, %v", s, err)
	}
}

// TestSimulateMatchesSolver checks the plain path against sens.Solver
// and the interpreted CaMKII against the generated package.
func TestSimulateMatchesSolver(t *testing.T) {
	ts := []float64{0.5, 1, 3}
	m, err := CompiledModel("camkii")
	if err != nil {
		t.Fatal(err)
	}
	in := m.Info()
	nx, np := len(in.StateIDs), len(in.ParameterIDs)
	X, S := make([]float64, len(ts)*nx), make([]float64, len(ts)*nx*np)
	if err := m.Simulate(ts, in.Defaults, nil, &SimOptions{Method: "fs"}, X, S); err != nil {
		t.Fatal(err)
	}
	var res sens.Result
	g := camkii.New()
	p := make([]float64, camkii.NumParams)
	g.DefaultParams(p)
	if err := sens.NewSolver(g, &sens.Options{Method: sens.FS, ErrCon: true}).Solve(&res, p, nil, 0, ts); err != nil {
		t.Fatal(err)
	}
	if !bitsEqual(X, res.X) || !bitsEqual(S, res.S) {
		t.Error("Simulate differs from sens.Solver on the generated CaMKII")
	}
	mi, err := LoadModel(camkiiXML)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(mi.Info().StateIDs, in.StateIDs) || !slices.Equal(mi.Info().ParameterIDs, in.ParameterIDs) {
		t.Fatal("interpreted and generated CaMKII name states or parameters differently")
	}
	X2, S2 := make([]float64, len(X)), make([]float64, len(S))
	if err := mi.Simulate(ts, in.Defaults, nil, &SimOptions{Method: "fs"}, X2, S2); err != nil {
		t.Fatal(err)
	}
	for i := range X {
		if d := math.Abs(X[i] - X2[i]); d > 1e-6*(1+math.Abs(X[i])) {
			t.Fatalf("x[%d]: generated %g, interpreted %g", i, X[i], X2[i])
		}
	}
}

// TestSimulateEventsDelaysDAE runs the paths other than sens.Solver and
// checks the events path against runtime/events directly.
func TestSimulateEventsDelaysDAE(t *testing.T) {
	ts := []float64{1, 2, 5}
	m, err := LoadModel(eventsXML)
	if err != nil {
		t.Fatal(err)
	}
	in := m.Info()
	if !in.Events {
		t.Fatal("the events fixture reports no events")
	}
	nx, np := len(in.StateIDs), len(in.ParameterIDs)
	X, S := make([]float64, len(ts)*nx), make([]float64, len(ts)*nx*np)
	if err := m.Simulate(ts, in.Defaults, nil, &SimOptions{Method: "fs"}, X, S); err != nil {
		t.Fatal(err)
	}
	x0, s0 := make([]float64, nx), make([]float64, nx*np)
	m.m.InitialState(x0, in.Defaults)
	m.m.InitialSens(s0, in.Defaults)
	r, err := events.SolveSens(m.m, in.Defaults, x0, s0, append([]float64{0}, ts...), &events.SensSettings{Sens: &sens.Options{Method: sens.FS, ErrCon: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !bitsEqual(X, r.X[nx:]) || !bitsEqual(S, r.S[nx*np:]) {
		t.Error("Simulate differs from events.SolveSens")
	}
	for _, path := range []string{delayXML, algXML} {
		m, err := LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		in := m.Info()
		nx, np := len(in.StateIDs), len(in.ParameterIDs)
		X, S := make([]float64, len(ts)*nx), make([]float64, len(ts)*nx*np)
		if err := m.Simulate(ts, in.Defaults, nil, &SimOptions{Method: "fs"}, X, S); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		if err := m.Simulate(ts, in.Defaults, nil, &SimOptions{Method: "none"}, X, nil); err != nil {
			t.Errorf("%s, none: %v", path, err)
		}
		if in.Delays != model.HasDelays(m.m) || (path == delayXML) != in.Delays {
			t.Errorf("%s: delays %v", path, in.Delays)
		}
	}
}

func TestSimulateErrors(t *testing.T) {
	m, err := CompiledModel("camkii")
	if err != nil {
		t.Fatal(err)
	}
	in := m.Info()
	nx, np := len(in.StateIDs), len(in.ParameterIDs)
	X, S := make([]float64, nx), make([]float64, nx*np)
	p := slices.Clone([]float64(in.Defaults))
	nan := slices.Clone(p)
	nan[3] = math.NaN()
	for _, c := range []struct {
		ts, p, x0 []float64
		opt       SimOptions
		X, S      []float64
		msg       string
	}{
		{nil, p, nil, SimOptions{}, X, S, "no output times"},
		{[]float64{-1}, p, nil, SimOptions{}, X, S, "before t0"},
		{[]float64{math.Inf(1)}, p, nil, SimOptions{}, X, S, "finite"},
		{[]float64{1}, p[:3], nil, SimOptions{}, X, S, "p has 3 values"},
		{[]float64{1}, nan, nil, SimOptions{}, X, S, "p[3]"},
		{[]float64{1}, p, []float64{1}, SimOptions{}, X, S, "x0 has 1 values"},
		{[]float64{1}, p, nil, SimOptions{Method: "euler"}, X, S, "euler"},
		{[]float64{1}, p, nil, SimOptions{ATol: -1}, X, S, "atol"},
		{[]float64{1}, p, nil, SimOptions{}, X[:1], S, "x buffer"},
		{[]float64{1}, p, nil, SimOptions{}, X, S[:1], "S buffer"},
		{[]float64{1}, p, nil, SimOptions{Method: "none"}, X, S, "computes no S"},
	} {
		if err := m.Simulate(c.ts, c.p, c.x0, &c.opt, c.X, c.S); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("want an error with %q, got %v", c.msg, err)
		}
	}
	d, err := LoadModel(delayXML)
	if err != nil {
		t.Fatal(err)
	}
	din := d.Info()
	dn := len(din.StateIDs)
	if err := d.Simulate([]float64{1}, din.Defaults, nil, &SimOptions{Method: "pbsr"}, make([]float64, dn), make([]float64, dn*len(din.ParameterIDs))); err == nil || !strings.Contains(err.Error(), "delays") {
		t.Errorf("pbsr on a delay model: %v", err)
	}
	if _, err := LoadModel("no/such.xml"); err == nil {
		t.Error("missing SBML file: no error")
	}
	if _, err := CompiledModel("nope"); err == nil || !strings.Contains(err.Error(), "camkii") {
		t.Errorf("unknown compiled model: %v", err)
	}
}

func TestSample(t *testing.T) {
	p, err := LoadProblem(conv, nil)
	if err != nil {
		t.Fatal(err)
	}
	dim := len(p.Info().ParameterIDs)
	opt := &SampleOptions{Chains: 2, Warmup: 10, Samples: 10, Seed: 3}
	d1, l1 := make([]float64, 2*10*dim), make([]float64, 2*10)
	acc, err := p.Sample(opt, d1, l1)
	if err != nil {
		t.Fatal(err)
	}
	d2, l2 := make([]float64, len(d1)), make([]float64, len(l1))
	if _, err := p.Sample(opt, d2, l2); err != nil {
		t.Fatal(err)
	}
	if len(acc) != 2 || !bitsEqual(d1, d2) || !bitsEqual(l1, l2) {
		t.Error("two runs with one seed differ")
	}
	for _, c := range []struct {
		opt SampleOptions
		msg string
	}{
		{SampleOptions{Sampler: "nuts", Chains: 1, Samples: 1}, "nuts"},
		{SampleOptions{Chains: 0, Samples: 1}, "chains"},
		{SampleOptions{Chains: 1, Samples: 0}, "samples"},
		{SampleOptions{Chains: 1, Samples: 1, Init: "zero"}, "init"},
		{SampleOptions{Chains: 1, Samples: 2}, "buffers"},
	} {
		if _, err := p.Sample(&c.opt, make([]float64, dim), make([]float64, 1)); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("want an error with %q, got %v", c.msg, err)
		}
	}
	cp, err := CompiledProblem("camkiipetab", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Sample(&SampleOptions{Chains: 1, Samples: 1}, make([]float64, 7), make([]float64, 1)); err == nil {
		t.Error("sampling a compiled problem: no error")
	}
}

func TestTimeEval(t *testing.T) {
	p, err := LoadProblem(conv, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.TimeEval(p.Info().Nominal, 3, true, false)
	if err != nil || !(s >= 0) {
		t.Errorf("TimeEval: %v, %v", s, err)
	}
	if _, err := p.TimeEval(p.Info().Nominal, 0, true, false); err == nil {
		t.Error("n = 0: no error")
	}
}
