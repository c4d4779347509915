package parser

import (
	"bufio"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/symbolic"
)

// compiled evaluates the rates, initial values and outputs of an ODE with
// symbolic's compiled evaluator (tested on its own in symbolic), so that
// this test checks the lowering, not the evaluation.
type compiled struct {
	ode     *symbolic.ODE
	c       *symbolic.Compiled
	scratch []float64
	vals    []float64
	p       []float64
}

func compile(ode *symbolic.ODE) *compiled {
	var roots []*symbolic.Node
	for _, s := range ode.States {
		roots = append(roots, s.Rate)
	}
	for _, s := range ode.States {
		roots = append(roots, s.Init)
	}
	for _, o := range ode.Outputs {
		roots = append(roots, o.Expr)
	}
	c, err := symbolic.Compile(roots, ode.StateNames(), ode.ParamNames())
	if err != nil {
		panic(err)
	}
	cc := &compiled{ode: ode, c: c, scratch: make([]float64, c.ScratchLen()), vals: make([]float64, c.NumRoots())}
	for _, p := range ode.Params {
		cc.p = append(cc.p, p.Value)
	}
	return cc
}

// run evaluates all roots at (t, x): rates, then initial values, then outputs.
func (c *compiled) run(t float64, x []float64) { c.c.EvalTo(c.vals, c.scratch, t, x, c.p) }

func (c *compiled) rhs(dst []float64, t float64, x []float64) {
	c.run(t, x)
	copy(dst, c.vals[:len(c.ode.States)])
}

func (c *compiled) init() []float64 {
	nx := len(c.ode.States)
	x := make([]float64, nx)
	for i := range x {
		x[i] = math.NaN() // initial values must not depend on states
	}
	c.run(0, x)
	copy(x, c.vals[nx:2*nx])
	return x
}

// dopri integrates from t0 to t1 with the Dormand-Prince 5(4) pair;
// false when it needs more than maxSteps steps (a stiff case).
func dopri(f func(dst []float64, t float64, x []float64), x []float64, t0, t1 float64, maxSteps int) bool {
	n := len(x)
	if n == 0 || t1 <= t0 {
		return true
	}
	a := [7][6]float64{{}, {1.0 / 5}, {3.0 / 40, 9.0 / 40}, {44.0 / 45, -56.0 / 15, 32.0 / 9},
		{19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
		{9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
		{35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}}
	cc := [7]float64{0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1}
	e := [7]float64{71.0 / 57600, 0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40}
	k := make([][]float64, 7)
	for i := range k {
		k[i] = make([]float64, n)
	}
	y, tmp := make([]float64, n), make([]float64, n)
	const rtol, atol = 1e-9, 1e-12
	t, h := t0, (t1-t0)/100
	for step := 0; t < t1; step++ {
		if step > maxSteps {
			return false
		}
		if t+h > t1 {
			h = t1 - t
		}
		f(k[0], t, x)
		for s := 1; s < 7; s++ {
			for i := range tmp {
				v := x[i]
				for j := 0; j < s; j++ {
					v += h * a[s][j] * k[j][i]
				}
				tmp[i] = v
			}
			f(k[s], t+cc[s]*h, tmp)
		}
		copy(y, tmp) // stage 7 point is the 5th-order solution (FSAL)
		errn := 0.0
		for i := range y {
			ei := 0.0
			for s := 0; s < 7; s++ {
				ei += h * e[s] * k[s][i]
			}
			sc := atol + rtol*math.Max(math.Abs(x[i]), math.Abs(y[i]))
			errn = math.Max(errn, math.Abs(ei)/sc)
		}
		if math.IsNaN(errn) {
			errn = 1e10
		}
		if errn <= 1 {
			t += h
			copy(x, y)
		}
		fac := 0.9 * math.Pow(math.Max(errn, 1e-10), -0.2)
		h *= math.Min(5, math.Max(0.2, fac))
		if h < 1e-14*(1+math.Abs(t)) {
			return false
		}
	}
	return true
}

type settings struct {
	start, duration float64
	steps           int
	vars            []string
	abs, rel        float64
	amount, conc    map[string]bool
}

func readSettings(t *testing.T, path string) settings {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := settings{amount: map[string]bool{}, conc: map[string]bool{}}
	list := func(v string) []string {
		var out []string
		for _, x := range strings.Split(v, ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, x)
			}
		}
		return out
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "start":
			s.start, _ = strconv.ParseFloat(v, 64)
		case "duration":
			s.duration, _ = strconv.ParseFloat(v, 64)
		case "steps":
			s.steps, _ = strconv.Atoi(v)
		case "variables":
			s.vars = list(v)
		case "absolute":
			s.abs, _ = strconv.ParseFloat(v, 64)
		case "relative":
			s.rel, _ = strconv.ParseFloat(v, 64)
		case "amount":
			for _, x := range list(v) {
				s.amount[x] = true
			}
		case "concentration":
			for _, x := range list(v) {
				s.conc[x] = true
			}
		}
	}
	return s
}

