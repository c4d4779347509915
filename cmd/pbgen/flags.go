package main

// Flag checks that more than one command shares. Each command checks its
// flags when they are parsed or right after, before it reads its input,
// so that a mistake costs no load and no solve and exits 2 with the flag
// named. pbgen sim's own flag types (numFlag, tolFlag, methodFlag) are in
// sim.go; petab and sample use its tolFlag for -rtol and -atol.

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// maxHeldBytes bounds what a command may hold in memory at once: pbgen
// sim's rule for the rows of a model with events (maxEventFloats numbers,
// 8 GiB), applied to sample's chains too. A run over the bound is refused
// with its estimate before anything is allocated, rather than ending in
// the runtime's out-of-memory crash hours later.
const maxHeldBytes = 8 * maxEventFloats

// countFlag is an integer flag checked when given: a whole number in
// decimal digits, at least min. The flag package's own int flags take
// "0x10" and "1_000" and call every mistake a parse error; this one says
// what it wants.
type countFlag struct {
	v   int
	min int
}

func (f *countFlag) String() string {
	if f == nil {
		return ""
	}
	return strconv.Itoa(f.v)
}

func (f *countFlag) Set(s string) error {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, strconv.IntSize)
	var ne *strconv.NumError
	switch {
	case errors.As(err, &ne) && ne.Err == strconv.ErrRange:
		return fmt.Errorf("%s is out of range (at most %d)", s, math.MaxInt)
	case err != nil:
		x, nerr := parseNumber(s)
		switch {
		case nerr != nil || x != math.Trunc(x):
			return fmt.Errorf("%q is not a whole number", s)
		case math.Abs(x) >= math.MaxInt64:
			return fmt.Errorf("%s is out of range (at most %d)", s, math.MaxInt)
		}
		return fmt.Errorf("want a whole number in decimal digits (%s is %.0f)", s, x)
	case int(v) < f.min:
		return fmt.Errorf("want %d or more, got %d", f.min, v)
	}
	f.v = int(v)
	return nil
}

// checkOutDir checks, without creating anything, that dir (the value of
// flag name) is a directory pbgen can write into or can be created: its
// nearest existing ancestor must be a directory that takes a new file.
// Commands that write their result at the end (sample -o and -plot, gen
// -o) call it first, so that an unwritable place is an error at the
// start, not after the work.
func checkOutDir(name, dir string) error {
	p := filepath.Clean(dir)
	for {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				if p == filepath.Clean(dir) {
					return fmt.Errorf("-%s %s: not a directory", name, dir)
				}
				return fmt.Errorf("-%s %s: %s is not a directory", name, dir, p)
			}
			break
		}
		if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("-%s %s: %v", name, dir, unwrapPath(err))
		}
		up := filepath.Dir(p)
		if up == p {
			return fmt.Errorf("-%s %s: %v", name, dir, unwrapPath(err))
		}
		p = up
	}
	f, err := os.CreateTemp(p, ".pbgen-probe*")
	if err != nil {
		return fmt.Errorf("-%s %s: cannot write in %s: %v", name, dir, p, unwrapPath(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// checkOutFile checks, without creating or changing it, that path (the
// value of flag name) is a file pbgen can write: not a directory, not one
// of the inputs, and either an existing file that opens for writing
// (/dev/null, a pipe, a file to replace) or a new name in a directory
// that exists and takes a new file.
func checkOutFile(name, path string, inputs ...string) error {
	for _, in := range inputs {
		if sameFile(path, in) {
			return fmt.Errorf("-%s %s is the input %s: refusing to replace it with the output", name, path, in)
		}
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fmt.Errorf("-%s %s: is a directory", name, path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0) // no O_TRUNC: nothing changes
		if err != nil {
			return fmt.Errorf("-%s %s: cannot write: %v", name, path, unwrapPath(err))
		}
		return f.Close()
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("-%s %s: directory %s does not exist", name, path, dir)
	}
	f, err := os.CreateTemp(dir, ".pbgen-probe*")
	if err != nil {
		return fmt.Errorf("-%s %s: cannot write: %v", name, path, unwrapPath(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// liveHeap is the live heap in bytes after a collection: the difference
// of two calls is what the code between them keeps reachable. pbgen
// sample measures one objective this way, since each worker builds its
// own and nothing else knows what one takes (the model, solvers and data
// of a PEtab problem).
func liveHeap() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc)
}

// seedFlag is a random seed: a whole number from 0 to 2^64-1, in decimal
// digits (the flag package's own says only "parse error" to -1).
type seedFlag uint64

func (f *seedFlag) String() string {
	if f == nil {
		return ""
	}
	return strconv.FormatUint(uint64(*f), 10)
}

func (f *seedFlag) Set(s string) error {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return fmt.Errorf("want a whole number from 0 to %d, got %q", uint64(math.MaxUint64), s)
	}
	*f = seedFlag(v)
	return nil
}

// flagSet reports whether the flag name was given on fs's command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
