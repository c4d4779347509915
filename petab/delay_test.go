package petab

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// Gradients and Fisher information of problems with csymbol delay
// (runtime/dde.SolveSens through the objective's theta columns).
// testdata/delay estimates k of condition c1 (k1, log10; c0 sets k to
// 0.5), the delay tau (log10), the initial value A0 of condition c0
// (c1 keeps the model's), and the observable's scale and sd: a condition
// override, a parameter in the delay's length (dtau/dp, and the breaking
// point t0 + tau moving with it) and an initial value through a
// condition (dx0/dp) reach S, the scale and sd reach the observable
// directly.

func loadDelay(t *testing.T) *Problem {
	t.Helper()
	p, err := Load("testdata/delay/problem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The gradient check of the benchmark collection (checkGradients: every
// method at its defaults, and FS at rtol 1e-10, against central finite
// differences of the llh at rtol 1e-10) on the delay fixture. Every
// method's sensitivities of a delay problem are dde.SolveSens's.
func TestDelayGradients(t *testing.T) {
	checkGradients(t, "delay", loadDelay(t))
}

// Tighter than checkGradients' 1e-2: at rtol 1e-10 the gradient agrees
// with central differences of the llh (step 1e-4 on the log scales,
// 1e-4 relative on the linear ones, llh at rtol 1e-12) to 1e-6 of the
// gradient's largest component, and the method does not matter (the
// same solves, so bit for bit).
func TestDelayGradientTight(t *testing.T) {
	checkDelayGradientTight(t, loadDelay(t))
}

// testdata/delayevents is testdata/delay with an event at an estimated
// time tev whose assignment, A := A + b delay(A, tau), reads a delayed
// value (b estimated too): S jumps at tev and again at tev + tau, where
// the jump of A reaches A', both times moving with the thetas. Its
// gradient and FIM pass the same checks as the fixture's without the
// event.
func TestDelayEventsGradients(t *testing.T) {
	p, err := Load("testdata/delayevents/problem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checkGradients(t, "delayevents", p)
	checkDelayGradientTight(t, p)
	checkDelayFIM(t, p)
}

// testdata/delayswitch is testdata/delay with an inflow u switched on
// while A is below c (u and c estimated): a switch of the rate whose
// time depends on the state, which runtime/dde locates (model.Switches
// through the objective's theta model) and at which S jumps by (f- - f+)
// dtau/dtheta. Its gradient and FIM pass the same checks.
func TestDelaySwitchGradients(t *testing.T) {
	p, err := Load("testdata/delayswitch/problem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checkGradients(t, "delayswitch", p)
	checkDelayGradientTight(t, p)
	checkDelayFIM(t, p)
}

func checkDelayGradientTight(t *testing.T, p *Problem) {
	t.Helper()
	ref, err := objective.New(p.Model, p.Objective, &objective.Options{Method: sens.FS, RTol: 1e-12, ATol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	theta := gradPoint(ref)
	var r objective.Result
	llh := func(th []float64) float64 {
		if err := ref.Eval(th, &r); err != nil {
			t.Fatal(err)
		}
		return r.LLH
	}
	fd := make([]float64, len(theta))
	for a := range theta {
		h := 1e-4
		if ref.Scales()[a] == objective.Lin {
			h *= math.Abs(theta[a])
		}
		th := append([]float64(nil), theta...)
		th[a] = theta[a] + h
		up := llh(th)
		th[a] = theta[a] - h
		fd[a] = (up - llh(th)) / (2 * h)
	}
	var first []float64
	for _, m := range []sens.Method{sens.FS, sens.PBSR, sens.Exp, sens.PBS} {
		o, err := objective.New(p.Model, p.Objective, &objective.Options{Method: m, RTol: 1e-10, ATol: 1e-12, Grad: true})
		if err != nil {
			t.Fatal(err)
		}
		var g objective.Result
		if err := o.Eval(theta, &g); err != nil {
			t.Fatal(err)
		}
		o.Close()
		if first == nil {
			first = g.Grad
			scale := 0.0
			for _, v := range fd {
				scale = math.Max(scale, math.Abs(v))
			}
			worst := 0.0
			for a := range fd {
				e := math.Abs(g.Grad[a]-fd[a]) / scale
				worst = math.Max(worst, e)
				if e > 1e-6 {
					t.Errorf("grad[%s] %.12g, finite differences %.12g", ref.Params()[a], g.Grad[a], fd[a])
				}
			}
			t.Logf("worst gradient error %.2e of max |grad| %.4g", worst, scale)
			continue
		}
		for a := range first {
			if g.Grad[a] != first[a] {
				t.Errorf("%v: grad[%d] %.17g, FS's %.17g (the same dde.SolveSens)", m, a, g.Grad[a], first[a])
			}
		}
	}
}

// The FIM is the Gauss-Newton product of the residuals' sensitivities
// taken independently: five-point differences of the simulated values
// and sigmas at rtol 1e-12 (as runtime/objective's TestFIMGaussNewton).
func TestDelayFIMGaussNewton(t *testing.T) {
	checkDelayFIM(t, loadDelay(t))
}

func checkDelayFIM(t *testing.T, p *Problem) {
	t.Helper()
	prob := p.Objective
	ref, err := objective.New(p.Model, prob, &objective.Options{Method: sens.FS, RTol: 1e-12, ATol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	theta := gradPoint(ref)
	nt, nd := len(theta), ref.NumData()
	var r objective.Result
	at := func(th []float64) (sim, sg []float64) {
		if err := ref.Eval(th, &r); err != nil {
			t.Fatal(err)
		}
		return append([]float64(nil), r.Sim...), append([]float64(nil), r.Sigma...)
	}
	_, base := at(theta)
	jh := make([]float64, nd*nt)
	js := make([]float64, nd*nt)
	for a := range theta {
		h := 1e-3
		if ref.Scales()[a] == objective.Lin {
			h *= math.Abs(theta[a])
		}
		th := append([]float64(nil), theta...)
		var zs, ss [4][]float64
		for q, f := range []float64{1, -1, 2, -2} {
			th[a] = theta[a] + f*h
			zs[q], ss[q] = at(th)
		}
		for i := 0; i < nd; i++ {
			jh[i*nt+a] = (8*(zs[0][i]-zs[1][i]) - (zs[2][i] - zs[3][i])) / (12 * h)
			js[i*nt+a] = (8*(ss[0][i]-ss[1][i]) - (ss[2][i] - ss[3][i])) / (12 * h)
		}
	}
	// The fixture's observable is linear and normal: z(h) = h, weight 2
	// for sigma.
	for _, ob := range prob.Observables {
		if ob.Transform != objective.TransformLin || ob.Noise != objective.Normal {
			t.Fatal("the fixture's observables changed: extend the product")
		}
	}
	want := make([]float64, nt*nt)
	for i := 0; i < nd; i++ {
		s2 := base[i] * base[i]
		for a := 0; a < nt; a++ {
			for b := 0; b < nt; b++ {
				want[a*nt+b] += (jh[i*nt+a]*jh[i*nt+b] + 2*js[i*nt+a]*js[i*nt+b]) / s2
			}
		}
	}
	scale := 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	o, err := objective.New(p.Model, prob, &objective.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, FIM: true})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	var g objective.Result
	if err := o.Eval(theta, &g); err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range want {
		e := math.Abs(g.FIM[i]-want[i]) / scale
		worst = math.Max(worst, e)
		if e > 1e-6 {
			t.Errorf("FIM[%s,%s] %.10g, Gauss-Newton from differences %.10g", o.Params()[i/nt], o.Params()[i%nt], g.FIM[i], want[i])
		}
		if g.FIM[i] != g.FIM[(i%nt)*nt+i/nt] {
			t.Errorf("FIM not symmetric at %d,%d", i/nt, i%nt)
		}
	}
	// Every estimated parameter reaches the data here: a zero row would
	// mean a column lost on the way (k1 reaches c1's data, A0 c0's).
	for a := 0; a < nt; a++ {
		if !(g.FIM[a*nt+a] > 0) {
			t.Errorf("FIM[%s,%s] = %g", o.Params()[a], o.Params()[a], g.FIM[a*nt+a])
		}
	}
	t.Logf("worst FIM error %.2e relative to max |FIM| %.4g", worst, scale)
	// Two workers (a thetaDelays each) give the same bits.
	o2, err := objective.New(p.Model, prob, &objective.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, FIM: true, Grad: true, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer o2.Close()
	var g2 objective.Result
	if err := o2.Eval(theta, &g2); err != nil {
		t.Fatal(err)
	}
	if g2.LLH != g.LLH || !slices.Equal(g2.FIM, g.FIM) {
		t.Errorf("two workers: llh %.17g, FIM %v; one: %.17g, %v", g2.LLH, g2.FIM, g.LLH, g.FIM)
	}
}

// noDelaySens hides a model's model.DelaySens: its states are solved,
// its sensitivities through the delays are not there.
type noDelaySens struct {
	model.Model
	model.Observables
	model.Delays
}

// What runtime/dde cannot differentiate is refused by New with
// objective.ErrDelaySens, naming the delays and why: a model without
// model.DelaySens, a delay whose length depends on the state, a model
// with an algebraic rule too, a model with events whose derivatives in
// the delayed values are hidden. The log-likelihood of each is still
// evaluated, and so is the gradient of a problem whose estimated parameters are no
// model parameters (observable and noise placeholders), which needs no
// S: without model.DelaySens it equals the full model's.
func TestDelaySensRefused(t *testing.T) {
	// load reads testdata/delay with the model edited by f, and with
	// k1, tau and A0 fixed and scale and sd placeholders when obsOnly.
	load := func(t *testing.T, f func(string) string, obsOnly bool) *Problem {
		dir := t.TempDir()
		copyDir(t, "testdata/delay", dir)
		edit := func(name string, f func(string) string) {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(f(string(b))), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		edit("model.xml", f)
		if obsOnly {
			edit("parameters.tsv", func(s string) string {
				for _, id := range []string{"k1", "tau", "A0"} {
					i := strings.Index(s, "\n"+id+"\t")
					j := i + 1 + strings.Index(s[i+1:], "\n")
					s = s[:j-1] + "0" + s[j:]
				}
				return s
			})
			edit("observables.tsv", func(s string) string {
				return strings.Replace(s, "scale*A\tsd", "observableParameter1_obs_A*A\tnoiseParameter1_obs_A", 1)
			})
			edit("measurements.tsv", func(s string) string {
				rows := strings.Split(strings.TrimSpace(s), "\n")
				rows[0] += "\tobservableParameters\tnoiseParameters"
				for i := range rows[1:] {
					rows[i+1] += "\tscale\tsd"
				}
				return strings.Join(rows, "\n") + "\n"
			})
		}
		q, err := Load(filepath.Join(dir, "problem.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	same := func(s string) string { return s }
	const delayTau = `<ci>A</ci><ci>tau</ci></apply></apply>`
	stateDep := func(s string) string {
		// tau + A/100: the length depends on the state.
		return strings.Replace(s, delayTau, `<ci>A</ci><apply><plus/><ci>tau</ci><apply><times/><cn>0.01</cn><ci>A</ci></apply></apply></apply></apply>`, 1)
	}
	algebraic := func(s string) string {
		// 0 = B - 2 A: an algebraic variable beside the delay.
		return strings.Replace(s, "</listOfParameters>", `<parameter id="B" value="1" constant="false"/></listOfParameters><listOfRules><algebraicRule><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><minus/><ci>B</ci><apply><times/><cn>2</cn><ci>A</ci></apply></apply></math></algebraicRule></listOfRules>`, 1)
	}
	histJump := func(s string) string {
		// delay(piecewise(A, t >= -k, 0), tau): the history jumps at -k.
		return strings.Replace(s, delayTau, `<piecewise><piece><ci>A</ci><apply><geq/><csymbol definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol><apply><minus/><ci>k</ci></apply></apply></piece><otherwise><cn>0</cn></otherwise></piecewise><ci>tau</ci></apply></apply>`, 1)
	}
	argJump := func(s string) string {
		// delay(piecewise(A, A > 0.5, 0), tau): a relation on the state.
		return strings.Replace(s, delayTau, `<piecewise><piece><ci>A</ci><apply><gt/><ci>A</ci><cn>0.5</cn></apply></piece><otherwise><cn>0</cn></otherwise></piecewise><ci>tau</ci></apply></apply>`, 1)
	}
	for _, c := range []struct {
		what string
		edit func(string) string
		hide bool // hide model.DelaySens
		why  string
	}{
		{"no DelaySens", same, true, "the model does not give the derivatives through its delays (model.DelaySens)"},
		{"state-dependent delay", stateDep, false, "the length of delay(A, 0.01*A + tau) depends on the state or time"},
		{"algebraic rule", algebraic, false, "its algebraic rules or fast reactions are eliminated by runtime/dae, which does not carry the derivatives through the delays"},
		{"history jump", histJump, false, "before the start is discontinuous in time at times that depend on the parameters"},
		{"relation in the delayed expression", argJump, false, "holds a relation, not a switch of f, whose times depend on the parameters or the state"},
	} {
		t.Run(c.what, func(t *testing.T) {
			m := func(q *Problem) model.Model {
				if c.hide {
					return noDelaySens{q.Model, q.Model, q.Model}
				}
				return q.Model
			}
			q := load(t, c.edit, false)
			for _, opt := range []objective.Options{{Grad: true}, {FIM: true}} {
				_, err := objective.New(m(q), q.Objective, &opt)
				if !errors.Is(err, objective.ErrDelaySens) || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), "csymbol delay: delay(") {
					t.Errorf("grad %v, FIM %v: err = %v, want objective.ErrDelaySens naming the delay and %q", opt.Grad, opt.FIM, err, c.why)
				}
			}
			o, err := objective.New(m(q), q.Objective, &objective.Options{RTol: 1e-10, ATol: 1e-12})
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			var r objective.Result
			if err := o.Eval(o.Nominal(), &r); err != nil || math.IsNaN(r.LLH) {
				t.Fatalf("llh %g: %v", r.LLH, err)
			}
			grad := func(m model.Model, q *Problem) []float64 {
				o, err := objective.New(m, q.Objective, &objective.Options{RTol: 1e-10, ATol: 1e-12, Grad: true, FIM: true})
				if err != nil {
					t.Fatal(err)
				}
				defer o.Close()
				var r objective.Result
				if err := o.Eval(o.Nominal(), &r); err != nil {
					t.Fatal(err)
				}
				return r.Grad
			}
			q = load(t, c.edit, true)
			g := grad(m(q), q)
			if len(g) != 2 || math.IsNaN(g[0]) || math.IsNaN(g[1]) || g[0] == 0 {
				t.Fatalf("gradient in scale and sd: %v", g)
			}
			if c.hide {
				w := grad(q.Model, q)
				for i := range w {
					if math.Abs(g[i]-w[i]) > 1e-12*(1+math.Abs(w[i])) {
						t.Errorf("grad[%d] %.15g without DelaySens, %.15g with", i, g[i], w[i])
					}
				}
			}
		})
	}
}

// An Eval of a delay problem allocates in runtime/dde (see
// runtime/objective's delay.go): the counts are logged, and they must not
// grow from one evaluation to the next (nothing accumulates across
// Evals). The slack is for sync.Pool (interp's scratch), which a garbage
// collection empties: the dde solves' garbage triggers some in the runs.
func TestDelayEvalAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under -race")
	}
	p := loadDelay(t)
	for _, c := range []struct {
		what string
		opt  objective.Options
	}{
		{"llh", objective.Options{}},
		{"llh+grad+FIM", objective.Options{Grad: true, FIM: true}},
	} {
		o, err := objective.New(p.Model, p.Objective, &c.opt)
		if err != nil {
			t.Fatal(err)
		}
		th := o.Nominal()
		var r objective.Result
		if err := o.Eval(th, &r); err != nil {
			t.Fatal(err)
		}
		a1 := testing.AllocsPerRun(10, func() { o.Eval(th, &r) })
		a2 := testing.AllocsPerRun(100, func() { o.Eval(th, &r) })
		t.Logf("%s: %.0f allocations per Eval (%d experiments)", c.what, a2, len(p.Objective.Experiments))
		if a2 > 1.05*a1+5 {
			t.Errorf("%s: allocations grow: %v per Eval over 10 runs, %v over 100", c.what, a1, a2)
		}
		o.Close()
	}
}

// BenchmarkDelayEval times an Eval of testdata/delay at its nominal
// point (default tolerances): the llh alone (dde.Solve) against the llh,
// gradient and FIM (dde.SolveSens with the three columns k1, tau, A0 of
// condition c0's and c1's thetas), in CPU time, with the allocations
// runtime/dde makes.
func BenchmarkDelayEval(b *testing.B) {
	p, err := Load("testdata/delay/problem.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opt  objective.Options
	}{
		{"llh", objective.Options{}},
		{"grad+FIM", objective.Options{Grad: true, FIM: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			o, err := objective.New(p.Model, p.Objective, &c.opt)
			if err != nil {
				b.Fatal(err)
			}
			defer o.Close()
			th := o.Nominal()
			var r objective.Result
			if err := o.Eval(th, &r); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime()
			for range b.N {
				o.Eval(th, &r)
			}
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}
