package camkii

// The rest of this package is generated from the shipped network; run
// `go generate ./generated/...` after changing networks/CaMKII.xml or pbgen.

//go:generate go run ../../cmd/pbgen -o . -pkg camkii ../../networks/CaMKII.xml
