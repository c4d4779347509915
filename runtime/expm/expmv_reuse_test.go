package expm

import (
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/internal/scalenet"
)

// TestReuseEstimates: a sequence of steps with a slowly changing matrix
// (a chain's Jx scaled by 1 + 0.01 j) at ||tA||_1 of about 20, where the
// degree comes from the estimated norms of the powers: with
// ReuseEstimates = 4 the first call estimates, the next three reuse its
// estimate, the fifth estimates again, and every result agrees with the
// dense exponential as closely as the action that estimates every time.
// A jump of the norm by 4 (outside [1/2, 2] of the estimate's) estimates
// afresh.
func TestReuseEstimates(t *testing.T) {
	a := networkCSR(scalenet.Chain, 60)
	n := a.Pat.Rows
	const k = 3
	rng := rand.New(rand.NewPCG(5, 6))
	b, g0, g1 := randBlock(rng, n*k), randBlock(rng, n*k), randBlock(rng, n*k)
	h := 20 / colSumMax(a, 0, make([]float64, n))
	re, plain := NewAction(n, k), NewAction(n, k)
	re.ReuseEstimates = 4
	base := append([]float64(nil), a.Val...)
	got, ref := make([]float64, n*k), make([]float64, n*k)
	for j := 0; j < 6; j++ {
		c := 1 + 0.01*float64(j)
		if j == 5 {
			c = 4
		}
		for q, v := range base {
			a.Val[q] = c * v
		}
		re.PhiTo(got, a, h, b, g0, g1)
		plain.PhiTo(ref, a, h, b, g0, g1)
		wantReused := j >= 1 && j <= 3
		if re.Last.Reused != wantReused || re.Last.Estimated == wantReused {
			t.Errorf("call %d: Reused %v Estimated %v, want reused %v", j, re.Last.Reused, re.Last.Estimated, wantReused)
		}
		want := denseAction(a, h, b, g0, g1, k)
		eRe, ePlain := actErr(got, want), actErr(ref, want)
		t.Logf("call %d: ||tA||_1 %.3g, m %d s %d reused %v: error %.2g (estimating every call: %.2g)", j, re.Last.Norm, re.Last.M, re.Last.S, re.Last.Reused, eRe, ePlain)
		if !(eRe <= 1e-12 && eRe <= 10*ePlain+1e-14) {
			t.Errorf("call %d: error %.3g with reuse, %.3g without", j, eRe, ePlain)
		}
	}
}
