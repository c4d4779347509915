package tables

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// network describes one shipped network: where its tables are and how it
// is converted.
type network struct {
	name      string
	dir       string
	rateRules bool
	nx, np    int
	nr        int
}

var networks = []network{
	{name: "PKA", dir: filepath.Join("testdata", "PKA"), nx: 11, np: 35, nr: 16},
	{name: "CaMKII", dir: filepath.Join("testdata", "CaMKII"), nx: 21, np: 59, nr: 34},
	{name: "Chua", dir: filepath.Join("testdata", "Chua"), rateRules: true, nx: 3, np: 2, nr: 3},
}

// load loads a network from its vendored tables.
func load(t *testing.T, nw network) *Network {
	t.Helper()
	n, err := Load(nw.dir)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func byName(t *testing.T, name string) network {
	for _, nw := range networks {
		if nw.name == name {
			return nw
		}
	}
	t.Fatalf("no network %s", name)
	return network{}
}

func TestLoadDimensions(t *testing.T) {
	for _, nw := range networks {
		n := load(t, nw)
		nSpecies := 0
		for _, e := range n.Expressions {
			if e.Species {
				nSpecies++
			}
		}
		t.Logf("%s: nx=%d np=%d reactions=%d constants=%d expressions=%d eliminated species=%d",
			nw.name, n.NumStates(), n.NumParams(), n.NumReactions(), len(n.Constants), len(n.Expressions), nSpecies)
		if n.NumStates() != nw.nx || n.NumParams() != nw.np || n.NumReactions() != nw.nr {
			t.Errorf("%s: got nx=%d np=%d nr=%d, want %d %d %d",
				nw.name, n.NumStates(), n.NumParams(), n.NumReactions(), nw.nx, nw.np, nw.nr)
		}
		if n.Name != nw.name {
			t.Errorf("%s: Name = %q", nw.name, n.Name)
		}
	}
}

func TestLoadOrderAndValues(t *testing.T) {
	n := load(t, byName(t, "PKA"))
	if n.States[0].ID != "RiiP" || n.States[10].ID != "AKAR4p" {
		t.Errorf("PKA state order: first %s, last %s", n.States[0].ID, n.States[10].ID)
	}
	if p := n.Params[0]; p.ID != "kf_Rii_C__RiiP_C" || p.Default != 33 {
		t.Errorf("PKA parameter 1 = %+v", p)
	}
	if p := n.Params[34]; p.ID != "Rii_ConservedConst" || p.Default != 6.3 {
		t.Errorf("PKA parameter 35 = %+v", p)
	}
	r := n.Reactions[1] // reaction_14: RiiP:-1 RiiP_C:+1 C:-1
	want := []Term{{0, -1}, {2, 1}, {4, -1}}
	if r.ID != "reaction_14" || !slices.Equal(r.Stoch, want) {
		t.Errorf("reaction 2 = %s %v, want reaction_14 %v", r.ID, r.Stoch, want)
	}

	c := load(t, byName(t, "Chua"))
	x0 := make([]float64, 3)
	c.InitialState(x0)
	p := make([]float64, 2)
	c.DefaultParams(p)
	if !slices.Equal(x0, []float64{0, 0, -0.1}) || !slices.Equal(p, []float64{7, 15}) {
		t.Errorf("Chua x0 = %v, p = %v", x0, p)
	}
}

func TestEliminatedSpecies(t *testing.T) {
	want := map[string][]string{
		"PKA":    {"AKAR4", "CaN", "Rii_C", "cAMP", "Rii"},
		"CaMKII": {"PP1", "CaMKII", "CaM", "PP2B"},
		"Chua":   nil,
	}
	for _, nw := range networks {
		n := load(t, nw)
		var got []string
		for _, e := range n.Expressions {
			if e.Species {
				got = append(got, e.ID)
			}
		}
		if !slices.Equal(got, want[nw.name]) {
			t.Errorf("%s: eliminated species %v, want %v", nw.name, got, want[nw.name])
		}
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a+b*c", "(a + (b * c))"},
		{"a-b-c", "((a - b) - c)"},
		{"a/b/c", "((a / b) / c)"},
		{"-a^2", "(-(a^2))"},
		{"a^b^c", "(a^(b^c))"},
		{"2^-1", "(2^-1)"},
		{"Km1^(-1)", "(Km1^-1)"},
		{"-8/7*x1", "((-8 / 7) * x1)"},
		{"(1+exp(-10*t))^(-1)", "((1 + exp((-10 * t)))^-1)"},
		{"3.300E+01", "33"},
		{"(2.0)*x", "(2 * x)"},
		{"--a", "(-(-a))"},
		{"+a", "a"},
		{" a\t* b ", "(a * b)"},
		{".5e-1", "0.05"},
	} {
		e, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := e.String(); got != c.want {
			t.Errorf("Parse(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		in  string
		col int
		msg string
	}{
		{"", 1, "expected a number"},
		{"a+", 3, "expected a number"},
		{"a b", 3, `unexpected name "b"`},
		{"(a", 3, "expected )"},
		{"log(a)", 1, `unknown function "log"`},
		{"exp(a", 6, "expected ) after argument of exp"},
		{"a $ b", 3, "unexpected"},
		{"a*1e999", 3, "bad number"},
		{"a,b", 2, "unexpected"},
	} {
		_, err := Parse(c.in)
		pe, ok := err.(*ParseError)
		if !ok {
			t.Errorf("Parse(%q) error = %v, want a *ParseError", c.in, err)
			continue
		}
		if pe.Col != c.col || !strings.Contains(pe.Msg, c.msg) {
			t.Errorf("Parse(%q) = %v, want col %d containing %q", c.in, pe, c.col, c.msg)
		}
	}
}

func TestEval(t *testing.T) {
	e, err := Parse("k*(1+exp(-10*t))^(-1) - a/b + c^2")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]float64{"k": 2, "a": 3, "b": 4, "c": -1.5}
	got := e.Eval(0.1, func(s string) float64 { return env[s] })
	want := 2/(1+math.Exp(-1)) - 0.75 + 2.25
	if !scalar.EqualWithinAbsOrRel(got, want, 1e-15, 1e-15) {
		t.Errorf("Eval = %v, want %v", got, want)
	}
}

// writeTables writes a table folder from file name -> content.
func writeTables(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadErrors(t *testing.T) {
	good := map[string]string{
		StateFile:      "index\tid\tinitial value\n1\tA\t1\n2\tB\t0\n",
		ParameterFile:  "index\tid\tdefault value\n1\tk\t2\n",
		ConstantFile:   "id\tvalue\nK\t3\n",
		ExpressionFile: "id\tformula\nE\tk*K\n",
		ReactionFile:   "id\tflux\tstoichiometry (state:coefficient)\nR1\tE*A\tA:-1 B:+1\n",
	}
	if _, err := Load(writeTables(t, good)); err != nil {
		t.Fatalf("good tables: %v", err)
	}
	for _, c := range []struct {
		file, text, want string
	}{
		{StateFile, "index\tid\tinitial value\n1\tA\t1\n2\tB\tx\n", "State.tsv:3: bad number \"x\""},
		{StateFile, "index\tid\tinit\n1\tA\t1\n", "State.tsv:1: header column 3"},
		{StateFile, "index\tid\tinitial value\n1\tA\t1\n1\tB\t0\n", "State.tsv:3: index 1 already used on line 2"},
		{StateFile, "index\tid\tinitial value\n1\tA\t1\n3\tB\t0\n", "State.tsv:3: index 3 out of range"},
		{StateFile, "index\tid\tinitial value\n1\tA\t1\n2\tB\n", "State.tsv:3: 2 columns, want 3"},
		{StateFile, "index\tid\tinitial value\n1\tA\t1\n2\tt\t0\n", `State.tsv:3: state id "t" is reserved`},
		{StateFile, "index\tid\tinitial value\n1\tA\t1\n2\t2B\t0\n", "not a valid name"},
		{ParameterFile, "index\tid\tdefault value\n1\tA\t2\n", `Parameter.tsv:2: parameter id "A" already declared at`},
		{ExpressionFile, "id\tformula\nE\tk*F\nF\t1\n", `Expression.tsv:2: expression "E" uses "F" before it is defined`},
		{ExpressionFile, "id\tformula\nE\tk*Z\n", `Expression.tsv:2: expression "E": unknown name "Z"`},
		{ExpressionFile, "id\tformula\nE\tk*\n", `Expression.tsv:2: expression "E": col 3: expected a number`},
		{ReactionFile, "id\tflux\tstoichiometry (state:coefficient)\nR1\tE*A\tA:-1 E:+1\n", `Reaction.tsv:2: reaction "R1": stoichiometry names "E", which is not a state`},
		{ReactionFile, "id\tflux\tstoichiometry (state:coefficient)\nR1\tE*A\tA-1\n", "is not state:coefficient"},
		{ReactionFile, "id\tflux\tstoichiometry (state:coefficient)\nR1\tE*A\tA:one\n", `bad coefficient "one"`},
		{ReactionFile, "id\tflux\tstoichiometry (state:coefficient)\nR1\tE*A\tA:0\n", "zero coefficient"},
		{ReactionFile, "id\tflux\tstoichiometry (state:coefficient)\nR1\tE*A\tA:1 A:-1\n", "listed twice"},
		{ReactionFile, "id\tflux\tstoichiometry (state:coefficient)\n\nR1\tE*Q\tA:1\n", `Reaction.tsv:3: reaction "R1": flux: unknown name "Q"`},
		{ReactionFile, "", "Reaction.tsv:1: empty table"},
	} {
		files := make(map[string]string)
		for k, v := range good {
			files[k] = v
		}
		files[c.file] = c.text
		_, err := Load(writeTables(t, files))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: error %v, want it to contain %q", c.file, c.text, err, c.want)
		}
	}
	// A missing required table is an error, a missing optional one is not.
	files := make(map[string]string)
	for k, v := range good {
		files[k] = v
	}
	delete(files, ReactionFile)
	if _, err := Load(writeTables(t, files)); err == nil || !strings.Contains(err.Error(), ReactionFile) {
		t.Errorf("missing Reaction.tsv: error %v", err)
	}
	files[ReactionFile] = "id\tflux\tstoichiometry (state:coefficient)\nR1\tk*A\tA:-1\n"
	delete(files, ConstantFile)
	delete(files, ExpressionFile)
	if _, err := Load(writeTables(t, files)); err != nil {
		t.Errorf("without the optional tables: %v", err)
	}
}

// ramp returns x_i = step*(i+1).
func ramp(n int, step float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = step * float64(i+1)
	}
	return x
}

func reactionIndex(t *testing.T, n *Network, id string) int {
	t.Helper()
	for i, r := range n.Reactions {
		if r.ID == id {
			return i
		}
	}
	t.Fatalf("no reaction %s", id)
	return -1
}

func stateIndex(t *testing.T, n *Network, id string) int {
	t.Helper()
	for i, s := range n.States {
		if s.ID == id {
			return i
		}
	}
	t.Fatalf("no state %s", id)
	return -1
}

// TestPKAHandValues checks fluxes and f against values worked out by hand
// from the tables at x_i = 0.01*i (1-based) and default parameters
// (AKAPon = 0, Km1 = 1).
func TestPKAHandValues(t *testing.T) {
	n := load(t, byName(t, "PKA"))
	x := ramp(n.NumStates(), 0.01)
	p := make([]float64, n.NumParams())
	n.DefaultParams(p)
	flux := make([]float64, n.NumReactions())
	n.Fluxes(flux, 0, x, p)
	f := make([]float64, n.NumStates())
	n.F(f, 0, x, p)
	for _, c := range []struct {
		what string
		got  float64
		want float64
	}{
		// Rii_C = 0.6 - Rii_C_cAMP - AKAR4_C - RiiP_C - C - RiiP_C_cAMP
		//       = 0.6 - 0.07 - 0.10 - 0.03 - 0.05 - 0.04 = 0.31; flux = 33*0.31.
		{"flux reaction_51", flux[reactionIndex(t, n, "reaction_51")], 10.23},
		// kb_RiiPxCaN = 20, kf_RiiP_cAMP_CaN__CaNXRii_cAMP = 2.6, so
		// kf_RiiPxCaN = 22.6; CaN = -0.09 - 0.08 = -0.17; RiiP = 0.01;
		// RiiP_CaN = 0.08: flux = -0.17*0.01*22.6 - 20*0.08.
		{"flux reaction_44_", flux[reactionIndex(t, n, "reaction_44_")], -1.63842},
		// AKAR4p is produced only by reaction_2: kcat_AKARp*AKAR4_C.
		{"f AKAR4p", f[stateIndex(t, n, "AKAR4p")], 1.028},
		// RiiP_CaN: +reaction_44_ - reaction_4_8, the latter 2.6*0.08.
		{"f RiiP_CaN", f[stateIndex(t, n, "RiiP_CaN")], -1.63842 - 0.208},
	} {
		if !scalar.EqualWithinAbsOrRel(c.got, c.want, 1e-12, 1e-12) {
			t.Errorf("PKA %s = %v, want %v", c.what, c.got, c.want)
		}
	}
}

// TestCaMKIIHandValues checks the input Ca(t), the conservation laws and
// the autophosphorylation flux by hand.
func TestCaMKIIHandValues(t *testing.T) {
	n := load(t, byName(t, "CaMKII"))
	p := make([]float64, n.NumParams())
	n.DefaultParams(p)
	x := make([]float64, n.NumStates())
	flux := make([]float64, n.NumReactions())

	// At x = 0, t = 0: Ca = 175.8/2, CaMKII = 200, CaM = 2000, so
	// ReactionFlux1 = kf__CaM__Ca*CaM*Ca = 0.151910*2000*87.9.
	n.Fluxes(flux, 0, x, p)
	if got, want := flux[0], 0.151910*2000*87.9; !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
		t.Errorf("ReactionFlux1 at 0 = %v, want %v", got, want)
	}

	// CaMKII_CaM_Ca4 = 10, pCaMKII_CaM_Ca4 = 5: CaMKII = 200-15 = 185,
	// totalCaMKII = 200, r = 15/(1e-5+200), pairedCaMKIIc =
	// r^2 a/(1+r b), ReactionFlux32 = kautMax*pairedCaMKIIc*10.
	x[stateIndex(t, n, "CaMKII_CaM_Ca4")] = 10
	x[stateIndex(t, n, "pCaMKII_CaM_Ca4")] = 5
	n.Fluxes(flux, 3, x, p)
	r := 15 / (1e-5 + 200)
	want := 0.003756 * r * r * 3.90264 / (1 + r*2.86972) * 10
	if got := flux[reactionIndex(t, n, "ReactionFlux32")]; !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
		t.Errorf("ReactionFlux32 = %v, want %v", got, want)
	}
	// ReactionFlux14 = kf__CaM__CaMKII*CaMKII*CaM - kr*CaMKII_CaM with
	// CaM = 2000 - 0 + 185 - 200 = 1985 and CaMKII_CaM = 0.
	if got, want := flux[reactionIndex(t, n, "ReactionFlux14")], 0.237450*185*1985; !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
		t.Errorf("ReactionFlux14 = %v, want %v", got, want)
	}
	// Ca(t) at t = 3 enters ReactionFlux19 through kf__CaMKII_CaM__Ca*CaMKII_CaM*Ca.
	x[stateIndex(t, n, "CaMKII_CaM")] = 2
	n.Fluxes(flux, 3, x, p)
	ca := 175.8 / (1 + math.Exp(-30))
	want19 := 0.000798 * 2 * ca // the backward term vanishes: CaMKII_CaM_Ca1 = 0
	if got := flux[reactionIndex(t, n, "ReactionFlux19")]; !scalar.EqualWithinAbsOrRel(got, want19, 1e-12, 1e-12) {
		t.Errorf("ReactionFlux19 = %v, want %v", got, want19)
	}
}

