package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"

	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// The events section (-events, issue #12): an event-heavy model, PKA
// (generated code) with a bolus of the catalytic subunit C every "day"
// (evDay time units, so 30 days span PKA's 600 s of Table 1), solved by
// runtime/events (which locates each dose on the integrator's dense
// output and restarts the solver there) against CVODES with its own root
// finding and re-initialisation (internal/cvodes.EventSolver), in the
// same run with interleaved rounds.

const (
	evDay = 20.0 // time units per "day"
	// evDoseParam scales the dose: each adds evDoseScale times this
	// parameter's value to C, so that S jumps through h_p as well.
	evDoseParam = "Rii_C_ConservedConst"
	evDoseState = "C"
	evDoseScale = 0.05
	// evRTol and evATol are Table 1's tolerances for PKA.
	evRTol, evATol = 1e-5, 1e-6
)

// EventsMethod is one method of the events section.
type EventsMethod struct {
	Name   string `json:"name"`
	Median num    `json:"median_s"`
	Solves int    `json:"timed_solves"`
	// MaxErr is the largest ||S_k - Sref_k||_F / ||Sref_k||_F over the
	// outputs against our FS at rtol 1e-10 (null for states only).
	MaxErr num    `json:"max_rel_err"`
	Fired  int    `json:"executions"`
	Err    string `json:"error,omitempty"`
}

// EventsResult is the events section as written to results.json.
type EventsResult struct {
	Model   string          `json:"model"`
	Days    int             `json:"doses"`
	T1      float64         `json:"t1"`
	RTol    float64         `json:"rtol"`
	ATol    float64         `json:"atol"`
	Methods []*EventsMethod `json:"methods"`
	// Ratios are CVODES's median time over ours, matched pairs (states;
	// FS with and without ErrCon; PBSR and Exp over CVODES FS without
	// ErrCon): above 1 we are faster.
	Ratios map[string]num `json:"ratios_cvodes_over_ours,omitempty"`
}

// evSolver is one timed method of the events section.
type evSolver struct {
	name  string
	run   func() error
	s     func() []float64 // S at the outputs (nx x np blocks), nil for states only
	fired func() int
}

// dosedPKA is PKA with days doses of C, one every evDay from evDay on.
func dosedPKA(days int) (*testmodels.Dosing, error) {
	m := pka.New()
	state := slices.Index(m.StateNames(), evDoseState)
	param := slices.Index(m.ParamNames(), evDoseParam)
	return testmodels.NewDosing(m, state, param, -1, evDoseScale, evDay, evDay, days)
}

// oursEvents are our methods on m through runtime/events.
func oursEvents(m model.Model, p, ts []float64) []*evSolver {
	nx := model.NumStates(m)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	var out []*evSolver
	var xr *events.Result
	out = append(out, &evSolver{name: "states",
		run: func() (err error) {
			xr, err = events.Solve(m, p, x0, ts, &events.Settings{ODE: &ode.Settings{RTol: evRTol, ATol: evATol}})
			return err
		},
		fired: func() int { return len(xr.Fired) }})
	for _, c := range []struct {
		name   string
		meth   sens.Method
		errcon bool
	}{{"FS errcon on", sens.FS, true}, {"FS errcon off", sens.FS, false}, {"PBSR", sens.PBSR, false}, {"Exp", sens.Exp, false}} {
		var r *events.SensResult
		set := &events.SensSettings{Sens: &sens.Options{Method: c.meth, ErrCon: c.errcon, RTol: evRTol, ATol: evATol}}
		out = append(out, &evSolver{name: c.name,
			run: func() (err error) {
				r, err = events.SolveSens(m, p, nil, nil, ts, set)
				return err
			},
			s:     func() []float64 { return r.S },
			fired: func() int { return len(r.Fired) }})
	}
	return out
}

// benchEvents runs the events section and prints its table to w.
func benchEvents(c *config, w io.Writer) (*EventsResult, error) {
	m, err := dosedPKA(c.eventsDays)
	if err != nil {
		return nil, err
	}
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	t1 := evDay * float64(c.eventsDays+1)
	ts := grid(0, t1, int(t1))
	nx, np := model.NumStates(m), model.NumParams(m)
	er := &EventsResult{Model: "PKA + daily doses of " + evDoseState, Days: c.eventsDays, T1: t1, RTol: evRTol, ATol: evATol,
		Ratios: map[string]num{}}
	ref, err := events.SolveSens(m, p, nil, nil, ts, &events.SensSettings{Sens: &sens.Options{Method: sens.FS, ErrCon: true,
		RTol: 1e-10, ATol: 1e-12, ODE: ode.Settings{RTol: 1e-10, ATol: 1e-12, MaxSteps: 1000000}}})
	if err != nil {
		return nil, fmt.Errorf("reference: %v", err)
	}
	solvers := append(oursEvents(m, p, ts), cvodesEventSolvers(m, p, ts, evRTol, evATol)...)
	runs := make([]func() error, len(solvers))
	for i, s := range solvers {
		runs[i] = s.run
	}
	fmt.Fprintf(w, "\n== events: PKA (%d states, %d parameters) with %d doses of %s every %g over [0, %g], %d outputs, rtol %g, atol %g; interleaved rounds (at most %d, median), S error against FS at rtol 1e-10\n",
		nx, np, c.eventsDays, evDoseState, evDay, t1, len(ts), evRTol, evATol, c.eventsReps)
	times := timeRounds(runs, c.eventsReps, c.eventsBudget)
	fmt.Fprintf(w, "%-28s %12s %7s %11s %10s\n", "method", "median", "solves", "max S err", "executions")
	byName := map[string]float64{}
	for i, s := range solvers {
		em := &EventsMethod{Name: s.name, Median: num(times[i].median), Solves: times[i].n, MaxErr: num(math.NaN())}
		if err := times[i].err; err != nil {
			em.Err, em.Median = err.Error(), num(math.NaN())
			fmt.Fprintf(w, "%-28s failed: %v\n", s.name, err)
			er.Methods = append(er.Methods, em)
			continue
		}
		em.Fired = s.fired()
		if s.s != nil {
			em.MaxErr = num(maxOf(relErrors(s.s(), ref.S, nx*np)))
		}
		byName[s.name] = times[i].median
		fmt.Fprintf(w, "%-28s %12s %7d %11.2g %10d\n", s.name, dur(times[i].median), em.Solves, float64(em.MaxErr), em.Fired)
		er.Methods = append(er.Methods, em)
	}
	for _, pr := range [][2]string{{"states", "states (CVODES)"}, {"FS errcon on", "FS errcon on (CVODES)"}, {"FS errcon off", "FS errcon off (CVODES)"},
		{"PBSR", "FS errcon off (CVODES)"}, {"Exp", "FS errcon off (CVODES)"}} {
		ours, ok1 := byName[pr[0]]
		cv, ok2 := byName[pr[1]]
		if !ok1 || !ok2 || !(ours > 0) {
			continue
		}
		key := pr[0] + " vs " + pr[1]
		er.Ratios[key] = num(cv / ours)
		fmt.Fprintf(w, "ratio %-48s %6.2fx\n", key, cv/ours)
	}
	return er, nil
}

// maxOf is the largest entry, ignoring NaN (NaN if there is none).
func maxOf(v []float64) float64 {
	var w []float64
	for _, x := range v {
		if !math.IsNaN(x) {
			w = append(w, x)
		}
	}
	if len(w) == 0 {
		return math.NaN()
	}
	sort.Float64s(w)
	return w[len(w)-1]
}

// eventsTargets: with events, our FS no slower than CVODES FS (ratio of
// the medians >= 1, errcon on and off).
func eventsTargets(er *EventsResult) []*Target {
	var ts []*Target
	for _, key := range []string{"FS errcon on vs FS errcon on (CVODES)", "FS errcon off vs FS errcon off (CVODES)"} {
		m := math.NaN()
		if r, ok := er.Ratios[key]; ok {
			m = float64(r)
		}
		t := &Target{What: "events: CVODES/ours, " + key, Measured: m, Bound: 1, AtLeast: true}
		t.check()
		ts = append(ts, t)
	}
	return ts
}
