package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pbgen/pbgen/internal/suites"
	"github.com/pbgen/pbgen/mcmc"
)

const (
	convPEtab = "../../petab/testdata/conv/problem.yaml"
	pkaNet    = "../../networks/PKA.xml"
	suiteDir  = "testdata/suite" // one SBML Test Suite style case, A' = -A/2
)

// flagCase is one command line and what it must give: the exit status,
// substrings of stderr's first line (for exit status 2 the flag's name
// among them) and, with listed, that the problem's errors come first
// (PEtab load errors, listed one a line before the count) and the
// substrings may be anywhere in the output.
type flagCase struct {
	args   []string
	code   int
	want   []string
	listed bool
}

// checkFlagCases runs pbgen cmd args... for each case and checks it.
func checkFlagCases(t *testing.T, cmd []string, cases []flagCase) {
	t.Helper()
	for _, c := range cases {
		args := append(append([]string(nil), cmd...), c.args...)
		code, stdout, stderr := pbgen(t, args...)
		if code != c.code {
			t.Errorf("pbgen %q: exit %d, want %d; stderr %q", args, code, c.code, stderr)
			continue
		}
		if code == 0 {
			continue
		}
		first, _, _ := strings.Cut(stderr, "\n")
		if c.listed {
			first = stdout + stderr // pbgen petab check lists on stdout
		} else {
			checkOneLineError(t, args, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(first, w) {
				t.Errorf("pbgen %q: %q lacks %q", args, first, w)
			}
		}
	}
}

// hostileNumbers are values no tolerance, count or seed takes.
var hostileNumbers = []string{"NaN", "Inf", "-Inf", "abc", "", "0x10", "1_000"}

// numberCases are the cases of flag name with each of values, then file.
func numberCases(name string, values []string, file string) []flagCase {
	var cs []flagCase
	for _, v := range values {
		cs = append(cs, flagCase{[]string{"-" + name + "=" + v, file}, 2, []string{"-" + name}, false})
	}
	return cs
}

// TestPEtabHostileFlags: every flag of pbgen petab and pbgen petab check
// refuses a hostile value with exit status 2 and its name, before the
// problem is read (issue #24 item 5: -rtol 0 was taken silently).
func TestPEtabHostileFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	out := filepath.Join(dir, "sim.tsv")
	var cases []flagCase
	cases = append(cases, numberCases("rtol", append(hostileNumbers, "0", "-1", "1", "1e308", "1e-300"), convPEtab)...)
	cases = append(cases, numberCases("atol", append(hostileNumbers, "0", "-1e-8"), convPEtab)...)
	cases = append(cases, numberCases("j", append(hostileNumbers, "0", "-1", "1e12", "9223372036854775808", "1.5"), convPEtab)...)
	cases = append(cases, numberCases("p", []string{"k1=NaN", "k1=Inf", "k1", "=1", "k1=abc", "k1=1e999"}, convPEtab)...)
	cases = append(cases, []flagCase{
		{[]string{"-j", "1000000000", convPEtab}, 0, nil, false}, // more workers than experiments: one each
		{[]string{"-rtol", "1e-9", "-atol", "1e-12", convPEtab}, 0, nil, false},
		{[]string{"-o", os.DevNull, "-json", out, convPEtab}, 0, nil, false},
		{[]string{"-o", out, convPEtab}, 0, nil, false}, // replaces the JSON just written
		{[]string{"-method", "foo", convPEtab}, 2, []string{"-method", `"foo"`, "pbsr"}, false},
		{[]string{"-method=", convPEtab}, 2, []string{"-method"}, false},
		{[]string{"-switches=maybe", convPEtab}, 2, []string{"-switches"}, false},
		{[]string{"-o", filepath.Join(dir, "nodir", "x.tsv"), convPEtab}, 2, []string{"-o", "does not exist"}, false},
		{[]string{"-o", dir, convPEtab}, 2, []string{"-o", "directory"}, false},
		{[]string{"-o", convPEtab, convPEtab}, 2, []string{"-o", "input"}, false},
		{[]string{"-o=", convPEtab}, 2, []string{"-o"}, false},
		{[]string{"-json", dir, convPEtab}, 2, []string{"-json", "directory"}, false},
		{[]string{"-o", out, "-json", out, convPEtab}, 2, []string{"-o", "-json"}, false},
		{[]string{"-pkg", "x", convPEtab}, 2, []string{"-pkg", "-gen"}, false},
		{[]string{"-gen", "-grad", "-o", dir, convPEtab}, 2, []string{"-grad", "-gen"}, false},
		{[]string{"-gen", "-pkg", "main", "-o", dir, convPEtab}, 2, []string{"-pkg"}, false},
		{[]string{"-gen", "-o", file, convPEtab}, 2, []string{"-o", "not a directory"}, false},
		{[]string{"-gen", "-o", filepath.Join(file, "sub"), convPEtab}, 2, []string{"-o"}, false},
		{[]string{"-nosuch", convPEtab}, 2, []string{"-nosuch"}, false},
		{[]string{}, 2, []string{"missing argument"}, false},
		{[]string{convPEtab, convPEtab}, 2, []string{"too many arguments"}, false},
		{[]string{filepath.Join(dir, "none.yaml")}, 1, []string{"none.yaml"}, true},
		{[]string{dir}, 1, []string{dir, "directory"}, true},
	}...)
	if os.Getuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		rofile := filepath.Join(dir, "ro.tsv")
		os.WriteFile(rofile, nil, 0o444)
		cases = append(cases, flagCase{[]string{"-o", filepath.Join(ro, "x.tsv"), convPEtab}, 2, []string{"-o", "cannot write"}, false},
			flagCase{[]string{"-json", rofile, convPEtab}, 2, []string{"-json", "cannot write"}, false},
			flagCase{[]string{"-gen", "-o", filepath.Join(ro, "pkg"), convPEtab}, 2, []string{"-o", "cannot write"}, false})
	}
	checkFlagCases(t, []string{"petab"}, cases)
	if _, err := os.Stat(filepath.Join(dir, "nodir")); err == nil {
		t.Error("-o created a directory")
	}
	checkFlagCases(t, []string{"petab", "check"}, []flagCase{
		{[]string{"-rtol", "1e-6", convPEtab}, 2, []string{"-rtol"}, false},
		{[]string{}, 2, []string{"missing argument"}, false},
		{[]string{convPEtab, convPEtab}, 2, []string{"too many arguments"}, false},
		{[]string{filepath.Join(dir, "none.yaml")}, 1, []string{"none.yaml"}, true},
		{[]string{dir}, 1, []string{dir}, true},
	})
}

