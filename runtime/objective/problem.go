package objective

// Scale is a parameter's estimation scale (PEtab parameterScale).
type Scale int

const (
	Lin Scale = iota
	Log
	Log10
)

// Transform is an observable's transformation (PEtab
// observableTransformation): the likelihood compares transformed values.
type Transform int

const (
	TransformLin Transform = iota
	TransformLog
	TransformLog10
)

// Noise is an observable's noise distribution (PEtab noiseDistribution).
type Noise int

const (
	Normal Noise = iota
	Laplace
)

// PriorKind is a PEtab prior type.
type PriorKind int

const (
	NoPrior PriorKind = iota
	Uniform
	NormalPrior
	LaplacePrior
	LogNormal
	LogLaplace
	ParameterScaleUniform
	ParameterScaleNormal
	ParameterScaleLaplace
	// PEtab v2 prior distributions (of the linear value; v2's normal,
	// laplace, log-normal, log-laplace and uniform are the kinds above).
	Cauchy      // location, scale
	ChiSquare   // degrees of freedom
	Exponential // scale
	Gamma       // shape, scale
	LogUniform  // lower bound, upper bound
	Rayleigh    // scale
)

// Prior is a prior distribution with PEtab's two parameters.
type Prior struct {
	Kind PriorKind
	Par  [2]float64
	// Truncate restricts the prior to the parameter's [Lower, Upper] and
	// renormalises it (PEtab v2: pi(x) / (CDF(Upper) - CDF(Lower)));
	// v1 priors are not truncated. For the parameterScale kinds the bounds
	// are taken on the parameter scale.
	Truncate bool
}

// Param is a row of the parameter table.
type Param struct {
	ID           string
	Scale        Scale
	Lower, Upper float64 // linear scale
	Nominal      float64 // linear scale
	Estimate     bool
	Prior        Prior // objective prior (NoPrior when absent)
	InitPrior    Prior // initialization prior (NoPrior when absent)
}

// Value is a number or the linear-scale value of an estimated parameter.
type Value struct {
	// Theta is the index of an estimated parameter in Problem.Estimated,
	// or -1 for a constant.
	Theta int
	// Const is the value when Theta < 0.
	Const float64
}

// Condition is an experimental condition lowered to the model's parameter
// vector: every model parameter's value in this condition. Species and
// compartments that a PEtab condition sets are model parameters too (the
// lowering adds an initial-value parameter for each species it sets), so
// a condition is a parameter vector and x0 = InitialState(p).
type Condition struct {
	ID string
	P  []Value // length np of the model
}

// Observable is how an observable's values enter the likelihood.
type Observable struct {
	ID        string
	Transform Transform
	Noise     Noise
}

// Datum is one measurement.
type Datum struct {
	Obs int     // index into Problem.Observables (and model.Observables)
	T   float64 // +Inf: at steady state
	Y   float64 // measured value (untransformed)
	// U are the placeholder values: observable placeholders, then noise
	// placeholders (model.Observables.Placeholders).
	U []Value
}

// Experiment is a (pre-equilibration, simulation) condition pair with its
// measurements, optionally followed by condition changes (Periods).
type Experiment struct {
	Preeq int // condition index, -1 for none
	Sim   int // condition index
	// Reinit lists the states re-initialised from x0 = InitialState(p_sim)
	// (and their sensitivities) after pre-equilibration; the others keep
	// their pre-equilibrated values. Ignored when Preeq < 0.
	Reinit []int
	T0     float64 // simulation start time
	Data   []Datum // ascending in T
	// Periods are the periods after the first (condition Sim from T0),
	// ascending in T0, each starting after the previous one (PEtab v2
	// experiments with several periods). Nil: Sim holds throughout. A
	// datum at a period's T0 belongs to that period: it is observed after
	// the change. Data at T = +Inf are at the steady state of the last
	// period's condition. The first period may start at T0 itself: its
	// assignment then applies to the starting state (after
	// pre-equilibration, the pre-equilibrated one with Reinit applied).
	Periods []Period
}

// Period is a change of condition during an experiment: from T0 on the
// model's parameters are those of condition Cond, and at T0 assignment
// set Assign of the model (model.Assigner; -1 for none) sets states from
// the state and parameters just before T0. States it does not assign keep
// their values and sensitivities.
type Period struct {
	T0     float64
	Cond   int // condition index
	Assign int // the model's assignment set, -1 for none
}

// Problem is an estimation problem in the runtime's terms.
type Problem struct {
	Params      []Param // the parameter table, in its order
	Estimated   []int   // indices into Params of the estimated ones: theta's order
	Observables []Observable
	Conditions  []Condition
	Experiments []Experiment
}
