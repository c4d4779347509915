package objective_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// switchModel is x' = s (1 + y) - k x, y' = 0, x(0) = x0, y(0) = 0
// (parameters s, k, c, a, x0) with one event: when x rises above c, y :=
// y + a (trigger x > c, true before the start, persistent). The event
// time moves with s, k, c and x0, and x's rate jumps there, so every term
// of the sensitivity jump is exercised; y counts the executions in steps
// of a, so an event that fired again where it must not would show.
// Observable "x": h = x, sigma = u0.
type switchModel struct {
	jx, jp *model.Pattern
	delay  float64 // the event's delay (none if 0)
}

func newSwitch() *switchModel {
	return &switchModel{
		jx: pattern(2, 2, []int{1, 1}, []int{0, 0}),
		jp: pattern(2, 5, []int{1, 1, 0, 0, 0}, []int{0, 0, 0, 0, 0}),
	}
}

func (*switchModel) Name() string                  { return "switch" }
func (*switchModel) StateNames() []string          { return []string{"x", "y"} }
func (*switchModel) ParamNames() []string          { return []string{"s", "k", "c", "a", "x0"} }
func (*switchModel) DefaultParams(dst []float64)   { copy(dst, []float64{2, 1, 1, 0.5, 0.5}) }
func (*switchModel) InitialState(dst, p []float64) { dst[0], dst[1] = p[4], 0 }
func (*switchModel) InitialSens(dst, _ []float64) {
	clear(dst)
	dst[0*5+4] = 1
}
func (*switchModel) F(dst []float64, _ float64, x, p []float64) {
	dst[0], dst[1] = p[0]*(1+x[1])-p[1]*x[0], 0
}
func (m *switchModel) JxPattern() *model.Pattern { return m.jx }
func (*switchModel) Jx(dst []float64, _ float64, _, p []float64) {
	dst[0], dst[1] = -p[1], p[0]
}
func (m *switchModel) JpPattern() *model.Pattern { return m.jp }
func (*switchModel) Jp(dst []float64, _ float64, x, _ []float64) {
	dst[0], dst[1] = 1+x[1], -x[0]
}

func (*switchModel) NumEvents() int { return 1 }
func (m *switchModel) EventInfo(int) model.EventInfo {
	return model.EventInfo{Name: "rise", InitialValue: true, Persistent: true, HasDelay: m.delay > 0}
}
func (*switchModel) TriggersTo(dst []bool, _ float64, x, p []float64)   { dst[0] = x[0] > p[2] }
func (*switchModel) NumRoots() int                                      { return 1 }
func (*switchModel) RootsTo(dst []float64, _ float64, x, p []float64)   { dst[0] = x[0] - p[2] }
func (m *switchModel) Delay(int, float64, []float64, []float64) float64 { return m.delay }
func (*switchModel) Priority(int, float64, []float64, []float64) float64 {
	return 0
}

var switchTargets = []int{1}

func (*switchModel) EventTargets(int) []int { return switchTargets }
func (*switchModel) EventAssign(_ int, _ float64, x, p, dst []float64) {
	dst[0] = x[1] + p[3]
}
func (*switchModel) RootGrad(_ int, _ float64, _, _, dx, dp []float64) float64 {
	dx[0], dx[1] = 1, 0
	clear(dp)
	dp[2] = -1
	return 0
}
func (*switchModel) EventDeriv(_ int, _ float64, _, _ []float64, d *model.EventDeriv) {
	clear(d.X)
	clear(d.P)
	clear(d.T)
	d.X[1*2+1] = 1 // d(y + a)/dy
	d.P[1*5+3] = 1 // d(y + a)/da
}

func (*switchModel) ObservableIDs() []string     { return []string{"x"} }
func (*switchModel) Placeholders(int) (int, int) { return 0, 1 }
func (*switchModel) Observe(_ int, _ float64, x, _, u []float64, d *model.ObsDeriv) (float64, float64) {
	if d != nil {
		clear(d.HX)
		clear(d.SX)
		clear(d.HP)
		clear(d.SP)
		d.HX[0] = 1
		d.SU[0] = 1
		d.HU[0] = 0
	}
	return x[0], u[0]
}

