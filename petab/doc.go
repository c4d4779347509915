// Package petab reads PEtab parameter-estimation problems (format versions
// 1 and, as far as the PEtab v2 test suite needs, 2) and lowers them to
// what the runtime evaluates: a model with observables
// (interp.Observed, a model.Model and model.Observables) and an
// objective.Problem. Load does both; Problem.Evaluate runs the
// log-likelihood, gradient and Fisher information through
// runtime/objective (eval.go is the one file that calls it). Evaluate
// builds an objective per call, which suits the command line; for
// thousands of evaluations (optimisers, MCMC) build one with
// objective.New(p.Model, p.Objective, opt) and call its Eval, with theta
// on the parameter scales. Problem.System, Problem.ObservableExprs and
// Problem.AssignExprs are the lowered model in symbolic form, which
// `pbgen petab -gen` compiles (with codegen) into a package whose New
// and Problem take the place of p.Model and p.Objective without the
// tables or the generator.
//
// # Reading
//
// The YAML file (go.yaml.in/yaml/v3, unknown keys refused) lists the
// tables; several files of one table are read in order. TSV files are read
// with encoding/csv (tab-separated, quotes taken literally where they are
// not CSV quoting, a UTF-8 byte-order mark dropped); every row must have
// the header's number of fields. v1: parameters (parameterScale lin, log,
// log10; bounds; nominalValue; estimate 0/1; objective and initialization
// priors uniform, normal, laplace, logNormal, logLaplace,
// parameterScaleUniform/Normal/Laplace), wide conditions (columns naming
// model parameters, species or compartments; a cell is a number, a
// parameter id, or NaN/empty for "keep the model's or the pre-equilibrated
// value"), observables (observableParameterN_<id> and noiseParameterN_<id>
// placeholders, observableTransformation lin/log/log10, noiseDistribution
// normal/laplace), measurements (preequilibrationConditionId,
// simulationConditionId, time including inf, observableParameters and
// noiseParameters as ';'-separated numbers or parameter ids, datasetId,
// replicateId). v2: long conditions (targetValue a number, a parameter id
// or an expression of parameters; at later periods also of states and
// time), experiments (periods, optionally after a -inf pre-equilibration
// period; conditions at the same time are merged), declared placeholders, noiseDistribution normal, laplace,
// log-normal, log-laplace, estimate true/false, priorDistribution
// including cauchy, chisquare, exponential, gamma, log-uniform, rayleigh,
// mapping tables (aliases).
//
// Formulas are parsed by symbolic.ParsePEtab (time, log(x, base), sign,
// min, max, piecewise, the PEtab operators).
//
// # Lowering
//
// The SBML model is lowered by parser (Model.ODE, compartments as
// parameters when a condition sets one). Then, on the symbolic.ODE:
//
//   - every state that a condition in use sets gets an initial-value
//     parameter petab_init_<id>, and, when some condition leaves it alone,
//     a 0/1 flag petab_set_<id>: x0 = flag*init + (1-flag)*(model's own
//     x0). A condition is therefore a parameter vector and
//     x0 = InitialState(p);
//   - a parameter-table parameter that observables use and the model lacks
//     becomes a model parameter;
//   - a v2 condition value that is an expression E_c enters through an
//     indicator parameter petab_cond_<c> (1 in condition c): a state starts
//     at init + sum I_c*E_c, a parameter k becomes k + sum I_c*(E_c - k);
//   - SBML parameters declared constant="false" that nothing changes are
//     taken as constant when PEtab names them;
//   - a condition's species value is a concentration unless the species
//     has only substance units; where the state is the amount (the
//     compartment's size changes) it is multiplied by the initial size;
//   - a condition target that the SBML lowering would fold into a
//     constant (a species no reaction changes: one that only modifies a
//     reaction, a boundary or constant species; a species, compartment or
//     parameter with an initial assignment; a compartment declared
//     constant="false" that nothing changes; a symbol without a value)
//     becomes a model parameter petab_init_<id> of its own, with the
//     0/1 flag petab_set_<id> (the model's own value where the flag is 0)
//     as for states (parser.Options.Overrides): every expression that reads
//     it (rates, assignment rules, event triggers and assignments,
//     observables) sees the condition's value, in its units in math, and
//     derivatives with respect to an estimated parameter in the cell
//     follow. A species declared by amount in a compartment a condition
//     resizes has the concentration amount/size; the condition wins over
//     an initial assignment. After pre-equilibration, a simulation
//     condition that leaves such a species alone (NaN) keeps the
//     pre-equilibration condition's value (PEtab: "the result of the
//     preequilibration"; it does not change in time); a v1 compartment or
//     parameter left at NaN takes the model's value, as plain parameters
//     do (v2: an unlisted one keeps its value, see below). Models whose
//     conditions set none of them lower as before. An assignment-rule
//     target (PEtab allows constant and differential entities only) is
//     refused by condition file, row and column.
//
// A v2 experiment's periods after the first become objective.Periods.
// Conditions are changes, so a later period's parameter vector collects
// the parameter targets of the first period and of every period up to it
// (the latest wins; a period that changes no parameter shares the
// previous vector). States it sets become an assignment set of the model
// (interp.Assignment, model.Assigner): the values are expressions of the
// state, parameters and time just before the change, assigned
// simultaneously, their derivatives formed symbolically; a species value
// is in its units (times the compartment's new size where the state is the
// amount of a concentration-based species), and a compartment whose size
// changes keeps its species' concentrations (PEtab v2, unlike an SBML
// event). A measurement at a period's start is observed after the change.
// After a v2 pre-equilibration the simulation condition is a change too:
// the pre-equilibration's parameter targets it does not set keep their
// values (v1 conditions are complete vectors), and its state values that
// depend on the state or time become a period of length 0 at the start,
// whose assignment sees the pre-equilibrated state.
//
// Placeholders are the u argument of model.Observables (named "u:<id>");
// h, sigma and their derivatives in x, p and u are formed symbolically.
// Observable formulas see SBML ids with their value in math (species in
// their units, assignment-rule targets, compartments, reactions).
//
// The objective.Problem holds the parameter table (linear bounds and
// nominal values), the estimated parameters (theta's order), every
// condition in use as Values (a constant or an estimated parameter), the
// experiments (v1: one per distinct pre-equilibration/simulation pair; v2:
// one per experiment id) with Reinit (the states the simulation condition
// sets to a value, re-initialised after pre-equilibration), T0 and
// Periods, and the data sorted by time. Problem.Rows maps each datum back to its
// measurement row.
//
// # Events
//
// SBML events are read (parser.Options.Events) and kept in the lowered
// model (model.Events, model.EventDerivs; expression condition values are
// substituted into triggers, delays, priorities and assignments as into
// rates); runtime/objective solves them with runtime/events, carrying the
// trigger values from pre-equilibration to the simulation and across
// periods, an event due at a period's start executing after that
// period's condition (PEtab v2, "Events and finalization"). A parameter
// that PEtab names (condition target or parameter table) and that the
// model sets by a numeric initial assignment keeps that number as its
// value where PEtab does not set it, the assignment dropped (PEtab's
// pre-initialization replaces initial assignments):
// Liu_IFACPapersOnLine2025's u_2. A delayed event still
// queued at a period change is not supported (an error at evaluation).
//
// A relation of time against an estimated parameter in a rate (the
// switching time of a piecewise input, t < t_1) becomes a 0/1 state that two events keep
// equal to the relation, so that the switch is located and its time has a
// sensitivity (switches.go), unless LoadOptions.KeepTimeRelations
// (pbgen petab -switches=false); relations of time against constants stay
// in the rates. A relation left in a rate is a switch of f
// (model.Switches), which the objective locates too (runtime/events), so
// that both forms give the same sensitivities.
//
// # Algebraic rules, fast reactions, delays
//
// A model with algebraic rules or fast reactions lowers to a DAE (its
// algebraic variables the last states; parser/doc.go), which
// runtime/objective solves through runtime/dae, the algebraic variables
// re-solved wherever the model is evaluated: a condition that changes
// parameters or sets species, a re-initialisation, a period's assignment
// or an event is followed by consistent algebraic values without a step of
// its own, and observables on algebraic variables are differentiated
// through them, so the llh, gradient and FIM work for every method
// (dae.go). A condition cannot set a variable an algebraic rule
// determines (its declared value is only a first guess): Load refuses it
// by name. A condition may set a species of fast reactions: at an
// experiment's start its value replaces the declared one in the
// conserved pools fast_pool<k>'s initial values; after
// pre-equilibration and at a later period it becomes an assignment of the
// pools, y_k := y_k + c_ki a_i (value - z_i), the other fast species
// kept; either way the species then take the equilibrium of the pools.
// Load refuses by name what the model's own events handle but a
// condition would not: in a model with a fast reaction that events
// switch off (a state fast_held_<id>, holding what it would move, taken
// anew only at the events), a condition on a fast species,
// pre-equilibration and later periods; a condition on a fast species
// whose pools depend on a stoichiometry events set, and a condition on
// that stoichiometry (checkHeld, checkFastStoich).
//
// A model with csymbol delay is evaluated through runtime/dde: the llh
// and simulated values by dde.Solve, the gradient and FIM by forward
// sensitivity through the delays (dde.SolveSens, whatever the method) in
// the estimated parameters, through conditions, overrides and initial
// values as for an ODE, across events too. Where runtime/dde cannot
// differentiate (a delay whose length depends on the state or time,
// algebraic rules beside the delays) a gradient or FIM request is an error at evaluation
// (objective.ErrDelaySens, saying why); Summary says which. Load refuses,
// by row, pre-equilibration, data at steady state, experiments with
// several periods and observable or noise formulas that read a delayed
// value. A condition that sets a delayed species' initial value sets
// x(T0) but not the history before T0, which stays the model's initial
// value (SBML's).
//
// # Not supported
//
// Parameter values depending
// on states or time (state values may at later periods and after
// pre-equilibration; PEtab forbids them in an experiment's first period),
// a later period's parameter value that is an expression of a parameter a
// condition of the experiment sets, several models and required v2
// extensions, conditions setting a variable an algebraic rule
// determines, and the delay cases above. Each is an error that says "not supported" (or "cannot")
// where it is detected.
//
// # Tables
//
// Tables are read as the PEtab library reads them with pandas (short rows,
// blank lines, quotes, CRLF, a BOM are accepted; what pandas or petab's
// linter refuse is an error at its row and column); docs/petab-tables.md
// has the forms.
//
// # Errors
//
// Every data-dependent failure is an ErrorList of *Error (file, line,
// column, message), sorted, at most MaxErrors; Load does not stop at the
// first. Accepted oddities (an estimated parameter's nominal value outside
// its bounds) are Problem.Warnings.
package petab
