package capi

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/generated/chua"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/parser"
	"github.com/pbgen/pbgen/runtime/dae"
	"github.com/pbgen/pbgen/runtime/dde"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
	"github.com/pbgen/pbgen/symbolic"
)

// Model is a reaction network ready for simulation.
type Model struct {
	mu   sync.Mutex
	m    model.Model
	info ModelInfo
	// The solver of the last plain (no events, no delays) solve with
	// sensitivities and its options, reused while they stay the same.
	solver *sens.Solver
	skey   solverKey
	res    sens.Result
}

// ModelInfo describes a Model: its states (the rows of S) and its
// sensitivity parameters (the columns), with the default parameters and
// the initial state at them.
type ModelInfo struct {
	StateIDs     []string `json:"state_ids"`
	ParameterIDs []string `json:"parameter_ids"`
	Defaults     Floats   `json:"defaults"`
	X0           Floats   `json:"x0"`
	// Events says that the model has events or switches of its rates
	// (solved by runtime/events), Delays that it has delayed values
	// (runtime/dde: S by forward sensitivity only).
	Events bool `json:"events"`
	Delays bool `json:"delays"`
}

// solverKey is what a cached solver was made with.
type solverKey struct {
	method     sens.Method
	rtol, atol float64
}

// compiledModels are the generated packages linked into the library.
var compiledModels = map[string]func() model.Model{
	"camkii": func() model.Model { return camkii.New() },
	"pka":    func() model.Model { return pka.New() },
	"chua":   func() model.Model { return chua.New() },
}

// LoadModel reads an SBML file; its sensitivity parameters are every
// constant global parameter, in document order (pbgen sim's default).
func LoadModel(path string) (*Model, error) {
	pm, err := parser.ReadFile(path)
	if err != nil {
		return nil, err
	}
	o, err := pm.ODE(&parser.Options{Events: true})
	if err != nil {
		return nil, err
	}
	sys, err := symbolic.Build(o)
	if err != nil {
		return nil, err
	}
	var im *interp.Model
	if len(sys.ODE.Events) > 0 || len(sys.B.Switches(sys.F)) > 0 {
		im, err = interp.NewWithEvents(sys)
	} else {
		im, err = interp.New(sys)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var m model.Model = im
	if im.NumAlgebraic() > 0 {
		// The solvers integrate the differential states of the
		// reduction; the algebraic variables are not states of it.
		if m, err = dae.New(im); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
	}
	return newModel(m), nil
}

// CompiledModel returns the generated package linked under name.
func CompiledModel(name string) (*Model, error) {
	mk, ok := compiledModels[name]
	if !ok {
		return nil, fmt.Errorf("no compiled model %q (have %s)", name, strings.Join(sortedKeys(compiledModels), ", "))
	}
	return newModel(mk()), nil
}

func newModel(m model.Model) *Model {
	mm := &Model{m: m}
	in := &mm.info
	in.StateIDs = m.StateNames()
	in.ParameterIDs = m.ParamNames()
	in.Defaults = make(Floats, len(in.ParameterIDs))
	m.DefaultParams(in.Defaults)
	in.X0 = make(Floats, len(in.StateIDs))
	m.InitialState(in.X0, in.Defaults)
	in.Events = events.Needed(m)
	in.Delays = model.HasDelays(m)
	return mm
}

// Info returns the model's description (shared: do not modify).
func (m *Model) Info() *ModelInfo { return &m.info }

// SimOptions choose how Simulate solves.
type SimOptions struct {
	// Method is fs, pbs, pbsr or exp (S computed), or none (x only); ""
	// is pbsr.
	Method string
	// RTol and ATol are the tolerances (0: runtime/sens's defaults, 1e-6
	// and 1e-8; with none, runtime/ode's).
	RTol, ATol float64
	// T0 is the start of the integration, x(T0) the initial state.
	T0 float64
}

// Simulate solves the model from T0 with parameters p (len
// ParameterIDs) and writes x at the output times ts (ascending, >= T0)
// into X (len(ts) x nx, row-major) and, unless the method is none, S
// into S (len(ts) x nx x np, S[k][i][j] = dx_i/dp_j at ts[k]). x0 nil
// starts from the model's initial state, with S(T0) = dx0/dp; a given
// x0 is taken as independent of p (S(T0) = 0), as sens.Solver.Solve.
func (m *Model) Simulate(ts, p, x0 []float64, opt *SimOptions, X, S []float64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		return errClosed
	}
	if opt == nil {
		opt = &SimOptions{}
	}
	withS, method, err := parseSimMethod(opt.Method)
	if err != nil {
		return err
	}
	if err := m.checkSim(ts, p, x0, opt, withS, X, S); err != nil {
		return err
	}
	so := sens.Options{Method: method, RTol: opt.RTol, ATol: opt.ATol, ErrCon: true}
	if withS && !m.info.Events && !m.info.Delays {
		if k := (solverKey{method, opt.RTol, opt.ATol}); m.solver == nil || m.skey != k {
			m.solver, m.skey = sens.NewSolver(m.m, &so), k
		}
		if err := m.solver.Solve(&m.res, p, x0, opt.T0, ts); err != nil {
			return err
		}
		copy(X, m.res.X)
		copy(S, m.res.S)
		return nil
	}
	return m.solveOnce(ts, p, x0, opt.T0, withS, &so, X, S)
}

