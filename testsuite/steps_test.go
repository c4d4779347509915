package testsuite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/codegen"
	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/dde"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// stepCase is a model of TestStepSens: dX/dt with a floor or ceiling
// (testdata/steps), parameters T and k, output times from the start
// time 0, and X(t; T, k) in closed form.
type stepCase struct {
	file  string
	ts    []float64
	exact func(t, T, k float64) float64
}

// harmonic returns 1 + 1/2 + ... + 1/m.
func harmonic(m int) float64 {
	h := 0.0
	for j := 1; j <= m; j++ {
		h += 1 / float64(j)
	}
	return h
}

var stepCases = []stepCase{
	// dX/dt = k floor(t/T), X(0) = 0: X = k (T m(m-1)/2 + m (t - m T)),
	// m = floor(t/T); dX/dT = -k m(m+1)/2 (-3 at t = 3, T = 1.3).
	{"floortime", []float64{0, 0.5, 1, 2, 2.5, 3, 3.5, 4.5}, func(t, T, k float64) float64 {
		m := math.Floor(t / T)
		return k * (T*m*(m-1)/2 + m*(t-m*T))
	}},
	// quotient(t, T) is floor(t/T) for t >= 0 (read through floor and
	// ceiling, both lowered): the same solution.
	{"quotienttime", []float64{0, 0.5, 1, 2, 2.5, 3, 3.5, 4.5}, func(t, T, k float64) float64 {
		m := math.Floor(t / T)
		return k * (T*m*(m-1)/2 + m*(t-m*T))
	}},
	// rem(t, T) = t - T quotient(t, T): X = k (m T^2/2 + (t - m T)^2/2).
	{"remtime", []float64{0, 0.5, 1, 2, 2.5, 3, 3.5, 4.5}, func(t, T, k float64) float64 {
		m := math.Floor(t / T)
		return k * (m*T*T/2 + (t-m*T)*(t-m*T)/2)
	}},
	// dX/dt = k (1 + floor(X/T)), X(0) = 0: X crosses m T at t_m = T H_m
	// / k (H_m harmonic), and X = m T + k (m+1) t - (m+1) T H_m between,
	// so dX/dT = m - (m+1) H_m and dX/dk = (m+1) t.
	{"floorstate", []float64{0, 0.5, 1.5, 2.2, 2.5, 2.85, 3.1, 3.3, 3.45}, func(t, T, k float64) float64 {
		m := 0
		for T*harmonic(m+1)/k <= t {
			m++
		}
		fm := float64(m)
		return fm*T + k*(fm+1)*t - (fm+1)*T*harmonic(m)
	}},
	// dX/dt = -0.1 k ceiling(X/T), X(0) = 1, T = 0.3: ceiling(X/T) is 4
	// until X = 3T, then 3, 2, 1 on the way down to T, 2T, ...
	{"ceilstate", []float64{0, 0.1, 0.5, 1, 2, 3, 4, 5.5}, func(t, T, k float64) float64 {
		x, at := 1.0, 0.0
		for m := 4.0; m >= 1; m-- {
			rate := 0.1 * k * m
			end := at + (x-(m-1)*T)/rate // X reaches (m-1) T
			if t <= end {
				return x - rate*(t-at)
			}
			x, at = (m-1)*T, end
		}
		return x
	}},
}

