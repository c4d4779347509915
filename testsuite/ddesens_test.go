package testsuite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/codegen"
	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/dde"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/symbolic"
)

// ddeSystems are delay models for the sensitivity tests, built as the
// SBML lowering builds them (KindDelay symbols, histories at the initial
// values):
//   - logistic: x' = r x (1 - delay(x, tau)/K), x(0) = x0, a delay and a
//     history that depend on p;
//   - feedback: a delayed negative feedback, m' = a/(1 + (delay(q,
//     tau)/K)^2) - m, q' = b m - c q, with tau a parameter;
//   - nested: x' = -k delay(x * delay(x, tau1), tau2), where the inner
//     delayed value is read at t - tau2, with tau2 = 2 tau1 a formula of
//     p.
func ddeSystems(t *testing.T) map[string]*symbolic.System {
	out := map[string]*symbolic.System{}
	build := func(o *symbolic.ODE) {
		sys, err := symbolic.Build(o)
		if err != nil {
			t.Fatal(err)
		}
		out[o.Name] = sys
	}
	{
		b := symbolic.NewBuilder()
		x := b.Sym("x", symbolic.KindState)
		r, K, tau, x0 := b.Sym("r", symbolic.KindParam), b.Sym("K", symbolic.KindParam), b.Sym("tau", symbolic.KindParam), b.Sym("x0", symbolic.KindParam)
		d := b.Sym("delay#1", symbolic.KindDelay)
		build(&symbolic.ODE{B: b, Name: "logistic",
			States: []symbolic.State{{Name: "x", Rate: b.Mul(r, x, b.Sub(b.Const(1), b.Div(d, K))), Init: x0}},
			Params: []symbolic.Param{{Name: "r", Value: 1.2}, {Name: "K", Value: 2}, {Name: "tau", Value: 0.9}, {Name: "x0", Value: 0.3}},
			Delays: []symbolic.Delay{{Name: "delay#1", Label: "delay(x, tau)", Expr: x, Tau: tau, History: x0}},
		})
	}
	{
		b := symbolic.NewBuilder()
		mm, q := b.Sym("m", symbolic.KindState), b.Sym("q", symbolic.KindState)
		a, K, bb, c, tau := b.Sym("a", symbolic.KindParam), b.Sym("K", symbolic.KindParam), b.Sym("b", symbolic.KindParam), b.Sym("c", symbolic.KindParam), b.Sym("tau", symbolic.KindParam)
		d := b.Sym("delay#1", symbolic.KindDelay)
		u := b.Div(d, K)
		build(&symbolic.ODE{B: b, Name: "feedback",
			States: []symbolic.State{
				{Name: "m", Rate: b.Sub(b.Div(a, b.Add(b.Const(1), b.Mul(u, u))), mm), Init: b.Const(0.1)},
				{Name: "q", Rate: b.Sub(b.Mul(bb, mm), b.Mul(c, q)), Init: b.Const(0.2)},
			},
			Params: []symbolic.Param{{Name: "a", Value: 2}, {Name: "K", Value: 0.8}, {Name: "b", Value: 1}, {Name: "c", Value: 0.5}, {Name: "tau", Value: 1.5}},
			Delays: []symbolic.Delay{{Name: "delay#1", Label: "delay(q, tau)", Expr: q, Tau: tau, History: b.Const(0.2)}},
		})
	}
	{
		b := symbolic.NewBuilder()
		x := b.Sym("x", symbolic.KindState)
		k, tau1 := b.Sym("k", symbolic.KindParam), b.Sym("tau1", symbolic.KindParam)
		d0, d1 := b.Sym("delay#1", symbolic.KindDelay), b.Sym("delay#2", symbolic.KindDelay)
		build(&symbolic.ODE{B: b, Name: "nested",
			States: []symbolic.State{{Name: "x", Rate: b.Neg(b.Mul(k, d1)), Init: b.Const(1)}},
			Params: []symbolic.Param{{Name: "k", Value: 0.8}, {Name: "tau1", Value: 0.4}},
			Delays: []symbolic.Delay{
				{Name: "delay#1", Label: "delay(x, tau1)", Expr: x, Tau: tau1, History: b.Const(1)},
				{Name: "delay#2", Label: "delay(x*delay(x, tau1), 2*tau1)", Expr: b.Mul(x, d0), Tau: b.Mul(b.Const(2), tau1), History: b.Const(1)},
			},
		})
	}
	return out
}

