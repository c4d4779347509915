package testsuite

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/dde"
	"github.com/pbgen/pbgen/runtime/ode"
)

// ddeHistCase is a model of testdata/delayhist, X' = k d(t) with d a
// function of time alone, so that f(t) is piecewise constant: its value
// at 0+ and its jumps, each at a time s with ds/dp and f- - f+, in p's
// order (the model's parameters).
type ddeHistCase struct {
	file  string
	ts    []float64
	f0    func(p []float64) float64
	jumps func(p []float64) (s []float64, ds [][]float64, df []float64)
}

// floorJumps are the jumps of f = k floor((t - D + c)/T), p = (k, T, D):
// at s_n = n T + D - c, up by k, moving by (0, n, 1).
func floorJumps(c float64) func(p []float64) ([]float64, [][]float64, []float64) {
	return func(p []float64) (s []float64, ds [][]float64, df []float64) {
		k, T, D := p[0], p[1], p[2]
		for n := -20; n <= 20; n++ {
			if sn := float64(n)*T + D - c; sn > 0 {
				s, ds, df = append(s, sn), append(ds, []float64{0, float64(n), 1}), append(df, -k)
			}
		}
		return
	}
}

var ddeHistCases = []ddeHistCase{
	{"floorshift.xml", []float64{0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5},
		func(p []float64) float64 { return p[0] * math.Floor((0.6-p[2])/p[1]) }, floorJumps(0.6)},
	{"floorzero.xml", []float64{0, 0.5, 1, 1.5, 2.5, 3.5},
		func(p []float64) float64 { return p[0] * math.Floor(-p[2]/p[1]) }, floorJumps(0)},
	// p = (k, T, u, D): f = k u [t >= T + D].
	{"relhist.xml", []float64{0, 0.25, 1, 1.5}, func(p []float64) float64 { return 0 },
		func(p []float64) ([]float64, [][]float64, []float64) {
			return []float64{p[1] + p[3]}, [][]float64{{0, 1, 0, 1}}, []float64{-p[0] * p[2]}
		}},
	{"relafter.xml", []float64{0, 1, 2, 2.5}, func(p []float64) float64 { return 0 },
		func(p []float64) ([]float64, [][]float64, []float64) {
			return []float64{p[1] + p[3]}, [][]float64{{0, 1, 0, 1}}, []float64{-p[0] * p[2]}
		}},
}

// exact returns X(t) = int_0^t f, X(0) = 0: f0 t plus, for each jump at
// s < t, -(f- - f+)(t - s). (S would be sum over those of (f- - f+) ds/dp
// in T and D: at t = 1 on floorshift.xml, S_T = 1 and S_D = -1, where
// SolveSens gave 0 before it refused these models.)
func (c ddeHistCase) exact(t float64, p []float64) float64 {
	v := c.f0(p) * t
	s, _, df := c.jumps(p)
	for i := range s {
		if s[i] < t {
			v -= df[i] * (t - s[i])
		}
	}
	return v
}

// TestDelayHistoryJumps: delayed values whose history before the start
// (floor of time, a relation on time) or whose expression (a relation on
// time) jumps at times that move with the parameters, or reach f a
// delay later that does, testdata/delayhist. dde.Solve's X must match
// the closed form within 100 rtol through the jumps (it does not stop at
// them: it steps over a kink of X); dde.SolveSens must refuse by name
// (ErrSens naming the model and the delay): it does not locate those
// jumps, and S missed (f- - f+) dt/dp at each (S_D was 0 at t = 1 on
// floorshift.xml, not -1).
func TestDelayHistoryJumps(t *testing.T) {
	const rtol = 1e-10
	for _, c := range ddeHistCases {
		m, p, x0 := interpModel(t, filepath.Join("..", "testdata", "delayhist", c.file))
		ix := slices.Index(m.StateNames(), "X")
		for _, meth := range []ode.Method{ode.BDF, ode.DOPRI5} {
			set := &dde.Settings{ODE: &ode.Settings{Method: meth, RTol: rtol, ATol: 1e-12}}
			r, err := dde.Solve(m, p, x0, c.ts, set)
			if err != nil {
				t.Fatalf("%s %v: %v", c.file, meth, err)
			}
			xerr := 0.0
			for i, ti := range c.ts {
				xerr = math.Max(xerr, math.Abs(r.XAt(i)[ix]-c.exact(ti, p)))
			}
			t.Logf("%s %v: Solve's X within %.2g of the closed form", c.file, meth, xerr)
			if xerr > 100*rtol {
				t.Errorf("%s %v: Solve's X off by %.3g, want <= %g", c.file, meth, xerr, 100*rtol)
			}
			_, err = dde.SolveSens(m, p, x0, nil, c.ts, set)
			if !errors.Is(err, dde.ErrSens) || !strings.Contains(err.Error(), strings.TrimSuffix(c.file, ".xml")) || !strings.Contains(err.Error(), "delay(") {
				t.Errorf("%s %v: SolveSens: %v, want ErrSens naming the model and the delay", c.file, meth, err)
			} else {
				t.Logf("%s %v: refused: %v", c.file, meth, err)
			}
		}
	}
}

// TestDelayHistoryJumpsGenerated: generated packages of the same models
// carry the jumps in their DelayInfo (codegen), so dde.SolveSens refuses
// them by name too. The floor models only: the driver (ddeEvDriver)
// takes models with events, which the floors' lowering gives them.
func TestDelayHistoryJumpsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a temporary module")
	}
	var files []string
	var ts [][]float64
	cases := ddeHistCases[:2]
	for _, c := range cases {
		files, ts = append(files, c.file), append(ts, c.ts)
	}
	res, _, _ := runDelayGenerated(t, "delayhist", files, ts)
	for _, c := range cases {
		name := strings.TrimSuffix(c.file, ".xml")
		r := res[name]
		if !strings.Contains(r.Err, dde.ErrSens.Error()) || !strings.Contains(r.Err, `model "`+name+`"`) || !strings.Contains(r.Err, "delay(") {
			t.Errorf("%s generated: error %q, want dde.ErrSens naming the model and the delay", name, r.Err)
			continue
		}
		t.Logf("%s generated: refused: %s", name, r.Err)
	}
}
