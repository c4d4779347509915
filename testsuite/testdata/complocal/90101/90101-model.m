(*

category:        Test
synopsis:        A comp replacedElement reaches a kinetic law's local parameter through a port to its metaid, with a conversion factor.
componentTags:   Compartment, Parameter, Reaction, Species, AssignmentRule, comp:ModelDefinition, comp:Port, comp:ReplacedElement, comp:Submodel
testTags:        Amount, HasOnlySubstanceUnits, LocalParameters, comp:ConversionFactor, comp:SubmodelOutput
testType:        TimeCourse
levels:          3.2
generatedBy:     Analytic
packagesPresent: comp

 pbgen's own case (not from the SBML Test Suite), in the suite's layout:
 see ../README.md for the model and its exact solution.

*)