// ddeTimes are the output times of each system, away from the breaking
// points (where x is not twice differentiable in the delay).
var ddeTimes = map[string][]float64{
	"logistic": {0, 1, 2.5, 4, 7, 10},
	"feedback": {0, 1, 2.2, 4, 6.1, 10},
	"nested":   {0, 0.3, 1.1, 1.9, 3.3, 5.1},
}

// ddeFD is dx/dp by central differences of dde.Solve, twice Richardson-
// extrapolated (steps h, h/2, h/4 with h = 1e-2 |p_j|), each solve by
// DOPRI5 at the fixed step 1e-3 (rtol 0.5 never rejects, HMax caps), so
// that the solution is a smooth function of p (runtime/dde's own tests
// say why).
func ddeFD(t *testing.T, m model.Model, p, ts []float64) []float64 {
	t.Helper()
	nx, np := model.NumStates(m), len(p)
	set := &dde.Settings{ODE: &ode.Settings{Method: ode.DOPRI5, RTol: 0.5, ATol: 1, HMax: 1e-3, H0: 1e-3}}
	solve := func(q []float64) []float64 {
		x0 := make([]float64, nx)
		m.InitialState(x0, q)
		r, err := dde.Solve(m, q, x0, ts, set)
		if err != nil {
			t.Fatal(err)
		}
		return r.X
	}
	out := make([]float64, len(ts)*nx*np)
	for j := range p {
		cd := func(h float64) []float64 {
			q := append([]float64(nil), p...)
			q[j] = p[j] + h
			a := solve(q)
			q[j] = p[j] - h
			b := solve(q)
			for i := range a {
				a[i] = (a[i] - b[i]) / (2 * h)
			}
			return a
		}
		h := 1e-2 * math.Max(math.Abs(p[j]), 1e-3)
		d1, d2, d3 := cd(h), cd(h/2), cd(h/4)
		for k := range ts {
			for i := 0; i < nx; i++ {
				e := k*nx + i
				r1, r2 := (4*d2[e]-d1[e])/3, (4*d3[e]-d2[e])/3
				out[k*nx*np+i*np+j] = (16*r2 - r1) / 15
			}
		}
	}
	return out
}

// ddeWorst is max |got - want| / (rtol max(1, |want|)).
func ddeWorst(got, want []float64, rtol float64) (float64, int) {
	w, at := 0.0, 0
	for i := range want {
		e := math.Abs(got[i]-want[i]) / (rtol * math.Max(1, math.Abs(want[i])))
		if math.IsNaN(e) {
			return math.Inf(1), i
		}
		if e > w {
			w, at = e, i
		}
	}
	return w, at
}

// checkDDESens compares dde.SolveSens on m at rtol 1e-10 with ddeFD and
// logs the worst entry (DOPRI5 within 10x of rtol; BDF within 50x, its
// global error being larger: see runtime/dde's TestSensFiniteDifferences).
func checkDDESens(t *testing.T, name string, m model.Model) {
	t.Helper()
	ts := ddeTimes[name]
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	x0 := make([]float64, model.NumStates(m))
	m.InitialState(x0, p)
	want := ddeFD(t, m, p, ts)
	for _, mb := range []struct {
		meth  ode.Method
		bound float64
	}{{ode.BDF, 50}, {ode.DOPRI5, 10}} {
		r, err := dde.SolveSens(m, p, x0, nil, ts, &dde.Settings{ODE: &ode.Settings{Method: mb.meth, RTol: 1e-10, ATol: 1e-12}})
		if err != nil {
			t.Fatalf("%s %v: %v", name, mb.meth, err)
		}
		w, at := ddeWorst(r.S, want, 1e-10)
		t.Logf("%s %v: worst S error against finite differences %.2g x rtol 1e-10 (entry %d: %.12g, fd %.12g)", name, mb.meth, w, at, r.S[at], want[at])
		if w > mb.bound {
			t.Errorf("%s %v: worst error %.3g x rtol, want <= %g", name, mb.meth, w, mb.bound)
		}
	}
}

// Sensitivities through delays, through the interpreted model, against
// finite differences of the delay solution.
func TestDelaySensInterp(t *testing.T) {
	if testing.Short() {
		t.Skip("finite differences of delay solutions")
	}
	for _, name := range []string{"logistic", "feedback", "nested"} {
		m, err := interp.New(ddeSystems(t)[name])
		if err != nil {
			t.Fatal(err)
		}
		checkDDESens(t, name, m)
	}
}

