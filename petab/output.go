package petab

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pbgen/pbgen/runtime/model"
)

// WriteSimulations writes the PEtab simulation table: the measurement
// table's identifying columns with sim (one value per measurement, in
// Measurements order) in the simulation column.
func (p *Problem) WriteSimulations(w io.Writer, sim []float64) error {
	if len(sim) != len(p.Measurements) {
		return fmt.Errorf("petab: %d simulated values for %d measurements", len(sim), len(p.Measurements))
	}
	bw := bufio.NewWriter(w)
	cols := []string{"observableId", "preequilibrationConditionId", "simulationConditionId", "time", "simulation", "observableParameters", "noiseParameters", "datasetId", "replicateId"}
	if p.Version == 2 {
		cols = []string{"observableId", "experimentId", "time", "simulation", "observableParameters", "noiseParameters"}
	}
	bw.WriteString(strings.Join(cols, "\t") + "\n")
	f := func(v float64) string {
		if math.IsInf(v, 1) {
			return "inf" // PEtab's spelling of a steady-state time
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for i, m := range p.Measurements {
		var row []string
		if p.Version == 2 {
			row = []string{m.ObservableID, m.Experiment, f(m.Time), f(sim[i]), strings.Join(m.ObsParams, ";"), strings.Join(m.NoiseParams, ";")}
		} else {
			row = []string{m.ObservableID, m.Preeq, m.Sim, f(m.Time), f(sim[i]), strings.Join(m.ObsParams, ";"), strings.Join(m.NoiseParams, ";"), m.DatasetID, m.ReplicateID}
		}
		bw.WriteString(strings.Join(row, "\t") + "\n")
	}
	return bw.Flush()
}

// Summary describes a loaded problem (for pbgen petab check).
func (p *Problem) Summary(w io.Writer) {
	fmt.Fprintf(w, "%s: PEtab v%d, model %q (%s)\n", p.Path, p.Version, p.SBML.ID, p.SBML.File)
	fmt.Fprintf(w, "  states: %d, model parameters: %d (after lowering)\n", model.NumStates(p.Model), model.NumParams(p.Model))
	fmt.Fprintf(w, "  conditions: %d (%d in use), experiments: %d\n", len(p.Conditions), len(p.Objective.Conditions), len(p.Objective.Experiments))
	fmt.Fprintf(w, "  observables: %d, measurements: %d\n", len(p.Observables), len(p.Measurements))
	fmt.Fprintf(w, "  parameters: %d, estimated: %d\n", len(p.Parameters), len(p.Objective.Estimated))
	preeq := 0
	for _, x := range p.Objective.Experiments {
		if x.Preeq >= 0 {
			preeq++
		}
	}
	if preeq > 0 {
		fmt.Fprintf(w, "  experiments with pre-equilibration: %d\n", preeq)
	}
	if ode := p.System.ODE; ode.Algebraic > 0 {
		// The states above include them; the objective solves the
		// reduced model (runtime/dae).
		var names []string
		for _, st := range ode.States[len(ode.States)-ode.Algebraic:] {
			switch {
			case st.Meta["algebraicRule"] != "":
				names = append(names, st.Name+" (algebraic rule, line "+st.Meta["algebraicRule"]+")")
			case st.Meta["fast"] != "":
				names = append(names, st.Name+" (fast reactions)")
			default:
				names = append(names, st.Name)
			}
		}
		fmt.Fprintf(w, "  algebraic variables: %d, eliminated by runtime/dae: %s\n", ode.Algebraic, strings.Join(names, ", "))
	}
	if ode := p.System.ODE; len(ode.Delays) > 0 {
		var names []string
		for _, d := range ode.Delays {
			names = append(names, d.Label)
		}
		// What runtime/objective refuses (objective.ErrDelaySens), in the
		// same order.
		why := ""
		switch {
		case ode.Algebraic > 0:
			why = "runtime/dae does not carry derivatives through the delays"
		default:
			idx := ode.DelayIndex()
			for k, d := range ode.Delays {
				if c, _ := ode.DelayShape(k, idx); !c {
					why = "the length of " + d.Label + " depends on the state or time"
					break
				}
			}
		}
		what := "log-likelihood, simulations, and gradient and FIM by forward sensitivity through the delays (dde.SolveSens, for any -method)"
		if why != "" {
			what = "log-likelihood and simulations; no gradient or FIM of parameters that reach the model (" + why + ")"
		}
		fmt.Fprintf(w, "  delayed values: %d (%s), solved by runtime/dde: %s\n", len(ode.Delays), strings.Join(names, ", "), what)
	}
	for _, x := range p.Warnings {
		fmt.Fprintf(w, "warning: %v\n", x)
	}
}
