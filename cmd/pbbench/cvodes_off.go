//go:build !cvodes

package main

const haveCVODES = false

func cvodesSolvers(spec *modelSpec, p []float64) []*solver { return nil }

func cvodesWP(spec *modelSpec, p []float64, rtol, atol float64) []*solver { return nil }
