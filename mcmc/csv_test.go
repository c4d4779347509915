package mcmc

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestCSVSameSeedSameBytes: two runs with the same seed write
// byte-identical chain files, which is what lets a Slurm array's files be
// checked against a local run with cmp; the times, which differ between
// runs, are in the sidecars and read back from there.
func TestCSVSameSeedSameBytes(t *testing.T) {
	mu, cov := corr2()
	var dirs [2]string
	var runs [2]*Result
	for i := range dirs {
		res, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil },
			&Options{Sampler: SMMALA, Chains: 2, Warmup: 50, Samples: 40, Seed: 21})
		if err != nil {
			t.Fatal(err)
		}
		dirs[i], runs[i] = t.TempDir(), res
		if _, err := WriteCSVFiles(dirs[i], res); err != nil {
			t.Fatal(err)
		}
	}
	for c := 1; c <= 2; c++ {
		name := fmt.Sprintf("chain_%d.csv", c)
		a, err := os.ReadFile(filepath.Join(dirs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dirs[1], name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs with seed 21", name)
		}
		if bytes.Contains(a, []byte("Elapsed")) || bytes.Contains(a, []byte("seconds")) {
			t.Errorf("%s holds times", name)
		}
		f, err := os.Open(TimingPath(filepath.Join(dirs[0], name)))
		if err != nil {
			t.Fatal(err)
		}
		tm, err := ReadTiming(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		ch := &runs[0].Chains[c-1]
		w, s := tm.Durations()
		if d := w - ch.WarmupTime; d < -time.Microsecond || d > time.Microsecond || s <= 0 || (s-ch.SampleTime).Abs() > time.Microsecond {
			t.Errorf("%s: sidecar times %v, %v; chain %v, %v", name, w, s, ch.WarmupTime, ch.SampleTime)
		}
	}
	if got := TimingPath("out/chain_3.csv"); got != "out/chain_3.timing.json" {
		t.Errorf("TimingPath = %q", got)
	}
}

func TestReadTimingErrors(t *testing.T) {
	for _, in := range []string{"", "{", `{"warmup_seconds": -1, "sampling_seconds": 2}`,
		`{"warmup_seconds": 1, "sampling_seconds": 2, "total": 3}`, `[1, 2]`, `{"warmup_seconds": 1}{}`} {
		if _, err := ReadTiming(strings.NewReader(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	tm, err := ReadTiming(strings.NewReader(`{"warmup_seconds": 1.5, "sampling_seconds": 2.25}`))
	if w, s := tm.Durations(); err != nil || w != 1500*time.Millisecond || s != 2250*time.Millisecond {
		t.Errorf("%v, %v, %v", w, s, err)
	}
}

// TestSummaryWithoutTimes: chains whose times are unknown (merged
// without sidecars) give no ESS_bulk/s, rather than an infinite one.
func TestSummaryWithoutTimes(t *testing.T) {
	mu, cov := corr2()
	res, err := Run(context.Background(), func() (Target, error) { return newGauss(mu, cov), nil },
		&Options{Sampler: MALA, Chains: 2, Warmup: 50, Samples: 60, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if s := Summarize(res)[2]; !(s.ESSBulkPerSec > 0) || math.IsInf(s.ESSBulkPerSec, 0) {
		t.Errorf("timed run: ESS_bulk/s %v", s.ESSBulkPerSec)
	}
	res.Chains[1].SampleTime = 0
	if s := Summarize(res)[2]; !math.IsNaN(s.ESSBulkPerSec) {
		t.Errorf("untimed chain: ESS_bulk/s %v, want NaN", s.ESSBulkPerSec)
	}
	var b bytes.Buffer
	if err := WriteSummary(&b, res); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "Times unavailable") || strings.Contains(out, "Warmup took") || strings.Count(out, "n/a") != 2+2+res.Dim {
		t.Errorf("summary without times:\n%s", out)
	}
}