// TestSampleHostileFlags: every flag of pbgen sample refuses a hostile
// value with exit status 2 and its name, before the problem is read;
// runs that would not fit in memory are refused with the estimate.
func TestSampleHostileFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	run := func(extra ...string) []string {
		return append([]string{"-chains", "2", "-warmup", "5", "-samples", "5", "-sampler", "rwm"}, extra...)
	}
	// The smallest -samples of one chain over the limit with conv's 3
	// parameters; with 1 it must fit.
	over := func(n, dim int) bool {
		return mcmc.EstimateFootprint(&mcmc.Options{Chains: 1, Warmup: -1, Samples: n, Workers: 1}, dim, 0, false).Total() > maxHeldBytes
	}
	lo, hi := 1, maxHeldBytes
	for lo < hi {
		if mid := (lo + hi) / 2; over(mid, 3) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if over(lo, 1) {
		t.Fatalf("-samples %d is over the limit with 1 parameter too", lo)
	}
	fitsOne := strconv.Itoa(lo)
	var cases []flagCase
	for _, name := range []string{"chains", "samples"} {
		cases = append(cases, numberCases(name, append(hostileNumbers, "0", "-1", "1e12", "9223372036854775808", "2.5"), convPEtab)...)
	}
	for _, name := range []string{"warmup", "j", "chain-index"} {
		cases = append(cases, numberCases(name, append(hostileNumbers, "-1", "1e9", "9223372036854775808"), convPEtab)...)
	}
	cases = append(cases, numberCases("seed", []string{"-1", "18446744073709551616", "1e3", "abc", ""}, convPEtab)...)
	cases = append(cases, numberCases("rtol", append(hostileNumbers, "0", "-1", "1", "1e308"), convPEtab)...)
	cases = append(cases, numberCases("atol", append(hostileNumbers, "0", "-1"), convPEtab)...)
	cases = append(cases, numberCases("sampler", []string{"nuts", "", "SMMALA "}, convPEtab)...)
	cases = append(cases, numberCases("method", []string{"rk4", ""}, convPEtab)...)
	cases = append(cases, numberCases("init", []string{"random", ""}, convPEtab)...)
	cases = append(cases, []flagCase{
		// Memory: refused before the problem is read, with the figure.
		{[]string{"-samples", "1000000000000", convPEtab}, 2, []string{"-samples 1000000000000", "-warmup 1000", "-chains 4", "GB", "8 GiB"}, false},
		{[]string{"-chains", "1000000000", "-samples", "1", convPEtab}, 2, []string{"-chains 1000000000", "GB"}, false},
		{[]string{"-chains", "4", "-chain-index", "1", "-samples", "1000000000000", "-o", dir, convPEtab}, 2, []string{"-samples", "one chain", "GB"}, false},
		// Fits with one parameter, not with conv's three: refused after
		// the problem is read, naming its dimension.
		{[]string{"-chains", "1", "-warmup", "0", "-samples", fitsOne, convPEtab}, 2, []string{"-samples " + fitsOne, "3 parameters", "GB"}, false},
		{[]string{"-warmup", "9223372036854775807", "-samples", "10", convPEtab}, 2, []string{"-warmup", "-samples", "overflows"}, false},
		// The warm-up keeps its step sizes, 8 bytes an iteration.
		{[]string{"-warmup", "1000000000000", convPEtab}, 2, []string{"-warmup 1000000000000", "GB"}, false},
		// Outputs checked before the run.
		{[]string{"-o", file, convPEtab}, 2, []string{"-o", "not a directory"}, false},
		{[]string{"-o", filepath.Join(file, "sub"), convPEtab}, 2, []string{"-o"}, false},
		{[]string{"-plot", file, convPEtab}, 2, []string{"-plot", "not a directory"}, false},
		{[]string{"-o=", convPEtab}, 2, []string{"-o"}, false},
		// Conflicts.
		{[]string{"-chain-index", "4", "-chains", "4", "-o", dir, convPEtab}, 2, []string{"-chain-index 4", "-chains"}, false},
		{[]string{"-chain-index", "0", convPEtab}, 2, []string{"-o"}, false},
		{[]string{"-merge", dir, "-seed", "3"}, 2, []string{"-seed", "-merge"}, false},
		{[]string{"-merge="}, 2, []string{"-merge"}, false},
		{[]string{"-merge", filepath.Join(dir, "none")}, 1, []string{"-merge"}, false},
		{[]string{"-merge", file}, 1, []string{"-merge"}, false},
		{[]string{"-nosuch", convPEtab}, 2, []string{"-nosuch"}, false},
		{[]string{}, 2, []string{"missing argument"}, false},
		{[]string{convPEtab, convPEtab}, 2, []string{"too many arguments"}, false},
		{[]string{filepath.Join(dir, "none.yaml")}, 1, []string{"none.yaml"}, true},
		// Values that are large but fine: -j beyond -chains is -chains.
		{run("-j", "1000000000", "-seed", "0", convPEtab), 0, nil, false},
	}...)
	if os.Getuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		cases = append(cases, flagCase{[]string{"-o", filepath.Join(ro, "out"), convPEtab}, 2, []string{"-o", "cannot write"}, false})
	}
	t.Setenv(slurmTaskEnv, "")
	checkFlagCases(t, []string{"sample"}, cases)
}

