// Package tables reads the reference reaction networks of the paper from
// tab-separated tables, evaluates their right-hand side directly, and
// writes them as SBML.
//
// It is the independent oracle for pbgen's SBML path: it has its own small
// infix parser and tree evaluator and imports nothing of pbgen's symbolic
// or parser packages, so that f(x, p, t) computed here from the tables can
// be compared with f computed by the SBML reader, the symbolic system and
// the interpreter from the SBML this package wrote.
//
// # Tables
//
// A network is a folder with these tab-separated files, each with a header
// row (checked, case-insensitive) and one row per item; blank lines are
// skipped:
//
//	State.tsv       index  id  initial value
//	Parameter.tsv   index  id  default value
//	Constant.tsv    id  value                     (optional)
//	Expression.tsv  id  formula                   (optional)
//	Reaction.tsv    id  flux  stoichiometry (state:coefficient)
//
// Indices must be 1..n; they fix the state order (rows of the sensitivity
// matrix) and the parameter order (its columns). The stoichiometry column
// lists "state:coefficient" pairs separated by spaces, e.g. "A:-1 B:+1",
// giving N[state][reaction]. The ODE is
//
//	dx_i/dt = sum over reactions r of N[i][r] * flux_r(x, p, t).
//
// Formulas are infix with + - * / ^, unary minus, parentheses, exp(...),
// numbers and names; t is time. Expressions are evaluated in the listed
// order and may use states, parameters, constants, t and earlier
// expressions; fluxes may use all of them. All ids share one namespace and
// must be SBML SIds; t and exp are reserved. Errors name the file and line.
//
// # Eliminated species
//
// Some expressions are species eliminated through a conservation law
// (Rii_C in PKA, CaM in CaMKII). The tables do not say which, so Load
// decides by rule: an expression is an eliminated species
// (Expression.Species) when its id appears in a flux and its formula is a
// signed sum of names or number*name over states, parameters, constants and
// earlier eliminated species, at least one of them a state or an
// eliminated species. Rate-constant expressions (no states), the input Ca(t)
// (a product) and observables that no flux uses (totalCaMKII) are not.
//
// # SBML
//
// WriteSBML writes SBML Level 3 Version 2 core:
//
//   - one compartment "cell" of size 1, constant;
//   - each state a species (initialConcentration from State.tsv,
//     hasOnlySubstanceUnits, boundaryCondition and constant false), in index
//     order, then each eliminated species a species with boundaryCondition
//     true, constant false and no initial value;
//   - each parameter a global parameter, constant, with its default value,
//     in index order: these are exactly the sensitivity parameters;
//   - each constant a non-constant parameter with an assignment rule to its
//     number (named, but not a sensitivity parameter);
//   - each other expression a non-constant parameter; every expression
//     (species or not) gets an assignment rule, in listed order, after the
//     constants' rules; t is the csymbol time;
//   - each reaction a reaction, reversible false, reactants and products
//     the states with negative and positive coefficients (stoichiometry the
//     absolute value, constant true), modifiers the other species named in
//     the flux, and kinetic law cell * flux, so that d[S]/dt = N * flux for
//     any compartment size.
//
// With SBMLOptions.RateRules (Chua's circuit) the states are instead
// non-constant parameters with their initial values and rate rules
// sum_r N[i][r] * flux_r, with no compartment, species or reactions.
//
// Numbers in attributes use the shortest round-trip form ('g'); in MathML
// <cn> they are written in plain decimal notation, also exactly. Output
// depends only on the network, so committed files are checked byte for
// byte against a fresh conversion.
//
// # Evaluation
//
// Network.F, Fluxes and ExpressionValues write into dst and panic on
// length mismatches (misuse); they do not allocate once warm and are safe
// for concurrent use.
package tables
