package codegen

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"

	"github.com/pbgen/pbgen/internal/testnet"
	"github.com/pbgen/pbgen/symbolic"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenCases are generated and compared with testdata/<name>/<file>.golden.
// toy_chunked forces chunk helpers and the split into several files.
var goldenCases = []struct {
	name string
	sys  func() *symbolic.System
	opt  Options
}{
	{"toy", testnet.Toy, Options{Source: "networks/toy.xml"}},
	{"toy_chunked", testnet.Toy, Options{Package: "toychunked", Source: "networks/toy.xml", ChunkSize: 4, SplitFiles: 10}},
}

func sortedNames(files map[string][]byte) []string {
	var names []string
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		files, err := Generate(tc.sys(), &tc.opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		dir := filepath.Join("testdata", tc.name)
		if *update {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, src := range files {
				if err := os.WriteFile(filepath.Join(dir, name+".golden"), src, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		golden, err := filepath.Glob(filepath.Join(dir, "*.golden"))
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, g := range golden {
			want = append(want, strings.TrimSuffix(filepath.Base(g), ".golden"))
		}
		if got := sortedNames(files); !slices.Equal(got, want) {
			t.Fatalf("%s: generated files %v, golden files %v (run go test ./codegen -update)", tc.name, got, want)
		}
		for _, name := range want {
			w, err := os.ReadFile(filepath.Join(dir, name+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(files[name], w) {
				t.Errorf("%s/%s differs from its golden file (run go test ./codegen -update and review the diff):\n%s",
					tc.name, name, firstDiff(string(w), string(files[name])))
			}
		}
	}
}

// firstDiff shows the first differing line.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return "(no line differs)"
}

func itoa(i int) string { return strconv.Itoa(i) }

// render prints one jennifer expression.
func render(t *testing.T, c jen.Code) string {
	t.Helper()
	return fmt.Sprintf("%#v", c)
}

// TestProperties checks what every generated file must satisfy: the exact
// header, gofmt-clean output, imports limited to math and runtime/model,
// the version gate, and determinism across independent builds of the same
// system.
func TestProperties(t *testing.T) {
	header := regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)
	cases := []struct {
		name string
		sys  func() *symbolic.System
		opt  *Options
	}{
		{"toy", testnet.Toy, &Options{Source: "networks/toy.xml"}},
		{"toy chunked", testnet.Toy, &Options{ChunkSize: 3, SplitFiles: 1}},
		{"random", func() *symbolic.System { return testnet.Random(rand.New(rand.NewPCG(1, 1)), 30, 12) }, &Options{ChunkSize: 40}},
	}
	for _, tc := range cases {
		a, err := Generate(tc.sys(), tc.opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b, err := Generate(tc.sys(), tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(sortedNames(a), sortedNames(b)) {
			t.Fatalf("%s: file sets differ between runs", tc.name)
		}
		for name, src := range a {
			if !bytes.Equal(src, b[name]) {
				t.Errorf("%s/%s: two runs gave different bytes", tc.name, name)
			}
			first, _, _ := strings.Cut(string(src), "\n")
			if !header.MatchString(first) {
				t.Errorf("%s/%s: header %q does not match the go generate convention", tc.name, name, first)
			}
			if !strings.Contains(string(src), "\n\npackage ") && !strings.Contains(string(src), "\n\n// Package ") {
				t.Errorf("%s/%s: header is not separated from the package clause", tc.name, name)
			}
			formatted, err := format.Source(src)
			if err != nil {
				t.Fatalf("%s/%s: %v", tc.name, name, err)
			}
			if !bytes.Equal(formatted, src) {
				t.Errorf("%s/%s: not gofmt-clean", tc.name, name)
			}
			for _, imp := range regexp.MustCompile(`"([^"]+)"\n`).FindAllStringSubmatch(importBlock(string(src)), -1) {
				if imp[1] != "math" && imp[1] != modelPkg {
					t.Errorf("%s/%s imports %s", tc.name, name, imp[1])
				}
			}
		}
		m := string(a["model.go"])
		for _, want := range []string{
			"const _ = model.EnforceVersion(genVersion - model.MinVersion)",
			"const _ = model.EnforceVersion(model.MaxVersion - genVersion)",
			"const genVersion = 1",
			"var _ model.Model = Model{}",
		} {
			if !strings.Contains(m, want) {
				t.Errorf("%s: model.go lacks %q", tc.name, want)
			}
		}
	}
}

func importBlock(src string) string {
	i := strings.Index(src, "\nimport ")
	if i < 0 {
		return ""
	}
	j := strings.Index(src[i:], ")\n")
	if j < 0 {
		return src[i:]
	}
	return src[i : i+j+1]
}

func TestIdent(t *testing.T) {
	for _, tc := range []struct{ in, ident, state string }{
		{"CaM_Ca1", "CaM_Ca1", "StateCaM_Ca1"},
		{"type", "type_", "StateType"},
		{"len", "len_", "StateLen"},
		{"nil", "nil_", "StateNil"},
		{"float64", "float64_", "StateFloat64"},
		{"B-P", "B_P", "StateB_P"},
		{"a.b c", "a_b_c", "StateA_b_c"},
		{"2x", "_2x", "State_2x"},
		{"", "__", "State_"},
		{"_", "__", "State_"},
		{"α1", "α1", "StateΑ1"},
		{"x²", "x_", "StateX_"},
	} {
		if got := Ident(tc.in); got != tc.ident {
			t.Errorf("Ident(%q) = %q, want %q", tc.in, got, tc.ident)
		}
		if got := exported("State", tc.in); got != tc.state {
			t.Errorf("exported(State, %q) = %q, want %q", tc.in, got, tc.state)
		}
	}
}

// TestNameCollisions: ids that sanitise to the same identifier get
// distinct, deterministic index constants and locals, and the original ids
// are kept in the name tables.
func TestNameCollisions(t *testing.T) {
	b := symbolic.NewBuilder()
	ids := []string{"a.b", "a_b", "a-b", "A_b", "NumStates"}
	ode := &symbolic.ODE{B: b, Name: "collide"}
	k := b.Sym("k", symbolic.KindParam)
	for _, id := range ids {
		ode.States = append(ode.States, symbolic.State{Name: id, Rate: b.Neg(b.Mul(k, b.Sym(id, symbolic.KindState))), Init: b.Const(1)})
	}
	ode.Params = []symbolic.Param{{Name: "k", Value: 1}}
	sys, err := symbolic.Build(ode)
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := string(files["model.go"])
	for _, want := range []string{
		`StateA_b       int = 0 // "a.b"`,
		`StateA_b_2     int = 1 // "a_b"`,
		`StateA_b_3     int = 2 // "a-b"`,
		`StateA_b_4     int = 3 // "A_b"`,
		"StateNumStates int = 4\n",
		`var stateNames = [NumStates]string{"a.b", "a_b", "a-b", "A_b", "NumStates"}`,
		`xA_b_3 := x[StateA_b_3]`,
		"package collide",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("model.go lacks %q", want)
		}
	}
}

func TestLiterals(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{2, "2.0"}, {0.1, "0.1"}, {-2.5, "-2.5"}, {1e-300, "1e-300"}, {1e21, "1e+21"},
		{math.NaN(), "math.NaN()"}, {math.Inf(1), "math.Inf(1)"}, {math.Inf(-1), "math.Inf(-1)"},
		{math.Copysign(0, -1), "math.Copysign(0, -1)"}, {1.0 / 3, "0.3333333333333333"},
	} {
		got := strings.ReplaceAll(render(t, lit(tc.v).c), "\n", "")
		if got != tc.want {
			t.Errorf("lit(%v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

// TestExpressions checks the emitted form of single expressions.
func TestExpressions(t *testing.T) {
	b := symbolic.NewBuilder()
	x := b.Sym("x", symbolic.KindState)
	y := b.Sym("y", symbolic.KindState)
	k := b.Sym("k", symbolic.KindParam)
	c := b.Const
	for _, tc := range []struct {
		expr *symbolic.Node
		want string
	}{
		{b.Pow(x, c(2)), "xX * xX"},
		{b.Pow(x, c(3)), "xX * xX * xX"},
		{b.Pow(x, c(0.5)), "math.Sqrt(xX)"},
		{b.Pow(x, c(-0.5)), "1.0 / math.Sqrt(xX)"},
		{b.Pow(x, c(2.7)), "math.Pow(xX, 2.7)"},
		{b.Pow(x, k), "math.Pow(xX, pK)"},
		{b.Div(x, y), "xX / xY"},
		{b.Div(k, b.Mul(x, y)), "pK / (xX * xY)"},
		{b.Div(c(1), b.Pow(x, c(2))), "1.0 / (xX * xX)"},
		{b.Sub(x, b.Mul(c(2), y)), "xX - 2.0*xY"},
		{b.Neg(b.Mul(k, x)), "-(pK * xX)"},
		{b.Mul(c(-3), x), "-3.0 * xX"},
		{b.Add(c(-1), x), "-1.0 + xX"},
		{b.Mul(x, b.Add(y, c(1))), "xX * (1.0 + xY)"},
		{b.Rel(symbolic.OpLt, x, y), "b2f(xX < xY)"},
		{b.Logic(symbolic.OpNot, b.Rel(symbolic.OpLt, x, y)), "b2f(!(xX < xY))"},
		{b.Logic(symbolic.OpXor, x, y, k), "b2f(((pK != 0.0) != (xX != 0.0)) != (xY != 0.0))"},
		{b.Logic(symbolic.OpOr, b.Logic(symbolic.OpAnd, x, y), k), "b2f(pK != 0.0 || xX != 0.0 && xY != 0.0)"},
		{b.Func(symbolic.OpFactorial, x), "math.Gamma(xX + 1.0)"},
		{b.Func(symbolic.OpSec, x), "1.0 / math.Cos(xX)"},
		{b.Func(symbolic.OpAcoth, x), "math.Atanh(1.0 / xX)"},
		{b.Mul(x, c(math.Inf(1))), "math.Inf(1) * xX"},
	} {
		ode := &symbolic.ODE{B: b, Name: "e",
			States: []symbolic.State{{Name: "x", Rate: tc.expr, Init: c(0)}, {Name: "y", Rate: c(0), Init: c(0)}},
			Params: []symbolic.Param{{Name: "k"}}}
		sys := &symbolic.System{ODE: ode, B: b, F: []*symbolic.Node{tc.expr, c(0)}, X0: []*symbolic.Node{c(0), c(0)}}
		files, err := Generate(sys, nil)
		if err != nil {
			t.Fatalf("%v: %v", tc.expr, err)
		}
		src := string(files["model.go"])
		if !strings.Contains(src, "\tdst[0] = "+tc.want+"\n") {
			i := strings.Index(src, "dst[0] = ")
			t.Errorf("%v: want dst[0] = %s, got %s", tc.expr, tc.want, strings.SplitN(src[i:], "\n", 2)[0])
		}
	}
}

func TestErrors(t *testing.T) {
	b := symbolic.NewBuilder()
	x := b.Sym("x", symbolic.KindState)
	mk := func(f, x0 *symbolic.Node, jx []symbolic.Entry) *symbolic.System {
		ode := &symbolic.ODE{B: b, Name: "bad", States: []symbolic.State{{Name: "x", Rate: f, Init: x0}}}
		return &symbolic.System{ODE: ode, B: b, F: []*symbolic.Node{f}, X0: []*symbolic.Node{x0}, Jx: jx}
	}
	for name, tc := range map[string]struct {
		sys *symbolic.System
		opt *Options
	}{
		"unresolved symbol": {mk(b.Mul(b.Sym("q", symbolic.KindOther), x), b.Const(1), nil), nil},
		"state in x0":       {mk(x, x, nil), nil},
		"time in x0":        {mk(x, b.Time(), nil), nil},
		"unsorted":          {mk(x, b.Const(1), []symbolic.Entry{{Row: 0, Col: 0, Expr: x}, {Row: 0, Col: 0, Expr: x}}), nil},
		"out of range":      {mk(x, b.Const(1), []symbolic.Entry{{Row: 0, Col: 1, Expr: x}}), nil},
		"bad package":       {mk(x, b.Const(1), nil), &Options{Package: "my-pkg"}},
		"keyword package":   {mk(x, b.Const(1), nil), &Options{Package: "type"}},
	} {
		if _, err := Generate(tc.sys, tc.opt); err == nil {
			t.Errorf("%s: Generate succeeded", name)
		} else if !strings.HasPrefix(err.Error(), "codegen: ") {
			t.Errorf("%s: error %q lacks the package prefix", name, err)
		}
	}
}

func TestNumbered(t *testing.T) {
	got := numbered([]byte("package x\nfunc {"))
	if got != "    1  package x\n    2  func {\n" {
		t.Errorf("numbered = %q", got)
	}
}

// TestLargeNetwork checks that a large network is split into files and
// chunk helpers of bounded size, and how long generation takes.
func TestLargeNetwork(t *testing.T) {
	sys := testnet.Random(rand.New(rand.NewPCG(2, 2)), 600, 80)
	files, err := Generate(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := sortedNames(files); !slices.Equal(got, []string{"f.go", "jac.go", "model.go"}) {
		t.Fatalf("files %v", got)
	}
	// No function body may exceed the chunk size (plus loads and the
	// prologue): count the lines between "func" and the closing brace.
	for name, src := range files {
		lines := strings.Split(string(src), "\n")
		start := -1
		for i, l := range lines {
			if strings.HasPrefix(l, "func ") {
				start = i
			}
			if l == "}" && start >= 0 {
				if n := i - start; n > 2*500+700 {
					t.Errorf("%s: function at line %d has %d lines", name, start+1, n)
				}
				start = -1
			}
		}
	}
	if !strings.Contains(string(files["jac.go"]), "func jxChunk1(") {
		t.Errorf("jac.go has no second Jx chunk")
	}
}

// sharedSystem has a relation x < y used twice, once as a piecewise
// condition and once as a number: f = (piecewise(k, x < y, 0), k*(x < y)).
func sharedSystem() *symbolic.System {
	b := symbolic.NewBuilder()
	x := b.Sym("x", symbolic.KindState)
	y := b.Sym("y", symbolic.KindState)
	k := b.Sym("k", symbolic.KindParam)
	lt := b.Rel(symbolic.OpLt, x, y)
	f := []*symbolic.Node{b.Piecewise(k, lt, b.Const(0)), b.Mul(k, lt)}
	ode := &symbolic.ODE{B: b, Name: "shared",
		States: []symbolic.State{{Name: "x", Rate: f[0], Init: b.Const(0)}, {Name: "y", Rate: f[1], Init: b.Const(0)}},
		Params: []symbolic.Param{{Name: "k"}}}
	return &symbolic.System{ODE: ode, B: b, F: f, X0: []*symbolic.Node{b.Const(0), b.Const(0)}}
}

// funcsText returns the text of every function in src whose declaration
// starts with one of prefixes, in file order.
func funcsText(src string, prefixes ...string) string {
	var sb strings.Builder
	for _, part := range strings.SplitAfter(src, "\n}\n") {
		i := strings.Index(part, "\nfunc ")
		if i < 0 {
			continue
		}
		for _, p := range prefixes {
			if strings.HasPrefix(part[i+1:], p) {
				sb.WriteString(part[i+1:])
				break
			}
		}
	}
	return sb.String()
}

// TestSharedLocals checks how a shared subexpression is bound: computed
// once into a local that both uses read, as a Go condition through != 0;
// when every statement is its own chunk, in the work array w instead, and
// a piecewise assigned there is not declared again.
func TestSharedLocals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chunk int
		want  []string // in this order
		not   []string
	}{
		{"one body", 0, []string{
			"e0 := b2f(xX < xY)\n", "var e1 float64\n", "if e0 != 0.0 {\n", "e1 = pK\n", "} else {\n", "e1 = 0.0\n",
			"dst[0] = e1\n", "dst[1] = pK * e0\n"}, []string{"w["}},
		{"a chunk per statement", 1, []string{
			"var w [2]float64\n", "fChunk0(dst, t, x, p, &w)\n", "fChunk3(dst, t, x, p, &w)\n",
			"w[0] = b2f(xX < xY)\n", "if w[0] != 0.0 {\n", "w[1] = pK\n", "w[1] = 0.0\n",
			"dst[0] = w[1]\n", "dst[1] = pK * w[0]\n"}, []string{"e0", "var w[1]", "fChunk4"}},
	} {
		files, err := Generate(sharedSystem(), &Options{ChunkSize: tc.chunk})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		f := funcsText(string(files["model.go"]), "func (Model) F(", "func fChunk")
		if n := strings.Count(f, "xX < xY"); n != 1 {
			t.Errorf("%s: x < y computed %d times, want once:\n%s", tc.name, n, f)
		}
		rest := f
		for _, w := range tc.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: F lacks %q after the previous statements:\n%s", tc.name, w, f)
				break
			}
			rest = rest[i+len(w):]
		}
		for _, s := range tc.not {
			if strings.Contains(f, s) {
				t.Errorf("%s: F contains %q:\n%s", tc.name, s, f)
			}
		}
	}
}
