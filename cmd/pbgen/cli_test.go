package main

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// writeNet writes an SBML body (see sbml) into dir/name and returns the
// path.
func writeNet(t testing.TB, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(sbml(body)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// nanNet has y' = -sqrt(k - t): f is not finite after t = k = 1, so every
// method fails there, on the state y (index 1, after a).
const nanNet = `<listOfParameters>
<parameter id="a" value="1" constant="false"/><parameter id="y" value="1" constant="false"/><parameter id="k" value="1" constant="true"/></listOfParameters>
<listOfRules>
<rateRule variable="a"><math xmlns="http://www.w3.org/1998/Math/MathML"><cn>0</cn></math></rateRule>
<rateRule variable="y"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><minus/><apply><root/><apply><minus/><ci>k</ci><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">time</csymbol></apply></apply></apply></math></rateRule></listOfRules>`

// checkOneLineError asserts the shape of a failed run's stderr: no panic
// or stack, a first line that says what was wrong (not the usage), and for
// exit status 1 nothing else.
func checkOneLineError(t *testing.T, args []string, code int, stderr string) {
	t.Helper()
	first, rest, _ := strings.Cut(stderr, "\n")
	switch {
	case strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine "):
		t.Errorf("%q: stack trace: %s", args, stderr)
	case first == "" || strings.HasPrefix(first, "usage") || !strings.HasPrefix(first, "pbgen"):
		t.Errorf("%q: first line %q does not say what was wrong", args, first)
	case code == 1 && strings.TrimSpace(rest) != "":
		t.Errorf("%q: more than one line: %q", args, stderr)
	}
}

// TestSimBadArgs: every mistake is an error whose first line names it
// (issue #16 items 7, 14, 17, 18, 19, 20, 21); usage mistakes exit 2,
// others 1, never a panic.
func TestSimBadArgs(t *testing.T) {
	dir := t.TempDir()
	chua := "../../networks/Chua.xml"
	nan := writeNet(t, dir, "nan.xml", nanNet)
	times := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	readonly := filepath.Join(dir, "ro")
	os.Mkdir(readonly, 0o555)
	cases := []struct {
		args []string
		code int
		want []string // substrings of the first line
		not  []string // substrings that must not appear anywhere
	}{
		// 7: tolerances checked at the flag.
		{[]string{"-rtol", "-1"}, 2, []string{"-rtol", "relative tolerance"}, nil},
		{[]string{"-rtol", "1e300"}, 2, []string{"-rtol"}, nil},
		{[]string{"-rtol", "0"}, 2, []string{"-rtol"}, nil},
		{[]string{"-rtol", "NaN"}, 2, []string{"-rtol"}, nil},
		{[]string{"-atol", "-1e-8"}, 2, []string{"-atol", "absolute tolerance"}, nil},
		{[]string{"-atol", "Inf"}, 2, []string{"-atol"}, nil},
		// 14: an unknown method is named, with the valid ones.
		{[]string{"-method", "foo"}, 2, []string{`"foo" is not a method`, "none", "pbsr", "exp"}, nil},
		// 18: -p without = points to -params, -params with = to -p,
		// unknown names list the valid ones.
		{[]string{"-p", "p1"}, 2, []string{"-p", "-params"}, nil},
		{[]string{"-params", "p1=2"}, 1, []string{`use -p "p1=2"`}, nil},
		{[]string{"-params", "nosuch"}, 1, []string{`-params "nosuch"`, "have p1, p2"}, nil},
		{[]string{"-params", "p1,,p2"}, 1, []string{"empty id"}, nil},
		{[]string{"-p", "nosuch=1"}, 1, []string{`named "nosuch"`, "have p1, p2"}, nil},
		{[]string{"-p", "x1=1"}, 1, []string{"it is a state: use -x0"}, nil},
		{[]string{"-params", "p1", "-p", "p2=1"}, 1, []string{`named "p2"`, "-params chose", "have p1)"}, nil},
		{[]string{"-x0", "p1=1"}, 1, []string{"it is a parameter: use -p"}, nil},
		{[]string{"-p", "p1=0x1p-1"}, 2, []string{"-p", "is not a number (XML Schema double)"}, nil},
		{[]string{"-p", "p1=infinity"}, 2, []string{"-p"}, nil},
		{[]string{"-x0", "x1=1e999"}, 2, []string{"-x0", "overflows float64"}, nil},
		{[]string{"-t1", "Inf"}, 2, []string{"-t1"}, nil},
		{[]string{"-t0", "5", "-t1", "1"}, 1, []string{"-t1", "after -t0"}, nil},
		{[]string{"-t0", "1", "-t1", "1.000000000000001", "-n", "100"}, 1, []string{"-n", "too large"}, nil},
		{[]string{"-n", "0"}, 1, []string{"-n"}, nil},
		{[]string{"-t1", "1e300", "-n", "9223372036854775807"}, 1, []string{"-n"}, nil},
		{[]string{"-n", "99999999999999999999"}, 2, []string{"-n"}, nil},
		// 20: errors in a -times file name the file and the line.
		{[]string{"-times", times("bad.txt", "# c\n1\n2\nabc\n")}, 1, []string{"bad.txt:4:", "abc"}, nil},
		{[]string{"-times", times("desc.txt", "1\n0.5\n")}, 1, []string{"desc.txt:2:", "increase"}, nil},
		{[]string{"-t0", "2", "-times", times("early.txt", "3\n1\n")}, 1, []string{"early.txt:2:", "before the start"}, nil},
		{[]string{"-times", times("long.txt", "1\n"+strings.Repeat("9", 1<<17)+"\n")}, 1, []string{"long.txt:2:"}, nil},
		{[]string{"-times", times("empty.txt", "# nothing\n")}, 1, []string{"empty.txt", "no output times"}, nil},
		{[]string{"-times", filepath.Join(dir, "missing.txt")}, 1, []string{"missing.txt"}, nil},
		{[]string{"-times", times("both.txt", "1\n"), "-n", "3"}, 2, []string{"-times", "-n"}, nil},
		// 19: outputs are checked before the (failing) solve.
		{[]string{"-o", filepath.Join(dir, "nodir", "x.tsv"), nan}, 1, []string{"-o", "x.tsv"}, []string{"integration"}},
		{[]string{"-o", dir, nan}, 1, []string{"-o", "directory"}, []string{"integration"}},
		{[]string{"-o", nan, nan}, 1, []string{"-o", "input"}, []string{"integration"}},
		{[]string{"-o", filepath.Join(dir, ".", "bad.txt"), "-times", filepath.Join(dir, "bad.txt")}, 1, []string{"-o", "input"}, nil},
		{[]string{"-plot", filepath.Join(times("plotfile", ""), "sub"), nan}, 1, []string{"-plot"}, []string{"integration"}},
		// 17: solver errors name the state, not its index.
		{[]string{"-method", "fs", "-t1", "2", nan}, 1, []string{"state y", "t="}, []string{"component"}},
		{[]string{"-method", "pbsr", "-t1", "2", nan}, 1, []string{"t="}, []string{"component"}},
		{[]string{"-method", "none", "-t1", "2", nan}, 1, []string{"state y"}, []string{"component"}},
		// Flags that would be ignored.
		{[]string{"-method", "pbsr", "-errcon=false"}, 2, []string{"-errcon", "fs"}, nil},
		{[]string{"-method", "none", "-scaled"}, 2, []string{"-scaled"}, nil},
		{[]string{"-nosuchflag"}, 2, []string{"-nosuchflag"}, nil},
		{[]string{chua, chua}, 2, []string{"too many arguments"}, nil},
	}
	if os.Getuid() != 0 { // root writes anywhere
		cases = append(cases, struct {
			args      []string
			code      int
			want, not []string
		}{[]string{"-plot", readonly, nan}, 1, []string{"-plot", "ro"}, []string{"integration"}})
	}
	for _, c := range cases {
		args := append([]string{"sim"}, c.args...)
		if !strings.HasSuffix(args[len(args)-1], ".xml") {
			args = append(args, chua)
		}
		code, _, stderr := pbgen(t, args...)
		if code != c.code {
			t.Errorf("%q: exit %d, want %d; stderr %q", c.args, code, c.code, stderr)
		}
		checkOneLineError(t, args, code, stderr)
		first, _, _ := strings.Cut(stderr, "\n")
		for _, w := range c.want {
			if !strings.Contains(first, w) {
				t.Errorf("%q: first line %q lacks %q", c.args, first, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(stderr, w) {
				t.Errorf("%q: stderr %q contains %q", c.args, stderr, w)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nodir")); err == nil {
		t.Errorf("-o created a directory")
	}
}

// TestGenPackageNames: names that cannot be an importable Go package are
// refused before the network is read (issue #16 item 21); derived names
// are always valid.
func TestGenPackageNames(t *testing.T) {
	for _, name := range []string{"main", "func", "type", "_", "9lives", "a-b", "a b", ""} {
		dir := t.TempDir()
		args := []string{"-o", dir, "-pkg=" + name, "no-such-file.xml"}
		code, _, stderr := pbgen(t, args...)
		if name == "" {
			continue // empty -pkg means the default
		}
		if code != 2 || !strings.Contains(stderr, "-pkg") || strings.Contains(stderr, "no-such-file") {
			t.Errorf("-pkg %q: exit %d, stderr %q", name, code, stderr)
		}
		checkOneLineError(t, args, code, stderr)
	}
	for id, want := range map[string]string{"main": "mainmodel", "func": "funcmodel", "CaMKII_model": "camkiimodel", "9x": "model9x", "__": "model"} {
		if got := packageName(id); got != want || checkPackageName(got) != nil {
			t.Errorf("packageName(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestSimFlagsAfterFile: flags may follow the file (issue #16 item 15);
// "--" ends the flags.
func TestSimFlagsAfterFile(t *testing.T) {
	code, out, stderr := pbgen(t, "sim", "../../networks/PKA.xml", "-n", "2", "-t1", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, rows := readTSV(t, out)
	if len(rows) != 3 || rows[2][0] != 4 {
		t.Errorf("got %d rows ending at %v, want 3 ending at t=4", len(rows), rows[len(rows)-1][0])
	}
	code, _, stderr = pbgen(t, "sim", "-n", "2", "--", "-t1")
	if code != 1 || !strings.Contains(stderr, "-t1") {
		t.Errorf("after --, -t1 should be the file: exit %d, %q", code, stderr)
	}
}

// TestSimX0Sensitivities: -x0 leaves the initial sensitivities of the
// other states alone and keeps dx(t0)/dx0 = identity for the states it
// sets (issue #16 item 3). labelsNet with -sens-initials has the closed
// form (s the time, e = exp(-k s), A0, B0, C0 the initial A
// concentration, B amount and C amount, V = 4, c = 2):
//
//	A = A0 e, B = B0 + c A0 (1 - e), C = C0 e, t = 1 + A0 (1 - e) + s^2/2
//
// and init_C is C's initial concentration, so dC/dinit_C = V e.
func TestSimX0Sensitivities(t *testing.T) {
	path := writeNet(t, t.TempDir(), "labels.xml", labelsNetBody)
	const k, c, V = 0.3, 2.0, 4.0
	for _, tc := range []struct {
		x0         []string
		A0, B0, C0 float64
	}{
		{nil, 1, 0, 2},
		{[]string{"-x0", "B=0.5"}, 1, 0.5, 2},
		{[]string{"-x0", "amount:C=3"}, 1, 0, 3},
		{[]string{"-x0", "A=2", "-x0", "B=1"}, 2, 1, 2},
	} {
		args := append([]string{"sim", "-sens-initials", "-method", "fs", "-t1", "4", "-n", "4", "-rtol", "1e-9", "-atol", "1e-11"}, tc.x0...)
		code, out, stderr := pbgen(t, append(args, path)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", tc.x0, code, stderr)
		}
		header, rows := readTSV(t, out)
		col := make(map[string]int)
		for i, h := range header {
			col[h] = i
		}
		for _, row := range rows {
			s := row[0]
			e := math.Exp(-k * s)
			want := map[string]float64{
				"A": tc.A0 * e, "amount:B": tc.B0 + c*tc.A0*(1-e), "amount:C": tc.C0 * e,
				"state:t":           1 + tc.A0*(1-e) + s*s/2,
				"S:A:k":             -s * tc.A0 * e,
				"S:A:init_A":        e,
				"S:A:init_B":        0,
				"S:amount:B:init_A": c * (1 - e),
				"S:amount:B:init_B": 1,
				"S:amount:B:init_C": 0,
				"S:amount:C:init_C": V * e,
				"S:amount:C:init_A": 0,
				"S:state:t:init_A":  1 - e,
				"S:state:t:k":       tc.A0 * s * e,
			}
			for name, w := range want {
				i, ok := col[name]
				if !ok {
					t.Fatalf("no column %s in %q", name, header)
				}
				if !scalar.EqualWithinAbsOrRel(row[i], w, 1e-7, 1e-6) {
					t.Errorf("%q s=%g: %s = %.10g, want %.10g", tc.x0, s, name, row[i], w)
				}
			}
		}
	}
}

// TestSimTimesAreOutputs: -times gives output times only; the start is
// -t0 (issue #16 item 4). With times 5 and 10, row t=5 is x(5), not the
// initial state.
func TestSimTimesAreOutputs(t *testing.T) {
	dir := t.TempDir()
	path := writeNet(t, dir, "labels.xml", labelsNetBody)
	times := filepath.Join(dir, "times.txt")
	os.WriteFile(times, []byte("5\n10\n"), 0o644)
	const k = 0.3
	for _, tc := range []struct {
		t0   string
		want func(s float64) float64 // A(s)
	}{
		{"0", func(s float64) float64 { return math.Exp(-k * s) }},
		{"5", func(s float64) float64 { return math.Exp(-k * (s - 5)) }}, // A(t0) = 1 at t0 = 5
	} {
		code, out, stderr := pbgen(t, "sim", "-t0", tc.t0, "-times", times, "-rtol", "1e-9", "-atol", "1e-11", path)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		_, rows := readTSV(t, out)
		if len(rows) != 2 || rows[0][0] != 5 || rows[1][0] != 10 {
			t.Fatalf("-t0 %s: rows %v", tc.t0, rows)
		}
		for _, row := range rows {
			if w := tc.want(row[0]); !scalar.EqualWithinAbsOrRel(row[1], w, 1e-8, 1e-6) {
				t.Errorf("-t0 %s: A(%g) = %.10g, want %.10g", tc.t0, row[0], row[1], w)
			}
		}
	}
	code, stdout, stderr := pbgen(t, "sim", "-h")
	if code != 0 || !strings.Contains(stdout+stderr, "output times only") {
		t.Errorf("sim -h does not say that -times are output times only")
	}
}

// TestSimErrCon: -errcon is FS's errconS and on by default; with it off the
// error of S against a tight solve is larger (issue #16 item 5).
func TestSimErrCon(t *testing.T) {
	net := "../../networks/CaMKII.xml"
	args := []string{"sim", "-method", "fs", "-t1", "100", "-n", "20"}
	_, ref := simRows(t, append(args, "-rtol", "1e-10", "-atol", "1e-12", net)...)
	_, on := simRows(t, append(args, net)...)
	_, on2 := simRows(t, append(args, "-errcon", net)...)
	// -check would refuse the numbers without ErrCon (8.8e3 tolerances
	// off): this test measures them.
	_, off := simRows(t, append(args, "-errcon=false", "-check=false", net)...)
	errOf := func(rows [][]float64) float64 {
		worst := 0.0
		for k := range rows {
			for i := 22; i < len(rows[k]); i++ {
				worst = math.Max(worst, math.Abs(rows[k][i]-ref[k][i])/(1e-3+math.Abs(ref[k][i])))
			}
		}
		return worst
	}
	eOn, eOn2, eOff := errOf(on), errOf(on2), errOf(off)
	t.Logf("S error vs rtol 1e-10: errcon on %.2g, off %.2g", eOn, eOff)
	if eOn != eOn2 {
		t.Errorf("-errcon is not the default")
	}
	if !(eOff > 3*eOn) {
		t.Errorf("-errcon=false should be less accurate: %.2g vs %.2g", eOff, eOn)
	}
}

func simRows(t *testing.T, args ...string) ([]string, [][]float64) {
	t.Helper()
	code, out, stderr := pbgen(t, args...)
	if code != 0 {
		t.Fatalf("%q: exit %d: %s", args, code, stderr)
	}
	return readTSV(t, out)
}

// TestSimChunks: a solve streamed in chunks of output times, each starting
// from x and S at the end of the last, matches one unchunked solve to the
// tolerance, for every method (issue #16 item 8). Exp has no error test
// of S, so a restart moves its grid and its results by up to its own
// error (about 1e-4 relative on PKA, README): its bound is that.
func TestSimChunks(t *testing.T) {
	defer func() { simChunkRows = 0 }()
	for _, tc := range []struct {
		method string
		tol    float64
	}{{"fs", 1e-5}, {"pbsr", 1e-5}, {"exp", 1e-3}, {"none", 1e-5}} {
		method := tc.method
		args := []string{"sim", "-method", method, "-t1", "60", "-n", "60", "-rtol", "1e-8", "-atol", "1e-10", "../../networks/PKA.xml"}
		if method == "exp" {
			// Exp is 2e3 tolerances off at rtol 1e-8, which -check
			// refuses; the chunks are compared without it.
			args = append(args[:len(args)-1], "-check=false", args[len(args)-1])
		}
		simChunkRows = 0
		h1, one := simRows(t, args...)
		simChunkRows = 7
		h2, chunked := simRows(t, args...)
		if len(h1) != len(h2) || len(one) != 61 || len(chunked) != 61 {
			t.Fatalf("%s: %d/%d columns, %d/%d rows", method, len(h1), len(h2), len(one), len(chunked))
		}
		scale := make([]float64, len(h1))
		for k := range one {
			for i, v := range one[k] {
				scale[i] = math.Max(scale[i], math.Abs(v))
			}
		}
		worst := 0.0
		for k := range one {
			if one[k][0] != chunked[k][0] {
				t.Fatalf("%s: row %d at t=%g, want %g", method, k, chunked[k][0], one[k][0])
			}
			for i := 1; i < len(h1); i++ {
				worst = math.Max(worst, math.Abs(one[k][i]-chunked[k][i])/(scale[i]+1e-300))
			}
		}
		t.Logf("%s: chunked vs unchunked: max relative (to column scale) difference %.2g", method, worst)
		if worst > tc.tol {
			t.Errorf("%s: chunked solve differs by %.2g", method, worst)
		}
	}
}

// heapSampler is an io.Writer that records the peak live heap, sampled
// (after a GC) every 1 MB written.
type heapSampler struct {
	n, next int
	peak    uint64
}

func (h *heapSampler) Write(p []byte) (int, error) {
	h.n += len(p)
	if h.n >= h.next {
		h.next = h.n + 1<<20
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.peak = max(h.peak, ms.HeapAlloc)
	}
	return len(p), nil
}

// TestSimMemoryBounded: the live heap of sim does not grow with -n
// (issue #16 item 8): ten times the rows may not add more than a fraction
// of what holding them would take.
func TestSimMemoryBounded(t *testing.T) {
	defer func() { simChunkRows = 0 }()
	simChunkRows = 256
	peak := func(n int) uint64 {
		h := &heapSampler{}
		args := []string{"sim", "-method", "fs", "-t1", "20", "-n", strconv.Itoa(n), "../../networks/Chua.xml"}
		if code := run(args, h, io.Discard); code != 0 {
			t.Fatalf("exit %d", code)
		}
		return h.peak
	}
	small, large := peak(4000), peak(40000)
	// Holding the rows would take (1 + 3 + 6) floats per row for the
	// result and about as much again for the trajectory.
	held := uint64(40000-4000) * 10 * 8
	t.Logf("peak live heap: %d kB at n=4000, %d kB at n=40000 (holding the rows: +%d kB)", small>>10, large>>10, held>>10)
	if large > small+held/4 {
		t.Errorf("heap grows with -n: %d kB -> %d kB", small>>10, large>>10)
	}
}

// TestSimMethodNone: -method none writes the states and the time-varying
// observables, no sensitivities, and the states agree with a run that
// computes S (issue #10 item 3).
func TestSimMethodNone(t *testing.T) {
	dir := t.TempDir()
	path := writeNet(t, dir, "labels.xml", labelsNetBody)
	h, rows := simRows(t, "sim", "-method", "none", "-t1", "5", "-n", "5", "-rtol", "1e-9", "-atol", "1e-11", "-plot", dir, path)
	hs, rowsS := simRows(t, "sim", "-method", "fs", "-t1", "5", "-n", "5", "-rtol", "1e-9", "-atol", "1e-11", path)
	for _, c := range h {
		if strings.HasPrefix(c, "S:") {
			t.Fatalf("-method none wrote sensitivity column %s", c)
		}
	}
	if strings.Join(h[:6], " ") != strings.Join(hs[:6], " ") {
		t.Fatalf("state columns %q, want %q", h[:6], hs[:6])
	}
	col := make(map[string]int)
	for i, c := range h {
		col[c] = i
	}
	// conc:C is an observable (C is held as an amount, V = 4); constants
	// (k, c) are not written.
	ic, ok := col["conc:C"]
	if !ok {
		t.Fatalf("no observable conc:C in %q", h)
	}
	for _, c := range []string{"k", "c"} {
		if _, ok := col[c]; ok {
			t.Errorf("constant %s written as an observable", c)
		}
	}
	// A bare species id is a concentration: B (an amount in its math
	// units) is not written again, nor conc:A (the state column A).
	for _, c := range []string{"B", "C", "conc:A"} {
		if _, ok := col[c]; ok {
			t.Errorf("observable %s written (ambiguous or a duplicate of a state column)", c)
		}
	}
	for _, c := range []string{"amount:A", "conc:B", "R1"} {
		if _, ok := col[c]; !ok {
			t.Errorf("observable %s missing from %q", c, h)
		}
	}
	for k := range rows {
		for i := 0; i < 6; i++ {
			if !scalar.EqualWithinAbsOrRel(rows[k][i], rowsS[k][i], 1e-8, 1e-7) {
				t.Errorf("t=%g: %s = %g, with S %g", rows[k][0], h[i], rows[k][i], rowsS[k][i])
			}
		}
		if w := rows[k][col["amount:C"]] / 4; !scalar.EqualWithinAbsOrRel(rows[k][ic], w, 1e-12, 1e-9) {
			t.Errorf("t=%g: conc:C = %g, want amount/V = %g", rows[k][0], rows[k][ic], w)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "states.png")); err != nil {
		t.Errorf("no states plot: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sensitivity-top.png")); err == nil {
		t.Errorf("sensitivity plot written without sensitivities")
	}
}

// TestTimeAxis: the time axis is logarithmic when the visible change
// happens early (CaMKII's first seconds of 600), linear otherwise, and
// -logt overrides the choice (issue #10 item 3).
func TestTimeAxis(t *testing.T) {
	mk := func(tau float64) *plotData {
		d := newPlotData(601, 2, 0, false)
		for k := 0; k <= 600; k++ {
			s := float64(k)
			d.T = append(d.T, s)
			d.X = append(d.X, 100*(1-math.Exp(-s/tau)), 1e-20*math.Sin(s)) // the second is roundoff
		}
		return d
	}
	for _, tc := range []struct {
		tau  float64
		logt triFlag
		want bool
	}{
		{2, triFlag{}, true},
		{200, triFlag{}, false},
		{2, triFlag{set: true, v: false}, false},
		{200, triFlag{set: true, v: true}, true},
	} {
		if got := chooseTimeAxis(mk(tc.tau), tc.logt).log; got != tc.want {
			t.Errorf("tau %g, -logt %v: log axis %v, want %v", tc.tau, tc.logt.String(), got, tc.want)
		}
	}
	s := symLog{t0: 0, c: 1}
	if s.Normalize(0, 600, 0) != 0 || s.Normalize(0, 600, 600) != 1 || !(s.Normalize(0, 600, 10) > 0.3) {
		t.Errorf("symlog: 10 of 600 at %g, want a third of the axis", s.Normalize(0, 600, 10))
	}
}

// TestPlotDecimation: plotting keeps a bounded number of rows of a long
// run, including the first, the last and early rows for a log axis, and
// the largest sensitivity over all rows.
func TestPlotDecimation(t *testing.T) {
	const n = 1000000
	d := newPlotData(n, 1, 1, true)
	for k := 0; k < n; k++ {
		if !d.keep(k) {
			continue
		}
		d.T = append(d.T, float64(k))
	}
	if len(d.T) > 2*maxPlotRows+2 || d.T[0] != 0 || d.T[len(d.T)-1] != n-1 {
		t.Errorf("kept %d rows from %g to %g", len(d.T), d.T[0], d.T[len(d.T)-1])
	}
	early := 0
	for _, v := range d.T {
		if v > 0 && v < n/1000 {
			early++
		}
	}
	if early < 50 {
		t.Errorf("only %d rows in the first 0.1%% for a log axis", early)
	}
}

// TestVersion: pbgen version prints the module version and VCS revision
// from the build information (issue #10 item 6).
func TestVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/pbgen/pbgen", Version: "v0.1.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-11-25T07:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := versionString(bi)
	for _, w := range []string{"pbgen " + version, "github.com/pbgen/pbgen v0.1.0", "revision 0123456789abcdef 2026-11-25T07:00:00Z (modified)", "go1.26.0"} {
		if !strings.Contains(got, w) {
			t.Errorf("versionString = %q, lacks %q", got, w)
		}
	}
	if got := versionString(nil); !strings.Contains(got, "no build information") {
		t.Errorf("versionString(nil) = %q", got)
	}
	code, out, _ := pbgen(t, "version")
	bi, _ = debug.ReadBuildInfo()
	if code != 0 || strings.TrimSpace(out) != versionString(bi) {
		t.Errorf("pbgen version: exit %d, %q", code, out)
	}
	if code, _, stderr := pbgen(t, "version", "x"); code != 2 || !strings.HasPrefix(stderr, "pbgen: version takes no arguments") {
		t.Errorf("pbgen version x: exit %d, %q", code, stderr)
	}
}

// TestSimOutputOnFailure: a failed solve leaves an existing -o file as it
// was and no temporary file behind; a successful one replaces it.
func TestSimOutputOnFailure(t *testing.T) {
	dir := t.TempDir()
	nan := writeNet(t, dir, "nan.xml", nanNet)
	out := filepath.Join(dir, "out.tsv")
	os.WriteFile(out, []byte("old\n"), 0o600)
	if code, _, stderr := pbgen(t, "sim", "-t1", "2", "-o", out, nan); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "old\n" {
		t.Errorf("failed run changed -o: %q", b)
	}
	if code, _, stderr := pbgen(t, "sim", "-t1", "0.5", "-n", "2", "-o", out, nan); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(out)
	if _, rows := readTSV(t, string(b)); len(rows) != 3 {
		t.Errorf("-o holds %d rows, want 3", len(rows))
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Errorf("-o mode %v, want the old file's 0600", st.Mode().Perm())
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(files) != 0 {
		t.Errorf("temporary files left: %q", files)
	}
}
