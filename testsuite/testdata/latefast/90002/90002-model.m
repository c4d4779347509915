(*

category:        Test
synopsis:        A non-persistent delayed event using its trigger time's values sets a fast species (a concentration) and a parameter; a second execution is cancelled.
componentTags:   CSymbolTime, Compartment, EventWithDelay, Parameter, Reaction, Species
testTags:        Concentration, EventUsesTriggerTimeValues, EventIsNotPersistent, FastReaction, NonConstantParameter, NonUnityCompartment, ReversibleReaction
testType:        TimeCourse
levels:          3.2
generatedBy:     Analytic

 pbgen's own case (not from the SBML Test Suite), in the suite's layout:
 see ../README.md for the model and its exact solution.

*)