// chuaF is Chua's circuit written out by hand.
func chuaF(x, p []float64) []float64 {
	g := -8.0/7*x[0] + 4.0/63*x[0]*x[0]*x[0]
	return []float64{p[0] * (x[1] - x[0] - g), x[0] - x[1] + x[2], -p[1] * x[1]}
}

func TestChuaF(t *testing.T) {
	n := load(t, byName(t, "Chua"))
	rng := rand.New(rand.NewPCG(1, 1))
	f := make([]float64, 3)
	for k := 0; k < 100; k++ {
		x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		p := []float64{1 + 10*rng.Float64(), 20 * rng.Float64()}
		n.F(f, rng.Float64(), x, p)
		want := chuaF(x, p)
		for i := range f {
			if !scalar.EqualWithinAbsOrRel(f[i], want[i], 1e-13, 1e-13) {
				t.Fatalf("Chua f[%d](%v, %v) = %v, want %v", i, x, p, f[i], want[i])
			}
		}
	}
	// x = (1, 0.5, -0.2), p = (7, 15): g(1) = -68/63, so
	// dx1 = 7*(-1/2 + 68/63) = -7/2 + 68/9.
	n.F(f, 0, []float64{1, 0.5, -0.2}, []float64{7, 15})
	want := []float64{-3.5 + 68.0/9, 0.3, -7.5}
	for i := range f {
		if !scalar.EqualWithinAbsOrRel(f[i], want[i], 1e-14, 1e-14) {
			t.Errorf("Chua f[%d] = %v, want %v", i, f[i], want[i])
		}
	}
}

