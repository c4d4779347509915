package parser

import "github.com/pbgen/pbgen/symbolic"

// Model is an SBML model as read from the document: identifiers, declared
// values and flags, and math as symbolic expressions.
//
// Math trees (Reaction.Rate, Rule.Math, InitialAssignment.Math) are built
// by B over symbols of kind symbolic.KindOther named by SBML id, the time
// symbol B.Time(), and constants. Function definitions are already
// expanded, reaction-local parameters already replaced by their values,
// and csymbol avogadro by its value. A nil Math means the element had no
// math (allowed by SBML L3v2); such an element has no effect.
type Model struct {
	File             string // file name given to Read, used in messages
	Level, Version   int
	ID, Name         string
	Line             int    // line of <model>
	ConversionFactor string // L3 model-wide conversion factor (a parameter id), or ""

	FunctionDefinitions []*FunctionDefinition
	Compartments        []*Compartment
	Species             []*Species
	Parameters          []*Parameter
	Reactions           []*Reaction
	InitialAssignments  []*InitialAssignment
	Rules               []*Rule
	AlgebraicRules      []*AlgebraicRule
	Events              []*Event

	B *symbolic.Builder // owns every node of the model's math and of the ODEs lowered from it

	rateOfLine map[string]int // targets of csymbol rateOf: id -> line of the first use (rateof.go)
	delays     []*delayUse    // uses of csymbol delay, one per distinct (argument, delay) pair (delay.go)
	delayIdx   map[[2]*symbolic.Node]*delayUse
}

// FunctionDefinition is a <functionDefinition>; calls to it are expanded
// in the math of the model.
type FunctionDefinition struct {
	ID   string
	Line int
	Args []string // names of the bound variables, in order
}

// Compartment is a <compartment>.
type Compartment struct {
	ID, Name          string
	Line              int
	Size              float64 // meaningful when HasSize
	HasSize           bool
	SpatialDimensions float64 // 3 unless stated; 0 makes the species inside count amounts
	Constant          bool
}

// Species is a <species>. Exactly one of HasInitialAmount and
// HasInitialConcentration is set when the document gives an initial value.
type Species struct {
	ID, Name                string
	Line                    int
	Compartment             string
	InitialAmount           float64
	HasInitialAmount        bool
	InitialConcentration    float64
	HasInitialConcentration bool
	HasOnlySubstanceUnits   bool
	BoundaryCondition       bool
	Constant                bool
	ConversionFactor        string // L3 parameter id, or ""
}

// Parameter is a global <parameter>, or a reaction-local parameter
// (<localParameter> in L3, <parameter> inside <kineticLaw> in L2).
type Parameter struct {
	ID, Name string
	Line     int
	Value    float64 // meaningful when HasValue
	HasValue bool
	Constant bool
}

// SpeciesReference is a reactant or product of a reaction. An ID, when
// present, names the stoichiometry in math and as a rule target.
type SpeciesReference struct {
	ID               string
	Line             int
	Species          string
	Stoichiometry    float64 // meaningful when HasStoichiometry
	HasStoichiometry bool
	Constant         bool
}

// Reaction is a <reaction>. Rate is its kinetic law in substance per time
// (nil when the kinetic law has no math).
type Reaction struct {
	ID, Name    string
	Line        int
	Reversible  bool
	Fast        bool // L2 and L3v1 fast="true": at rapid equilibrium (lowered in fast.go)
	Reactants   []*SpeciesReference
	Products    []*SpeciesReference
	Modifiers   []string
	Rate        *symbolic.Node
	RateLine    int          // line of <kineticLaw>
	LocalParams []*Parameter // for information: their values are already in Rate

	nonFinite []*Parameter // local parameters with INF or NaN values that Rate uses
}

// InitialAssignment is an <initialAssignment> to Symbol.
type InitialAssignment struct {
	Symbol string
	Line   int
	Math   *symbolic.Node
}

// RuleKind distinguishes assignment and rate rules.
type RuleKind uint8

const (
	AssignmentRule RuleKind = iota + 1 // Variable = Math at all times
	RateRule                           // d Variable / dt = Math
)

func (k RuleKind) String() string {
	if k == RateRule {
		return "rateRule"
	}
	return "assignmentRule"
}

// Rule is an <assignmentRule> or <rateRule>.
type Rule struct {
	Kind     RuleKind
	Variable string
	Line     int
	Math     *symbolic.Node
}

// AlgebraicRule is an <algebraicRule>: 0 = Math at all times. Which
// variable it determines is decided while lowering (algebraic.go).
type AlgebraicRule struct {
	Line int
	Math *symbolic.Node
}

// Summary counts the components of a model (for `pbgen check`).
type Summary struct {
	Species, Parameters, Compartments, Reactions   int
	AssignmentRules, RateRules, InitialAssignments int
	AlgebraicRules, FastReactions                  int
	FunctionDefinitions                            int
	LocalParameters                                int
	Events                                         int
}

// Summary counts the model's components.
func (m *Model) Summary() Summary {
	s := Summary{
		Species:             len(m.Species),
		Parameters:          len(m.Parameters),
		Compartments:        len(m.Compartments),
		Reactions:           len(m.Reactions),
		InitialAssignments:  len(m.InitialAssignments),
		FunctionDefinitions: len(m.FunctionDefinitions),
		Events:              len(m.Events),
		AlgebraicRules:      len(m.AlgebraicRules),
	}
	for _, r := range m.Rules {
		if r.Kind == RateRule {
			s.RateRules++
		} else {
			s.AssignmentRules++
		}
	}
	for _, r := range m.Reactions {
		if r.Fast {
			s.FastReactions++
		}
		s.LocalParameters += len(r.LocalParams)
	}
	return s
}