// TestStepSens checks S = dx/dp through the jumps of floor, ceiling,
// quotient and rem in a rate (lowered to states held between events by
// symbolic.LowerSteps): their times move with T (through t/T or through
// the state), and S jumps there by (f- - f+) dtau/dp. FS and PBSR at rtol
// 1e-10 against the closed forms (their derivatives by central
// differences of the closed form, step 1e-6, exact to about 1e-9) and
// against central differences of the solution (events.Solve at rtol
// 1e-12), relative to each column's largest entry. Without the jumps
// S:X:T is 0 (floortime) or off by its own size, and the check fails by
// a factor of 1e8.
func TestStepSens(t *testing.T) {
	for _, c := range stepCases {
		t.Run(c.file, func(t *testing.T) {
			sys, err := Lower("testdata/steps/" + c.file + ".xml")
			if err != nil {
				t.Fatal(err)
			}
			m, err := interp.NewWithEvents(sys)
			if err != nil {
				t.Fatal(err)
			}
			nx, np := model.NumStates(m), model.NumParams(m)
			if pn := m.ParamNames(); !slices.Equal(pn, []string{"T", "k"}) {
				t.Fatalf("parameters %v, want T and k", pn)
			}
			row := slices.Index(m.StateNames(), "X")
			if row < 0 || nx < 2 {
				t.Fatalf("states %v: want X and the steps' states", m.StateNames())
			}
			p := make([]float64, np)
			m.DefaultParams(p)
			T, k := p[0], p[1]
			const h = 1e-6
			want := make([][2]float64, len(c.ts))
			scale := [2]float64{1e-12, 1e-12}
			for i, tt := range c.ts {
				want[i] = [2]float64{
					(c.exact(tt, T+h, k) - c.exact(tt, T-h, k)) / (2 * h),
					(c.exact(tt, T, k+h) - c.exact(tt, T, k-h)) / (2 * h),
				}
				for j := range 2 {
					scale[j] = math.Max(scale[j], math.Abs(want[i][j]))
				}
			}
			fd := suiteFD(t, m, p, c.ts, 1e-5)
			for _, meth := range []sens.Method{sens.FS, sens.PBSR} {
				r, err := events.SolveSens(m, p, nil, nil, c.ts, &events.SensSettings{Sens: &sens.Options{Method: meth,
					ErrCon: true, RTol: 1e-10, ATol: 1e-12, ODE: ode.Settings{RTol: 1e-10, ATol: 1e-12, MaxSteps: 1000000}}})
				if err != nil {
					t.Fatalf("%v: %v", meth, err)
				}
				worstX, worst, worstFD := 0.0, 0.0, 0.0
				for i, tt := range c.ts {
					x := r.XAt(i)[row]
					worstX = math.Max(worstX, math.Abs(x-c.exact(tt, T, k)))
					for j := range 2 {
						s := r.SAt(i)[row*np+j]
						worst = math.Max(worst, math.Abs(s-want[i][j])/scale[j])
						worstFD = math.Max(worstFD, math.Abs(s-fd[(i*nx+row)*np+j])/scale[j])
					}
					// The steps' own rows are 0: their values have no
					// derivative in p.
					for i2 := range nx {
						if i2 != row && (r.SAt(i)[i2*np] != 0 || r.SAt(i)[i2*np+1] != 0) {
							t.Errorf("%v: S of %s at t = %v is not 0", meth, m.StateNames()[i2], tt)
						}
					}
				}
				t.Logf("%v: X %.2g off, S %.2g off the closed form, %.2g off central differences", meth, worstX, worst, worstFD)
				if !(worstX <= 1e-8) {
					t.Errorf("%v: X is %.2g off the closed form", meth, worstX)
				}
				if !(worst <= 1e-7) {
					t.Errorf("%v: S is %.2g of its column off the closed form", meth, worst)
				}
				if !(worstFD <= 1e-6) {
					t.Errorf("%v: S is %.2g of its column off central differences", meth, worstFD)
				}
			}
		})
	}
}

