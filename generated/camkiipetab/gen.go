package camkiipetab

// The rest of this package is generated from the shipped PEtab problem
// (the CaMKII network with three observables in two calcium conditions);
// run `go generate ./generated/...` after changing networks/CaMKII.xml,
// networks/petab/CaMKII or pbgen.

//go:generate go run ../../cmd/pbgen petab -gen -o . -pkg camkiipetab ../../networks/petab/CaMKII/problem.yaml
