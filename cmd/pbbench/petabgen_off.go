//go:build !petabgen

package main

// Without the build tag petabgen there is no registry of generated PEtab
// problems (scripts/petabgen.sh writes petabgen_registry.go, built with
// the tag): the PEtab section and TestPetabCPU run petab.Load's
// interpreted models, and the default build needs no generated code.

// petabGenBuilt says whether the registry of scripts/petabgen.sh is built in.
const petabGenBuilt = false

// petabGenerated are the generated problems by folder name: none.
var petabGenerated map[string]petabGenProblem

// petabGenLeftOut are the problems scripts/petabgen.sh did not compile,
// with the reason: none.
var petabGenLeftOut map[string]string

// petabGenMissing says why nothing was compiled: nothing was tried.
const petabGenMissing = ""
