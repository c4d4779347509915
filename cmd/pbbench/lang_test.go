package main

import (
	"math"
	"strings"
	"testing"
)

// TestLangTargets: the targets read the ratios of the section (dense over
// FS, CVODES over FS), met and missed, and NaN when a row is absent.
func TestLangTargets(t *testing.T) {
	lr := &LangResult{Ratios: map[string]num{langFS: 1, langFSDense: 12, langCVFS: 2}}
	ts := langTargets(lr)
	if !ts[0].Met || ts[0].Measured != 12 {
		t.Errorf("dense target %+v, want met at 12", ts[0])
	}
	if haveCVODES {
		if len(ts) != 2 || ts[1].Met || ts[1].verdict() != "missed by 1.500x" {
			t.Errorf("CVODES target %+v, want missed by 1.5x", ts[1:])
		}
	} else if len(ts) != 1 {
		t.Errorf("%d targets without CVODES, want 1", len(ts))
	}
	ts = langTargets(&LangResult{Ratios: map[string]num{}})
	if !math.IsNaN(ts[0].Measured) || ts[0].verdict() != "not measured" {
		t.Errorf("target without data: %+v", ts[0])
	}
}

// TestLangMissing: without the benchmark folder the section fails with an
// error naming the model file, not a panic.
func TestLangMissing(t *testing.T) {
	c := &config{petabDir: t.TempDir(), langReps: 1}
	var out strings.Builder
	if _, err := benchLang(c, &out); err == nil || !strings.Contains(err.Error(), "model_"+langProblem+".xml") {
		t.Errorf("error %v, want one naming the model file", err)
	}
}
