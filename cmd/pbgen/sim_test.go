package main

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

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
		code, out, stderr := pbgen(t, "sim", "-method", "pbsr", "-t1", n.t1, "-n", "60", "-rtol", "1e-6", "-atol", "1e-8", "../../networks/"+n.file+".xml")
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
		// sim checks (-check): so does this solve, whose retries at
		// tighter tolerances are then those of sim (PBSR on Chua: 513
		// tolerances off at rtol 1e-6, so both write the rtol 1e-8 solve).
		res, err := sens.Solve(n.m, p, ts, &sens.Options{Method: sens.PBSR, RTol: 1e-6, ATol: 1e-8, Check: true})
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

// labelsNet has a parameter-state whose id is t (its rate also uses the
// time), a species with hasOnlySubstanceUnits (B) and a species in a
// compartment changed by a rate rule (C); both species are held as
// amounts. With k = 0.3, c = 2, V = 4 and s the time:
//
//	A = exp(-k s)                (concentration)
//	B = c (1 - exp(-k s))        (amount)
//	C = 2 exp(-k s)              (amount; its concentration is half that)
//	t = 1 + (1 - exp(-k s)) + s^2/2
var labelsNet = sbml(labelsNetBody)

const labelsNetBody = `<listOfCompartments>
<compartment id="c" spatialDimensions="3" size="2" constant="true"/>
<compartment id="V" spatialDimensions="3" size="4" constant="false"/></listOfCompartments>
<listOfSpecies>
<species id="A" compartment="c" initialConcentration="1" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="B" compartment="c" initialAmount="0" hasOnlySubstanceUnits="true" boundaryCondition="false" constant="false"/>
<species id="C" compartment="V" initialConcentration="0.5" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/></listOfSpecies>
<listOfParameters>
<parameter id="k" value="0.3" constant="true"/>
<parameter id="t" value="1" constant="false"/></listOfParameters>
<listOfRules>
<rateRule variable="V"><math xmlns="http://www.w3.org/1998/Math/MathML"><cn>0</cn></math></rateRule>
<rateRule variable="t"><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><plus/><apply><times/><ci>k</ci><ci>A</ci></apply><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">time</csymbol></apply></math></rateRule></listOfRules>
<listOfReactions>
<reaction id="R1" reversible="false">
<listOfReactants><speciesReference species="A" stoichiometry="1" constant="true"/></listOfReactants>
<listOfProducts><speciesReference species="B" stoichiometry="1" constant="true"/></listOfProducts>
<kineticLaw><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><times/><ci>k</ci><ci>A</ci><ci>c</ci></apply></math></kineticLaw></reaction>
<reaction id="R2" reversible="false">
<listOfReactants><speciesReference species="C" stoichiometry="1" constant="true"/></listOfReactants>
<kineticLaw><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><times/><ci>k</ci><ci>C</ci><ci>V</ci></apply></math></kineticLaw></reaction>
</listOfReactions>`

// TestSimColumnNames: the time column is the only t, amount states are
// labelled amount:<id> in the state and S columns, and the values are the
// closed-form solution (so each label sits on the right numbers).
func TestSimColumnNames(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "labels.xml")
	if err := os.WriteFile(path, []byte(labelsNet), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := pbgen(t, "sim", "-sens-compartments", "-t1", "5", "-n", "10", "-rtol", "1e-9", "-atol", "1e-11", "-plot", dir, path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	header, rows := readTSV(t, out)
	want := []string{"t", "A", "amount:B", "amount:C", "V", "state:t",
		"S:A:k", "S:A:c", "S:amount:B:k", "S:amount:B:c", "S:amount:C:k", "S:amount:C:c",
		"S:V:k", "S:V:c", "S:state:t:k", "S:state:t:c"}
	if strings.Join(header, " ") != strings.Join(want, " ") {
		t.Fatalf("header\n%q\nwant\n%q", header, want)
	}
	seen := make(map[string]bool)
	for _, h := range header {
		if seen[h] {
			t.Errorf("column %q appears twice", h)
		}
		seen[h] = true
	}
	if len(rows) != 11 {
		t.Fatalf("%d rows, want 11", len(rows))
	}
	const k, c = 0.3, 2.0
	for _, row := range rows {
		s := row[0]
		e := math.Exp(-k * s)
		want := []float64{s,
			e, c * (1 - e), 2 * e, 4, 1 + (1 - e) + s*s/2,
			-s * e, 0, c * s * e, 1 - e, -2 * s * e, 0,
			0, 0, s * e, 0}
		for i, w := range want {
			if !scalar.EqualWithinAbsOrRel(row[i], w, 1e-7, 1e-6) {
				t.Errorf("s=%g: %s = %.10g, want %.10g", s, header[i], row[i], w)
			}
		}
	}
}

// TestSimX0Names: -x0 finds a state by its SBML id or by its column name,
// and a name that is neither is an error listing the column names.
func TestSimX0Names(t *testing.T) {
	path := filepath.Join(t.TempDir(), "labels.xml")
	if err := os.WriteFile(path, []byte(labelsNet), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, x0 := range [][]string{
		{"-x0", "B=0.5", "-x0", "C=3", "-x0", "t=7"},
		{"-x0", "amount:B=0.5", "-x0", "amount:C=3", "-x0", "state:t=7"},
	} {
		args := append(append([]string{"sim", "-t1", "1", "-n", "1"}, x0...), path)
		code, out, stderr := pbgen(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", x0, code, stderr)
		}
		header, rows := readTSV(t, out)
		// Columns t, A, amount:B, amount:C, V, state:t; -x0 values are
		// in the column's units (amounts for B and C).
		if got := rows[0][:6]; got[1] != 1 || got[2] != 0.5 || got[3] != 3 || got[4] != 4 || got[5] != 7 {
			t.Errorf("%q: first row %v %v, want [0 1 0.5 3 4 7]", x0, header[:6], got)
		}
	}
	for _, bad := range []string{"conc:C=1", "amount:A=1", "amount:t=1", "time=1", "S:A:k=1"} {
		code, _, stderr := pbgen(t, "sim", "-x0", bad, path)
		if code != 1 || !strings.Contains(stderr, `no state named`) || !strings.Contains(stderr, "amount:B, amount:C, V, state:t") {
			t.Errorf("-x0 %s: exit %d, stderr %q", bad, code, stderr)
		}
	}
	code, _, stderr := pbgen(t, "sim", "-h")
	if code != 0 || !strings.Contains(stderr, "amount:<id>") || !strings.Contains(stderr, "state:t") {
		t.Errorf("sim -h: exit %d, does not document the column names: %q", code, stderr)
	}
}
