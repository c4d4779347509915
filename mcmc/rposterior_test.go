package mcmc

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// rScript reads our chain_N.csv files the way an R user would
// (read.csv with comment.char = "#", then posterior::as_draws_df) and
// prints posterior's summary of every column.
const rScript = `
suppressMessages(library(posterior))
files <- commandArgs(trailingOnly = TRUE)
ds <- lapply(seq_along(files), function(i) {
  d <- read.csv(files[i], comment.char = "#")
  d$.chain <- i
  d$.iteration <- seq_len(nrow(d))
  d
})
dr <- as_draws_df(do.call(rbind, ds))
s <- summarise_draws(dr, mean, sd, mcse_mean,
  q5 = ~quantile(.x, 0.05), q50 = ~quantile(.x, 0.5), q95 = ~quantile(.x, 0.95),
  rhat, ess_bulk, ess_tail)
s <- as.data.frame(lapply(s, function(x) if (is.character(x)) x else as.numeric(unclass(x))))
write.csv(s, stdout(), row.names = FALSE)
`

// TestAgainstRPosterior cross-checks the CSV files and every diagnostic
// with R's posterior package (Vehtari et al.'s reference implementation),
// when Rscript with posterior is installed; it is skipped otherwise.
func TestAgainstRPosterior(t *testing.T) {
	if err := exec.Command("Rscript", "-e", "library(posterior)").Run(); err != nil {
		t.Skip("Rscript with the posterior package not available")
	}
	mu, cov := rand5()
	res, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil },
		&Options{Sampler: RWM, Chains: 3, Warmup: 300, Samples: 701, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := WriteCSVFiles(dir, res)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "summary.R")
	if err := writeFile(script, rScript); err != nil {
		t.Fatal(err)
	}
	var out, stderr bytes.Buffer
	cmd := exec.Command("Rscript", append([]string{script}, paths...)...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("Rscript: %v\n%s", err, stderr.String())
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	r := map[string][]float64{}
	for _, rec := range recs[1:] {
		v := make([]float64, len(rec)-1)
		for i, f := range rec[1:] {
			var err error
			if v[i], err = strconv.ParseFloat(f, 64); err != nil {
				v[i] = math.NaN() // R's NA
			}
		}
		r[rec[0]] = v
	}
	for _, s := range Summarize(res) {
		want, ok := r[s.Name]
		if !ok {
			t.Errorf("R has no row %s (rows %v)", s.Name, recs)
			continue
		}
		got := []float64{s.Mean, s.StdDev, s.MCSE, s.Q5, s.Q50, s.Q95, s.Rhat, s.ESSBulk, s.ESSTail}
		names := []string{"mean", "sd", "mcse_mean", "q5", "q50", "q95", "rhat", "ess_bulk", "ess_tail"}
		for i := range got {
			if math.IsNaN(got[i]) && math.IsNaN(want[i]) {
				continue
			}
			if !(math.Abs(got[i]-want[i]) <= 1e-9*math.Max(1, math.Abs(want[i]))) {
				t.Errorf("%s %s: ours %.10g, posterior %.10g", s.Name, names[i], got[i], want[i])
			}
		}
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }
