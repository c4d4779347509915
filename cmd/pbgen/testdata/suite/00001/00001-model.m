(* A pbgen fixture in the layout of an SBML Test Suite case, for the
   flag tests of pbgen testsuite: A decays at rate k A, k = 0.5, A(0) = 1,
   so A(t) = exp(-t/2).

testType:      TimeCourse
componentTags: Compartment, Species, Reaction, Parameter
testTags:      Amount
*)