// ddeDriver is the program run in the temporary module of
// TestDelaySensGenerated: for each generated package it solves the
// sensitivities with BDF and DOPRI5 at rtol 1e-10, counts the
// allocations of the model.DelaySens methods, and prints the result as
// JSON.
const ddeDriver = `package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/pbgen/pbgen/runtime/dde"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"

	"ddegen/feedback"
	"ddegen/logistic"
	"ddegen/nested"
)

type delayModel interface {
	model.Model
	model.DelaySens
}

type result struct {
	S      map[string][]float64
	Allocs float64
	Err    string
}

func main() {
	times := map[string][]float64{{TIMES}}
	out := map[string]result{}
	for name, m := range map[string]delayModel{"logistic": logistic.New(), "feedback": feedback.New(), "nested": nested.New()} {
		r := result{S: map[string][]float64{}}
		ts := times[name]
		p := make([]float64, model.NumParams(m))
		m.DefaultParams(p)
		x0 := make([]float64, model.NumStates(m))
		m.InitialState(x0, p)
		for meth, om := range map[string]ode.Method{"BDF": ode.BDF, "DOPRI5": ode.DOPRI5} {
			res, err := dde.SolveSens(m, p, x0, nil, ts, &dde.Settings{ODE: &ode.Settings{Method: om, RTol: 1e-10, ATol: 1e-12}})
			if err != nil {
				r.Err = err.Error()
				break
			}
			r.S[meth] = res.S
		}
		nx, np, nd := model.NumStates(m), len(p), m.NumDelays()
		fd := make([]float64, m.FdPattern().NNZ())
		jp := make([]float64, m.JpPattern().NNZ())
		d := make([]float64, nd)
		dx, dp, dd := make([]float64, nx), make([]float64, np), make([]float64, nd)
		r.Allocs = testing.AllocsPerRun(10, func() {
			m.FdDelayed(fd, 1, x0, p, d)
			m.JpDelayed(jp, 1, x0, p, d)
			for k := 0; k < nd; k++ {
				m.DelayArgGrad(k, 1, x0, p, d, dx, dp, dd)
				m.DelayTimeGrad(k, 1, x0, p, d, dp)
				m.DelayHistoryGrad(k, -1, p, dp)
			}
		})
		out[name] = r
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
`

// Sensitivities through delays through generated code: the three
// systems are generated into a temporary module, solved there by
// dde.SolveSens, and checked here against the finite differences of the
// interpreted model's solution, with the bounds of TestDelaySensInterp;
// the model.DelaySens methods of generated code allocate nothing.
func TestDelaySensGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a temporary module")
	}
	tmp, write := tempModule(t, "ddegen")
	systems := ddeSystems(t)
	for name, sys := range systems {
		files, err := codegen.Generate(sys, &codegen.Options{Package: name})
		if err != nil {
			t.Fatal(err)
		}
		for f, src := range files {
			write(filepath.Join(name, f), src)
		}
	}
	write("main.go", []byte(strings.Replace(ddeDriver, "{{TIMES}}", fmt.Sprintf("%#v", ddeTimes)[len("map[string][]float64"):], 1)))
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, stderr.String())
	}
	var res map[string]struct {
		S      map[string][]float64
		Allocs float64
		Err    string
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, name := range []string{"logistic", "feedback", "nested"} {
		r := res[name]
		if r.Err != "" {
			t.Errorf("%s: %s", name, r.Err)
			continue
		}
		if r.Allocs != 0 {
			t.Errorf("%s: the model.DelaySens methods allocate %v times", name, r.Allocs)
		}
		m, err := interp.New(systems[name])
		if err != nil {
			t.Fatal(err)
		}
		p := make([]float64, model.NumParams(m))
		m.DefaultParams(p)
		want := ddeFD(t, m, p, ddeTimes[name])
		for _, mb := range []struct {
			meth  string
			bound float64
		}{{"BDF", 50}, {"DOPRI5", 10}} {
			meth, bound := mb.meth, mb.bound
			w, at := ddeWorst(r.S[meth], want, 1e-10)
			t.Logf("%s generated %s: worst S error against finite differences %.2g x rtol 1e-10 (entry %d)", name, meth, w, at)
			if w > bound {
				t.Errorf("%s generated %s: worst error %.3g x rtol, want <= %g", name, meth, w, bound)
			}
		}
	}
}
