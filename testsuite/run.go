package testsuite

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/parser"
	"github.com/pbgen/pbgen/runtime/dae"
	"github.com/pbgen/pbgen/runtime/dde"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/symbolic"
)

// Status is the outcome of one case.
type Status int

const (
	Passed Status = iota
	Failed
	Skipped // the reader refused the model as unsupported
)

func (s Status) String() string {
	return [...]string{"passed", "failed", "skipped"}[s]
}

// Outcome is the result of running one case.
type Outcome struct {
	Case   *Case
	Status Status
	Reason string // why it failed or was skipped
}

// Options for running cases.
type Options struct {
	RTol, ATol float64 // integrator tolerances; defaults 1e-10, 1e-14
}

func (o *Options) tolerances() (rtol, atol float64) {
	rtol, atol = 1e-10, 1e-14
	if o != nil && o.RTol > 0 {
		rtol = o.RTol
	}
	if o != nil && o.ATol > 0 {
		atol = o.ATol
	}
	return rtol, atol
}

// Simulation is what a model produced at the output times: the value of
// every named output, time-major.
type Simulation struct {
	Names  []string
	Values [][]float64 // Values[k][j] = output j at time k
}

// Run runs one case through the interpreted model.
func Run(c *Case, opt *Options) Outcome {
	path, err := c.ModelFile()
	if err != nil {
		return Outcome{Case: c, Status: Failed, Reason: err.Error()}
	}
	if c.Settings.Steps <= 0 {
		return Outcome{Case: c, Status: Failed, Reason: "settings: steps must be positive"}
	}
	sys, err := Lower(path)
	if err != nil {
		if unsupported(err) {
			return Outcome{Case: c, Status: Skipped, Reason: firstLine(err.Error())}
		}
		return Outcome{Case: c, Status: Failed, Reason: firstLine(err.Error())}
	}
	sim, err := Simulate(sys, c.Settings.Times(), opt)
	if errors.Is(err, dae.ErrNotIndex1) {
		// A DAE that elimination cannot solve, found only numerically.
		return Outcome{Case: c, Status: Skipped, Reason: firstLine(err.Error())}
	}
	if err != nil {
		return Outcome{Case: c, Status: Failed, Reason: firstLine(err.Error())}
	}
	return Compare(c, sim)
}

// Lower reads, lowers and differentiates an SBML file with the default
// options, events included (Simulate handles them).
func Lower(path string) (*symbolic.System, error) {
	m, err := parser.ReadFile(path)
	if err != nil {
		return nil, err
	}
	o, err := m.ODE(&parser.Options{Events: true})
	if err != nil {
		return nil, err
	}
	return symbolic.Build(o)
}

// Simulate integrates the interpreted model of sys and evaluates its
// outputs (states included) at ts.
func Simulate(sys *symbolic.System, ts []float64, opt *Options) (*Simulation, error) {
	m, err := interp.NewWithEvents(sys)
	if err != nil {
		return nil, err
	}
	return SimulateModel(m, ts, opt)
}

// SimulateModel integrates m from its default parameters and initial state
// and evaluates the states and, if m is a model.Observer, its outputs at ts.
// The generated-package path calls it from a program built in a temporary
// module.
//
// A model with algebraic variables (model.Algebraic) is solved through
// runtime/dae, its algebraic variables reported among the outputs.
func SimulateModel(m model.Model, ts []float64, opt *Options) (*Simulation, error) {
	if a, ok := m.(model.Algebraic); ok && a.NumAlgebraic() > 0 {
		r, err := dae.New(a)
		if err != nil {
			return nil, err
		}
		p := make([]float64, model.NumParams(r))
		r.DefaultParams(p)
		if err := r.Consistent(nil, p); err != nil {
			return nil, err
		}
		m = r
	}
	nx, np := model.NumStates(m), model.NumParams(m)
	p := make([]float64, np)
	m.DefaultParams(p)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	rtol, atol := opt.tolerances()
	oset := &ode.Settings{RTol: rtol, ATol: atol, MaxSteps: 1000000}
	xAt, dAt, err := integrate(m, oset, p, x0, ts)
	if err != nil {
		return nil, err
	}
	obs, _ := m.(model.Observer)
	sim := &Simulation{Names: append([]string(nil), m.StateNames()...)}
	nout := 0
	if obs != nil {
		sim.Names = append(sim.Names, obs.Outputs()...)
		nout = len(obs.Outputs())
	}
	for k, t := range ts {
		x := xAt(k)
		row := make([]float64, nx+nout)
		copy(row, x)
		switch dm, ok := m.(model.Delays); {
		case obs != nil && dAt != nil && ok:
			dm.OutputsDelayedTo(row[nx:], t, x, p, dAt(k))
		case obs != nil:
			obs.OutputsTo(row[nx:], t, x, p)
		}
		sim.Values = append(sim.Values, row)
	}
	return sim, nil
}

