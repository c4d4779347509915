//go:build !cvodes

package main

import (
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

const haveCVODES = false

// cvodesObjectiveSolver is nil without CVODES: no CVODES FS column.
var cvodesObjectiveSolver func(model.Model, *sens.Options) (objective.Solver, error)

func cvodesSolvers(spec *modelSpec, p []float64) []*solver { return nil }

func cvodesWP(spec *modelSpec, p []float64, rtol, atol float64) []*solver { return nil }

func cvodesScaleRunner(m model.Model, p, ts []float64, rtol, atol float64, params []int, klu bool) (run func() error, free func()) {
	panic("pbbench: CVODES scaling column without -tags cvodes")
}

func cvodesLangRunner(m model.Model, p, x0, ts []float64, rtol, atol float64) (run func() error, stats func(*LangMethod), free func()) {
	panic("pbbench: CVODES Lang row without -tags cvodes")
}

func cvodesFSRuns(m model.Model, p, ts []float64, rtol, atol float64) []*fsRun { return nil }