// TestSampleHugeRefusedAtOnce is issue #24 item 5's case on a published
// problem: -samples 1e12 used to end in "fatal error: runtime: out of
// memory"; it is refused with exit status 2 and the estimate before the
// problem is read, so at once.
func TestSampleHugeRefusedAtOnce(t *testing.T) {
	yaml := suites.Dir(t, "petab-benchmark/Perelson_Science1996/Perelson_Science1996.yaml")
	start := time.Now()
	code, _, stderr := pbgen(t, "sample", "-samples", "1000000000000", yaml)
	if code != 2 || !strings.Contains(stderr, "-samples 1000000000000") || !strings.Contains(stderr, "GB in memory") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refusal took %v: the problem was read first?", d)
	}
}

// TestTestsuiteHostileFlags: pbgen testsuite's flags, refused with their
// names (-method without -petab used to be ignored, a bad -method an
// error of package sens).
func TestTestsuiteHostileFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	checkFlagCases(t, []string{"testsuite"}, []flagCase{
		{[]string{suiteDir}, 0, nil, false},
		{[]string{"-cases", "00001", suiteDir}, 0, nil, false},
		{[]string{"-petab", "-method", "foo", dir}, 2, []string{"-method", `"foo"`}, false},
		{[]string{"-petab", "-method=", dir}, 2, []string{"-method"}, false},
		{[]string{"-method", "pbsr", suiteDir}, 2, []string{"-method", "-petab"}, false},
		{[]string{"-petab", "-all", dir}, 2, []string{"-all", "-petab"}, false},
		{[]string{"-petab", "-cases", "00001", dir}, 2, []string{"-cases", "-petab"}, false},
		{[]string{"-petab", "-gen", dir}, 2, []string{"-gen", "-petab"}, false},
		{[]string{"-all", "-cases", "00001", suiteDir}, 2, []string{"-all", "-cases"}, false},
		{[]string{"-cases", ",", suiteDir}, 2, []string{"-cases"}, false},
		{[]string{"-cases", "1", suiteDir}, 2, []string{"-cases", "five digits"}, false},
		{[]string{"-cases", "00001,abcde", suiteDir}, 2, []string{"-cases", "abcde"}, false},
		{[]string{"-cases=", suiteDir}, 2, []string{"-cases"}, false},
		{[]string{"-cases", "99999", suiteDir}, 1, []string{"-cases 99999"}, false},
		{[]string{"-all=maybe", suiteDir}, 2, []string{"-all"}, false},
		{[]string{"-nosuch", suiteDir}, 2, []string{"-nosuch"}, false},
		{[]string{filepath.Join(dir, "none")}, 1, []string{"none"}, false},
		{[]string{file}, 1, []string{"not a directory"}, false},
		{[]string{"-petab", file}, 1, []string{"not a directory"}, false},
		{[]string{}, 2, []string{"missing argument"}, false},
		{[]string{suiteDir, suiteDir}, 2, []string{"too many arguments"}, false},
	})
}

