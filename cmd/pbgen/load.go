package main

import (
	"flag"
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
}

func (l *lowerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.params, "params", "", "comma-separated `ids` of the sensitivity parameters (default: every constant global parameter, in document order)")
	fs.BoolVar(&l.compartments, "sens-compartments", false, "add constant compartment sizes to the sensitivity parameters")
	fs.BoolVar(&l.initials, "sens-initials", false, "add the initial values of the states to the sensitivity parameters")
}

func (l *lowerFlags) options() *parser.Options {
	o := &parser.Options{SensCompartments: l.compartments, SensInitials: l.initials}
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
	ode, err := m.ODE(l.options())
	if err != nil {
		return m, nil, err
	}
	sys, err := symbolic.Build(ode)
	if err != nil {
		return m, nil, err
	}
	return m, sys, nil
}
