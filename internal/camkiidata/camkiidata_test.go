package camkiidata

import (
	"bytes"
	"flag"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite networks/petab/CaMKII/measurements.tsv")

const file = "../../networks/petab/CaMKII/measurements.tsv"

// The shipped measurements are what Write produces: the same rows, and
// values equal to the printed precision (a solver change below 1e-6 may
// flip a last digit).
func TestMeasurementsFresh(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got, want := strings.Split(buf.String(), "\n"), strings.Split(string(old), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d lines simulated, %d in %s (go test ./internal/camkiidata -update)", len(got), len(want), file)
	}
	for i := range got {
		g, w := strings.Split(got[i], "\t"), strings.Split(want[i], "\t")
		if len(g) != len(w) {
			t.Fatalf("line %d: %q, file has %q", i+1, got[i], want[i])
		}
		for c := range g {
			if g[c] == w[c] {
				continue
			}
			a, err1 := strconv.ParseFloat(g[c], 64)
			b, err2 := strconv.ParseFloat(w[c], 64)
			if err1 != nil || err2 != nil || math.Abs(a-b) > 2e-6*math.Abs(b) {
				t.Errorf("line %d column %d: simulated %s, file has %s", i+1, c+1, g[c], w[c])
			}
		}
	}
}

// The noise is what the problem says: residuals over sigma have mean near
// 0 and variance near 1 (66 draws: loose bounds, a fixed seed).
func TestNoiseScale(t *testing.T) {
	var noisy, clean bytes.Buffer
	if err := Write(&noisy); err != nil {
		t.Fatal(err)
	}
	sig := make([]float64, len(Observables))
	for i := range Observables {
		sig[i], Observables[i].Sigma = Observables[i].Sigma, 0
	}
	err := Write(&clean)
	for i := range Observables {
		Observables[i].Sigma = sig[i]
	}
	if err != nil {
		t.Fatal(err)
	}
	nl, cl := strings.Split(noisy.String(), "\n")[1:], strings.Split(clean.String(), "\n")[1:]
	var sum, sum2 float64
	n := 0
	for i := range nl {
		if nl[i] == "" {
			continue
		}
		a, b := strings.Split(nl[i], "\t"), strings.Split(cl[i], "\t")
		y, _ := strconv.ParseFloat(a[2], 64)
		mu, _ := strconv.ParseFloat(b[2], 64)
		s := 0.0
		for _, o := range Observables {
			if o.ID == a[0] {
				s = o.Sigma
			}
		}
		z := (y - mu) / s
		sum += z
		sum2 += z * z
		n++
	}
	mean, vr := sum/float64(n), sum2/float64(n)
	if n != 2*3*len(Times) || math.Abs(mean) > 0.5 || vr < 0.5 || vr > 1.6 {
		t.Errorf("%d residuals: mean %.3f, mean square %.3f of the standardised noise", n, mean, vr)
	}
}
