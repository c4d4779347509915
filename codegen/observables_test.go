package codegen_test

import (
	"bytes"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/codegen"
	"github.com/pbgen/pbgen/internal/testnet"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/symbolic"
)

// obsDef is an observable as formulas over the Toy network's states and
// parameters, time and the placeholders in u (names starting with "u_").
// The same table builds the codegen observables here and the interp ones
// inside the temporary module of TestObservablesEndToEnd.
type obsDef struct {
	ID, H, Sigma string
	U            []string
	NObs         int
}

// toyObs exercise placeholders in h and sigma, a piecewise in time,
// powers, logarithms and exponentials, constant noise, and enough shared
// work for chunk helpers with small chunks.
var toyObs = []obsDef{
	{"obs_a", "A*k1 + u_off", "u_sd*(1 + 0.1*A)", []string{"u_off", "u_sd"}, 1},
	{"obs_pw", "piecewise(C*Km, time > 5, C^2/Vmax)", "0.5", nil, 0},
	{"obs_big", "exp(-k2*time)*type*len + log(C + 1)*sqrt(A) + (A*C)^n/(Km^n + (A*C)^n)",
		"u_s1 + u_s2*(exp(-k2*time)*type*len + log(C + 1)*sqrt(A) + (A*C)^n/(Km^n + (A*C)^n))", []string{"u_s1", "u_s2"}, 0},
}

// buildObs parses the table with sys's Builder; this function is repeated
// in the temporary module's test (toyObservables there), for interp.
func buildObs(t *testing.T, sys *symbolic.System, defs []obsDef) []codegen.Observable {
	t.Helper()
	states := sys.ODE.StateNames()
	kind := func(name string) symbolic.SymKind {
		if slices.Contains(states, name) {
			return symbolic.KindState
		}
		return symbolic.KindParam
	}
	var out []codegen.Observable
	for _, d := range defs {
		h, err := sys.B.ParsePEtab(d.H, kind)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sys.B.ParsePEtab(d.Sigma, kind)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, codegen.Observable{ID: d.ID, H: h, Sigma: s, U: d.U, NObs: d.NObs})
	}
	return out
}

// toyProblem is an estimation problem over Toy whose literal needs math
// (an infinite time, a NaN nominal value, a negative zero) and the
// objective's named types.
func toyProblem() *objective.Problem {
	np := len(testnet.Toy().ODE.Params)
	cond := objective.Condition{ID: "c0", P: make([]objective.Value, np)}
	for j := range cond.P {
		cond.P[j] = objective.Value{Theta: -1, Const: float64(j) + 0.5}
	}
	cond.P[0] = objective.Value{Theta: 0}
	return &objective.Problem{
		Params: []objective.Param{
			{ID: "k1", Scale: objective.Log10, Lower: 1e-3, Upper: 10, Nominal: 0.3, Estimate: true,
				Prior: objective.Prior{Kind: objective.ParameterScaleNormal, Par: [2]float64{-0.5, 1}}},
			{ID: "sd", Lower: math.Inf(-1), Upper: math.Inf(1), Nominal: math.NaN()},
		},
		Estimated:   []int{0},
		Observables: []objective.Observable{{ID: "obs_a"}, {ID: "obs_pw", Transform: objective.TransformLog10}, {ID: "obs_big", Noise: objective.Laplace}},
		Conditions:  []objective.Condition{cond},
		Experiments: []objective.Experiment{{Preeq: -1, Sim: 0, Data: []objective.Datum{
			{Obs: 0, T: 1, Y: 2.5, U: []objective.Value{{Theta: -1, Const: 0.1}, {Theta: 0}}},
			{Obs: 1, T: math.Inf(1), Y: 3},
			{Obs: 2, T: 2, Y: math.Copysign(0, -1), U: []objective.Value{{Theta: -1, Const: 1}, {Theta: -1, Const: 0.1}}},
		}}},
	}
}

