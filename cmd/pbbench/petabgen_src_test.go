package main

import (
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/model"
)

// skewed is a model whose f is off by a relative 1e-6 in its first state:
// what petabModelDiff must see.
type skewed struct{ model.Model }

func (s skewed) F(dst []float64, t float64, x, p []float64) {
	s.Model.F(dst, t, x, p)
	dst[0] *= 1 + 1e-6
}

// TestPetabSource checks the pieces behind the PEtab section's choice of
// model: without the registry (this build) a problem runs interpreted and
// says why; petabModelDiff is 0 for a model against itself and sees a
// relative 1e-6 in one entry of f (beyond petabGenModelTol); petabGenCompare of the interpreted
// model against itself finds no difference and took steps.
func TestPetabSource(t *testing.T) {
	const yaml = "../../networks/petab/Perelson_Science1996/Perelson_Science1996.yaml"
	p, err := petab.Load(yaml)
	if err != nil {
		t.Fatal(err)
	}
	if !petabGenBuilt {
		m, prob, src := petabSource("Perelson_Science1996", yaml, p, &config{})
		if m != model.Model(p.Model) || prob != p.Objective || src.Model != modelInterpreted || !strings.Contains(src.ModelNote, "-tags petabgen") {
			t.Errorf("without the registry: model %T, %+v; want the interpreted one and why", m, src)
		}
	}
	if d := petabModelDiff(p.Model, p.Model); d != 0 {
		t.Errorf("a model against itself differs by %g", d)
	}
	// Normwise, the 1e-6 shrinks by |f_0| / max |f|, but stays far above
	// the rounding that petabGenModelTol lets through.
	if d := petabModelDiff(skewed{p.Model}, p.Model); !(d > petabGenModelTol && d <= 1e-6) {
		t.Errorf("f off by 1e-6 in one entry: petabModelDiff %g, want in (%g, 1e-6]", d, petabGenModelTol)
	}
	chk := petabGenCompare(p.Model, p.Objective, p, &config{})
	if chk.Err != "" || chk.Model != 0 || chk.LLH != 0 || chk.Grad != 0 || chk.LLHTight != 0 || chk.GradTight != 0 || chk.Steps[0] == 0 || chk.Steps[0] != chk.Steps[1] {
		t.Errorf("the interpreted model against itself: %+v", *chk)
	}
	if !math.IsInf(petabModelDiff(p.Model, skewedDims{p.Model}), 1) {
		t.Error("models of different sizes compare as equal")
	}
}

// skewedDims has one parameter more than its model.
type skewedDims struct{ model.Model }

func (s skewedDims) ParamNames() []string { return append(s.Model.ParamNames(), "extra") }