// parseSimMethod reads SimOptions.Method.
func parseSimMethod(s string) (withS bool, m sens.Method, err error) {
	switch {
	case s == "":
		return true, sens.PBSR, nil
	case strings.EqualFold(s, "none"):
		return false, 0, nil
	}
	m, err = sens.ParseMethod(s)
	if err != nil {
		return false, 0, fmt.Errorf("method %q: want none, fs, pbs, pbsr or exp", s)
	}
	return true, m, nil
}

// checkSim refuses inputs the solvers would take as misuse, by name.
func (m *Model) checkSim(ts, p, x0 []float64, opt *SimOptions, withS bool, X, S []float64) error {
	nx, np := len(m.info.StateIDs), len(m.info.ParameterIDs)
	if len(ts) == 0 {
		return fmt.Errorf("no output times")
	}
	if math.IsNaN(opt.T0) || math.IsInf(opt.T0, 0) {
		return fmt.Errorf("t0 = %g, want a finite time", opt.T0)
	}
	for k, t := range ts {
		switch {
		case math.IsNaN(t) || math.IsInf(t, 0):
			return fmt.Errorf("output time %d is %g, want a finite time", k, t)
		case t < opt.T0:
			return fmt.Errorf("output time %d (%g) is before t0 = %g", k, t, opt.T0)
		case k > 0 && t <= ts[k-1]:
			return fmt.Errorf("output times must increase (%g after %g at %d)", t, ts[k-1], k)
		}
	}
	if len(p) != np {
		return fmt.Errorf("p has %d values, want %d (the parameters %s)", len(p), np, listNames(m.info.ParameterIDs, 10))
	}
	if err := finite("p", p, m.info.ParameterIDs); err != nil {
		return err
	}
	if x0 != nil {
		if len(x0) != nx {
			return fmt.Errorf("x0 has %d values, want %d (the states %s)", len(x0), nx, listNames(m.info.StateIDs, 10))
		}
		if err := finite("x0", x0, m.info.StateIDs); err != nil {
			return err
		}
	}
	if err := checkTols(opt.RTol, opt.ATol); err != nil {
		return err
	}
	if withS && m.info.Delays {
		if mm, _ := sens.ParseMethod(opt.Method); opt.Method == "" || mm != sens.FS {
			return fmt.Errorf("the model has delays: its sensitivities are computed by forward sensitivity only; use method fs or none")
		}
	}
	if len(X) != len(ts)*nx {
		return fmt.Errorf("the x buffer has %d values, want %d (%d times x %d states)", len(X), len(ts)*nx, len(ts), nx)
	}
	switch {
	case withS && len(S) != len(ts)*nx*np:
		return fmt.Errorf("the S buffer has %d values, want %d (%d times x %d states x %d parameters)", len(S), len(ts)*nx*np, len(ts), nx, np)
	case !withS && len(S) != 0:
		return fmt.Errorf("method none computes no S, but an S buffer of %d values was given", len(S))
	}
	return nil
}

// finite refuses a non-finite value of v, naming it.
func finite(what string, v []float64, names []string) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s[%d] (%s) is %g, want a finite value", what, i, names[i], x)
		}
	}
	return nil
}

// solveOnce solves a model with events or delays, or x alone, in one
// call of runtime/events or runtime/dde over every output time, as pbgen
// sim does: they take ts[0] as the start, so t0 is prepended when the
// first output is later and its row dropped.
func (m *Model) solveOnce(ts, p, x0 []float64, t0 float64, withS bool, so *sens.Options, X, S []float64) error {
	nx, np := len(m.info.StateIDs), len(m.info.ParameterIDs)
	var s0 []float64
	if x0 == nil {
		x0 = make([]float64, nx)
		m.m.InitialState(x0, p)
		if withS {
			s0 = make([]float64, nx*np)
			m.m.InitialSens(s0, p)
		}
	} else if withS {
		s0 = make([]float64, nx*np)
	}
	all := ts
	skip := 0
	if ts[0] != t0 {
		all = append([]float64{t0}, ts...)
		skip = 1
	}
	odeSet := &ode.Settings{RTol: so.RTol, ATol: so.ATol}
	var xs, ss []float64
	switch {
	case withS && m.info.Delays:
		r, err := dde.SolveSens(m.m, p, x0, s0, all, &dde.Settings{ODE: odeSet})
		if err != nil {
			return err
		}
		xs, ss = r.X, r.S
	case withS:
		r, err := events.SolveSens(m.m, p, x0, s0, all, &events.SensSettings{Sens: so})
		if err != nil {
			return err
		}
		xs, ss = r.X, r.S
	case m.info.Delays:
		r, err := dde.Solve(m.m, p, x0, all, &dde.Settings{ODE: odeSet})
		if err != nil {
			return err
		}
		xs = r.X
	default:
		r, err := events.Solve(m.m, p, x0, all, &events.Settings{ODE: odeSet})
		if err != nil {
			return err
		}
		xs = r.X
	}
	copy(X, xs[skip*nx:])
	if withS {
		copy(S, ss[skip*nx*np:])
	}
	return nil
}

// Close releases the model. It must not be used afterwards.
func (m *Model) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m, m.solver = nil, nil
}
