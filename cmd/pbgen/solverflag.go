package main

import (
	"fmt"
	"strings"

	"github.com/pbgen/pbgen/runtime/ode"
)

// solverFlag is -solver: the state (and FS) integrator, named as Stan's
// ODE solvers (ode.ParseMethod).
type solverFlag struct {
	name string
	m    ode.Method
}

const solverNames = "bdf, adams, dopri5 (rk45), ckrk or auto"

func (f *solverFlag) String() string {
	if f == nil || f.name == "" {
		return "auto"
	}
	return f.name
}

func (f *solverFlag) Set(s string) error {
	m, err := ode.ParseMethod(s)
	if err != nil {
		return fmt.Errorf("%q is not a solver (want %s)", s, solverNames)
	}
	f.name, f.m = strings.ToLower(s), m
	return nil
}

// solverUsage is -solver's help text.
const solverUsage = "integrator `solver` of x (and of S with fs): " + solverNames + ". bdf (auto, the default)\n" +
	"is the CVODE-style BDF for stiff networks; adams is CVODE's variable-order Adams-Moulton with\n" +
	"fixed-point iteration, dopri5 and ckrk the Dormand-Prince and Cash-Karp explicit pairs, for\n" +
	"non-stiff models (on a stiff one they take very many steps)"
