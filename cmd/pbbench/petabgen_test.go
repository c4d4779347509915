//go:build petabgen

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
	"github.com/pbgen/pbgen/petab"
)

// TestPetabGenerated checks the registry of scripts/petabgen.sh against the
// collection (go test -tags petabgen ./cmd/pbbench after the script):
// every generated problem loads interpreted too, petabSource picks its
// generated model, whose functions (x0, dx0/dp, f, Jx, Jp) equal interp's
// to rounding, and whose objective agrees with the interpreted one at the
// nominal point (petabGenCompare: the numbers are logged) within
// petabGenObjTol at rtol 1e-10, the gap the integrators' step decisions
// leave. PBGEN_PETAB_PROBLEMS (comma-separated folder names) restricts it.
func TestPetabGenerated(t *testing.T) {
	if petabGenMissing != "" {
		t.Skip(petabGenMissing)
	}
	root, err := suites.Find(suites.PEtabBenchmark)
	if err != nil {
		t.Skip(err)
	}
	names := make([]string, 0, len(petabGenerated))
	for name := range petabGenerated {
		names = append(names, name)
	}
	slices.Sort(names)
	if only := os.Getenv("PBGEN_PETAB_PROBLEMS"); only != "" {
		names = slices.DeleteFunc(names, func(n string) bool { return !slices.Contains(strings.Split(only, ","), n) })
	}
	if len(names) == 0 {
		t.Skip("no generated problems (run scripts/petabgen.sh)")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			g := petabGenerated[name]
			yaml := g.Source
			if rel, err := filepath.Rel(root, filepath.Dir(g.Source)); err != nil || rel != name {
				t.Logf("generated from %s, outside %s", g.Source, root)
			}
			p, err := petab.Load(yaml)
			if err != nil {
				t.Fatal(err)
			}
			_, _, src := petabSource(name, yaml, p, &config{})
			chk := src.GenCheck
			if chk == nil {
				t.Fatalf("no comparison: %s", src.ModelNote)
			}
			t.Logf("model functions %.1e; FS llh %.1e, gradient %.1e (steps %d vs %d); at rtol 1e-10 llh %.1e, gradient %.1e",
				float64(chk.Model), float64(chk.LLH), float64(chk.Grad), chk.Steps[0], chk.Steps[1], float64(chk.LLHTight), float64(chk.GradTight))
			if src.Model != modelGenerated {
				t.Errorf("runs interpreted: %s", src.ModelNote)
			}
			if !(chk.Model <= petabGenModelTol) {
				t.Errorf("model functions differ by %.2e relative", float64(chk.Model))
			}
		})
	}
}
