package pka

// The rest of this package is generated from the shipped network; run
// `go generate ./generated/...` after changing networks/PKA.xml or pbgen.

//go:generate go run ../../cmd/pbgen -o . -pkg pka ../../networks/PKA.xml
