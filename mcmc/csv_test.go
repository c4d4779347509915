package mcmc

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCSVRoundTrip writes every chain with WriteCSVFiles, reads the files
// back and checks settings, columns and every value bit for bit.
func TestCSVRoundTrip(t *testing.T) {
	mu, cov := corr2()
	opt := &Options{Sampler: MALA, Chains: 2, Warmup: 100, Samples: 50, Seed: 9, Names: []string{"k1", "log10 k,2"}}
	res, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil }, opt)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := WriteCSVFiles(dir, res)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || filepath.Base(paths[1]) != "chain_2.csv" {
		t.Fatalf("paths %v", paths)
	}
	for c, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadCSV(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"lp__", "accept_stat__", "stepsize__", "k1", "log10_k_2"}
		if strings.Join(got.Columns, ",") != strings.Join(want, ",") {
			t.Errorf("columns %v, want %v", got.Columns, want)
		}
		for k, v := range map[string]string{"num_samples": "50", "num_warmup": "100", "algorithm": "mala", "seed": "9", "id": string(rune('1' + c))} {
			if got.Config[k] != v {
				t.Errorf("chain %d: config %s = %q, want %q", c+1, k, got.Config[k], v)
			}
		}
		ch := &res.Chains[c]
		if len(got.Rows) != len(ch.LogPost) {
			t.Fatalf("%d rows, want %d", len(got.Rows), len(ch.LogPost))
		}
		for i, row := range got.Rows {
			want := append([]float64{ch.LogPost[i], ch.AcceptStat[i], ch.StepSize}, ch.Draw(i, res.Dim)...)
			for j := range want {
				if math.Float64bits(row[j]) != math.Float64bits(want[j]) {
					t.Fatalf("chain %d row %d col %s: %v, want %v", c+1, i, got.Columns[j], row[j], want[j])
				}
			}
		}
		if lp := got.Column("lp__"); len(lp) != len(ch.LogPost) || lp[3] != ch.LogPost[3] {
			t.Errorf("Column(lp__) wrong")
		}
	}
}

func TestReadCSVErrors(t *testing.T) {
	for name, in := range map[string]string{
		"no header":    "# only = comments\n",
		"short row":    "lp__,a\n1\n",
		"not a number": "lp__,a\n1,x\n",
	} {
		if _, err := ReadCSV(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestWriteSummary(t *testing.T) {
	mu, cov := corr2()
	res, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil },
		&Options{Sampler: SMMALA, Chains: 2, Warmup: 200, Samples: 500, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteSummary(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	t.Log("\n" + out)
	for _, s := range []string{"Mean", "MCSE", "StdDev", "5%", "50%", "95%", "ESS_bulk", "ESS_tail", "R_hat", "lp__", "accept_stat__", "theta.1", "theta.2"} {
		if !strings.Contains(out, s) {
			t.Errorf("summary lacks %q", s)
		}
	}
	rows := Summarize(res)
	if rows[2].Name != "theta.1" || math.Abs(rows[2].Mean-mu[0]) > 5*rows[2].MCSE {
		t.Errorf("row theta.1: %+v", rows[2])
	}
}

// TestReadCmdStanLayout reads a file in CmdStan's own layout: "(Default)"
// suffixes, nested settings, adaptation comments after the header.
func TestReadCmdStanLayout(t *testing.T) {
	in := `# stan_version_major = 2
# method = sample (Default)
#   sample
#     num_samples = 3
#     num_warmup = 1000 (Default)
lp__,accept_stat__,stepsize__,treedepth__,theta
# Adaptation terminated
# Step size = 0.93
# Diagonal elements of inverse mass matrix:
# 0.5
-7.1,0.91,0.93,1,0.25
-6.8,1,0.93,2,0.2

-7.5,0.6,0.93,1,0.4
# 
#  Elapsed Time: 0.005 seconds (Warm-up)
`
	f, err := ReadCSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if f.Config["num_samples"] != "3" || f.Config["num_warmup"] != "1000" || f.Config["Step size"] != "0.93" || f.Config["method"] != "sample" {
		t.Errorf("config %v", f.Config)
	}
	if th := f.Column("theta"); len(th) != 3 || th[2] != 0.4 {
		t.Errorf("theta %v", th)
	}
}

// TestSaveWarmup: with SaveWarmup the CSV holds the warm-up rows first,
// with the step size each used, and declares save_warmup = 1, so readers
// that split at num_warmup find the kept draws where they expect them.
func TestSaveWarmup(t *testing.T) {
	mu, cov := corr2()
	res, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil },
		&Options{Sampler: SMMALA, Chains: 1, Warmup: 60, Samples: 40, Seed: 5, SaveWarmup: true})
	if err != nil {
		t.Fatal(err)
	}
	ch := &res.Chains[0]
	if len(ch.WarmupLogPost) != 60 || len(ch.WarmupDraws) != 120 || len(ch.LogPost) != 40 {
		t.Fatalf("warm-up %d, draws %d", len(ch.WarmupLogPost), len(ch.LogPost))
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, res, 0); err != nil {
		t.Fatal(err)
	}
	f, err := ReadCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	if f.Config["save_warmup"] != "1" || len(f.Rows) != 100 {
		t.Fatalf("save_warmup %q, %d rows", f.Config["save_warmup"], len(f.Rows))
	}
	step := f.Column("stepsize__")
	if step[0] != ch.WarmupStepSize[0] || step[59] != ch.WarmupStepSize[59] || step[60] != ch.StepSize {
		t.Errorf("step sizes %v %v %v", step[0], step[59], step[60])
	}
	if f.Rows[60][3] != ch.Draws[0] || f.Rows[0][3] != ch.WarmupDraws[0] {
		t.Errorf("row order: warm-up rows must come first")
	}
}
