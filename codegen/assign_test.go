package codegen_test

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/codegen"
	"github.com/pbgen/pbgen/internal/testnet"
	"github.com/pbgen/pbgen/symbolic"
)

// asgDef is an assignment set as formulas over the Toy network's states
// and parameters and time. The same table builds the codegen sets here
// and the interp ones inside the temporary module of TestAssignEndToEnd.
type asgDef struct {
	States, Values []string
}

// toyAsg exercise targets out of state order (the values must be permuted
// with them), time, a piecewise, a constant value (no derivatives), and
// enough shared work for chunk helpers with small chunks.
var toyAsg = []asgDef{
	{[]string{"C", "A"}, []string{"A*k1 + time", "C^2/(Km + C)"}},
	{[]string{"type"}, []string{"piecewise(A*Vmax, time > 5, type + len)"}},
	{[]string{"type", "A", "C"}, []string{"log(C + 1)*sqrt(A)", "exp(-k2*time)*A + (A*C)^n/(Km^n + (A*C)^n)", "3"}},
}

// buildAsg parses the table with sys's Builder; this function is repeated
// in the temporary module's test (toyAssignments there), for interp.
func buildAsg(t *testing.T, sys *symbolic.System, defs []asgDef) []codegen.Assignment {
	t.Helper()
	states := sys.ODE.StateNames()
	kind := func(name string) symbolic.SymKind {
		if slices.Contains(states, name) {
			return symbolic.KindState
		}
		return symbolic.KindParam
	}
	var out []codegen.Assignment
	for _, d := range defs {
		a := codegen.Assignment{States: slices.Clone(d.States)}
		for _, v := range d.Values {
			n, err := sys.B.ParsePEtab(v, kind)
			if err != nil {
				t.Fatal(err)
			}
			a.Values = append(a.Values, n)
		}
		out = append(out, a)
	}
	return out
}