// TestObservablesOutput checks the generated source of a package with
// observables and a problem: deterministic (two fresh systems, and the
// same system twice, since Generate adds derivative nodes to its
// Builder), gofmt-clean, importing only runtime/model and math in model.go
// and runtime/objective and math in problem.go, and writing derivatives
// exactly where the formulas depend on a symbol.
func TestObservablesOutput(t *testing.T) {
	gen := func(sys *symbolic.System, opt codegen.Options) map[string][]byte {
		t.Helper()
		opt.Observables, opt.Problem = buildObs(t, sys, toyObs), toyProblem()
		files, err := codegen.Generate(sys, &opt)
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	for _, opt := range []codegen.Options{{Package: "toyobs"}, {Package: "toyobs", ChunkSize: 3, SplitFiles: 10}} {
		sys := testnet.Toy()
		a, b, c := gen(sys, opt), gen(sys, opt), gen(testnet.Toy(), opt)
		for _, other := range []map[string][]byte{b, c} {
			if len(other) != len(a) {
				t.Fatalf("chunk %d: %d files, then %d", opt.ChunkSize, len(a), len(other))
			}
			for name, src := range a {
				if !bytes.Equal(src, other[name]) {
					t.Errorf("chunk %d: %s differs between runs", opt.ChunkSize, name)
				}
			}
		}
		wantFiles := []string{"model.go", "problem.go"}
		if opt.SplitFiles > 0 {
			// events.go: the toy's rates switch (model.Switches).
			wantFiles = []string{"events.go", "f.go", "jac.go", "model.go", "obs.go", "problem.go"}
		}
		if got := sortedKeys(a); !slices.Equal(got, wantFiles) {
			t.Errorf("chunk %d: files %v, want %v", opt.ChunkSize, got, wantFiles)
		}
		allowed := map[string][]string{"problem.go": {"github.com/pbgen/pbgen/runtime/objective", "math"}}
		for name, src := range a {
			if f, err := format.Source(src); err != nil || !bytes.Equal(f, src) {
				t.Errorf("chunk %d: %s is not gofmt-clean (%v)", opt.ChunkSize, name, err)
			}
			want, ok := allowed[name]
			if !ok {
				want = []string{"github.com/pbgen/pbgen/runtime/model", "math"}
			}
			af, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !slices.Contains(want, p) {
					t.Errorf("chunk %d: %s imports %s; allowed: %v", opt.ChunkSize, name, p, want)
				}
			}
		}
		all := bytes.Join([][]byte{a["model.go"], a["obs.go"]}, nil)
		// obs_a: h = A*k1 + u_off, sigma = u_sd*(1 + 0.1*A): dh/dA, dh/dk1,
		// dh/du[0], dsigma/dA, dsigma/du[1], and nothing else.
		fn := bytes.Join(regexp.MustCompile(`(?s)func observeDeriv0(Chunk\d+)?\(.*?\n}`).FindAll(all, -1), nil)
		writes := regexp.MustCompile(`d\.(\w\w)\[(\w+)\] =`).FindAllSubmatch(fn, -1)
		var got []string
		for _, w := range writes {
			got = append(got, string(w[1])+"["+string(w[2])+"]")
		}
		slices.Sort(got)
		if want := []string{"HP[ParamK1]", "HU[0]", "HX[StateA]", "SU[1]", "SX[StateA]"}; !slices.Equal(got, want) {
			t.Errorf("chunk %d: observeDeriv0 writes %v, want %v", opt.ChunkSize, got, want)
		}
	}
}