func TestFNoAllocsAndConcurrent(t *testing.T) {
	n := load(t, byName(t, "CaMKII"))
	p := make([]float64, n.NumParams())
	n.DefaultParams(p)
	x := ramp(n.NumStates(), 0.3)
	want := make([]float64, n.NumStates())
	n.F(want, 1.5, x, p)
	if allocs := testing.AllocsPerRun(100, func() { n.F(want, 1.5, x, p) }); allocs != 0 {
		t.Errorf("F allocates %v times per call", allocs)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := make([]float64, n.NumStates())
			for k := 0; k < 200; k++ {
				n.F(f, 1.5, x, p)
				if !slices.Equal(f, want) {
					errs <- "concurrent F differs"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestMisusePanics(t *testing.T) {
	n := load(t, byName(t, "Chua"))
	for name, fn := range map[string]func(){
		"dst": func() { n.F(make([]float64, 2), 0, make([]float64, 3), make([]float64, 2)) },
		"x":   func() { n.F(make([]float64, 3), 0, make([]float64, 2), make([]float64, 2)) },
		"p":   func() { n.F(make([]float64, 3), 0, make([]float64, 3), make([]float64, 1)) },
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "tables: ") {
					t.Errorf("%s: recovered %v, want a tables: panic", name, r)
				}
			}()
			fn()
		}()
	}
}
