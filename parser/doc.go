// Package parser reads SBML documents (Level 2 versions 1-5 and Level 3
// versions 1-2, core, and the Level 3 comp package, flattened) and lowers
// them to a symbolic.ODE. The SBML
// semantics (units of species in math, compartments, rules, conversion
// factors) live here; symbolic only sees states, parameters and time.
//
// # Reading
//
// Read and ReadFile parse a document into a Model: ids, declared values,
// flags, and math as symbolic expressions over KindOther symbols named by
// SBML id. Function definitions are expanded at their calls (memoised on
// the arguments, so nested calls stay small), reaction-local parameters
// (L3 localParameter, L2 kineticLaw parameters, shadowing global ids) are
// replaced by their values, csymbol avogadro by 6.02214179e23 (the value
// fixed by both L3v1 and L3v2) and csymbol time by the time symbol.
// (Expansion is bounded: see Limits on hostile input.)
// Annotations and notes are ignored, and so are elements of the layout
// and render packages and of any package the document declares
// required="false" (SBML promises such a package does not change the
// meaning of the core model).
//
// csymbol rateOf (L3v2) is read as the rate of change of its argument's
// value in math, formed while lowering (rateof.go): for a state its rate
// (through the chain rule when the state is an amount and the value a
// concentration), 0 for anything constant or a local parameter, and at
// t = 0 in initial assignments. Its argument must be a <ci>; rateOf of a
// variable set by an assignment rule (or of a concentration whose
// compartment one sets) is an error, as SBML's validation rules 10224
// and 10225 make it, and so is a rate that depends on itself through
// rateOf, naming the ids of the cycle.
//
// csymbol delay, delay(e, tau), is the value of e at t - tau (delay.go):
// each distinct use becomes a delayed value in ODE.Delays (symbolic
// KindDelay symbols in the rates and outputs), with e and tau lowered like
// rates, sorted so that each reads only delayed values listed before it,
// and e's history before the start: e with every variable at its initial
// value as a function of time (an initial assignment sin(t) has been
// sin(t) before the start, as the SBML Test Suite expects), nested delays
// at their own history, rateOf at the time derivative of its target's.
// A delay in a comp submodel is scaled by its time conversion factors.
// runtime/dde solves such models, and their forward sensitivities when
// the delays depend on parameters only.
//
// stoichiometryMath (L2) is read as an assignment rule to the species
// reference: the reference's id, or "stoichiometry(R:S)" for species S
// in reaction R when it has none (stoichmath.go). The math is evaluated
// at every time and the stoichiometry is also an output.
//
// # Hierarchical models (comp)
//
// A document that declares the comp package is read whole and flattened
// into one Model, as libSBML's flattening converter does (comp.go has the
// details): submodels of model definitions in the document or in
// external files in the same folder, nested to any depth, become their
// components with ids prefixed "sub__" per level ("A__B__x"); ports,
// replacedElement (with conversion factors), replacedBy and deletions
// (by id, metaid or port, through nested sBaseRef) are applied; time and
// extent conversion factors scale the submodels' time, rates and kinetic
// laws. A kinetic law's local parameter reached by metaid can be
// replaced, deleted or replace an element of the containing model (it
// then becomes a global parameter). Replacing or deleting a whole
// submodel or a port, and a local parameter replacing a submodel's
// element, are refused by name. Errors name the file and line of the component they concern,
// in an external file that file.
//
// MathML: cn (integer, real, e-notation, rational), ci, csymbol time and
// avogadro, the constants true, false, pi, exponentiale, infinity and
// notanumber, plus, minus, times, divide, power, root (degree, default 2),
// exp, ln, log (logbase, default 10), abs, floor, ceiling, factorial, the
// trigonometric and hyperbolic functions and their inverses, piecewise,
// eq, neq, lt, gt, leq, geq (n-ary ones become conjunctions of pairwise
// relations), and, or, xor, not, and the L3v2 additions max, min,
// implies, quotient and rem (quotient truncates toward zero; rem has the
// sign of the dividend). Truth values are 1 and 0.
//
// An <apply> whose first child is another <apply> is read as libSBML
// reads it: libSBML parses the first child of an <apply> into the node it
// is building, so the result is the inner operator applied to the inner
// arguments followed by the outer ones (<apply><apply><plus/> a b</apply>
// c</apply> is a+b+c; with no outer arguments the outer <apply> is a pair
// of parentheses, as in Beer_MolBioSystems2014 of the PEtab benchmark
// collection). A number, constant or <piecewise> as the first child is an
// error, as in libSBML.
//
// # Numbers
//
// Number attributes are XML Schema doubles (ParseDouble): optional sign,
// decimal digits, optional exponent, or INF, +INF, -INF, NaN; Go's other
// spellings (0_5, 0x1p-1, infinity) are errors. <cn> of type real (the
// default) takes the same forms; e-notation a decimal mantissa and an
// integer exponent (their value is mantissa*10^exponent, as in libSBML);
// integer and rational take integers in the base attribute's base (2-36,
// MathML 2). A literal that overflows float64 (1e999) is an error with
// its line, not an infinity.
//
// # Refused constructs
//
// Events unless Options.Events is set (see below; in a model with
// csymbol delay their math may read delayed values, runtime/dde solves
// it), other MathML elements, the algebraic rules and fast
// reactions that lowering cannot pose as an index-1 DAE (see below), SBML
// Level 1 and every
// package other than comp, layout, render and those declared
// required="false" (a required package is refused even when no element of
// it appears) are refused with an error that says "... is not supported"
// and names the element, its id and its line.
//
// # Errors
//
// Every data-dependent failure is an ErrorList of *Error, sorted, printed
// as "file:line: element "id": what is wrong (and N more errors)"; its
// Unwrap gives each error, so a command line prints them one per line
// (pbgen check does). A list holds at most MaxErrors errors; then it ends
// with a note "too many errors, stopped here: ..." and reading stops.
// Misuse of the API panics with a "parser: " prefix.
//
// # Limits on hostile input
//
// A document may have at most MaxBytes bytes and MaxDepth levels of
// element nesting (MathML included); a function call may have at most
// 1024 arguments; recursive function definitions are refused, and math
// may nest at most symbolic.MaxDepth levels counting the bodies of the
// functions it calls (a chain of definitions each calling the previous
// one recurses that deep when expanded). The
// document is read as a stream: the outer levels (<sbml>, <model>, the
// lists) one element at a time, each component (a species, a reaction
// with its math) as a small tree that is dropped once read, so memory
// follows the model, not the file, and reading stops at the first
// malformed token or after MaxErrors errors. Inside a component, the
// first element that cannot be valid where it is (an SBML element its
// parent does not take, a foreign element, an unknown MathML element) is
// reported and later ones under the same parent are not even built.
//
// Function expansion is memoised on the arguments, but a DAG can still
// be exponentially large: f_i(x) = f_{i-1}(f_{i-1}(x)) has 2^i distinct
// nodes. The expressions built while reading, and again while lowering,
// may total MaxExprSize (symbolic.Builder.Size units); a function
// definition whose expansion would pass it is refused at its line with
// the size it would reach, and any other expansion (a chain of rules, a
// composition whose sums flatten quadratically) stops with an error at
// the line of the math being expanded. symbolic.Build has a bound of its
// own for derivatives.
//
// A value INF, -INF or NaN is accepted where SBML allows it, but if a
// state's rate or initial value depends on it ODE reports it at the
// value's own element and line (a parameter, a species' initial amount or
// concentration, a local parameter): the integration would otherwise
// fail at t = 0 far from its cause. Values nothing in the ODE uses stay
// allowed (SBML Test Suite case 00951 has them).
//
// Lowering is linear in the size of the network: species references are
// indexed by species once.
//
// # Lowering: states
//
// ODE chooses the states, in this order, each group in document order:
// species, compartments, parameters, species references. A species is a
// state when a reaction changes it (it is a reactant or product and
// neither boundaryCondition nor constant) or a rate rule sets it; a
// compartment, parameter or species reference when a rate rule sets it.
// Species with assignment rules, boundary and constant species are not
// states.
//
// A species' state is its concentration when its compartment has no rule
// and hasOnlySubstanceUnits is false; then
//
//	d[S]/dt = sum over reactions of stoichiometry * rate * conversion factor / size.
//
// It is its amount when hasOnlySubstanceUnits is true, the compartment is
// 0-dimensional, or the compartment changes in time (rate or assignment
// rule); then d(amount)/dt = sum of stoichiometry * rate * conversion
// factor and its value in math is amount/size (with the size at the same
// time). A species set by a rate rule has its value in math as state (a
// concentration unless hasOnlySubstanceUnits: the rule is the derivative
// of that value). State.Meta["units"] says "amount" or "concentration".
// A species nothing changes keeps its amount, so in a compartment whose
// size changes its concentration is amount0/size(t).
//
// Kinetic laws are in substance per time. The stoichiometry of a species
// reference with an id is the value of that id (which rules may set);
// otherwise its stoichiometry attribute (default 1 in L2; an unset L3
// stoichiometry is also taken as 1).
//
// # Lowering: parameters
//
// The sensitivity parameters are the global parameters that are constant
// (constant="true", the L2 default), have a value and are set by no rule
// or initial assignment, in document order; with Options.SensCompartments
// then the constant compartment sizes on the same terms; with
// Options.SensInitials then the initial values of state species given as
// numbers in the document, named "init_<id>", in the species' units in
// math. Options.Params selects and orders a subset. Every other quantity
// (local parameters, other constants) is folded to its value, unless
// Options.Overrides names it: then its value is a sensitivity parameter
// of the caller's naming, appended after the others, optionally with a
// 0/1 switch back to the model's own value (see Override; PEtab
// conditions set species no reaction changes, compartments and
// parameters with initial assignments this way).
//
// # Lowering: values and initial values
//
// Initial values are formed at t = 0 in dependency order: an initial
// assignment if any, else an assignment rule, else the declared value
// (initialAmount and initialConcentration convert through the
// compartment's initial size). They stay expressions of p, so x0 may
// depend on the parameters. Assignment rules are substituted into the
// rates in dependency order; a cycle is an error naming its ids. A state
// whose initial value is not finite at the default parameters (division
// by zero, an undefined value) is an error. An L2 compartment without a
// size has size 1 (as an L1 volume), except in 0 dimensions.
//
// # Lowering: events
//
// Events are read whole (trigger with initialValue and persistent,
// delay, priority, useValuesFromTriggerTime, event assignments; Level 2
// events read as initialValue and persistent true). ODE lowers them into
// ODE.Events in document order, named by id or "event#k" (k from 1),
// only when Options.Events is set; otherwise it refuses each event ("event
// is not supported"), since a caller that does not simulate them
// (runtime/ode or runtime/sens alone) would silently simulate another
// model.
// Every variable an event assigns becomes a state (rate 0 unless
// reactions or a rate rule change it), and a compartment an event
// resizes counts as varying, so the species inside have amounts as
// states: an event that resizes a compartment leaves amounts unchanged
// and concentrations follow. Trigger, delay, priority and assigned values
// are expressions of (t, x, p) with rules substituted, like the rates; a
// value assigned to a species is in its units in math and is converted to
// the state's units with the compartment size before the event (every
// assignment of one event sees the values before it). A species whose
// state is a concentration (a rate rule sets it) in a compartment the
// event resizes is rescaled so that its amount is kept. An L3v2 trigger
// without math never fires; an assignment without math does nothing.
// Event assignments to constants, to variables set by assignment rules,
// or twice in one event are errors.
//
// # Lowering: algebraic rules and fast reactions
//
// Both become a semi-explicit DAE, dx/dt = f, 0 = g, with the algebraic
// variables as the last states of the ODE (symbolic.ODE.Algebraic; their
// Rate is the residual g, their Init a first guess); runtime/dae solves it
// by eliminating them.
//
// An algebraic rule determines a variable nothing else determines
// (algebraic.go): the candidates are the non-constant species,
// compartments, parameters and species references in its math (through
// assignment rules and reaction rates) with no assignment or rate rule,
// not set by events, and for species not changed by reactions; rules
// are matched to candidates (a perfect matching, by augmenting paths in
// document order). A rule left without a variable is refused. The
// variable's declared or initially assigned value is only the first guess
// of its consistent value at t0; another state's initial value that
// still depends on it after simplification is refused, and so is csymbol
// rateOf of it.
//
// Fast reactions (fast.go) are at rapid equilibrium: the amounts the
// slow reactions change along the null space of the fast stoichiometry
// become differential states "fast_pool<k>" (dy/dt = L N_s v_s, y(0) =
// L n(0)), and the fast species algebraic ones, with the residuals
// L n - y and the fast rates. The first guess follows the fast reactions'
// flow from the declared values (at the default parameters), so that
// Newton's method finds the equilibrium they reach, not another root of
// their rates. A fast reaction whose rate is identically 0, or that
// changes no species, is an ordinary one. A stoichiometry that an
// initial assignment or events set enters L as an expression; an event
// that sets a fast species or such a stoichiometry sets the pools from
// the values after its assignments, and the fast species go to the
// equilibrium that keeps them. A fast reaction whose rate has a factor
// that only events change is switched off while that factor is 0 (it
// runs nowhere then: its equation becomes one that holds the amount it
// would move, in a state "fast_held_<id>" that the events switching it
// set anew). A delayed event that uses its trigger time's values and
// sets any of these is split (lateevents.go): the event saves its values
// in states, and an execution event right after it sets the targets
// from them and the pools and held amounts from them and the fast
// species at the execution time.
// Refused: stoichiometries that a rule
// sets (unless to a constant), linearly dependent fast reactions,
// conversion factors that are not constants, a fast species that a rule
// sets, csymbol rateOf of a fast species.
//
// # Lowering: floor, ceiling, quotient and rem
//
// floor and ceiling jump at every integer of their argument; quotient and
// rem are read through them (quotient(a, b) is floor(a/b) where a/b >= 0,
// ceiling(a/b) below, and rem(a, b) is a - b quotient(a, b)). In a rate
// (a reaction's, a rate rule's, an algebraic rule's, with assignment
// rules substituted), one whose argument depends on time, a state or a
// delayed value is lowered, when Options.Events is set (the caller
// simulates events; without it they stay in the rates, and S misses
// their jumps), by symbolic.LowerSteps into a state that holds
// its value, floor_<k> or ceil_<k> (k from 1 in the order the rates meet
// them, '_' appended until the name is no SBML id; State.Meta["sbml"] is
// "step", State.Held is set), with rate 0, its value at t0 as initial
// value, and two events that set it anew where the argument crosses the
// next integer up or down. The solvers locate those crossings like any
// event, one integer at a time, and S jumps there by (f- - f+) dtau/dp:
// the times of the jumps move with the parameters when the argument
// depends on them or on the state (dX/dt = k floor(t/T) has dX/dT = -3
// at t = 3, T = 1.3, which the derivative of floor alone, 0, misses).
// The states are columns of `pbgen sim` and states of generated code
// (their S rows are 0); the model's own events keep their order and
// priorities (these events have none). floor and ceiling of parameters
// alone, and those in initial values, events and outputs, keep their
// value and their derivative 0, which is right wherever it exists.
//
// # Lowering: outputs
//
// ODE.Outputs has, in the order of the states above plus reactions last,
// one output per SBML symbol named by its id (species in their units in
// math, compartment sizes, parameters, species-reference stoichiometries,
// reaction rates), and for every species also "amount:<id>" and
// "conc:<id>". An output whose value is undefined is NaN. State and
// parameter names are the SBML ids.
//
// A model with no states (only rules, say) lowers to an ODE with no
// states. A Model is not safe for concurrent use: ODE adds nodes to its
// Builder.
package parser
