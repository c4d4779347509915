package mcmc

import (
	"context"
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestSMMALAPositionDependent samples the Poisson-rate posterior
// Gamma(y+1, m), whose Fisher information m/θ changes by orders of
// magnitude over the support, and compares the draws with the exact CDF
// by a Kolmogorov-Smirnov distance scaled by the bulk ESS. With a wrong
// Metropolis-Hastings ratio (the reverse proposal evaluated with the
// current point's metric, or without its log-determinant) the distance is
// several times the bound at this seed, or the chains hardly move (ESS
// about 10).
func TestSMMALAPositionDependent(t *testing.T) {
	for _, tc := range []struct {
		name string
		y, m float64
	}{
		{"skewed", 2, 1},     // Gamma(3, 1): mass from 0.1 to 10
		{"near-bound", 0, 4}, // Gamma(1, 4): mode at the bound 0
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := &Options{Sampler: SMMALA, Chains: 4, Warmup: 500, Samples: 5000, Seed: testSeed}
			res, err := Run(context.Background(), func() (Target, error) { return &poisson{tc.y, tc.m}, nil }, opt)
			if err != nil {
				t.Fatal(err)
			}
			x := res.Param(0)
			var all []float64
			for _, c := range x {
				all = append(all, c...)
			}
			sort.Float64s(all)
			g := distuv.Gamma{Alpha: tc.y + 1, Beta: tc.m}
			d := 0.0
			for i, v := range all {
				f := g.CDF(v)
				d = math.Max(d, math.Max(math.Abs(float64(i+1)/float64(len(all))-f), math.Abs(f-float64(i)/float64(len(all)))))
			}
			ess := ESSBulk(x)
			// 1.95/√n is the 0.1% critical value of the KS distance for n
			// independent draws; the ESS stands in for n.
			bound := 1.95 / math.Sqrt(ess)
			oob := 0
			for _, c := range res.Chains {
				oob += c.OutOfBounds
			}
			t.Logf("KS distance %.4f, bound %.4f (ESS bulk %.0f), mean %.4f (want %.4f), out of bounds %d", d, bound, ess, mean(all), g.Mean(), oob)
			// A wrong ratio can also show as a chain that hardly moves.
			if !(ess > 400) {
				t.Errorf("bulk ESS %.0f of %d draws", ess, len(all))
			}
			if !(d < bound) {
				t.Errorf("KS distance %.4f exceeds %.4f: the sampled marginal is not Gamma(%v, %v)", d, bound, tc.y+1, tc.m)
			}
		})
	}
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// TestSMMALABanana checks SMMALA's moments on a curved target whose metric
// is a Gauss-Newton Fisher information, like a PEtab problem's.
func TestSMMALABanana(t *testing.T) {
	const b = 1.0
	opt := &Options{Sampler: SMMALA, Chains: 4, Warmup: 500, Samples: 3000, Seed: testSeed}
	res, err := Run(context.Background(), func() (Target, error) { return &banana{b}, nil }, opt)
	if err != nil {
		t.Fatal(err)
	}
	checkMoments(t, res, []float64{0, b}, []float64{1, 0, 0, 1 + 2*b*b}, 4)
	for j := 0; j < 2; j++ {
		if r := SplitRhat(res.Param(j)); !(r < 1.05) {
			t.Errorf("R-hat[%d] = %.4f", j, r)
		}
	}
	t.Logf("step %.3g, ESS bulk %.0f %.0f", res.Chains[0].StepSize, ESSBulk(res.Param(0)), ESSBulk(res.Param(1)))
}

// TestNonIdentifiable samples the ridge target, whose metric is singular:
// every sampler must still reproduce its moments, and SMMALA must not
// stall (its metric is regularised by the box).
func TestNonIdentifiable(t *testing.T) {
	mu, cov := ridgeMoments()
	for _, s := range []Sampler{SMMALA, MALA, RWM} {
		res, err := Run(context.Background(), func() (Target, error) { return ridge{}, nil },
			&Options{Sampler: s, Chains: 4, Warmup: 1000, Samples: 3000, Seed: testSeed})
		if err != nil {
			t.Fatal(err)
		}
		checkMoments(t, res, mu, cov, 4)
		acc, oob := 0, 0
		for _, c := range res.Chains {
			acc += c.Accepted
			oob += c.OutOfBounds
		}
		ess := math.Min(ESSBulk(res.Param(0)), ESSBulk(res.Param(1)))
		t.Logf("%v: acceptance %.3f, out of bounds %d, min bulk ESS %.0f, step %.3g", s, float64(acc)/12000, oob, ess, res.Chains[0].StepSize)
		if !(ess > 300) {
			t.Errorf("%v: min bulk ESS %.0f of 12000 draws", s, ess)
		}
	}
}
