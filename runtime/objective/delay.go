package objective

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/pbgen/pbgen/runtime/dde"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// Delays.
//
// A model with delayed values (model.Delays: SBML's csymbol delay) is a
// delay differential equation, whose states runtime/dde solves by the
// method of steps; runtime/ode and runtime/sens refuse it, and there are
// no sensitivities through delays. Such a problem is therefore evaluated
// for the log-likelihood alone: each experiment is one dde.Solve from the
// simulation condition's initial state (the history before T0 being the
// model's, SBML's initial values) through the data times. What needs
// more is refused by New, naming the delays: Grad and FIM (ErrDelaySens),
// pre-equilibration and data at steady state (a steady state of a DDE
// would need the history's own treatment), periods (the history across a
// condition change), and Options.NewSolver. A dde.Solve allocates, so an
// Eval of such a problem does too.

// ErrDelaySens is wrapped by New's error for a model with delays when
// Options.Grad or Options.FIM is set.
var ErrDelaySens = errors.New("sensitivities through csymbol delay are not supported: the gradient and the Fisher information cannot be computed (the log-likelihood can)")

// delayNames lists the model's delayed values, for messages.
func delayNames(dm model.Delays) string {
	var s []string
	for k := 0; k < dm.NumDelays(); k++ {
		s = append(s, dm.DelayInfo(k).Name)
	}
	return strings.Join(s, ", ")
}

// checkDelays refuses what the delay path does not do (see above).
func (c *core) checkDelays() error {
	what := fmt.Sprintf("model %q reads delayed values (csymbol delay: %s)", c.m.Name(), delayNames(c.dl))
	if c.need {
		return fmt.Errorf("objective: %s: %w", what, ErrDelaySens)
	}
	if c.opt.NewSolver != nil {
		return fmt.Errorf("objective: %s: Options.NewSolver cannot solve it (only runtime/dde does)", what)
	}
	for e := range c.prob.Experiments {
		ex := &c.prob.Experiments[e]
		switch {
		case ex.Preeq >= 0:
			return fmt.Errorf("objective: %s: %s: pre-equilibration is not supported with delays", what, c.expName(e))
		case len(ex.Periods) > 0:
			return fmt.Errorf("objective: %s: %s: periods (condition changes during a simulation) are not supported with delays", what, c.expName(e))
		}
		for i := range ex.Data {
			if math.IsInf(ex.Data[i].T, 1) {
				return fmt.Errorf("objective: %s: %s datum %d: data at steady state (time inf) are not supported with delays", what, c.expName(e), i)
			}
		}
	}
	return nil
}

// solveDelays evaluates experiment e of a model with delays: one
// dde.Solve through its data times.
func (w *worker) solveDelays(e int, out *Result) error {
	c := w.c
	pl := &c.exps[e]
	if len(pl.ex.Data) == 0 {
		return nil
	}
	c.params(w.pSim, w.dSim, pl.sim)
	ph := &pl.phases[0]
	c.m.InitialState(w.x, w.pSim)
	// dde.Solve starts at its first output time.
	w.dts = append(append(w.dts[:0], ph.t0), ph.times...)
	res, err := dde.Solve(c.m, w.pSim, w.x, w.dts, &w.ddeSet)
	w.c.part[e].stats.Solves++
	if err != nil {
		return fmt.Errorf("objective: %s: %w", c.expName(e), err)
	}
	for _, i := range ph.data {
		if o := pl.out[i]; o >= 0 {
			if err := w.datum(e, i, pl.ex.Data[i].T, res.XAt(o+1), nil, w.pSim, w.dSim, nil, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// newDelaySettings are the dde settings of the worker's solves: the
// objective's tolerances and the solver options' integrator settings.
func newDelaySettings(oset ode.Settings) dde.Settings {
	return dde.Settings{ODE: &oset}
}
