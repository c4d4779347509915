package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/pbgen/pbgen/parser"
	"github.com/pbgen/pbgen/symbolic"
)

// lowerFlags are the flags that choose the sensitivity parameters; every
// command that reads a network accepts them.
type lowerFlags struct {
	params       string
	compartments bool
	initials     bool
	// events lowers SBML events (parser.Options.Events) instead of
	// refusing them. The commands that handle them set it: sim (through
	// runtime/events), check (to count them) and gen (the package
	// implements model.Events; sens.Solver refuses such a model, so it
	// cannot be integrated over its events by mistake). The PEtab path
	// does not: the objective has no events yet.
	events bool
}

func (l *lowerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.params, "params", "", "comma-separated `ids` of the sensitivity parameters (default: every constant global parameter, in document order)")
	fs.BoolVar(&l.compartments, "sens-compartments", false, "add constant compartment sizes to the sensitivity parameters")
	fs.BoolVar(&l.initials, "sens-initials", false, "add the initial values of the states to the sensitivity parameters (named init_<id>)")
}

func (l *lowerFlags) options() *parser.Options {
	o := &parser.Options{SensCompartments: l.compartments, SensInitials: l.initials, Events: l.events}
	if l.params != "" {
		for _, id := range strings.Split(l.params, ",") {
			o.Params = append(o.Params, strings.TrimSpace(id))
		}
	}
	return o
}

// load reads, lowers and differentiates a network.
func load(path string, l *lowerFlags) (*parser.Model, *symbolic.System, error) {
	m, err := parser.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	opt := l.options()
	ode, err := m.ODE(opt)
	if err != nil {
		if opt.Params != nil {
			if perr := l.checkParams(m, path); perr != nil {
				return m, nil, perr
			}
		}
		return m, nil, err
	}
	sys, err := symbolic.Build(ode)
	if err != nil {
		return m, nil, err
	}
	return m, sys, nil
}

// checkParams explains a -params list the model refused: it names the
// first id that is not a candidate, lists the candidates (at most 20), and
// points to -p when the list looks like values (name=value), the usual
// mix-up of the two flags. It returns nil when it finds nothing to add to
// the parser's own error.
func (l *lowerFlags) checkParams(m *parser.Model, path string) error {
	all := &parser.Options{SensCompartments: l.compartments, SensInitials: l.initials, Events: l.events}
	ode, err := m.ODE(all)
	if err != nil {
		return nil
	}
	cands := make([]string, len(ode.Params))
	for i, p := range ode.Params {
		cands[i] = p.Name
	}
	for _, id := range l.options().Params {
		if id == "" {
			return fmt.Errorf("-params %q: empty id in the list", l.params)
		}
		if indexOf(cands, id) >= 0 {
			continue
		}
		if strings.Contains(id, "=") {
			return fmt.Errorf("-params %q: -params takes ids only; to set a value use -p %q", id, id)
		}
		return fmt.Errorf("%s: -params %q: not a sensitivity parameter candidate of the model (have %s)", path, id, listNames(cands, 20))
	}
	return nil
}
