package chua

// The rest of this package is generated from the shipped network; run
// `go generate ./generated/...` after changing networks/Chua.xml or pbgen.

//go:generate go run ../../cmd/pbgen -o . -pkg chua ../../networks/Chua.xml
