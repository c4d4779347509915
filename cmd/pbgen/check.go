package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/pbgen/pbgen/parser"
)

// cmdCheck prints a summary of a network or its errors. Several errors are
// printed one per line (file:line: element "id": message), the way go vet
// does, up to parser.MaxErrors; the returned error then only counts them.
func cmdCheck(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("pbgen check", stderr, "pbgen check network.xml")
	// Events are lowered, not refused: check reports what the model is,
	// and pbgen sim simulates events.
	lf := lowerFlags{events: true}
	lf.register(fs)
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	path := fs.Arg(0)
	m, sys, err := load(path, &lf)
	if err != nil {
		var list parser.ErrorList
		if errors.As(err, &list) && len(list) > 1 {
			for _, e := range list {
				fmt.Fprintln(stderr, e)
			}
			if list.Truncated() { // the last line is the "too many errors, stopped here" note
				return fmt.Errorf("%s: too many errors, stopped reading", path)
			}
			return fmt.Errorf("%s: %d errors", path, len(list))
		}
		return err
	}
	s := m.Summary()
	fmt.Fprintf(stdout, "%s: model %q\n", path, sys.ODE.Name)
	fmt.Fprintf(stdout, "  states      %d\n", len(sys.ODE.States))
	fmt.Fprintf(stdout, "  parameters  %d (sensitivity)\n", len(sys.ODE.Params))
	fmt.Fprintf(stdout, "  reactions   %d\n", s.Reactions)
	fmt.Fprintf(stdout, "  rules       %d assignment, %d rate\n", s.AssignmentRules, s.RateRules)
	var steps []string
	for _, st := range sys.ODE.States {
		if st.Meta["sbml"] == "step" {
			steps = append(steps, st.Name)
		}
	}
	// The model's own events; each step state has two more, and a split
	// event (parser/lateevents.go) one, its execution.
	split := 0
	for _, e := range sys.ODE.Events {
		if e.Meta["split"] != "" {
			split++
		}
	}
	fmt.Fprintf(stdout, "  events      %d\n", len(sys.ODE.Events)-2*len(steps)-split)
	if split > 0 {
		// Only for models that have them, so other output is unchanged.
		fmt.Fprintf(stdout, "  split       %d (delayed events with their trigger time's values on fast reactions: each saves its values and has an execution event)\n", split)
	}
	if len(steps) > 0 {
		// Only for models that have them, so other output is unchanged.
		fmt.Fprintf(stdout, "  steps       %d (%s: floor and ceiling of a moving argument in the rates, states set by %d events at the integers of their arguments)\n",
			len(steps), listNames(steps, 3), 2*len(steps))
	}
	if nd := len(sys.ODE.Delays); nd > 0 {
		// Only for models that have them, so other output is unchanged.
		// Events no longer matter: fs carries S across them.
		how := "sim -method none or fs solves them"
		index := sys.ODE.DelayIndex()
		for k := range sys.ODE.Delays {
			if constant, _ := sys.ODE.DelayShape(k, index); !constant {
				how = "sim -method none solves them; fs needs delays of parameters only"
				break
			}
		}
		switch {
		case len(sys.ODE.Params) == 0:
			how = "sim -method none or fs solves them"
		case sys.ODE.Algebraic > 0:
			how = "sim -method none solves them; fs refuses delays in a DAE"
		}
		fmt.Fprintf(stdout, "  delays      %d (%s; %s)\n", nd, listNames(delayLabels(sys), 3), how)
	}
	if sys.ODE.Algebraic > 0 {
		// A DAE: pbgen sim and generated packages solve it through
		// runtime/dae; the states above include the algebraic variables.
		fmt.Fprintf(stdout, "  algebraic   %d variables (%d algebraic rules, %d fast reactions)\n", sys.ODE.Algebraic, s.AlgebraicRules, s.FastReactions)
	}
	fmt.Fprintf(stdout, "  Jx nonzeros %d of %d\n", len(sys.Jx), len(sys.ODE.States)*len(sys.ODE.States))
	fmt.Fprintf(stdout, "  Jp nonzeros %d of %d\n", len(sys.Jp), len(sys.ODE.States)*len(sys.ODE.Params))
	return nil
}
