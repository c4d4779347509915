(*

category:        Test
synopsis:        A local parameter of a submodel's kinetic law replaces (replacedBy, by metaid) a parameter of the main model.
componentTags:   Compartment, Parameter, Reaction, Species, AssignmentRule, comp:ModelDefinition, comp:ReplacedBy, comp:Submodel
testTags:        Amount, HasOnlySubstanceUnits, LocalParameters, comp:SubmodelOutput
testType:        TimeCourse
levels:          3.2
generatedBy:     Analytic
packagesPresent: comp

 pbgen's own case (not from the SBML Test Suite), in the suite's layout:
 see ../README.md for the model and its exact solution.

*)
