module github.com/pbgen/pbgen

go 1.26.8

require (
	github.com/dave/jennifer v1.7.1 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)