// TestAssignOutput checks the generated source of a package with
// assignment sets: deterministic (two fresh systems, and the same system
// twice, since Generate adds derivative nodes to its Builder),
// gofmt-clean, the sets' functions in assign.go when split, targets in
// state order, and derivatives written exactly where the values depend
// on a symbol, at the dense row-major index of their row. Without sets
// (nil or empty) nothing of model.Assigner is emitted.
func TestAssignOutput(t *testing.T) {
	gen := func(sys *symbolic.System, opt codegen.Options, defs []asgDef) map[string][]byte {
		t.Helper()
		opt.Assignments = buildAsg(t, sys, defs)
		files, err := codegen.Generate(sys, &opt)
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	for _, opt := range []codegen.Options{{Package: "toyasg"}, {Package: "toyasg", ChunkSize: 3, SplitFiles: 10}} {
		sys := testnet.Toy()
		a, b, c := gen(sys, opt, toyAsg), gen(sys, opt, toyAsg), gen(testnet.Toy(), opt, toyAsg)
		for _, other := range []map[string][]byte{b, c} {
			if !slices.Equal(sortedKeys(a), sortedKeys(other)) {
				t.Fatalf("chunk %d: files %v, then %v", opt.ChunkSize, sortedKeys(a), sortedKeys(other))
			}
			for name, src := range a {
				if !bytes.Equal(src, other[name]) {
					t.Errorf("chunk %d: %s differs between runs", opt.ChunkSize, name)
				}
			}
		}
		wantFiles := []string{"model.go"}
		if opt.SplitFiles > 0 {
			// events.go: the toy's rates switch (model.Switches).
			wantFiles = []string{"assign.go", "events.go", "f.go", "jac.go", "model.go"}
		}
		if got := sortedKeys(a); !slices.Equal(got, wantFiles) {
			t.Errorf("chunk %d: files %v, want %v", opt.ChunkSize, got, wantFiles)
		}
		for name, src := range a {
			if f, err := format.Source(src); err != nil || !bytes.Equal(f, src) {
				t.Errorf("chunk %d: %s is not gofmt-clean (%v)", opt.ChunkSize, name, err)
			}
		}
		all := bytes.Join([][]byte{a["model.go"], a["assign.go"]}, nil)
		for _, want := range []string{
			"const NumAssignments int = 3",
			"var assignPtr = [NumAssignments + 1]int{0, 2, 3, 6}",
			"StateA, StateC,\n\tStateType,\n\tStateA, StateC, StateType,\n}",
			"var _ model.Assigner = Model{}",
		} {
			if !bytes.Contains(all, []byte(want)) {
				t.Errorf("chunk %d: output lacks %q", opt.ChunkSize, want)
			}
		}
		// Set 0, targets sorted to (A, C): A := C^2/(Km + C) depends on C
		// and Km, C := A*k1 + time on A and k1. Set 2, (A, C, type): C := 3
		// has no derivatives, type (row 2) depends on C and A.
		for _, c := range []struct {
			set  int
			want []string
		}{
			{0, []string{"P[NumParams+ParamK1]", "P[ParamKm]", "X[NumStates+StateA]", "X[StateC]"}},
			{2, []string{"P[ParamK2]", "P[ParamKm]", "P[ParamN]", "X[2*NumStates+StateA]", "X[2*NumStates+StateC]", "X[StateA]", "X[StateC]"}},
		} {
			fn := bytes.Join(regexp.MustCompile(fmt.Sprintf(`(?s)func assignDeriv%d(Chunk\d+)?\(.*?\n}`, c.set)).FindAll(all, -1), nil)
			var got []string
			for _, w := range regexp.MustCompile(`d\.([XP])\[([^\]]+)\] =`).FindAllSubmatch(fn, -1) {
				got = append(got, string(w[1])+"["+strings.ReplaceAll(string(w[2]), " ", "")+"]")
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("chunk %d: assignDeriv%d writes %v, want %v", opt.ChunkSize, c.set, got, c.want)
			}
		}
	}
	plain, err := codegen.Generate(testnet.Toy(), &codegen.Options{Package: "toyasg"})
	if err != nil {
		t.Fatal(err)
	}
	empty := gen(testnet.Toy(), codegen.Options{Package: "toyasg"}, []asgDef{})
	if !bytes.Equal(plain["model.go"], empty["model.go"]) || len(plain) != len(empty) {
		t.Error("an empty list of assignment sets changes the output")
	}
	if bytes.Contains(plain["model.go"], []byte("NumAssignments")) || bytes.Contains(plain["model.go"], []byte("AssignTargets")) {
		t.Error("a model without assignment sets mentions Assign")
	}
}

// TestAssignErrors checks that malformed assignment sets are errors of
// Generate, not panics or bad code.
func TestAssignErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(sys *symbolic.System, a []codegen.Assignment)
		want string
	}{
		{"lengths", func(_ *symbolic.System, a []codegen.Assignment) { a[0].Values = a[0].Values[:1] }, "2 states but 1 values"},
		{"not a state", func(_ *symbolic.System, a []codegen.Assignment) { a[0].States[1] = "k1" }, `"k1" is not a state`},
		{"twice", func(_ *symbolic.System, a []codegen.Assignment) { a[0].States[1] = "C" }, `"C" assigned twice`},
		{"nil value", func(_ *symbolic.System, a []codegen.Assignment) { a[1].Values[0] = nil }, "nil or from another Builder"},
		{"foreign node", func(_ *symbolic.System, a []codegen.Assignment) { a[1].Values[0] = symbolic.NewBuilder().Const(1) }, "another Builder"},
		{"unknown parameter", func(sys *symbolic.System, a []codegen.Assignment) {
			a[2].Values[2] = sys.B.Sym("nosuch", symbolic.KindParam)
		}, `"nosuch"`},
		{"other symbol", func(sys *symbolic.System, a []codegen.Assignment) {
			a[2].Values[0] = sys.B.Add(sys.B.Sym("V", symbolic.KindOther), sys.B.Const(1))
		}, `"V"`},
	} {
		sys := testnet.Toy()
		a := buildAsg(t, sys, toyAsg)
		c.edit(sys, a)
		_, err := codegen.Generate(sys, &codegen.Options{Assignments: a})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "codegen: ") {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestAssignEndToEnd compiles the Toy network with toyAsg, unchunked and
// in chunks of three statements split over files, in a temporary module,
// and there compares Assign (values and both derivative slices, NaN-filled
// before the call) with interp.NewObservedAssign at seeded random points,
// checks the targets, that Assign does not allocate, that AssignTargets
// returns a copy, and that misuse panics with the package's message.
func TestAssignEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a temporary module")
	}
	tmp, write := testnetModule(t, "asge2e")
	for _, c := range []struct {
		pkg string
		opt codegen.Options
	}{{"toyasg", codegen.Options{}}, {"toyasgchunked", codegen.Options{ChunkSize: 3, SplitFiles: 10}}} {
		sys := testnet.Toy()
		c.opt.Package, c.opt.Assignments = c.pkg, buildAsg(t, sys, toyAsg)
		files, err := codegen.Generate(sys, &c.opt)
		if err != nil {
			t.Fatal(err)
		}
		for name, src := range files {
			write(filepath.Join(c.pkg, name), src)
		}
	}
	src := strings.Replace(asgCompareTest, "{{TABLE}}", fmt.Sprintf("%#v", toyAsg), 1)
	write("compare_test.go", []byte(strings.ReplaceAll(src, "codegen_test.asgDef", "asgDef")))
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

