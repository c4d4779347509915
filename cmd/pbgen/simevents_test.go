package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// eventModel is decay dx/dt = -k x from x = 1 with two events: "low"
// resets x to r when x falls below th (a state trigger), "kick" sets x to
// a at time T (a time trigger). With k=0.5, th=0.5, r=1, a=2, T=2.1, low
// fires at ln 2/k, kick at T, then low at T + ln(a/th)/k and every
// ln(r/th)/k after: no event time is an output time of a 0.5 grid.
const eventModel = `<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2">
<model id="resets">
<listOfParameters>
  <parameter id="k" value="0.5" constant="true"/>
  <parameter id="th" value="0.5" constant="true"/>
  <parameter id="r" value="1" constant="true"/>
  <parameter id="a" value="2" constant="true"/>
  <parameter id="T" value="2.1" constant="true"/>
  <parameter id="x" value="1" constant="false"/>
</listOfParameters>
<listOfRules>
  <rateRule variable="x"><math xmlns="http://www.w3.org/1998/Math/MathML">
    <apply><times/><apply><minus/><ci>k</ci></apply><ci>x</ci></apply></math></rateRule>
</listOfRules>
<listOfEvents>
  <event id="low" useValuesFromTriggerTime="true">
    <trigger initialValue="true" persistent="true"><math xmlns="http://www.w3.org/1998/Math/MathML">
      <apply><lt/><ci>x</ci><ci>th</ci></apply></math></trigger>
    <listOfEventAssignments><eventAssignment variable="x"><math xmlns="http://www.w3.org/1998/Math/MathML"><ci>r</ci></math></eventAssignment></listOfEventAssignments>
  </event>
  <event id="kick" useValuesFromTriggerTime="true">
    <trigger initialValue="true" persistent="true"><math xmlns="http://www.w3.org/1998/Math/MathML">
      <apply><geq/><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol><ci>T</ci></apply></math></trigger>
    <listOfEventAssignments><eventAssignment variable="x"><math xmlns="http://www.w3.org/1998/Math/MathML"><ci>a</ci></math></eventAssignment></listOfEventAssignments>
  </event>
</listOfEvents>
</model>
</sbml>`

// eventParams are eventModel's sensitivity parameters in document order.
var eventParams = []string{"k", "th", "r", "a", "T"}

// eventClosedForm is x(t) of eventModel from x(t0) = x0 (a value not
// depending on the parameters: the default 1, or -x0) and its gradient
// in eventParams, segment by segment: on a segment starting at s with
// value v, x = v exp(-k (t-s)), so dx/dp = exp(-k(t-s)) dv/dp - (t-s) x
// dk/dp + k x ds/dp; a state event ends a segment at s + ln(v/th)/k
// unless kick comes first.
func eventClosedForm(t, t0, x0 float64) (float64, [5]float64) {
	const k, th, r, a, T = 0.5, 0.5, 1.0, 2.0, 2.1
	const iK, iTh, iR, iA, iT = 0, 1, 2, 3, 4
	type seg struct {
		s, v   float64
		ds, dv [5]float64
	}
	// low is the segment after a state event ending cur (reset to r).
	low := func(cur seg) seg {
		L := math.Log(cur.v/th) / k
		n := seg{s: cur.s + L, v: r}
		for j := range n.ds {
			n.ds[j] = cur.ds[j] + cur.dv[j]/(k*cur.v)
		}
		n.ds[iTh] -= 1 / (k * th)
		n.ds[iK] -= L / k
		n.dv[iR] = 1
		return n
	}
	cur, kicked := seg{s: t0, v: x0}, false
	for {
		n := low(cur)
		if !kicked && n.s > T {
			n = seg{s: T, v: a}
			n.ds[iT], n.dv[iA] = 1, 1
			kicked = true
		}
		if t < n.s {
			break
		}
		cur = n
	}
	e := math.Exp(-k * (t - cur.s))
	x := cur.v * e
	var g [5]float64
	for j := range g {
		g[j] = e*cur.dv[j] + k*x*cur.ds[j]
	}
	g[iK] -= (t - cur.s) * x
	return x, g
}