// TestGenHostileFlags: pbgen (gen)'s flags; -o is checked before the
// network is read and creates nothing when it fails.
func TestGenHostileFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	cases := []flagCase{
		{[]string{"-o", file, pkaNet}, 2, []string{"-o", "not a directory"}, false},
		{[]string{"-o", filepath.Join(file, "sub"), pkaNet}, 2, []string{"-o"}, false},
		{[]string{"-pkg", "main", "-o", dir, pkaNet}, 2, []string{"-pkg"}, false},
		{[]string{"-pkg", "a-b", "-o", dir, pkaNet}, 2, []string{"-pkg"}, false},
		{[]string{"-params", ",", "-o", dir, pkaNet}, 1, []string{"-params", "empty id"}, false},
		{[]string{"-sens-initials=maybe", pkaNet}, 2, []string{"-sens-initials"}, false},
		{[]string{"-nosuch", pkaNet}, 2, []string{"-nosuch"}, false},
		{[]string{"-o", filepath.Join(dir, "out"), filepath.Join(dir, "none.xml")}, 1, []string{"none.xml"}, false},
		{[]string{"-o", filepath.Join(dir, "out"), dir}, 1, []string{dir}, false},
		{[]string{pkaNet, pkaNet}, 2, []string{"too many arguments"}, false},
		{[]string{"-o", filepath.Join(dir, "pka", "deep"), pkaNet}, 0, nil, false},
	}
	if os.Getuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		cases = append(cases, flagCase{[]string{"-o", filepath.Join(ro, "pkg"), pkaNet}, 2, []string{"-o", "cannot write"}, false})
	}
	for _, cmd := range [][]string{nil, {"gen"}} {
		checkFlagCases(t, cmd, cases)
	}
	checkFlagCases(t, []string{"gen"}, []flagCase{{nil, 2, []string{"missing argument"}, false}})
	if _, err := os.Stat(filepath.Join(dir, "pka", "deep", "model.go")); err != nil {
		t.Errorf("gen -o into a new nested directory: %v", err)
	}
}

