package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fuzzFlags are the sim flags FuzzSimArgs may set. Flags that name files
// to write (-o, -plot) are left out: the fuzzer must not write where its
// strings point.
var fuzzFlags = []string{"method", "rtol", "atol", "t0", "t1", "n", "p", "x0", "params",
	"errcon", "paper", "logt", "scaled", "sens-initials", "sens-compartments", "nosuch"}

// FuzzSimArgs runs pbgen sim in-process on a small network with fuzzed
// flag values, -p and -x0 assignments and -times file contents. It asserts
// that nothing panics, that the exit status is 0, 1 or 2, and that a
// failure's first line says what was wrong (a one-line message for exit
// status 1; see checkOneLineError).
func FuzzSimArgs(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "labels.xml")
	if err := os.WriteFile(path, []byte(labelsNet), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Add(uint8(0), "fs", "k=0.5", "A=2", "")
	f.Add(uint8(1), "-1", "k", "B=1e999", "")
	f.Add(uint8(5), "3", "c=1", "amount:C=0", "0\n1\n2\n")
	f.Add(uint8(8), "k,init_A", "k=0x1p-1", "t=NaN", "1\n0.5\n")
	f.Add(uint8(4), "1e-300", "k=1e308", "A=-1e308", "# c\n1e-320\n")
	f.Add(uint8(0), "none", "k=-3", "V=0", "5\n10\n")
	f.Add(uint8(130), "--", "k=1", "", "")
	f.Fuzz(func(t *testing.T, which uint8, value, p, x0, times string) {
		name := fuzzFlags[int(which)%len(fuzzFlags)]
		if name == "n" {
			// Bound the work, not the validation: large -n only costs time.
			if n, err := strconv.Atoi(strings.TrimSpace(value)); err == nil && n > 200 {
				value = "200"
			}
		}
		args := []string{"sim", "-" + name + "=" + value}
		if p != "" {
			args = append(args, "-p", p)
		}
		if x0 != "" {
			args = append(args, "-x0", x0)
		}
		if times != "" {
			tf := filepath.Join(t.TempDir(), "times.txt")
			if err := os.WriteFile(tf, []byte(times), 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, "-times", tf)
		} else if name != "n" && name != "t1" {
			args = append(args, "-n", "4", "-t1", "2")
		}
		if which >= 128 {
			// Flags after the file, as the go command allows.
			args = append([]string{"sim", path}, args[1:]...)
		} else {
			args = append(args, path)
		}
		var o, e bytes.Buffer
		code := run(args, &o, &e)
		if code < 0 || code > 2 {
			t.Fatalf("%q: exit %d", args, code)
		}
		if code != 0 {
			checkOneLineError(t, args, code, e.String())
		}
	})
}

// fuzzCommand is a command FuzzCommandFlags drives: the flags it may set
// (never those naming files to write, whose strings the fuzzer must not
// follow), fixed flags that keep the work small, the positional argument,
// and for counts that only cost time, the largest value a run keeps
// (larger ones are cut to it; sample's memory check still sees -samples
// and -chains beyond 1e9).
type fuzzCommand struct {
	cmd   []string
	flags []string
	base  []string
	arg   string
	bound map[string]int
	cutAt int // values above this are left alone (0: cut every value above bound)
}

var fuzzCommands = []fuzzCommand{
	{cmd: []string{"petab"}, flags: []string{"rtol", "atol", "j", "p", "method", "switches", "grad", "fim", "pkg", "gen", "nosuch"}, arg: convPEtab},
	{cmd: []string{"petab", "check"}, flags: []string{"rtol", "nosuch"}, arg: convPEtab},
	{cmd: []string{"sample"}, flags: []string{"chains", "warmup", "samples", "seed", "j", "rtol", "atol", "sampler", "method", "init", "chain-index", "nosuch"},
		base: []string{"-chains", "2", "-warmup", "5", "-samples", "5", "-sampler", "rwm"}, arg: convPEtab,
		bound: map[string]int{"chains": 3, "warmup": 20, "samples": 20}, cutAt: 1e9},
	{cmd: []string{"testsuite"}, flags: []string{"all", "cases", "petab", "method", "nosuch"}, arg: suiteDir},
	{cmd: []string{"gen"}, flags: []string{"pkg", "params", "sens-initials", "sens-compartments", "nosuch"}, arg: pkaNet},
	{cmd: []string{"check"}, flags: []string{"params", "sens-initials", "sens-compartments", "nosuch"}, arg: pkaNet},
}

// FuzzCommandFlags runs every command but sim (FuzzSimArgs) in-process
// with one fuzzed flag value on small inputs. It asserts that nothing
// panics or dies (no stack trace, no "fatal error"), that the exit status
// is 0, 1 or 2, that a failure's first line says what was wrong, and that
// exit status 2 names the flag.
func FuzzCommandFlags(f *testing.F) {
	for _, s := range []struct {
		cmd, flag uint8
		value     string
	}{
		{0, 0, "0"}, {0, 1, "NaN"}, {0, 2, "1000000000"}, {0, 3, "k1=-Inf"}, {0, 4, "rk4"}, {0, 9, "true"},
		{1, 0, "1e-6"},
		{2, 0, "1000000000"}, {2, 1, "9223372036854775807"}, {2, 2, "1000000000000"}, {2, 3, "-1"}, {2, 4, "1e9"},
		{2, 5, "1e308"}, {2, 7, "nuts"}, {2, 10, "3"}, {2, 2, "3"},
		{3, 1, "00001,"}, {3, 2, "true"}, {3, 3, "exp"}, {3, 0, "true"},
		{4, 0, "func"}, {4, 1, "kf,"}, {4, 2, "maybe"},
		{5, 0, "nosuch"}, {5, 1, "2"},
	} {
		f.Add(s.cmd, s.flag, s.value)
	}
	out := f.TempDir()
	f.Fuzz(func(t *testing.T, which, flagIndex uint8, value string) {
		c := fuzzCommands[int(which)%len(fuzzCommands)]
		name := c.flags[int(flagIndex)%len(c.flags)]
		if b, ok := c.bound[name]; ok {
			if n, err := strconv.Atoi(strings.TrimSpace(value)); err == nil && n > b && (c.cutAt == 0 || n <= c.cutAt) {
				value = strconv.Itoa(b)
			}
		}
		args := append(append([]string(nil), c.cmd...), c.base...)
		switch {
		case c.cmd[0] == "gen":
			// Generated packages go to the test's folder, never to ./NAME.
			args = append(args, "-o", filepath.Join(out, "gen"))
		case name == "gen":
			// petab -gen=true writes a package, -gen=false a table: a
			// fresh folder each run, so one does not meet the other.
			args = append(args, "-o", filepath.Join(t.TempDir(), "out"))
		}
		args = append(args, "-"+name+"="+value, c.arg)
		t.Setenv(slurmTaskEnv, "")
		var o, e bytes.Buffer
		code := run(args, &o, &e)
		stderr := e.String()
		if code < 0 || code > 2 || strings.Contains(stderr, "fatal error") {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		if code == 0 {
			return
		}
		checkOneLineError(t, args, code, stderr)
		if first, _, _ := strings.Cut(stderr, "\n"); code == 2 && !strings.Contains(first, "-"+name) {
			t.Errorf("%q: exit 2 without naming -%s: %q", args, name, first)
		}
	})
}
