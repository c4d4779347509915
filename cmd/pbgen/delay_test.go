package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hutchNet is x' = -x(t - 1), x = 1 before the start: on [0, 1]
// x = 1 - t, on [1, 2] x = (t - 2)^2/2 - 1/2. y = delay(x, 1) is an
// observable.
var hutchNet = sbml(`<listOfParameters>
<parameter id="x" value="1" constant="false"/><parameter id="y" constant="false"/></listOfParameters>
<listOfRules>
<rateRule variable="x"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><minus/><apply><csymbol definitionURL="http://www.sbml.org/sbml/symbols/delay">delay</csymbol><ci>x</ci><cn>1</cn></apply></apply></math></rateRule>
<assignmentRule variable="y"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><csymbol definitionURL="http://www.sbml.org/sbml/symbols/delay">delay</csymbol><ci>x</ci><cn>1</cn></apply></math></assignmentRule>
</listOfRules>`)

// pbgen sim solves a model with csymbol delay with -method none and
// refuses sensitivities by name.
func TestSimDelay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hutch.xml")
	if err := os.WriteFile(path, []byte(hutchNet), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := pbgen(t, "check", path); code != 0 || !strings.Contains(stdout, "delays      1 (delay(x, 1);") {
		t.Errorf("check: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr := pbgen(t, "sim", "-method", "pbsr", "-t1", "2", path)
	if code != 1 || !strings.Contains(stderr, "-method pbsr: sensitivities of models with csymbol delay are computed by forward sensitivity only") || !strings.Contains(stderr, "-method fs") {
		t.Errorf("sim -method pbsr: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := pbgen(t, "sim", "-method", "none", "-rtol", "1e-10", "-atol", "1e-12", "-t1", "2", "-n", "4", path)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if lines[0] != "t\tx\ty" {
		t.Fatalf("header %q, want t, x, y", lines[0])
	}
	exact := func(t float64) float64 {
		if t <= 1 {
			return 1 - t
		}
		return (t-2)*(t-2)/2 - 0.5
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		var v [3]float64
		for i := range v {
			v[i], _ = strconv.ParseFloat(f[i], 64)
		}
		wy := 1.0
		if v[0] >= 1 {
			wy = exact(v[0] - 1)
		}
		if math.Abs(v[1]-exact(v[0])) > 1e-7 || math.Abs(v[2]-wy) > 1e-7 {
			t.Errorf("row %q: want x = %g, y = %g", l, exact(v[0]), wy)
		}
	}
}

// hutchKNet is x' = -k x(t - 1), x = 1 before the start, k = 0.5.
var hutchKNet = sbml(`<listOfParameters>
<parameter id="x" value="1" constant="false"/><parameter id="k" value="0.5" constant="true"/></listOfParameters>
<listOfRules>
<rateRule variable="x"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><minus/><apply><times/><ci>k</ci><apply><csymbol definitionURL="http://www.sbml.org/sbml/symbols/delay">delay</csymbol><ci>x</ci><cn>1</cn></apply></apply></apply></math></rateRule>
</listOfRules>`)

// pbgen sim -method fs computes the sensitivities through the delay:
// for hutchKNet the method of steps gives dx/dk = -t on [0, 1] and
// -t + k (t - 1)^2 on [1, 2].
func TestSimDelaySens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hutchk.xml")
	if err := os.WriteFile(path, []byte(hutchKNet), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := pbgen(t, "sim", "-method", "fs", "-rtol", "1e-10", "-atol", "1e-12", "-t1", "2", "-n", "5", path)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if lines[0] != "t\tx\tS:x:k" {
		t.Fatalf("header %q", lines[0])
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		tt, _ := strconv.ParseFloat(f[0], 64)
		s, _ := strconv.ParseFloat(f[2], 64)
		want := -tt
		if tt > 1 {
			want += 0.5 * (tt - 1) * (tt - 1)
		}
		if math.Abs(s-want) > 1e-8 {
			t.Errorf("row %q: dx/dk = %g, want %g", l, s, want)
		}
	}
}

// hutchEventNet is x' = -x(t - 1), x = 1 before the start, with an event
// at t >= T that reads the delayed value: x := x + a x(t - 1), T = 1.25,
// a = 0.8.
var hutchEventNet = sbml(`<listOfParameters>
<parameter id="x" value="1" constant="false"/><parameter id="T" value="1.25" constant="true"/><parameter id="a" value="0.8" constant="true"/></listOfParameters>
<listOfRules>
<rateRule variable="x"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><minus/><apply><csymbol definitionURL="http://www.sbml.org/sbml/symbols/delay">delay</csymbol><ci>x</ci><cn>1</cn></apply></apply></math></rateRule>
</listOfRules>
<listOfEvents><event id="E0" useValuesFromTriggerTime="true"><trigger initialValue="false" persistent="true"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><geq/><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol><ci>T</ci></apply></math></trigger>
<listOfEventAssignments><eventAssignment variable="x"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><plus/><ci>x</ci><apply><times/><ci>a</ci><apply><csymbol definitionURL="http://www.sbml.org/sbml/symbols/delay">delay</csymbol><ci>x</ci><cn>1</cn></apply></apply></apply></math></eventAssignment></listOfEventAssignments></event></listOfEvents>`)

// pbgen sim -method fs carries the sensitivities through the event of a
// delay model: by the method of steps, x is Hutchinson's solution plus
// a (2 - T) on (T, 1 + T), with dx/d(T, a) = (-a, 2 - T), and plus
// a (2 - T)(2 + T - t) after 1 + T, where the event's jump reaches
// x(t - 1): dx/d(T, a) = (a (t - 2T), (2 - T)(2 + T - t)).
func TestSimDelayEventSens(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hutchev.xml")
	if err := os.WriteFile(path, []byte(hutchEventNet), 0o644); err != nil {
		t.Fatal(err)
	}
	const T, a = 1.25, 0.8
	checkSimSens(t, path, "0.5\n1.5\n2\n2.5\n2.9\n", "t\tx\tS:x:T\tS:x:a", func(tt float64) (want [2]float64) {
		switch {
		case tt < T:
		case tt < 1+T:
			want = [2]float64{-a, 2 - T}
		default:
			want = [2]float64{a * (tt - 2*T), (2 - T) * (2 + T - tt)}
		}
		return want
	})
}

// pbgen sim -method fs stops at the switch of a delay model's rate, a
// step input at a parameter time (testdata/delayswitch/stepinput.xml:
// x' = -x(t - 1) + piecewise(u, t >= T, 0), T = 0.4, u = 0.5), and S
// takes its jump (f- - f+) dT/dp there: by the method of steps,
// dx/d(T, u) = (-u, t - T) on (T, 1] and (-u + u (t - 1 - T)+, (1 - T) -
// ((t - 1 - T)+)^2/2 + t - 1) on [1, 2]. Stepped over, S_T was 0.
func TestSimDelaySwitchSens(t *testing.T) {
	const T, u = 0.4, 0.5
	checkSimSens(t, filepath.Join("..", "..", "testdata", "delayswitch", "stepinput.xml"), "0.2\n0.7\n1.2\n1.6\n2\n", "t\tx\tS:x:T\tS:x:u", func(tt float64) (want [2]float64) {
		switch {
		case tt < T:
		case tt <= 1:
			want = [2]float64{-u, tt - T}
		default:
			r := math.Max(tt-1-T, 0)
			want = [2]float64{-u + u*r, (1 - T) - r*r/2 + tt - 1}
		}
		return want
	})
}

// checkSimSens runs pbgen sim -method fs at rtol 1e-10 on path at the
// output times in times (a -times file's text), checks the header, and
// compares the two columns of S in each row with want(t) to 1e-8.
func checkSimSens(t *testing.T, path, times, header string, want func(t float64) [2]float64) {
	t.Helper()
	tf := filepath.Join(t.TempDir(), "times")
	if err := os.WriteFile(tf, []byte(times), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := pbgen(t, "sim", "-method", "fs", "-rtol", "1e-10", "-atol", "1e-12", "-times", tf, path)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if lines[0] != header {
		t.Fatalf("header %q, want %q", lines[0], header)
	}
	if len(lines) != 1+strings.Count(times, "\n") {
		t.Fatalf("%d rows for the times %q", len(lines)-1, times)
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		var v [4]float64
		for i := range v {
			v[i], _ = strconv.ParseFloat(f[i], 64)
		}
		w := want(v[0])
		if math.Abs(v[2]-w[0]) > 1e-8 || math.Abs(v[3]-w[1]) > 1e-8 {
			t.Errorf("row %q: S = (%g, %g), want %v", l, v[2], v[3], w)
		}
	}
}

// TestSimDelayHistoryJumps: pbgen sim -method fs on a delayed floor of
// time, whose history before the start jumps at times that move with T
// (testdata/delayhist/floorshift.xml), exits 1 with dde.SolveSens's
// refusal naming the model and the delay, and writes no numbers;
// -method none writes the states.
func TestSimDelayHistoryJumps(t *testing.T) {
	file := filepath.Join("..", "..", "testdata", "delayhist", "floorshift.xml")
	code, stdout, stderr := pbgen(t, "sim", "-method", "fs", "-t1", "3", "-n", "3", file)
	if code != 1 || stdout != "" || !strings.Contains(stderr, `model "floorshift"`) || !strings.Contains(stderr, "history of delay(floor((t + 0.6)/T), D)") {
		t.Errorf("-method fs: exit %d, stdout %q, stderr %q; want 1, nothing, the refusal naming the model and the delay", code, stdout, stderr)
	}
	code, stdout, stderr = pbgen(t, "sim", "-method", "none", "-rtol", "1e-10", "-atol", "1e-12", "-t1", "3", "-n", "3", file)
	if code != 0 {
		t.Fatalf("-method none: exit %d, stderr %q", code, stderr)
	}
	// X' = floor((t - 1.4)/1.3): -2 on [0, 0.1), -1 to 1.4, 0 to 2.7, 1.
	want := []float64{0, -1.1, -1.5, -1.2}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != len(want)+1 {
		t.Fatalf("-method none: output %q", stdout)
	}
	for i, l := range lines[1:] {
		x, _ := strconv.ParseFloat(strings.Split(l, "\t")[1], 64)
		if math.Abs(x-want[i]) > 1e-8 {
			t.Errorf("-method none: row %q: X = %g, want %g", l, x, want[i])
		}
	}
}
