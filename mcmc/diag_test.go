package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"
)

func iidChains(m, n int, seed uint64, means ...float64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([][]float64, m)
	for c := range out {
		mu := 0.0
		if c < len(means) {
			mu = means[c]
		}
		out[c] = make([]float64, n)
		for i := range out[c] {
			out[c][i] = mu + rng.NormFloat64()
		}
	}
	return out
}

// ar1Chains draws x_t = φ x_{t-1} + √(1-φ²) ε_t started in the stationary
// N(0, 1); its autocorrelation time is (1+φ)/(1-φ).
func ar1Chains(m, n int, phi float64, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	s := math.Sqrt(1 - phi*phi)
	out := make([][]float64, m)
	for c := range out {
		out[c] = make([]float64, n)
		x := rng.NormFloat64()
		for i := range out[c] {
			x = phi*x + s*rng.NormFloat64()
			out[c][i] = x
		}
	}
	return out
}

func within(t *testing.T, name string, got, want, relTol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= relTol*math.Abs(want)) {
		t.Errorf("%s = %.4g, want %.4g ± %.0f%%", name, got, want, 100*relTol)
	}
}

func TestDiagnosticsIID(t *testing.T) {
	const m, n = 4, 2000
	x := iidChains(m, n, 1)
	if r := SplitRhat(x); !(r > 0.99 && r < 1.01) {
		t.Errorf("R-hat of iid draws = %.4f, want about 1", r)
	}
	within(t, "bulk ESS of iid draws", ESSBulk(x), m*n, 0.1)
	within(t, "tail ESS of iid draws", ESSTail(x), m*n, 0.15)
	within(t, "mean ESS of iid draws", ESSMean(x), m*n, 0.1)
	within(t, "MCSE of the mean of iid N(0,1)", MCSEMean(x), 1/math.Sqrt(m*n), 0.1)
	within(t, "5% quantile", Quantile(x, 0.05), -1.6449, 0.05)
}

func TestDiagnosticsShiftedChains(t *testing.T) {
	x := iidChains(4, 1000, 2, 0, 0, 0, 2)
	if r := SplitRhat(x); !(r > 1.1) {
		t.Errorf("R-hat of chains with means 0, 0, 0, 2 = %.4f, want > 1.1", r)
	}
	// Equal means but one chain with twice the scale: only the folded
	// (tail) R-hat sees it.
	y := iidChains(4, 1000, 3)
	for i := range y[3] {
		y[3][i] *= 3
	}
	if r := SplitRhat(y); !(r > 1.05) {
		t.Errorf("R-hat with one chain of three times the scale = %.4f, want > 1.05", r)
	}
	// A trend within each chain: split R-hat catches what R-hat over
	// whole chains would not.
	z := iidChains(4, 1000, 4)
	for _, c := range z {
		for i := range c {
			c[i] += 3 * float64(i) / float64(len(c))
		}
	}
	if r := SplitRhat(z); !(r > 1.1) {
		t.Errorf("R-hat of trending chains = %.4f, want > 1.1", r)
	}
}

func TestDiagnosticsAR1(t *testing.T) {
	const m, n = 4, 20000
	for _, phi := range []float64{0.5, 0.9, -0.3} {
		x := ar1Chains(m, n, phi, uint64(10+100*phi))
		want := m * n * (1 - phi) / (1 + phi)
		if phi < 0 {
			// Antithetic draws: Geyer's estimator is allowed above N,
			// and the lower bound on τ caps it at N log10(N).
			within(t, "ESS of antithetic AR(1)", ESSMean(x), want, 0.15)
			continue
		}
		within(t, "mean ESS of AR(1)", ESSMean(x), want, 0.12)
		within(t, "bulk ESS of AR(1)", ESSBulk(x), want, 0.12)
		if r := SplitRhat(x); !(r < 1.01) {
			t.Errorf("R-hat of stationary AR(1) = %.4f", r)
		}
	}
}

func TestDiagnosticsDegenerate(t *testing.T) {
	for name, x := range map[string][][]float64{
		"empty":    nil,
		"short":    {{1, 2, 3}},
		"constant": {{1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}},
		"NaN":      {{1, 2, math.NaN(), 4, 5, 6}, {1, 2, 3, 4, 5, 6}},
		"Inf":      {{1, 2, math.Inf(1), 4, 5, 6}, {1, 2, 3, 4, 5, 6}},
		"ragged":   {{1, 2, 3, 4, 5, 6}, {1, 2}},
	} {
		if v := SplitRhat(x); !math.IsNaN(v) {
			t.Errorf("%s: R-hat = %v, want NaN", name, v)
		}
		if v := ESSBulk(x); !math.IsNaN(v) {
			t.Errorf("%s: bulk ESS = %v, want NaN", name, v)
		}
		if v := ESSTail(x); !math.IsNaN(v) {
			t.Errorf("%s: tail ESS = %v, want NaN", name, v)
		}
		if v := MCSEMean(x); !math.IsNaN(v) {
			t.Errorf("%s: MCSE = %v, want NaN", name, v)
		}
	}
}
