(*

category:        Test
synopsis:        A delayed event using its trigger time's values sets a fast species; two executions pending together.
componentTags:   CSymbolTime, Compartment, EventWithDelay, Parameter, Reaction, Species
testTags:        Amount, EventUsesTriggerTimeValues, EventIsPersistent, FastReaction, HasOnlySubstanceUnits, ReversibleReaction
testType:        TimeCourse
levels:          3.2
generatedBy:     Analytic

 pbgen's own case (not from the SBML Test Suite), in the suite's layout:
 see ../README.md for the model and its exact solution.

*)