// TestSuiteNumeric integrates every core case of the SBML Test Suite with
// a Dormand-Prince integrator at tight tolerances, evaluating the lowered
// ODE, and compares the reported variables with the suite's reference
// results (its own absolute and relative tolerances). This checks the
// SBML semantics of the lowering (units, rules, conversion factors),
// not just that it runs. Stiff cases the explicit integrator cannot do in
// its step budget are skipped and counted.
func TestSuiteNumeric(t *testing.T) {
	cases := readSuite(t)
	maxSteps := 20000
	if testing.Short() {
		maxSteps = 2000
	}
	total, pass, stiff := 0, 0, 0
	type run struct {
		file string
		opt  *Options
	}
	for _, c := range cases {
		if !c.core {
			continue
		}
		runs := []run{{c.files[0], nil}, {c.files[0], &Options{SensCompartments: true, SensInitials: true}}}
		for _, f := range c.files[1:] {
			runs = append(runs, run{f, nil})
		}
		for _, r := range runs {
			total++
			switch ok, stiffCase := checkCase(t, c, r.file, r.opt, maxSteps); {
			case stiffCase:
				stiff++
			case ok:
				pass++
			}
		}
	}
	t.Logf("core case runs (highest level, with sensitivity options, other levels) matching the reference results: %d of %d (%d skipped as stiff for the explicit test integrator)", pass, total, stiff)
}

// checkCase integrates one case file and compares with the reference.
func checkCase(t *testing.T, c suiteCase, file string, opt *Options, maxSteps int) (ok, stiff bool) {
	m, err := ReadFile(file)
	if err != nil {
		t.Errorf("%s: %v", c.id, err)
		return false, false
	}
	ode, err := m.ODE(opt)
	if err != nil {
		t.Errorf("%s: %v", c.id, err)
		return false, false
	}
	st := readSettings(t, filepath.Join(c.dir, c.id+"-settings.txt"))
	rf, err := os.Open(filepath.Join(c.dir, c.id+"-results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(rf).ReadAll()
	rf.Close()
	if err != nil {
		t.Fatalf("%s: %v", c.id, err)
	}
	out := make(map[string]int)
	for i, o := range ode.Outputs {
		out[o.Name] = i
	}
	cols := make([]int, len(rows[0]))
	for j, name := range rows[0][1:] {
		name = strings.TrimSpace(name)
		key := name
		switch {
		case st.amount[name]:
			key = "amount:" + name
		case st.conc[name]:
			key = "conc:" + name
		}
		i, ok := out[key]
		if !ok {
			i, ok = out[name] // compartments listed under "amount"
		}
		if !ok {
			t.Errorf("%s: no output %q", c.id, key)
			continue
		}
		cols[j+1] = i
	}
	cm := compile(ode)
	x := cm.init()
	tcur := 0.0
	fail := ""
	for _, row := range rows[1:] {
		tr, _ := strconv.ParseFloat(strings.TrimSpace(row[0]), 64)
		if !dopri(cm.rhs, x, tcur, tr, maxSteps) {
			return false, true
		}
		tcur = tr
		cm.run(tr, x)
		outs := cm.vals[2*len(ode.States):]
		for j := 1; j < len(row); j++ {
			want, err := strconv.ParseFloat(strings.TrimSpace(row[j]), 64)
			if err != nil {
				continue
			}
			got := outs[cols[j]]
			if math.IsNaN(want) && math.IsNaN(got) || math.IsInf(want, 0) && got == want {
				continue
			}
			if !(math.Abs(got-want) <= st.abs+st.rel*math.Abs(want)) && fail == "" {
				fail = rows[0][j] + " at t=" + row[0] + ": got " + strconv.FormatFloat(got, 'g', 10, 64) + ", want " + row[j]
			}
		}
	}
	if fail != "" {
		t.Errorf("%s (%s): %s", c.id, filepath.Base(file), fail)
		return false, false
	}
	return true, false
}
