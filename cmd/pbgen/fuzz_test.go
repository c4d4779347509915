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
