package petab

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/sens"
)

// csVals are the values testdata/condspecies' experiments see: the
// condition targets M, B, C, D, cell, the rate constants, and the changes
// of B at later times (v2 periods).
type csVals struct {
	M, B, C, D, cell, k, kb float64
	a0                      float64   // [A](t0); 0 means the declared 1/cell
	bAt                     []float64 // times at which B becomes bTo
	bTo                     []float64
}

// a is testdata/condspecies' closed form of [A](t) (see model.xml): on
// each piece between the event at 3M and the changes of B,
// [A] = beta/lambda + ([A](t0) - beta/lambda) exp(-lambda (t - t0)).
func (v csVals) a(t float64) float64 {
	type brk struct {
		at    float64
		event bool
		b     float64
	}
	brks := []brk{{at: 3 * v.M, event: true}}
	for i, at := range v.bAt {
		brks = append(brks, brk{at: at, b: v.bTo[i]})
	}
	sort.SliceStable(brks, func(i, j int) bool { return brks[i].at < brks[j].at })
	x, t0, b := v.a0, 0.0, v.B
	if x == 0 {
		x = 1 / v.cell
	}
	lam := v.k * v.M * v.C
	step := func(t1 float64) {
		eq := v.kb * b * v.D / lam
		x = eq + (x-eq)*math.Exp(-lam*(t1-t0))
		t0 = t1
	}
	for _, k := range brks {
		if k.at > t {
			break
		}
		step(k.at)
		if k.event {
			x += b
		} else {
			b = k.b
		}
	}
	step(t)
	return x
}

// obs is observable id of testdata/condspecies at time t.
func (v csVals) obs(id string, t float64) float64 {
	switch id {
	case "obsA":
		return v.a(t)
	case "obsAmt":
		return v.a(t) * v.cell
	case "obsMD":
		return v.M*v.D + v.C
	}
	panic(id)
}

// csCondition gives the values of testdata/condspecies' condition c at
// the estimated parameters th (by id, linear scale); bAmount is the
// variant where B is declared by amount 1 instead of concentration 0.5.
func csCondition(c string, th map[string]float64, bAmount bool) csVals {
	v := csVals{M: 1, B: 0.5, C: 2, D: 2 * th["kd"], cell: 2, k: th["k"], kb: 0.4}
	switch c {
	case "c1":
		v.M, v.B, v.C, v.cell = th["M_ext"], 0.8, 3, 4
	case "c2":
		v.M, v.B, v.D, v.cell = 1.5, th["B_ext"], 1.2, th["cell_ext"]
	case "c3":
		v.cell = 2.5
		if bAmount {
			v.B = 1 / v.cell // declared by amount: the concentration follows the size
		}
	}
	return v
}

// csLLH is the normal log-likelihood (sigma 0.1) of p's measurements
// under the closed form, with vals giving each measurement's values.
func csLLH(p *Problem, vals func(m *Measurement) csVals) (llh float64, sim []float64) {
	const sigma = 0.1
	for i := range p.Measurements {
		m := &p.Measurements[i]
		h := vals(m).obs(m.ObservableID, m.Time)
		sim = append(sim, h)
		r := (m.Value - h) / sigma
		llh -= 0.5*math.Log(2*math.Pi*sigma*sigma) + 0.5*r*r
	}
	return llh, sim
}

// csVariant copies testdata/condspecies into a temporary folder with the
// replacements (old, new pairs) made in model.xml, and loads it.
func csVariant(t *testing.T, repl ...string) *Problem {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, "testdata/condspecies", dir)
	path := filepath.Join(dir, "model.xml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for i := 0; i < len(repl); i += 2 {
		if !strings.Contains(s, repl[i]) {
			t.Fatalf("model.xml has no %q", repl[i])
		}
		s = strings.Replace(s, repl[i], repl[i+1], 1)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(filepath.Join(dir, "problem.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFoldedConditionTargets: conditions that set a species only a
// reaction's modifier (M), a boundary species (B), a constant species
// (C), a species with an initial assignment (D: the condition wins), and
// a compartment declared constant="false" that nothing changes (cell:
// [A] starts at 1/cell, and a species declared by amount follows it),
// values that reach a rate through an assignment rule (y = M C), an
// event's trigger (time >= 3 M), observables (M D + C) and the amount
// A*cell. The simulated values and the llh agree with the closed form
// (rtol 1e-10 FS), and the gradient, whose components M_ext, B_ext and
// cell_ext enter only as condition values (M_ext also through the event
// time), agrees with central differences of the closed-form llh, for FS
// at tight and default tolerances, PBSR and Exp. The variants, cell
// declared constant (the compartment becomes a plain model parameter) and
// B declared by amount, give the same problem.
func TestFoldedConditionTargets(t *testing.T) {
	base, err := Load("testdata/condspecies/problem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	variants := []struct {
		name    string
		p       *Problem
		bAmount bool
	}{
		{"base", base, false},
		{"constant cell", csVariant(t, `size="2" spatialDimensions="3" constant="false"`, `size="2" spatialDimensions="3" constant="true"`), false},
		{"B by amount", csVariant(t, `id="B" compartment="cell" initialConcentration="0.5"`, `id="B" compartment="cell" initialAmount="1"`), true},
	}
	for _, vr := range variants {
		t.Run(vr.name, func(t *testing.T) {
			p := vr.p
			ids := p.EstimatedIDs()
			th, err := p.Theta(map[string]float64{"k": 0.35, "kd": 0.3, "M_ext": 1.1, "B_ext": 0.7, "cell_ext": 1.6})
			if err != nil {
				t.Fatal(err)
			}
			closed := func(th []float64) (float64, []float64) {
				byID := make(map[string]float64)
				for a, id := range ids {
					byID[id] = th[a]
				}
				return csLLH(p, func(m *Measurement) csVals { return csCondition(m.Sim, byID, vr.bAmount) })
			}
			want, wantSim := closed(th)
			r, err := p.Evaluate(th, &EvalOptions{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, Grad: true})
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range p.Measurements {
				if d := math.Abs(r.Sim[i] - wantSim[i]); d > 1e-7*math.Max(1, math.Abs(wantSim[i])) {
					t.Errorf("%s:%d: simulated %.10g, closed form %.10g", m.File, m.Line, r.Sim[i], wantSim[i])
				}
			}
			if math.Abs(r.LLH-want) > 1e-7*math.Abs(want) {
				t.Errorf("llh %.12g, closed form %.12g", r.LLH, want)
			}
			fd := make([]float64, len(th))
			for a := range th {
				h := 1e-6 * math.Max(1, math.Abs(th[a]))
				up := append([]float64(nil), th...)
				dn := append([]float64(nil), th...)
				up[a] += h
				dn[a] -= h
				lu, _ := closed(up)
				ld, _ := closed(dn)
				fd[a] = (lu - ld) / (2 * h)
			}
			check := func(what string, g []float64, rtol float64) {
				for a := range fd {
					if math.Abs(g[a]-fd[a]) > rtol*(1+math.Abs(fd[a])) {
						t.Errorf("%s: dllh/d%s = %.8g, closed-form differences %.8g", what, ids[a], g[a], fd[a])
					}
				}
			}
			check("FS rtol 1e-10", r.Grad, 1e-5)
			for _, m := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
				r, err := p.Evaluate(th, &EvalOptions{Method: m, Grad: true})
				if err != nil {
					t.Fatalf("%v: %v", m, err)
				}
				check(m.String(), r.Grad, gradRTol)
			}
		})
	}
}