// integrate solves the state at ts: through runtime/dde when m has
// delays (it also returns the delayed values at output k, for the
// outputs), through runtime/events when m has events or switches of its
// right-hand side (piecewise; events.Needed), else with one ode
// integration landing on every output time. It returns the state at
// output k.
func integrate(m model.Model, oset *ode.Settings, p, x0, ts []float64) (xAt, dAt func(k int) []float64, err error) {
	if model.HasDelays(m) {
		r, err := dde.Solve(m, p, x0, ts, &dde.Settings{ODE: oset})
		if err != nil {
			return nil, nil, err
		}
		return r.XAt, r.DAt, nil
	}
	if events.Needed(m) {
		r, err := events.Solve(m, p, x0, ts, &events.Settings{ODE: oset})
		if err != nil {
			return nil, nil, err
		}
		return r.XAt, nil, nil
	}
	s := ode.NewSolver(m, oset)
	var tr ode.Trajectory
	if err := s.Integrate(&tr, p, x0, ts[0], ts); err != nil {
		return nil, nil, err
	}
	return func(k int) []float64 { return tr.XAt(tr.Out[k]) }, nil, nil
}

// column finds the simulated column for a requested variable, honouring
// the settings' amount and concentration lists.
func (sim *Simulation) column(s *Settings, v string) (int, error) {
	want := []string{v}
	switch {
	case contains(s.Amount, v):
		want = []string{"amount:" + v, v}
	case contains(s.Concentration, v):
		want = []string{"conc:" + v, v}
	}
	// Outputs come after the states and take precedence: a state may be an
	// amount while the output named by its id is what math sees.
	for _, w := range want {
		for j := len(sim.Names) - 1; j >= 0; j-- {
			if sim.Names[j] == w {
				return j, nil
			}
		}
	}
	return -1, fmt.Errorf("variable %q is not a state or output of the model", v)
}

// Compare checks a simulation against the case's expected results.
func Compare(c *Case, sim *Simulation) Outcome {
	res, err := readResults(filepath.Join(c.Dir, c.ID+"-results.csv"))
	if err != nil {
		return Outcome{Case: c, Status: Failed, Reason: err.Error()}
	}
	if len(res.T) != len(sim.Values) {
		return Outcome{Case: c, Status: Failed, Reason: fmt.Sprintf("expected %d time points, simulated %d", len(res.T), len(sim.Values))}
	}
	s := &c.Settings
	for j, v := range res.Columns {
		col, err := sim.column(s, v)
		if err != nil {
			return Outcome{Case: c, Status: Failed, Reason: err.Error()}
		}
		for k := range res.T {
			want, got := res.V[k][j], sim.Values[k][col]
			if !Close(want, got, s.Absolute, s.Relative) {
				return Outcome{Case: c, Status: Failed, Reason: fmt.Sprintf("%s at t=%g: expected %g, got %g", v, res.T[k], want, got)}
			}
		}
	}
	return Outcome{Case: c, Status: Passed}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

var errNoCases = errors.New("testsuite: no case folders found")

func fmtPanic(r any) string { return fmt.Sprint(r) }

// unsupported reports whether the reader refused the model because it uses
// a construct pbgen does not support (as opposed to an error in the model
// or in pbgen): every error of the list says "... is not supported".
func unsupported(err error) bool {
	var l parser.ErrorList
	if !errors.As(err, &l) || len(l) == 0 {
		return false
	}
	for _, e := range l {
		if !strings.HasSuffix(e.Msg, " is not supported") && !missingExternal(e) {
			return false
		}
	}
	return true
}

// missingExternal reports whether e is a comp:externalModelDefinition whose
// file is absent from this copy of the suite: some copies lack the extra
// model files that a few comp cases keep beside their case files. Such a
// case cannot be run, which is not a wrong result; the reason line says
// which file is missing.
func missingExternal(e *parser.Error) bool {
	return e.Element == "comp:externalModelDefinition" && strings.Contains(e.Msg, "no such file or directory")
}