func writeEventModel(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "resets.xml")
	if err := os.WriteFile(path, []byte(eventModel), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSimEvents runs eventModel with -method none, fs and pbsr and
// compares x and S with the closed form at every output time (20 of them,
// six events in between), and checks that -times starting after -t0
// still starts at -t0.
func TestSimEvents(t *testing.T) {
	path := writeEventModel(t)
	times := filepath.Join(t.TempDir(), "times")
	if err := os.WriteFile(times, []byte("0.75\n3.25\n9.75\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method string
		grid   []string
		t0, x0 float64
	}{
		{"none", []string{"-t1", "10", "-n", "20"}, 0, 1},
		{"fs", []string{"-t1", "10", "-n", "20"}, 0, 1},
		{"pbsr", []string{"-t1", "10", "-n", "20"}, 0, 1},
		{"exp", []string{"-t1", "10", "-n", "20"}, 0, 1},
		{"pbs", []string{"-t1", "10", "-n", "20"}, 0, 1},
		{"fs", []string{"-times", times}, 0, 1},
		// From x0 = 3 kick comes before the first low: another event
		// order, and -x0 makes S(t0) zero as without events.
		{"pbsr", []string{"-x0", "x=3", "-t1", "10", "-n", "20"}, 0, 3},
		{"fs", []string{"-x0", "x=3", "-t1", "10", "-n", "20"}, 0, 3},
		// A later start moves low (from x(t0) = 1) past kick; -params
		// keeps two columns of S.
		{"fs", []string{"-t0", "1", "-t1", "10.5", "-n", "19", "-params", "k,T"}, 1, 1},
		{"none", []string{"-t0", "1", "-t1", "10.5", "-n", "19"}, 1, 1},
	} {
		args := append([]string{"sim", "-method", c.method, "-rtol", "1e-9", "-atol", "1e-11"}, c.grid...)
		if c.method == "exp" || c.method == "pbs" {
			// Their S is off by more than 100 tolerances here (below),
			// which -check refuses (exp: 1.5e4 at t = 0.5); this test is
			// about the events, so they run unchecked.
			args = append(args, "-check=false")
		}
		code, out, stderr := pbgen(t, append(args, path)...)
		if code != 0 {
			t.Fatalf("%s %v: exit %d: %s", c.method, c.grid, code, stderr)
		}
		header, rows := readTSV(t, out)
		withS := c.method != "none"
		wantCols := 2
		// param[j] is the index in eventParams of S column j.
		var param []int
		if withS {
			want := eventParams
			if c.t0 != 0 {
				want = []string{"k", "T"}
			}
			wantCols += len(want)
			for j, p := range want {
				if header[2+j] != "S:x:"+p {
					t.Fatalf("%s: column %d is %q, want S:x:%s", c.method, 2+j, header[2+j], p)
				}
				param = append(param, indexOf(eventParams, p))
			}
		}
		wantRows := 21
		switch {
		case c.grid[0] == "-times":
			wantRows = 3
		case c.t0 != 0:
			wantRows = 20
		}
		// fs and pbsr control the error of S; exp and pbs step S on the
		// state's steps without an error test of their own (sim -h), and
		// are off by a few 1e-5 here already before the first event.
		stol := 1e-5
		if c.method == "exp" || c.method == "pbs" {
			stol = 2e-4
		}
		if rows[0][0] != c.t0 && c.grid[0] != "-times" {
			t.Errorf("%s: first row at t=%g, want %g", c.method, rows[0][0], c.t0)
		}
		if header[0] != "t" || header[1] != "x" || len(rows) != wantRows || len(rows[0]) != wantCols {
			t.Fatalf("%s: header %q, %d rows of %d, want %d of %d", c.method, header, len(rows), len(rows[0]), wantRows, wantCols)
		}
		for _, row := range rows {
			x, g := eventClosedForm(row[0], c.t0, c.x0)
			if math.Abs(row[1]-x) > 1e-6*math.Max(1, math.Abs(x)) {
				t.Errorf("%s: x(%g) = %.10g, closed form %.10g", c.method, row[0], row[1], x)
			}
			if !withS {
				continue
			}
			for j, q := range param {
				if s := row[2+j]; math.Abs(s-g[q]) > stol*math.Max(1, math.Abs(g[q])) {
					t.Errorf("%s: %s(%g) = %.10g, closed form %.10g", c.method, header[2+j], row[0], s, g[q])
				}
			}
		}
	}
}

// TestSimEventsRefusals: -paper names the option and the events; events
// that re-trigger each other forever at one instant end in an error that
// names one of them, with no rows written.
func TestSimEventsRefusals(t *testing.T) {
	path := writeEventModel(t)
	code, out, stderr := pbgen(t, "sim", "-method", "pbsr", "-paper", path)
	if code != 1 || out != "" || !strings.Contains(stderr, "-paper") || !strings.Contains(stderr, "low, kick") || strings.Contains(stderr, "panic") {
		t.Errorf("-paper: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// Every row is held in memory: a grid that would not fit is refused
	// before the solve, with its size.
	code, out, stderr = pbgen(t, "sim", "-n", "1000000000000", path)
	if code != 1 || out != "" || !strings.Contains(stderr, "give fewer output times") || strings.Contains(stderr, "panic") {
		t.Errorf("-n 1e12: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// up sets x to 1 when x < 0.5, down sets it to 0 when x > 0.5.
	loop := strings.NewReplacer(`<ci>r</ci></math></eventAssignment>`, `<cn>1</cn></math></eventAssignment>`,
		`id="low"`, `id="up"`, `id="kick"`, `id="down"`,
		`<apply><geq/><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol><ci>T</ci></apply>`, `<apply><gt/><ci>x</ci><ci>th</ci></apply>`,
		`<ci>a</ci></math></eventAssignment>`, `<cn>0</cn></math></eventAssignment>`).Replace(eventModel)
	if loop == eventModel {
		t.Fatal("the replacements did not apply")
	}
	lp := filepath.Join(t.TempDir(), "loop.xml")
	if err := os.WriteFile(lp, []byte(loop), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"none", "fs"} {
		code, out, stderr = pbgen(t, "sim", "-method", method, lp)
		if code != 1 || out != "" || !strings.Contains(stderr, "too many event executions") ||
			!(strings.Contains(stderr, `event "up"`) || strings.Contains(stderr, `event "down"`)) || strings.Contains(stderr, "panic") {
			t.Errorf("%s: re-triggering events: exit %d, stdout %q, stderr %q", method, code, out, stderr)
		}
	}
}

// TestCheckEvents: check lowers events and counts them.
func TestCheckEvents(t *testing.T) {
	path := writeEventModel(t)
	code, out, stderr := pbgen(t, "check", path)
	if code != 0 || !strings.Contains(out, "events      2\n") || !strings.Contains(out, "parameters  5") {
		t.Errorf("check: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = pbgen(t, "check", "../../networks/CaMKII.xml")
	if code != 0 || !strings.Contains(out, "events      0\n") || strings.Contains(out, "split") {
		t.Errorf("check CaMKII: exit %d\n%s", code, out)
	}
	// A delayed event with trigger-time values on a fast reaction is one
	// event of the model, split in two (parser/lateevents.go).
	code, out, stderr = pbgen(t, "check", "../../testsuite/testdata/latefast/90001/90001-sbml-l3v2.xml")
	if code != 0 || !strings.Contains(out, "events      1\n") || !strings.Contains(out, "split       1 (") {
		t.Errorf("check latefast: exit %d\n%s%s", code, out, stderr)
	}
}

// TestGenEvents: pbgen gen writes a package with the model's events.
func TestGenEvents(t *testing.T) {
	path := writeEventModel(t)
	dir := filepath.Join(t.TempDir(), "out")
	code, _, stderr := pbgen(t, "gen", "-o", dir, "-pkg", "evmodel", path)
	if code != 0 {
		t.Fatalf("gen: exit %d, stderr %q", code, stderr)
	}
	src, err := os.ReadFile(filepath.Join(dir, "model.go"))
	if err != nil {
		t.Fatal(err)
	}
	// The package implements model.Events (runtime/events solves it;
	// sens.Solver refuses it rather than stepping over the events).
	for _, want := range []string{"func (Model) NumEvents() int", "model.Events", `"low"`, `"kick"`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("generated package lacks %q", want)
		}
	}
}