// switchProblem: experiment 0 rises through the event at t ~ 0.4 (data
// before and after it, and at steady state); experiment 1 pre-equilibrates
// through the event (it fires there once) and then, with a lower
// production, must not fire again (its trigger stays true).
func switchProblem() *objective.Problem {
	th := func(a int) objective.Value { return objective.Value{Theta: a} }
	k := func(v float64) objective.Value { return objective.Value{Theta: -1, Const: v} }
	par := func(id string, s objective.Scale, nominal float64) objective.Param {
		return objective.Param{ID: id, Scale: s, Lower: 1e-3, Upper: 1e3, Nominal: nominal, Estimate: true}
	}
	p := &objective.Problem{
		Params: []objective.Param{
			par("s", objective.Log, 2), par("k", objective.Log10, 1), par("c", objective.Lin, 1),
			par("a", objective.Lin, 0.5), par("x0", objective.Lin, 0.5), par("s_pre", objective.Log, 1.7),
			par("sigma", objective.Log10, 0.1),
		},
		Estimated:   []int{0, 1, 2, 3, 4, 5, 6},
		Observables: []objective.Observable{{ID: "x", Transform: objective.TransformLin, Noise: objective.Normal}},
		Conditions: []objective.Condition{
			{ID: "A", P: []objective.Value{th(0), th(1), th(2), th(3), th(4)}},
			{ID: "pre", P: []objective.Value{th(5), th(1), th(2), th(3), th(4)}},
			{ID: "B", P: []objective.Value{k(0.8), th(1), th(2), th(3), th(4)}},
		},
	}
	d := func(t, y float64) objective.Datum {
		return objective.Datum{Obs: 0, T: t, Y: y, U: []objective.Value{th(6)}}
	}
	p.Experiments = []objective.Experiment{
		{Preeq: -1, Sim: 0, Data: []objective.Datum{d(0.2, 0.8), d(1, 1.6), d(2, 2.3), d(4, 2.8), d(posInf, 3.1)}},
		{Preeq: 1, Sim: 2, Data: []objective.Datum{d(0, 2.4), d(1, 1.9), d(3, 1.4)}},
	}
	return p
}

// The switch problem in closed form at the nominal point (s = 2, k = 1, c
// = 1, a = 0.5, x0 = 0.5): experiment 0 has x = 2 - 1.5 e^{-t} until tau =
// ln 1.5, then x = 3 - 2 e^{-(t - tau)} (y = 0.5), steady 3; experiment 1
// pre-equilibrates to 1.7 (1 + 0.5) = 2.55 and decays to 1.2 without a
// second execution (which would make the target 1.6).
func TestEventsClosedForm(t *testing.T) {
	tau := math.Log(1.5)
	after := func(t float64) float64 { return 3 - 2*math.Exp(-(t-tau)) }
	exp1 := func(t float64) float64 { return 1.2 + 1.35*math.Exp(-t) }
	want := []float64{2 - 1.5*math.Exp(-0.2), after(1), after(2), after(4), 3, exp1(0), exp1(1), exp1(3)}
	for _, meth := range methods {
		o, err := objective.New(newSwitch(), switchProblem(), &objective.Options{Method: meth, RTol: 1e-10, ATol: 1e-12, Grad: true})
		if err != nil {
			t.Fatal(err)
		}
		r := evalAt(t, o, o.Nominal())
		for i, w := range want {
			if math.Abs(r.Sim[i]-w) > 1e-7 {
				t.Errorf("%v: datum %d: simulated %.10g, want %.10g", meth, i, r.Sim[i], w)
			}
		}
		o.Close()
	}
}

