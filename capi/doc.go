// Package capi is what the C ABI (cmd/libpbgen, built with
// -buildmode=c-shared) and the Python package over it (python/pbgen)
// call: a PEtab problem or an SBML model loaded from a file, or one of
// the packages compiled into the library (generated/), evaluated into
// caller-owned slices. It holds no cgo, so that its behaviour is tested
// with go test; cmd/libpbgen only converts C pointers to slices, keeps
// the values here behind cgo.Handles and turns errors into strings.
//
// # Problems
//
// A Problem is an estimation problem (runtime/objective) with its
// options (method, tolerances, workers) fixed at load. Eval takes theta
// on the parameter scales (objective.Objective.Eval, PEtab's
// parameterScale: what pyPESTO and AMICI optimise over) and writes the
// requested outputs. The objective is built lazily per kind of request
// (llh only; llh and gradient; llh, gradient and FIM), since
// objective.Options fixes Grad and FIM at New: a request for the FIM
// alone runs the third. The numbers of each kind are those of
// objective.New with the same options and Objective.Eval, bit for bit.
//
// # Models
//
// A Model is a reaction network with its sensitivity parameters (every
// constant global parameter of the SBML file, in document order; a
// compiled package's own). Simulate computes x and, with a method, S =
// dx/dp at output times, as pbgen sim does: through runtime/sens for a
// plain ODE, runtime/events for a model with events or switches,
// runtime/dde for delays, and runtime/dae's reduction for algebraic
// rules and fast reactions (whose states are then the differential ones).
//
// # Concurrency
//
// A Problem or Model is used by one caller at a time: each method takes
// the value's lock, so concurrent calls on one value wait for each other.
// Calls on different values run in parallel.
package capi