// TestCountFlag: what a count takes and what it says about the rest.
func TestCountFlag(t *testing.T) {
	for _, c := range []struct {
		in   string
		min  int
		want int
		err  string
	}{
		{"12", 1, 12, ""}, {" 3 ", 0, 3, ""}, {"0", 0, 0, ""}, {"9223372036854775807", 1, 9223372036854775807, ""},
		{"0", 1, 0, "want 1 or more, got 0"}, {"-1", 0, 0, "want 0 or more, got -1"},
		{"1e12", 1, 0, "decimal digits (1e12 is 1000000000000)"}, {"1e19", 1, 0, "out of range"},
		{"9223372036854775808", 1, 0, "out of range"}, {"2.5", 1, 0, "not a whole number"},
		{"0x10", 1, 0, "not a whole number"}, {"1_000", 1, 0, "not a whole number"}, {"", 1, 0, "not a whole number"},
		{"NaN", 1, 0, "not a whole number"}, {"Inf", 1, 0, "not a whole number"},
	} {
		f := countFlag{v: -7, min: c.min}
		err := f.Set(c.in)
		switch {
		case c.err == "" && (err != nil || f.v != c.want):
			t.Errorf("%q: %d, %v; want %d", c.in, f.v, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || f.v != -7):
			t.Errorf("%q: %d, %v; want an error with %q and the value unchanged", c.in, f.v, err, c.err)
		}
	}
	var s seedFlag
	for in, ok := range map[string]bool{"0": true, "18446744073709551615": true, "-1": false, "18446744073709551616": false, "1e3": false} {
		if err := s.Set(in); (err == nil) != ok {
			t.Errorf("seed %q: %v", in, err)
		}
	}
}

// TestMergeFootprint: -merge estimates the memory of the chain files from
// their tops and sizes, before reading them whole: a sparse 200 GB file
// of 5e9 draws is over the limit (and only its top is read), a small run
// under it, and a file whose num_samples its size cannot hold counts by
// its size.
func TestMergeFootprint(t *testing.T) {
	dir := t.TempDir()
	top := "# num_samples = 5000000000\n# num_warmup = 0\n# save_warmup = 0\nlp__,accept_stat__,stepsize__,a,b,c\n"
	big := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(big, []byte(top), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 200e9); err != nil {
		t.Skipf("no sparse file: %v", err)
	}
	if need := mergeFootprint([]string{big}, false); !(need > maxHeldBytes) || need < 5e9*5*8 {
		t.Errorf("5e9 draws of 3 parameters: %.3g bytes", need)
	}
	small := filepath.Join(dir, "small.csv")
	os.WriteFile(small, []byte(top+"1,1,1,1,1,1\n"), 0o644)
	if need := mergeFootprint([]string{small}, true); need > 100e6 {
		t.Errorf("a file of one row claiming 5e9: %.3g bytes", need)
	}
	run := filepath.Join(dir, "run")
	runSample(t, "-sampler", "rwm", "-chains", "2", "-warmup", "5", "-samples", "30", "-o", run, convPEtab)
	need := mergeFootprint(globCSV(t, run), false)
	want := mcmc.EstimateFootprint(&mcmc.Options{Chains: 2, Samples: 30, Warmup: -1, Workers: 1}, 3, 0, false)
	if !(need > want.Draws+want.Reports) || need > 2*(want.Draws+want.Reports) {
		t.Errorf("2 chains of 30 draws: %.4g bytes, the Result and reports %.4g", need, want.Draws+want.Reports)
	}
}