// The gradient across the events (moving event time, a jump in the rate,
// pre-equilibration through an event, a steady state after one) against
// fourth-order central differences of the llh at rtol 1e-12, at a point
// off the nominal one; and Workers and allocations as without events.
func TestEventsGradientFD(t *testing.T) {
	prob := switchProblem()
	ref, err := objective.New(newSwitch(), prob, &objective.Options{Method: sens.FS, RTol: 1e-12, ATol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	theta := ref.Nominal()
	for a := range theta {
		theta[a] += 0.03 * float64(a%3-1)
	}
	fd := make([]float64, len(theta))
	th := append([]float64(nil), theta...)
	llh := func(a int, h float64) float64 {
		th[a] = theta[a] + h
		defer func() { th[a] = theta[a] }()
		return evalAt(t, ref, th).LLH
	}
	for a := range theta {
		h := fdStep(theta[a])
		fd[a] = (8*(llh(a, h)-llh(a, -h)) - (llh(a, 2*h) - llh(a, -2*h))) / (12 * h)
	}
	for _, meth := range methods {
		var first []float64
		for _, w := range []int{1, 2} {
			o, err := objective.New(newSwitch(), prob, &objective.Options{Method: meth, RTol: 1e-10, ATol: 1e-12, Grad: true, FIM: true, Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			r := evalAt(t, o, theta)
			if w == 1 {
				worst, wa := 0.0, 0
				// Exp has no error control of S (sens.Exp).
				tol := map[sens.Method]float64{sens.FS: 1e-5, sens.PBSR: 1e-5, sens.Exp: 1e-4}[meth]
				for a := range fd {
					e := math.Abs(r.Grad[a]-fd[a]) / (1 + math.Abs(fd[a]))
					if e > worst {
						worst, wa = e, a
					}
					if e > tol {
						t.Errorf("%v: grad[%d] (%s) %.9g, finite differences %.9g", meth, a, o.Params()[a], r.Grad[a], fd[a])
					}
				}
				t.Logf("%v: worst gradient error %.2e (component %d, %s); llh %.10g", meth, worst, wa, o.Params()[wa], r.LLH)
				first = append([]float64{r.LLH}, r.Grad...)
			} else {
				got := append([]float64{r.LLH}, r.Grad...)
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(first[i]) {
						t.Errorf("%v: Workers 2: value %d is %.17g, with 1 worker %.17g", meth, i, got[i], first[i])
					}
				}
			}
			if n := testing.AllocsPerRun(3, func() { o.Eval(theta, r) }); n != 0 {
				t.Errorf("%v: Workers %d: %v allocations per Eval", meth, w, n)
			}
			o.Close()
		}
	}
}

// A Solver of Options.NewSolver that does not implement EventSolver is
// refused for a model with events (it would solve without them).
func TestEventsNewSolverRefused(t *testing.T) {
	_, err := objective.New(newSwitch(), switchProblem(), &objective.Options{
		NewSolver: func(m model.Model, so *sens.Options) (objective.Solver, error) { return sens.NewSolver(m, so), nil },
	})
	if !errors.Is(err, objective.ErrEventsNewSolver) {
		t.Fatalf("got %v, want ErrEventsNewSolver", err)
	}
}

// hookEvents is an EventSolver of Options.NewSolver: runtime/events'
// SensSolver, counting its solves, the starts it is given and its Close.
type hookEvents struct {
	*events.SensSolver
	solves, conts, opens, closes *int
}

func (h hookEvents) SolveEvents(res *sens.Result, p []float64, st *events.SensStart, ts []float64) error {
	*h.solves++
	if st.Continue {
		*h.conts++
	}
	if st.Open {
		*h.opens++
	}
	return h.SensSolver.SolveFrom(res, p, st, ts)
}

func (h hookEvents) SolveFrom(*sens.Result, []float64, *sens.Start, []float64) error {
	return errors.New("SolveFrom called on a model with events")
}

func (h hookEvents) Close() error { *h.closes++; return nil }

// Options.NewSolver for a model with events: its EventSolver is given the
// model with the event derivatives and solves every phase (the periods,
// the pre-equilibration and the steady states in chunks with Continue)
// with the objective's starts, is closed by Close, and gives the
// default's llh, gradient and FIM (which come from the same
// runtime/events where an event fires, and from the solve without events
// elsewhere) to the integration tolerance; it allocates nothing per Eval.
func TestEventsNewSolverHook(t *testing.T) {
	prob := switchProblem()
	// A second period in experiment 0, so that a solve ends Open.
	prob.Experiments[0].Periods = []objective.Period{{T0: 1.5, Cond: 0, Assign: -1}}
	opt := objective.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, Grad: true, FIM: true}
	def, err := objective.New(newSwitch(), prob, &opt)
	if err != nil {
		t.Fatal(err)
	}
	defer def.Close()
	theta := def.Nominal()
	for a := range theta {
		theta[a] += 0.03 * float64(a%3-1)
	}
	want := evalAt(t, def, theta)

	var made, solves, conts, opens, closes int
	hooked := opt
	hooked.NewSolver = func(m model.Model, so *sens.Options) (objective.Solver, error) {
		made++
		if _, ok := m.(model.EventDerivs); !ok {
			t.Errorf("NewSolver's model %T has no event derivatives", m)
		}
		sv, err := events.NewSensSolver(m, &events.SensSettings{Sens: so})
		if err != nil {
			return nil, err
		}
		return hookEvents{sv, &solves, &conts, &opens, &closes}, nil
	}
	o, err := objective.New(newSwitch(), prob, &hooked)
	if err != nil {
		t.Fatal(err)
	}
	got := evalAt(t, o, theta)
	if made == 0 || solves == 0 || conts == 0 || opens == 0 {
		t.Fatalf("NewSolver made %d solvers; %d solves, %d continued, %d open: the hook is not used for every phase", made, solves, conts, opens)
	}
	near := func(what string, g, w float64) {
		if !(math.Abs(g-w) <= 1e-7*(1+math.Abs(w))) {
			t.Errorf("%s: through the hook %.12g, default %.12g", what, g, w)
		}
	}
	near("llh", got.LLH, want.LLH)
	for a := range want.Grad {
		near(fmt.Sprintf("grad[%d]", a), got.Grad[a], want.Grad[a])
	}
	for i := range want.FIM {
		near(fmt.Sprintf("FIM[%d]", i), got.FIM[i], want.FIM[i])
	}
	if n := testing.AllocsPerRun(3, func() { o.Eval(theta, got) }); n != 0 {
		t.Errorf("%v allocations per Eval through the hook", n)
	}
	o.Close()
	if closes != made {
		t.Errorf("Close closed %d of %d solvers", closes, made)
	}
}

// A delayed event still queued when a period ends is refused by name
// (the queue does not carry across period changes); without the period
// change the same problem evaluates.
func TestEventsDelayedAcrossPeriods(t *testing.T) {
	m := newSwitch()
	m.delay = 1 // triggered at t ~ 0.41, due at ~1.41
	prob := switchProblem()
	prob.Experiments = prob.Experiments[:1]
	prob.Experiments[0].Data = prob.Experiments[0].Data[:3] // t = 0.2, 1, 2
	if _, err := evalErr(m, prob); err != nil {
		t.Fatalf("one period: %v", err)
	}
	prob.Experiments[0].Periods = []objective.Period{{T0: 1, Cond: 0, Assign: -1}}
	_, err := evalErr(m, prob)
	if err == nil || !strings.Contains(err.Error(), "delayed event") || !strings.Contains(err.Error(), "not supported") {
		t.Fatalf("got %v, want a delayed event queued at the period change refused", err)
	}
}

func evalErr(m model.Model, prob *objective.Problem) (*objective.Result, error) {
	o, err := objective.New(m, prob, &objective.Options{Grad: true})
	if err != nil {
		return nil, err
	}
	defer o.Close()
	var r objective.Result
	return &r, o.Eval(o.Nominal(), &r)
}

// noDerivs is switchModel without model.EventDerivs: its llh evaluates
// (no sensitivity columns), its gradient is refused by name.
type noDerivs struct{ sw *switchModel }

func (m noDerivs) Name() string                                     { return m.sw.Name() }
func (m noDerivs) StateNames() []string                             { return m.sw.StateNames() }
func (m noDerivs) ParamNames() []string                             { return m.sw.ParamNames() }
func (m noDerivs) DefaultParams(dst []float64)                      { m.sw.DefaultParams(dst) }
func (m noDerivs) InitialState(dst, p []float64)                    { m.sw.InitialState(dst, p) }
func (m noDerivs) InitialSens(dst, p []float64)                     { m.sw.InitialSens(dst, p) }
func (m noDerivs) F(dst []float64, t float64, x, p []float64)       { m.sw.F(dst, t, x, p) }
func (m noDerivs) JxPattern() *model.Pattern                        { return m.sw.JxPattern() }
func (m noDerivs) Jx(dst []float64, t float64, x, p []float64)      { m.sw.Jx(dst, t, x, p) }
func (m noDerivs) JpPattern() *model.Pattern                        { return m.sw.JpPattern() }
func (m noDerivs) Jp(dst []float64, t float64, x, p []float64)      { m.sw.Jp(dst, t, x, p) }
func (m noDerivs) NumEvents() int                                   { return 1 }
func (m noDerivs) EventInfo(k int) model.EventInfo                  { return m.sw.EventInfo(k) }
func (m noDerivs) TriggersTo(dst []bool, t float64, x, p []float64) { m.sw.TriggersTo(dst, t, x, p) }
func (m noDerivs) NumRoots() int                                    { return 1 }
func (m noDerivs) RootsTo(dst []float64, t float64, x, p []float64) { m.sw.RootsTo(dst, t, x, p) }
func (m noDerivs) Delay(k int, t float64, x, p []float64) float64   { return m.sw.Delay(k, t, x, p) }
func (m noDerivs) Priority(k int, t float64, x, p []float64) float64 {
	return m.sw.Priority(k, t, x, p)
}
func (m noDerivs) EventTargets(k int) []int { return m.sw.EventTargets(k) }
func (m noDerivs) EventAssign(k int, t float64, x, p, dst []float64) {
	m.sw.EventAssign(k, t, x, p, dst)
}
func (m noDerivs) ObservableIDs() []string       { return m.sw.ObservableIDs() }
func (m noDerivs) Placeholders(k int) (int, int) { return m.sw.Placeholders(k) }
func (m noDerivs) Observe(k int, t float64, x, p, u []float64, d *model.ObsDeriv) (float64, float64) {
	return m.sw.Observe(k, t, x, p, u, d)
}

func TestEventsWithoutDerivs(t *testing.T) {
	m := noDerivs{newSwitch()}
	ref, err := objective.New(newSwitch(), switchProblem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := evalAt(t, ref, ref.Nominal())
	ref.Close()
	o, err := objective.New(m, switchProblem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := evalAt(t, o, o.Nominal())
	o.Close()
	if r.LLH != want.LLH {
		t.Errorf("llh %.10g, with the derivatives %.10g", r.LLH, want.LLH)
	}
	if _, err := objective.New(m, switchProblem(), &objective.Options{Grad: true}); err == nil || !strings.Contains(err.Error(), "EventDerivs") {
		t.Errorf("gradient without model.EventDerivs: got %v, want a refusal naming EventDerivs", err)
	}
}

// hidden is switchModel with its events hidden (a plain model).
type hidden struct {
	model.Model
	model.Observables
}

// An experiment whose events do not fire is solved without runtime/events
// (tryPlain): llh and gradient are those of the model without its events,
// bit for bit; the experiment whose event fires falls back to
// runtime/events (TestEventsClosedForm checks its values).
func TestEventsPlainFirst(t *testing.T) {
	prob := switchProblem()
	// s = 0.8 (condition B) from x0 = 0.5: x tends to 0.8 < c, no event.
	prob.Experiments = []objective.Experiment{{Preeq: -1, Sim: 2, Data: prob.Experiments[1].Data}}
	sw := newSwitch()
	for _, meth := range methods {
		opt := &objective.Options{Method: meth, Grad: true, FIM: true}
		a, err := objective.New(sw, prob, opt)
		if err != nil {
			t.Fatal(err)
		}
		b, err := objective.New(hidden{sw, sw}, prob, opt)
		if err != nil {
			t.Fatal(err)
		}
		ra, rb := evalAt(t, a, a.Nominal()), evalAt(t, b, b.Nominal())
		if ra.LLH != rb.LLH || !slices.Equal(ra.Grad, rb.Grad) || !slices.Equal(ra.FIM, rb.FIM) {
			t.Errorf("%v: with events llh %v grad %v, without %v %v", meth, ra.LLH, ra.Grad, rb.LLH, rb.Grad)
		}
		if n := testing.AllocsPerRun(3, func() { a.Eval(a.Nominal(), ra) }); n > 1 {
			// Nominal() allocates its result: 1.
			t.Errorf("%v: %v allocations per Eval", meth, n-1)
		}
		a.Close()
		b.Close()
	}
}