const asgCompareTest = `package asge2e

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"

	"asge2e/testnet"
	"asge2e/toyasg"
	"asge2e/toyasgchunked"
)

type asgDef struct {
	States, Values []string
}

var table = {{TABLE}}

// toyAssignments is buildAsg of the generator's test, for interp.
func toyAssignments(t *testing.T, sys *symbolic.System) []interp.Assignment {
	states := sys.ODE.StateNames()
	kind := func(name string) symbolic.SymKind {
		if slices.Contains(states, name) {
			return symbolic.KindState
		}
		return symbolic.KindParam
	}
	var out []interp.Assignment
	for _, d := range table {
		a := interp.Assignment{States: d.States}
		for _, v := range d.Values {
			n, err := sys.B.ParsePEtab(v, kind)
			if err != nil {
				t.Fatal(err)
			}
			a.Values = append(a.Values, n)
		}
		out = append(out, a)
	}
	return out
}

type asgModel interface {
	model.Model
	model.Assigner
}

// panics returns the value f panics with, or nil.
func panics(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

func TestAssign(t *testing.T) {
	sys := testnet.Toy()
	im, err := interp.NewObservedAssign(sys, nil, toyAssignments(t, sys))
	if err != nil {
		t.Fatal(err)
	}
	nx, np := model.NumStates(im), model.NumParams(im)
	nan := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = math.NaN()
		}
		return s
	}
	for _, g := range []asgModel{toyasg.New(), toyasgchunked.New()} {
		if g.NumAssignments() != im.NumAssignments() {
			t.Fatalf("%T: %d assignment sets, interp %d", g, g.NumAssignments(), im.NumAssignments())
		}
		rng := rand.New(rand.NewPCG(1, 1))
		worst := 0.0
		for k := range im.NumAssignments() {
			tg := g.AssignTargets(k)
			if !slices.Equal(tg, im.AssignTargets(k)) {
				t.Fatalf("%T set %d: targets %v, interp %v", g, k, tg, im.AssignTargets(k))
			}
			tg[0] = -1
			if g.AssignTargets(k)[0] == -1 {
				t.Errorf("%T set %d: AssignTargets returns shared storage", g, k)
			}
			n := len(tg)
			for range 200 {
				tt := 10 * rng.Float64()
				x, p := make([]float64, nx), make([]float64, np)
				for i := range x {
					x[i] = 0.05 + 3*rng.Float64()
				}
				for j := range p {
					p[j] = 0.1 + 2*rng.Float64()
				}
				x0, p0 := slices.Clone(x), slices.Clone(p)
				vg, vi, v0 := nan(n), nan(n), nan(n)
				dg := &model.AssignDeriv{X: nan(n * nx), P: nan(n * np)}
				di := &model.AssignDeriv{X: nan(n * nx), P: nan(n * np)}
				g.Assign(k, tt, x, p, vg, dg)
				im.Assign(k, tt, x, p, vi, di)
				g.Assign(k, tt, x, p, v0, nil)
				if !slices.Equal(x, x0) || !slices.Equal(p, p0) {
					t.Fatalf("%T set %d: Assign modified x or p", g, k)
				}
				if !slices.Equal(v0, vg) {
					t.Errorf("%T set %d: without derivatives %v, with %v", g, k, v0, vg)
				}
				for q, pr := range [][2][]float64{{vg, vi}, {dg.X, di.X}, {dg.P, di.P}} {
					// Normwise over the part: an entry that is small by
					// cancellation carries the rounding of the large ones
					// (generated a/c against interp's a*(1/c)).
					scale := 0.0
					for _, w := range pr[1] {
						scale = math.Max(scale, math.Abs(w))
					}
					for i := range pr[1] {
						v, w := pr[0][i], pr[1][i]
						if math.IsNaN(v) || math.IsNaN(w) {
							t.Fatalf("%T set %d part %d entry %d: %g, interp %g", g, k, q, i, v, w)
						}
						d := 0.0
						if v != w {
							d = math.Abs(v-w) / math.Max(scale, math.Max(math.Abs(v), math.Abs(w)))
						}
						worst = math.Max(worst, d)
						if d > 1e-13 {
							t.Errorf("%T set %d part %d entry %d: %.17g, interp %.17g", g, k, q, i, v, w)
						}
					}
				}
			}
			x, p, dst := make([]float64, nx), make([]float64, np), make([]float64, n)
			d := &model.AssignDeriv{X: make([]float64, n*nx), P: make([]float64, n*np)}
			if a := testing.AllocsPerRun(100, func() { g.Assign(k, 1, x, p, dst, d); g.Assign(k, 1, x, p, dst, nil) }); a != 0 {
				t.Errorf("%T set %d: Assign allocates %v times", g, k, a)
			}
			pkg, _, _ := strings.Cut(fmt.Sprintf("%T", g), ".")
			for _, c := range []struct {
				f    func()
				want string
			}{
				{func() { g.Assign(k, 1, x, p, make([]float64, n+1), nil) }, ": Assign: argument length mismatch"},
				{func() { g.Assign(k, 1, x, p, dst, &model.AssignDeriv{X: d.X, P: d.P[1:]}) }, ": Assign: derivative slice length mismatch"},
				{func() { g.Assign(g.NumAssignments(), 1, x, p, dst, nil) }, ": Assign: assignment set index out of range"},
				{func() { g.AssignTargets(-1) }, ": AssignTargets: assignment set index out of range"},
			} {
				if v := panics(c.f); v != pkg+c.want {
					t.Errorf("%T set %d: panic %v, want %q", g, k, v, pkg+c.want)
				}
			}
		}
		t.Logf("MAXREL %T %.2e", g, worst)
	}
}
`