func sortedKeys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestObservableErrors checks that malformed observables and problems are
// errors of Generate, not panics or bad code.
func TestObservableErrors(t *testing.T) {
	type unexported struct{ a int }
	type withMap struct{ M map[string]int }
	for _, c := range []struct {
		name    string
		edit    func(sys *symbolic.System, obs []codegen.Observable) []codegen.Observable
		problem any
		want    string
	}{
		{"duplicate id", func(_ *symbolic.System, o []codegen.Observable) []codegen.Observable {
			o[1].ID = o[0].ID
			return o
		}, nil, "duplicate observable"},
		{"nil h", func(_ *symbolic.System, o []codegen.Observable) []codegen.Observable { o[0].H = nil; return o }, nil, "nil"},
		{"foreign node", func(_ *symbolic.System, o []codegen.Observable) []codegen.Observable {
			o[0].H = symbolic.NewBuilder().Const(1)
			return o
		}, nil, "another Builder"},
		{"NObs", func(_ *symbolic.System, o []codegen.Observable) []codegen.Observable { o[0].NObs = 3; return o }, nil, "placeholders of"},
		{"placeholder is a parameter", func(_ *symbolic.System, o []codegen.Observable) []codegen.Observable {
			o[0].U = []string{"k1", "u_sd"}
			return o
		}, nil, "also a parameter"},
		{"duplicate placeholder", func(_ *symbolic.System, o []codegen.Observable) []codegen.Observable {
			o[0].U = []string{"u_sd", "u_sd"}
			return o
		}, nil, "duplicate placeholder"},
		{"undeclared placeholder", func(_ *symbolic.System, o []codegen.Observable) []codegen.Observable {
			o[0].U = []string{"u_off"} // u_sd in sigma is no longer known
			o[0].NObs = 1
			return o
		}, nil, `"u_sd"`},
		{"unknown state", func(sys *symbolic.System, o []codegen.Observable) []codegen.Observable {
			o[1].H = sys.B.Sym("nosuch", symbolic.KindState)
			return o
		}, nil, `"nosuch"`},
		{"problem not a pointer", nil, objective.Problem{}, "not a non-nil pointer"},
		{"problem nil pointer", nil, (*objective.Problem)(nil), "not a non-nil pointer"},
		{"problem unexported field", nil, &unexported{a: 1}, "not exported"},
		{"problem map", nil, &withMap{M: map[string]int{"a": 1}}, "map"},
	} {
		sys := testnet.Toy()
		obs := buildObs(t, sys, toyObs)
		if c.edit != nil {
			obs = c.edit(sys, obs)
		}
		_, err := codegen.Generate(sys, &codegen.Options{Observables: obs, Problem: c.problem})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "codegen: ") {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestObservablesEndToEnd compiles the Toy network with toyObs and
// toyProblem, unchunked and in chunks of three statements split over
// files, in a temporary module, and there compares Observe (values and
// every derivative slice, NaN-filled before the call) with
// interp.NewObserved at seeded random points, checks that Observe does not
// allocate, and that Problem returns toyProblem.
func TestObservablesEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a temporary module")
	}
	tmp, write := testnetModule(t, "obse2e")
	for _, c := range []struct {
		pkg string
		opt codegen.Options
	}{{"toyobs", codegen.Options{}}, {"toyobschunked", codegen.Options{ChunkSize: 3, SplitFiles: 10}}} {
		sys := testnet.Toy()
		c.opt.Package, c.opt.Observables, c.opt.Problem = c.pkg, buildObs(t, sys, toyObs), toyProblem()
		files, err := codegen.Generate(sys, &c.opt)
		if err != nil {
			t.Fatal(err)
		}
		for name, src := range files {
			write(filepath.Join(c.pkg, name), src)
		}
	}
	src := strings.Replace(obsCompareTest, "{{TABLE}}", fmt.Sprintf("%#v", toyObs), 1)
	src = strings.ReplaceAll(src, "codegen_test.obsDef", "obsDef")
	// %#v prints every field, floats exactly, NaN and infinities as words.
	src = strings.Replace(src, "{{PROBLEM}}", strconv.Quote(fmt.Sprintf("%#v", *toyProblem())), 1)
	write("compare_test.go", []byte(src))
	cmd := exec.Command("go", "test", "-count=1", "-v", ".")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "MAXREL") {
			t.Log(strings.TrimSpace(l))
		}
	}
}

