(*

category:        Test
synopsis:        A delayed event using its trigger time's values sets the stoichiometry of a fast reaction.
componentTags:   CSymbolTime, Compartment, EventWithDelay, Parameter, Reaction, Species
testTags:        Amount, AssignedVariableStoichiometry, EventUsesTriggerTimeValues, EventIsPersistent, FastReaction, HasOnlySubstanceUnits, NonUnityStoichiometry, ReversibleReaction
testType:        TimeCourse
levels:          3.2
generatedBy:     Analytic

 pbgen's own case (not from the SBML Test Suite), in the suite's layout:
 see ../README.md for the model and its exact solution.

*)
