(*

category:        Test
synopsis:        Delayed events using their trigger time's values switch a fast reaction on and off, the second also setting a fast species.
componentTags:   CSymbolTime, Compartment, EventWithDelay, Parameter, Reaction, Species
testTags:        Amount, EventUsesTriggerTimeValues, EventIsPersistent, FastReaction, HasOnlySubstanceUnits, NonConstantParameter
testType:        TimeCourse
levels:          3.2
generatedBy:     Analytic

 pbgen's own case (not from the SBML Test Suite), in the suite's layout:
 see ../README.md for the model and its exact solution.

*)
