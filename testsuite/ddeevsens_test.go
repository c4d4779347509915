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
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/symbolic"
)

// ddeEvModels are the SBML models of testdata/delayevents with their
// output times, away from the event instants and the breaking points
// they move (where x is not differentiable in p):
//   - hutchevents: x' = -k delay(x, tau), an event at t >= T assigning
//     x + a delay(x, tau), one triggered by delay(x, tau) < c (E0 at 1.1,
//     its jump reaching f at 1.9; E1 at 1.3);
//   - feedbackevents: a delayed negative feedback with a state trigger
//     (q > th, at about 1.45) and a delayed event (t >= T0, executed at
//     T0 + dl = 2.7 with a delayed value from the trigger time).
var ddeEvModels = []struct {
	file string
	ts   []float64
}{
	{"hutchevents.xml", []float64{0, 0.5, 1, 1.5, 2.2, 3, 3.8, 4.7, 5.6, 6.5}},
	{"feedbackevents.xml", []float64{0, 1, 2, 2.5, 3.3, 4, 5, 6.1, 8, 10}},
}

// ddeEvFD is dx/dp by fourth-order central differences of dde.Solve,
// (-x(p + 2h) + 8 x(p + h) - 8 x(p - h) + x(p - 2h)) / (12 h) with
// h = 1e-3 max(|p_j|, 1), each solve by DOPRI5 at rtol 1e-13 (events
// located to 1e-14): truncation about h^4, rounding of the solves about
// 1e-13/h, both below 1e-9 of a column of size 1.
func ddeEvFD(t *testing.T, m model.Model, p, ts []float64) []float64 {
	t.Helper()
	nx, np := model.NumStates(m), len(p)
	set := &dde.Settings{ODE: &ode.Settings{Method: ode.DOPRI5, RTol: 1e-13, ATol: 1e-15, MaxSteps: 1000000},
		Events: &events.Settings{TTol: 1e-14}}
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
		h := 1e-3 * math.Max(math.Abs(p[j]), 1)
		at := func(s float64) []float64 {
			q := append([]float64(nil), p...)
			q[j] += s * h
			return solve(q)
		}
		a2, a1, b1, b2 := at(2), at(1), at(-1), at(-2)
		for e := range a1 {
			k, i := e/nx, e%nx
			out[k*nx*np+i*np+j] = (-a2[e] + 8*a1[e] - 8*b1[e] + b2[e]) / (12 * h)
		}
	}
	return out
}

// colWorst is the largest |got - want| of each column of S (laid out as
// dde.Result.S) relative to the column's largest |want|, the worst of
// them, and that column.
func colWorst(got, want []float64, np int) (float64, int) {
	w, at := 0.0, 0
	for j := 0; j < np; j++ {
		scale, e := 0.0, 0.0
		for q := j; q < len(want); q += np {
			scale = math.Max(scale, math.Abs(want[q]))
			e = math.Max(e, math.Abs(got[q]-want[q]))
		}
		if scale == 0 {
			scale = 1
		}
		if r := e / scale; r > w || math.IsNaN(r) {
			w, at = r, j
		}
	}
	return w, at
}

// TestDelayEventSens: dde.SolveSens through the events of the delay
// models of testdata/delayevents (interpreted), against fourth-order
// central differences of dde.Solve, at rtol 1e-10 with BDF and DOPRI5.
// The worst entry of S, relative to its column's largest, must be within
// 100 rtol: a missing jump of S (at an event, or where an event's jump
// reaches f a delay later) is off by the jump, a fraction of the column.
func TestDelayEventSens(t *testing.T) {
	if testing.Short() {
		t.Skip("finite differences of delay solutions")
	}
	for _, c := range ddeEvModels {
		sys, err := Lower(filepath.Join("..", "testdata", "delayevents", c.file))
		if err != nil {
			t.Fatal(err)
		}
		m, err := interp.NewWithEvents(sys)
		if err != nil {
			t.Fatal(err)
		}
		np := model.NumParams(m)
		p := make([]float64, np)
		m.DefaultParams(p)
		x0 := make([]float64, model.NumStates(m))
		m.InitialState(x0, p)
		want := ddeEvFD(t, m, p, c.ts)
		for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
			r, err := dde.SolveSens(m, p, x0, nil, c.ts, &dde.Settings{ODE: &ode.Settings{Method: meth, RTol: 1e-10, ATol: 1e-12}})
			if err != nil {
				t.Fatalf("%s %v: %v", c.file, meth, err)
			}
			if len(r.Fired) < 2 {
				t.Errorf("%s %v: fired %v, want both events", c.file, meth, r.Fired)
			}
			w, j := colWorst(r.S, want, np)
			t.Logf("%s %v: worst S error relative to its column's largest entry %.2g (column %s; events at %v)", c.file, meth, w, m.ParamNames()[j], r.Fired)
			if w > 100*1e-10 {
				t.Errorf("%s %v: worst error %.3g of column %s, want <= 1e-8", c.file, meth, w, m.ParamNames()[j])
			}
		}
	}
}

