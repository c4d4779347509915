// Package model is the contract between pbgen-generated packages (and the
// interpreted model) and the solvers in runtime/ode and runtime/sens.
//
// It is the only package generated code imports. Keep it small and stable:
// bump GenVersion when generated code needs a new API from it.
//
// # Layouts
//
// States x (length NumStates) and parameters p (length NumParams) are in the
// order of StateNames and ParamNames. Jacobian values are written in the
// order of their sparsity pattern (CSR: row = equation i of f, column =
// state or parameter j). Dense matrices in the runtime (S, dx0/dp) are
// row-major nx x np: row i = state i, column j = parameter j.
//
// # Allocation and concurrency
//
// Every method writes into caller-owned slices named dst and must not
// modify its other arguments. A Model value must be safe for concurrent use
// by several goroutines: it has no mutable state. Per-solve scratch space
// lives in the solver.
package model

// Version gate. Generated files contain
//
//	const _ = model.EnforceVersion(genVersion - model.MinVersion)
//	const _ = model.EnforceVersion(model.MaxVersion - genVersion)
//
// so that a generated package out of step with this runtime fails to
// compile instead of computing wrong numbers.
const (
	// GenVersion is the version of generated code this runtime emits.
	GenVersion = 1
	// MinVersion is the oldest generated-code version this runtime accepts.
	MinVersion = 1
	// MaxVersion is the newest generated-code version this runtime accepts.
	MaxVersion = 1
)

// EnforceVersion is used by generated code for the compile-time version
// check; a negative constant converted to it fails to compile.
type EnforceVersion uint

// Model is a reaction network's ODE system dx/dt = f(t, x, p) with its
// sparse Jacobians Jx = df/dx and Jp = df/dp.
type Model interface {
	// Name is the model's id (or the package name).
	Name() string
	// StateNames are the ids of the states, in state order.
	StateNames() []string
	// ParamNames are the ids of the sensitivity parameters, in order.
	ParamNames() []string
	// DefaultParams writes the default parameter values into dst.
	DefaultParams(dst []float64)
	// InitialState writes x(t0) for parameters p into dst.
	InitialState(dst []float64, p []float64)
	// InitialSens writes dx(t0)/dp (row-major nx x np) into dst; it is
	// zero unless initial values depend on parameters.
	InitialSens(dst []float64, p []float64)
	// F writes f(t, x, p) into dst.
	F(dst []float64, t float64, x, p []float64)
	// JxPattern is the fixed sparsity pattern of Jx (NumStates x NumStates).
	JxPattern() *Pattern
	// Jx writes the values of df/dx at (t, x, p) in JxPattern order.
	Jx(dst []float64, t float64, x, p []float64)
	// JpPattern is the fixed sparsity pattern of Jp (NumStates x NumParams).
	JpPattern() *Pattern
	// Jp writes the values of df/dp at (t, x, p) in JpPattern order.
	Jp(dst []float64, t float64, x, p []float64)
}

// NumStates returns len(m.StateNames()).
func NumStates(m Model) int { return len(m.StateNames()) }

// NumParams returns len(m.ParamNames()).
func NumParams(m Model) int { return len(m.ParamNames()) }

// Observer is implemented by models that also report named quantities
// besides the states (assignment-rule species, amounts and concentrations,
// compartment sizes, parameters): what SBML tools call observables.
type Observer interface {
	// Outputs are the names of the observables, in order.
	Outputs() []string
	// OutputsTo writes the observables at (t, x, p) into dst.
	OutputsTo(dst []float64, t float64, x, p []float64)
}