const obsCompareTest = `package obse2e

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/symbolic"

	"obse2e/testnet"
	"obse2e/toyobs"
	"obse2e/toyobschunked"
)

type obsDef struct {
	ID, H, Sigma string
	U            []string
	NObs         int
}

var table = {{TABLE}}

// toyObservables is buildObs of the generator's test, for interp.
func toyObservables(t *testing.T, sys *symbolic.System) []interp.Observable {
	states := sys.ODE.StateNames()
	kind := func(name string) symbolic.SymKind {
		if slices.Contains(states, name) {
			return symbolic.KindState
		}
		return symbolic.KindParam
	}
	var out []interp.Observable
	for _, d := range table {
		h, err := sys.B.ParsePEtab(d.H, kind)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sys.B.ParsePEtab(d.Sigma, kind)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, interp.Observable{ID: d.ID, H: h, Sigma: s, U: d.U, NObs: d.NObs})
	}
	return out
}

type obsModel interface {
	model.Model
	model.Observables
}

func TestObserve(t *testing.T) {
	sys := testnet.Toy()
	im, err := interp.NewObserved(sys, toyObservables(t, sys))
	if err != nil {
		t.Fatal(err)
	}
	nx, np := model.NumStates(im), model.NumParams(im)
	for _, g := range []obsModel{toyobs.New(), toyobschunked.New()} {
		if !slices.Equal(g.ObservableIDs(), im.ObservableIDs()) {
			t.Fatalf("ids %v, interp %v", g.ObservableIDs(), im.ObservableIDs())
		}
		rng := rand.New(rand.NewPCG(1, 1))
		worst := 0.0
		for k := range im.ObservableIDs() {
			a, b := g.Placeholders(k)
			ia, ib := im.Placeholders(k)
			if a != ia || b != ib {
				t.Fatalf("observable %d: placeholders %d+%d, interp %d+%d", k, a, b, ia, ib)
			}
			nan := func(n int) []float64 {
				s := make([]float64, n)
				for i := range s {
					s[i] = math.NaN()
				}
				return s
			}
			mk := func() *model.ObsDeriv {
				return &model.ObsDeriv{HX: nan(nx), HP: nan(np), HU: nan(a + b), SX: nan(nx), SP: nan(np), SU: nan(a + b)}
			}
			for range 200 {
				tt := 10 * rng.Float64()
				x, p, u := make([]float64, nx), make([]float64, np), make([]float64, a+b)
				for i := range x {
					x[i] = 0.05 + 3*rng.Float64()
				}
				for j := range p {
					p[j] = 0.1 + 2*rng.Float64()
				}
				for i := range u {
					u[i] = 0.1 + rng.Float64()
				}
				dg, di := mk(), mk()
				yg, sg := g.Observe(k, tt, x, p, u, dg)
				yi, si := im.Observe(k, tt, x, p, u, di)
				if y0, s0 := g.Observe(k, tt, x, p, u, nil); y0 != yg || s0 != sg {
					t.Errorf("observable %d: without derivatives (%g, %g), with (%g, %g)", k, y0, s0, yg, sg)
				}
				parts := [][2][]float64{{{yg, sg}, {yi, si}}, {dg.HX, di.HX}, {dg.HP, di.HP}, {dg.HU, di.HU}, {dg.SX, di.SX}, {dg.SP, di.SP}, {dg.SU, di.SU}}
				for q, pr := range parts {
					for i := range pr[1] {
						v, w := pr[0][i], pr[1][i]
						if math.IsNaN(v) || math.IsNaN(w) {
							t.Fatalf("observable %d part %d entry %d: %g, interp %g", k, q, i, v, w)
						}
						d := 0.0
						if v != w {
							d = math.Abs(v-w) / math.Max(math.Abs(v), math.Abs(w))
						}
						worst = math.Max(worst, d)
						if d > 1e-13 {
							t.Errorf("observable %d part %d entry %d: %.17g, interp %.17g", k, q, i, v, w)
						}
					}
				}
			}
			x, p, u, d := make([]float64, nx), make([]float64, np), make([]float64, a+b), mk()
			if n := testing.AllocsPerRun(100, func() { g.Observe(k, 1, x, p, u, d); g.Observe(k, 1, x, p, u, nil) }); n != 0 {
				t.Errorf("observable %d: Observe allocates %v times", k, n)
			}
		}
		t.Logf("MAXREL %T %.2e", g, worst)
	}
}

func TestProblem(t *testing.T) {
	want := {{PROBLEM}}
	for _, got := range []*objective.Problem{toyobs.Problem(), toyobschunked.Problem()} {
		if g := fmt.Sprintf("%#v", *got); g != want {
			t.Errorf("Problem() = %s\nwant %s", g, want)
		}
	}
	p := toyobs.Problem()
	p.Params[0].ID = "changed"
	if toyobs.Problem().Params[0].ID == "changed" {
		t.Error("Problem returns shared data")
	}
}
`