// ddeEvDriver is the program run in the temporary module of
// TestDelayEventSensGenerated: each generated package's S by
// dde.SolveSens with BDF and DOPRI5 at rtol 1e-10, and the allocations
// of its model.DelayEventDerivs methods, printed as JSON.
const ddeEvDriver = `package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/pbgen/pbgen/runtime/dde"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"

{{IMPORTS}}
)

type delayModel interface {
	model.Model
	model.DelaySens
	model.DelayEventDerivs
}

type result struct {
	S      map[string][]float64
	Allocs float64
	Err    string
}

func main() {
	times := map[string][]float64{{TIMES}}
	out := map[string]result{}
	for name, m := range map[string]delayModel{ {{MODELS}} } {
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
		nx, np, nd := len(x0), len(p), m.NumDelays()
		d := make([]float64, nd)
		dx, dp, dd := make([]float64, nx), make([]float64, np), make([]float64, nd)
		eds := make([]model.EventDeriv, m.NumEvents())
		dds := make([][]float64, m.NumEvents())
		for k := range eds {
			n := len(m.EventTargets(k)) + 1
			eds[k] = model.EventDeriv{X: make([]float64, n*nx), P: make([]float64, n*np), T: make([]float64, n)}
			dds[k] = make([]float64, n*nd)
		}
		r.Allocs = testing.AllocsPerRun(10, func() {
			for j := 0; j < m.NumRoots(); j++ {
				m.RootGradDelayed(j, 1, x0, p, d, dx, dp, dd)
			}
			for k := range eds {
				m.EventDerivDelayed(k, 1, x0, p, d, &eds[k], dds[k])
			}
		})
		out[name] = r
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
`

// genResult is the driver's output for one generated model: S by BDF
// and DOPRI5, the allocations of its model.DelayEventDerivs methods, an
// error of a solve.
type genResult struct {
	S      map[string][]float64
	Allocs float64
	Err    string
}

// runDelayGenerated generates the SBML models files of testdata/dir as
// packages of a temporary module and runs ddeEvDriver there, at the
// output times of each (by package name, the file without .xml). It
// returns the driver's results and the lowered systems.
func runDelayGenerated(t *testing.T, dir string, files []string, ts [][]float64) (map[string]genResult, map[string]*symbolic.System, map[string][]float64) {
	t.Helper()
	tmp, write := tempModule(t, "ddeevgen")
	times := map[string][]float64{}
	systems := map[string]*symbolic.System{}
	var imports, models strings.Builder
	for i, file := range files {
		name := strings.TrimSuffix(file, ".xml")
		sys, err := Lower(filepath.Join("..", "testdata", dir, file))
		if err != nil {
			t.Fatal(err)
		}
		gen, err := codegen.Generate(sys, &codegen.Options{Package: name})
		if err != nil {
			t.Fatal(err)
		}
		for f, src := range gen {
			write(filepath.Join(name, f), src)
		}
		times[name], systems[name] = ts[i], sys
		fmt.Fprintf(&imports, "\t\"ddeevgen/%s\"\n", name)
		fmt.Fprintf(&models, "%q: %s.New(), ", name, name)
	}
	src := strings.Replace(ddeEvDriver, "{{TIMES}}", fmt.Sprintf("%#v", times)[len("map[string][]float64"):], 1)
	src = strings.Replace(src, "{{IMPORTS}}", imports.String(), 1)
	src = strings.Replace(src, "{{MODELS}}", models.String(), 1)
	write("main.go", []byte(src))
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, stderr.String())
	}
	var res map[string]genResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return res, systems, times
}

// dde.SolveSens through the events of the delay models of
// testdata/delayevents as generated packages, against the finite
// differences of the interpreted model's solution with
// TestDelayEventSens's bound; the model.DelayEventDerivs methods of
// generated code allocate nothing.
func TestDelayEventSensGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a temporary module")
	}
	var files []string
	var ts [][]float64
	for _, c := range ddeEvModels {
		files, ts = append(files, c.file), append(ts, c.ts)
	}
	res, systems, times := runDelayGenerated(t, "delayevents", files, ts)
	for name, sys := range systems {
		r := res[name]
		if r.Err != "" {
			t.Errorf("%s: %s", name, r.Err)
			continue
		}
		if r.Allocs != 0 {
			t.Errorf("%s: the model.DelayEventDerivs methods allocate %v times", name, r.Allocs)
		}
		m, err := interp.NewWithEvents(sys)
		if err != nil {
			t.Fatal(err)
		}
		np := model.NumParams(m)
		p := make([]float64, np)
		m.DefaultParams(p)
		want := ddeEvFD(t, m, p, times[name])
		for _, meth := range []string{"BDF", "DOPRI5"} {
			w, j := colWorst(r.S[meth], want, np)
			t.Logf("%s generated %s: worst S error relative to its column's largest entry %.2g (column %s)", name, meth, w, m.ParamNames()[j])
			if w > 100*1e-10 {
				t.Errorf("%s generated %s: worst error %.3g of column %s, want <= 1e-8", name, meth, w, m.ParamNames()[j])
			}
		}
	}
}
