//go:build !cvodes

package main

import "github.com/pbgen/pbgen/runtime/model"

// cvodesEventSolvers is empty without CVODES.
func cvodesEventSolvers(m model.Model, p, ts []float64, rtol, atol float64) []*evSolver { return nil }