// TestStepSensDelay checks S through a floor inside a delayed value:
// dX/dt = k delay(floor((Y + 0.6)/T), D), Y' = 1, X(0) = Y(0) = 0, T =
// 1.3, D = 0.5 (delayfloorstate.xml: Y is t, but the history is constant
// before the start). delayfloor.xml, the same with time for Y, has the
// history floor((t + 0.6)/T), a floor of time whose jumps (none within D
// of the start for these values, but dde.SolveSens does not locate them)
// move with T: SolveSens refuses it by name.
// The floor is lowered in the delayed expression, so the delayed value
// jumps a delay after each of its events, at D - 0.6 + m T, where
// dde.SolveSens carries the jump of S. (The history before the start,
// floor((t + 0.6)/T) at t < 0, has no jump within D of the start for
// these values.) With F(u) = floor(u)(floor(u) - 1)/2 + floor(u)(u -
// floor(u)), the integral of floor from 0, X = k T (F((t - c)/T) -
// F(-c/T)), c = D - 0.6; at t = 3, dX/dT = -3 and dX/dD = -2 (both 0
// without the lowering). BDF and DOPRI5 at rtol 1e-10, against the
// closed form's derivatives by central differences (step 1e-6) and
// fourth-order central differences of dde.Solve.
func TestStepSensDelay(t *testing.T) {
	m, p, x0 := interpModel(t, "testdata/steps/delayfloor.xml")
	if _, err := dde.SolveSens(m, p, x0, nil, []float64{0, 3}, nil); !errors.Is(err, dde.ErrSens) || !strings.Contains(err.Error(), "history of delay(floor((t + 0.6)/T), D)") {
		t.Errorf("delayfloor.xml: SolveSens: %v, want ErrSens naming the history's floor of time", err)
	}
	m, _, _ = interpModel(t, "testdata/steps/delayfloorstate.xml")
	nx, np := model.NumStates(m), model.NumParams(m)
	if pn := m.ParamNames(); !slices.Equal(pn, []string{"T", "k", "D"}) {
		t.Fatalf("parameters %v, want T, k and D", pn)
	}
	row := slices.Index(m.StateNames(), "X")
	if row < 0 || nx < 2 {
		t.Fatalf("states %v: want X and the floor's state", m.StateNames())
	}
	p = make([]float64, np)
	m.DefaultParams(p)
	F := func(u float64) float64 {
		n := math.Floor(u)
		return n*(n-1)/2 + n*(u-n)
	}
	exact := func(tt float64, q []float64) float64 {
		T, k, c := q[0], q[1], q[2]-0.6
		return k * T * (F((tt-c)/T) - F(-c/T))
	}
	ts := []float64{0, 0.5, 1, 1.5, 2, 2.3, 3, 3.5}
	const h = 1e-6
	want := make([]float64, len(ts)*np)
	scale := make([]float64, np)
	for i, tt := range ts {
		for j := range np {
			qp, qm := slices.Clone(p), slices.Clone(p)
			qp[j] += h
			qm[j] -= h
			want[i*np+j] = (exact(tt, qp) - exact(tt, qm)) / (2 * h)
			scale[j] = math.Max(scale[j], math.Abs(want[i*np+j]))
		}
	}
	if w := want[6*np : 7*np]; math.Abs(w[0]+3) > 1e-8 || math.Abs(w[2]+2) > 1e-8 {
		t.Fatalf("closed form at t = 3: dX/dT = %v, dX/dD = %v, want -3 and -2", w[0], w[2])
	}
	fd := ddeEvFD(t, m, p, ts)
	x0 = make([]float64, nx)
	m.InitialState(x0, p)
	for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
		r, err := dde.SolveSens(m, p, x0, nil, ts, &dde.Settings{ODE: &ode.Settings{Method: meth, RTol: 1e-10, ATol: 1e-12}})
		if err != nil {
			t.Fatalf("%v: %v", meth, err)
		}
		worstX, worst, worstFD := 0.0, 0.0, 0.0
		for i, tt := range ts {
			worstX = math.Max(worstX, math.Abs(r.XAt(i)[row]-exact(tt, p)))
			for j := range np {
				s := r.SAt(i)[row*np+j]
				worst = math.Max(worst, math.Abs(s-want[i*np+j])/scale[j])
				worstFD = math.Max(worstFD, math.Abs(s-fd[(i*nx+row)*np+j])/scale[j])
			}
		}
		t.Logf("%v: X %.2g off, S %.2g off the closed form, %.2g off central differences", meth, worstX, worst, worstFD)
		if !(worstX <= 1e-8) || !(worst <= 1e-7) || !(worstFD <= 1e-6) {
			t.Errorf("%v: X %.2g off, S %.2g of its column off the closed form, %.2g off central differences", meth, worstX, worst, worstFD)
		}
	}
}

// stepDriver is the program run in the temporary module of
// TestStepSensGenerated: S of each generated package by events.SolveSens
// with FS and PBSR at rtol 1e-10, printed as JSON.
const stepDriver = `package main

import (
	"encoding/json"
	"os"

	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
{{IMPORTS}}
)

type result struct {
	X, S  map[string][]float64
	Names []string
	Err   string
}

func main() {
	times := map[string][]float64{{TIMES}}
	out := map[string]result{}
	for name, m := range map[string]model.Model{ {{MODELS}} } {
		r := result{X: map[string][]float64{}, S: map[string][]float64{}, Names: m.StateNames()}
		p := make([]float64, model.NumParams(m))
		m.DefaultParams(p)
		for meth, sm := range map[string]sens.Method{"FS": sens.FS, "PBSR": sens.PBSR} {
			res, err := events.SolveSens(m, p, nil, nil, times[name], &events.SensSettings{Sens: &sens.Options{Method: sm,
				ErrCon: true, RTol: 1e-10, ATol: 1e-12, ODE: ode.Settings{RTol: 1e-10, ATol: 1e-12, MaxSteps: 1000000}}})
			if err != nil {
				r.Err = err.Error()
				break
			}
			r.X[meth], r.S[meth] = res.X, res.S
		}
		out[name] = r
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
`

