package main

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/generated/chua"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sens"
)

// readTSV parses pbgen sim output.
func readTSV(t *testing.T, s string) (header []string, rows [][]float64) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if header == nil {
			header = f
			continue
		}
		row := make([]float64, len(f))
		for i, v := range f {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("bad number %q", v)
			}
			row[i] = x
		}
		rows = append(rows, row)
	}
	return header, rows
}

// TestSimMatchesGenerated runs pbgen sim (interpreted model) on the shipped
// networks and compares every number with a solve of the generated
// package at the same settings.
func TestSimMatchesGenerated(t *testing.T) {
	for _, n := range []struct {
		file string
		m    model.Model
		t1   string
	}{{"PKA", pka.New(), "600"}, {"CaMKII", camkii.New(), "600"}, {"Chua", chua.New(), "10"}} {
		code, out, stderr := pbgen(t, "sim", "-t1", n.t1, "-n", "60", "-rtol", "1e-6", "-atol", "1e-8", "../../networks/"+n.file+".xml")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", n.file, code, stderr)
		}
		header, rows := readTSV(t, out)
		nx, np := model.NumStates(n.m), model.NumParams(n.m)
		if len(header) != 1+nx+nx*np || header[0] != "t" || header[1] != n.m.StateNames()[0] ||
			header[1+nx] != "S:"+n.m.StateNames()[0]+":"+n.m.ParamNames()[0] ||
			header[len(header)-1] != "S:"+n.m.StateNames()[nx-1]+":"+n.m.ParamNames()[np-1] {
			t.Fatalf("%s: header %q...", n.file, header[:3])
		}
		if len(rows) != 61 || rows[0][0] != 0 {
			t.Fatalf("%s: %d rows starting at t=%g, want 61 from 0", n.file, len(rows), rows[0][0])
		}
		p := make([]float64, np)
		n.m.DefaultParams(p)
		ts := make([]float64, len(rows))
		for k := range rows {
			ts[k] = rows[k][0]
		}
		res, err := sens.Solve(n.m, p, ts, &sens.Options{Method: sens.PBSR, RTol: 1e-6, ATol: 1e-8})
		if err != nil {
			t.Fatal(err)
		}
		var worstX, worstS, scaleX, scaleS float64
		for k := range rows {
			for i := 0; i < nx; i++ {
				worstX = math.Max(worstX, math.Abs(rows[k][1+i]-res.X[k*nx+i]))
				scaleX = math.Max(scaleX, math.Abs(res.X[k*nx+i]))
			}
			for e := 0; e < nx*np; e++ {
				worstS = math.Max(worstS, math.Abs(rows[k][1+nx+e]-res.S[k*nx*np+e]))
				scaleS = math.Max(scaleS, math.Abs(res.S[k*nx*np+e]))
			}
		}
		t.Logf("%s: sim vs generated: max |dx| %.2g (scale %.2g), max |dS| %.2g (scale %.2g)", n.file, worstX, scaleX, worstS, scaleS)
		// The two models differ only in rounding (the interpreter computes
		// a/c as a*(1/c)), but adaptive step and refinement choices may
		// then differ, so the solves agree to the requested tolerance
		// (rtol 1e-6), not bit for bit.
		if worstX > 1e-6*scaleX || worstS > 1e-5*scaleS {
			t.Errorf("%s: sim and generated package disagree", n.file)
		}
	}
}

func TestSimFlagsAndPlots(t *testing.T) {
	dir := t.TempDir()
	times := filepath.Join(dir, "times.txt")
	os.WriteFile(times, []byte("# output times\n0\n1.5\n3\n"), 0o644)
	out := filepath.Join(dir, "out.tsv")
	code, _, stderr := pbgen(t, "sim", "-method", "fs", "-times", times, "-p", "p1=1", "-x0", "x3=0.2", "-o", out, "-plot", dir, "../../networks/Chua.xml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(out)
	_, rows := readTSV(t, string(b))
	if len(rows) != 3 || rows[1][0] != 1.5 || rows[0][3] != 0.2 {
		t.Errorf("rows %v", rows)
	}
	for _, png := range []string{"states.png", "sensitivity-heatmap.png", "sensitivity-top.png"} {
		if st, err := os.Stat(filepath.Join(dir, png)); err != nil || st.Size() < 1000 {
			t.Errorf("%s not written: %v", png, err)
		}
	}
	for _, bad := range [][]string{
		{"sim", "-p", "nosuch=1", "../../networks/Chua.xml"},
		{"sim", "-p", "p1=abc", "../../networks/Chua.xml"},
		{"sim", "-method", "rk4", "../../networks/Chua.xml"},
		{"sim", "-t1", "Inf", "../../networks/Chua.xml"},
		{"sim", "-t0", "-1e308", "-t1", "1e308", "../../networks/Chua.xml"},
		{"sim", "-t0", "NaN", "../../networks/Chua.xml"},
	} {
		if code, _, stderr := pbgen(t, bad...); code == 0 || strings.Contains(stderr, "panic") {
			t.Errorf("pbgen %q: exit %d, stderr %q", bad, code, stderr)
		}
	}
}

// TestSimIntegratorFailure: a blow-up is an error message with the time
// reached and exit status 1, never a panic.
func TestSimIntegratorFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "blowup.xml")
	os.WriteFile(path, []byte(sbml(`<listOfParameters>
<parameter id="y" value="1" constant="false"/><parameter id="k" value="1" constant="true"/></listOfParameters>
<listOfRules><rateRule variable="y"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><times/><ci>k</ci><ci>y</ci><ci>y</ci></apply></math></rateRule></listOfRules>`)), 0o644)
	code, _, stderr := pbgen(t, "sim", "-t1", "2", path)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, stderr)
	}
	if !strings.Contains(stderr, "t=") || strings.Contains(stderr, "goroutine") {
		t.Errorf("stderr %q should name the time reached and have no stack trace", stderr)
	}
}
