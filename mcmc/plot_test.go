package mcmc

import (
	"context"
	"image/png"
	"os"
	"testing"
)

func TestWritePlots(t *testing.T) {
	mu, cov := rand5()
	res, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil },
		&Options{Sampler: SMMALA, Chains: 2, Warmup: 100, Samples: 300, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("MCMC_PLOT_DIR") // set to keep the images for a look
	if dir == "" {
		dir = t.TempDir()
	}
	paths, err := WritePlots(dir, res, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 {
		t.Fatalf("paths %v", paths)
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
			t.Errorf("%s: %v", p, b)
		}
	}
	if got := pairParams(res, 3); len(got) != 3 {
		t.Errorf("pairParams = %v", got)
	}
}