// TestStepSensGenerated: the models of TestStepSens as generated
// packages (their step states, events and Jacobians emitted by codegen),
// S by FS and PBSR at rtol 1e-10 against the closed forms with
// TestStepSens's bounds.
func TestStepSensGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a temporary module")
	}
	tmp, write := tempModule(t, "stepgen")
	times := map[string][]float64{}
	var imports, models strings.Builder
	for _, c := range stepCases {
		sys, err := Lower("testdata/steps/" + c.file + ".xml")
		if err != nil {
			t.Fatal(err)
		}
		files, err := codegen.Generate(sys, &codegen.Options{Package: c.file})
		if err != nil {
			t.Fatal(err)
		}
		for f, src := range files {
			write(filepath.Join(c.file, f), src)
		}
		times[c.file] = c.ts
		fmt.Fprintf(&imports, "\t%q\n", "stepgen/"+c.file)
		fmt.Fprintf(&models, "%q: %s.New(), ", c.file, c.file)
	}
	src := strings.NewReplacer("{{IMPORTS}}", imports.String(), "{{MODELS}}", models.String(),
		"{{TIMES}}", fmt.Sprintf("%#v", times)[len("map[string][]float64"):]).Replace(stepDriver)
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
	var res map[string]struct {
		X, S  map[string][]float64
		Names []string
		Err   string
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, c := range stepCases {
		r := res[c.file]
		if r.Err != "" {
			t.Errorf("%s: %s", c.file, r.Err)
			continue
		}
		nx, np := len(r.Names), 2
		row := slices.Index(r.Names, "X")
		if row < 0 || nx < 2 {
			t.Fatalf("%s: states %v: want X and the steps' states", c.file, r.Names)
		}
		T, k := 1.3, 1.0
		if c.file == "ceilstate" {
			T = 0.3
		}
		const h = 1e-6
		scale := [2]float64{1e-12, 1e-12}
		want := make([][2]float64, len(c.ts))
		for i, tt := range c.ts {
			want[i] = [2]float64{
				(c.exact(tt, T+h, k) - c.exact(tt, T-h, k)) / (2 * h),
				(c.exact(tt, T, k+h) - c.exact(tt, T, k-h)) / (2 * h),
			}
			for j := range 2 {
				scale[j] = math.Max(scale[j], math.Abs(want[i][j]))
			}
		}
		for _, meth := range []string{"FS", "PBSR"} {
			worstX, worst := 0.0, 0.0
			for i, tt := range c.ts {
				worstX = math.Max(worstX, math.Abs(r.X[meth][i*nx+row]-c.exact(tt, T, k)))
				for j := range 2 {
					worst = math.Max(worst, math.Abs(r.S[meth][(i*nx+row)*np+j]-want[i][j])/scale[j])
				}
			}
			t.Logf("%s generated %s: X %.2g off, S %.2g off the closed form", c.file, meth, worstX, worst)
			if !(worstX <= 1e-8) || !(worst <= 1e-7) {
				t.Errorf("%s generated %s: X %.2g off, S %.2g of its column off the closed form", c.file, meth, worstX, worst)
			}
		}
	}
}

// TestStepSlidingMode: dX/dt = k - 2 floor(X) drives X back over 1 as
// soon as it crosses it (a sliding mode at X = 1): the floor's events
// alternate about 1e12 times per unit of time as time creeps on by about
// a tolerance each. Solve and SolveSens refuse it with ErrTooManyEvents
// after 10000 such executions, within a second, instead of running for
// hours (the integrator alone failed there too, with "corrector failed
// repeatedly").
func TestStepSlidingMode(t *testing.T) {
	m, p, x0 := interpModel(t, "testdata/steps/zeno.xml")
	ts := []float64{0, 3}
	if _, err := events.Solve(m, p, x0, ts, nil); !errors.Is(err, events.ErrTooManyEvents) {
		t.Errorf("Solve: %v, want ErrTooManyEvents", err)
	}
	for _, meth := range []sens.Method{sens.FS, sens.PBSR} {
		_, err := events.SolveSens(m, p, nil, nil, ts, &events.SensSettings{Sens: &sens.Options{Method: meth}})
		if !errors.Is(err, events.ErrTooManyEvents) {
			t.Errorf("SolveSens %v: %v, want ErrTooManyEvents", meth, err)
		}
	}
}
