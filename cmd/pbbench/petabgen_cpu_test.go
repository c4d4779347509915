//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
)

// cpuSource is a model TestPetabCPU and BenchmarkPetabEval time a problem
// on: the generated package of scripts/petabgen.sh (built with the tag
// petabgen) or petab.Load's interpreted model.
type cpuSource struct {
	kind string // modelGenerated or modelInterpreted
	m    model.Model
	prob *objective.Problem
}

// cpuSources are the models of the problem p loaded from yaml named by
// PBGEN_PETAB_MODELS (comma-separated: generated, interpreted), in that
// order; by default the generated model first, when the registry has one
// that agrees with the interpreted one (petabSource), then the
// interpreted. A generated model asked for but not available is logged
// and left out; the interpreted one is the last resort, so the list is
// never empty.
func cpuSources(tb testing.TB, yaml string, p *petab.Problem) []*cpuSource {
	want := strings.Split(os.Getenv("PBGEN_PETAB_MODELS"), ",")
	if os.Getenv("PBGEN_PETAB_MODELS") == "" {
		want = []string{modelGenerated, modelInterpreted}
	}
	c := &config{}
	c.petabRTol, _ = strconv.ParseFloat(os.Getenv("PBGEN_PETAB_RTOL"), 64)
	c.petabOnGrid = os.Getenv("PBGEN_PETAB_ONGRID") != ""
	var out []*cpuSource
	for _, k := range want {
		switch strings.TrimSpace(k) {
		case modelGenerated:
			m, prob, src := petabSource(filepath.Base(filepath.Dir(yaml)), yaml, p, c)
			if src.Model != modelGenerated {
				tb.Logf("%s: no generated model: %s", filepath.Base(filepath.Dir(yaml)), src.ModelNote)
				continue
			}
			if g := src.GenCheck; g != nil {
				tb.Logf("%s: generated vs interpreted at the nominal point: model functions %.1e; FS llh %.1e, gradient %.1e (steps %d vs %d); at rtol 1e-10 llh %.1e, gradient %.1e",
					filepath.Base(filepath.Dir(yaml)), float64(g.Model), float64(g.LLH), float64(g.Grad), g.Steps[0], g.Steps[1], float64(g.LLHTight), float64(g.GradTight))
			}
			out = append(out, &cpuSource{modelGenerated, m, prob})
		case modelInterpreted:
			out = append(out, &cpuSource{modelInterpreted, p.Model, p.Objective})
		default:
			tb.Fatalf("PBGEN_PETAB_MODELS: %q is neither %s nor %s", k, modelGenerated, modelInterpreted)
		}
	}
	if len(out) == 0 {
		out = append(out, &cpuSource{modelInterpreted, p.Model, p.Objective})
	}
	return out
}

// cpuSourceRows is every row on every model, model by model.
func cpuSourceRows(rows []cpuRow, srcs []*cpuSource) []cpuRow {
	var out []cpuRow
	for _, s := range srcs {
		for _, r := range rows {
			r.src = s
			out = append(out, r)
		}
	}
	return out
}
