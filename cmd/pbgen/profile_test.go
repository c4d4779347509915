package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestProfile profiles two parameters of the fixture through a fit's
// best point: each interval contains the estimate, the profile's minimum
// is the fit's best log posterior, and at each bound a computed point
// lies at the threshold (read back from profiles.tsv).
func TestProfile(t *testing.T) {
	dir := t.TempDir()
	fitDir, out := filepath.Join(dir, "fit"), filepath.Join(dir, "prof")
	fitCmd(t, "-starts", "4", "-seed", "2", "-o", fitDir, fastPEtab)
	doc := readFitJSON(t, fitDir)
	var so, se bytes.Buffer
	if code := run([]string{"profile", "-fit", filepath.Join(fitDir, "fit.json"), "-params", "scale,sd", "-j", "2", "-o", out, fastPEtab}, &so, &se); code != 0 {
		t.Fatalf("pbgen profile: exit %d: %s", code, se.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "intervals.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("intervals.tsv:\n%s", b)
	}
	for _, line := range lines[1:] {
		c := strings.Split(line, "\t")
		est, _ := strconv.ParseFloat(c[2], 64)
		lo, _ := strconv.ParseFloat(c[3], 64)
		hi, _ := strconv.ParseFloat(c[4], 64)
		if !(lo < est && est < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			t.Errorf("%s: interval [%g, %g] around %g", c[0], lo, hi, est)
		}
	}
	pb, err := os.ReadFile(filepath.Join(out, "profiles.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	minDelta := map[string]float64{}
	type pt struct{ v, d float64 }
	pts := map[string][]pt{}
	bestPost := math.Inf(-1)
	for _, line := range strings.Split(strings.TrimSpace(string(pb)), "\n")[1:] {
		c := strings.Split(line, "\t")
		v, _ := strconv.ParseFloat(c[1], 64)
		post, _ := strconv.ParseFloat(c[2], 64)
		bestPost = max(bestPost, post)
		d, _ := strconv.ParseFloat(c[3], 64)
		if m, ok := minDelta[c[0]]; !ok || d < m {
			minDelta[c[0]] = d
		}
		pts[c[0]] = append(pts[c[0]], pt{v, d})
	}
	// At each bound a computed point lies within 0.01 of the threshold
	// (the refinement), and within 1% of the interval's half-width.
	for _, line := range lines[1:] {
		c := strings.Split(line, "\t")
		est, _ := strconv.ParseFloat(c[2], 64)
		for _, col := range []int{3, 4} {
			e, _ := strconv.ParseFloat(c[col], 64)
			ok := false
			for _, q := range pts[c[0]] {
				if math.Abs(q.d-1.92) < 0.01 && math.Abs(q.v-e) < 0.01*math.Abs(e-est) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s: no computed point at the threshold near the bound %g: %v", c[0], e, pts[c[0]])
			}
		}
	}
	if want := *doc.Best.LogPosterior; math.Abs(bestPost-want) > 1e-6*(1+math.Abs(want)) {
		t.Errorf("profiles' best log posterior %.10g, the fit's best %.10g", bestPost, want)
	}
	for id, d := range minDelta {
		if d != 0 {
			t.Errorf("%s: smallest delta %g, want 0 (the optimum)", id, d)
		}
	}
	for _, c := range [][]string{
		{"profile", fastPEtab},
		{"profile", "-fit", filepath.Join(fitDir, "fit.json"), "-params", "nope", fastPEtab},
		{"profile", "-fit", filepath.Join(fitDir, "fit.json"), "-threshold", "0", fastPEtab},
	} {
		var o, e bytes.Buffer
		if code := run(c, &o, &e); code != 2 {
			t.Errorf("%s: exit %d (%s), want 2", strings.Join(c, " "), code, e.String())
		}
	}
}
