package codegen_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/format"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/codegen"
	"github.com/pbgen/pbgen/internal/testnet"
	"github.com/pbgen/pbgen/symbolic"
)

// e2eCases are generated into a temporary module. ctor is the Go expression
// that rebuilds the same system inside that module (the networks are
// deterministic), so the generated code can be compared with interp there.
var e2eCases = []struct {
	pkg  string
	ctor string
	sys  func() *symbolic.System
	opt  codegen.Options
}{
	{"toy", "testnet.Toy()", testnet.Toy, codegen.Options{Source: "networks/toy.xml"}},
	{"toychunked", "testnet.Toy()", testnet.Toy, codegen.Options{Package: "toychunked", ChunkSize: 4, SplitFiles: 10}},
	{"random", "testnet.Random(rand.New(rand.NewPCG(1, 1)), 40, 15)",
		func() *symbolic.System { return testnet.Random(rand.New(rand.NewPCG(1, 1)), 40, 15) },
		codegen.Options{Package: "random", ChunkSize: 60}},
}

// compareTest is the test run inside the temporary module: generated
// models against interp at seeded random points, names, defaults and
// patterns, and allocation-free evaluation.
const compareTest = `package pbgene2e

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
	"pbgene2e/testnet"
	{{IMPORTS}}
)

type genModel interface {
	model.Model
	Outputs() []string
	OutputsTo(dst []float64, t float64, x, p []float64)
}

type testCase struct {
	name string
	gen  genModel
	sys  *symbolic.System
}

func cases() []testCase {
	return []testCase{
		{{CASES}}
	}
}

func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}

func TestMatchesInterp(t *testing.T) {
	for _, c := range cases() {
		im, err := interp.New(c.sys)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.gen.StateNames(), im.StateNames()) || !slices.Equal(c.gen.ParamNames(), im.ParamNames()) ||
			!slices.Equal(c.gen.Outputs(), im.Outputs()) || c.gen.Name() != im.Name() {
			t.Errorf("%s: names differ", c.name)
		}
		for _, pp := range [][2]*model.Pattern{{c.gen.JxPattern(), im.JxPattern()}, {c.gen.JpPattern(), im.JpPattern()}} {
			g, w := pp[0], pp[1]
			if err := g.Validate(); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			if g.Rows != w.Rows || g.Cols != w.Cols || !slices.Equal(g.RowPtr, w.RowPtr) || !slices.Equal(g.ColIdx, w.ColIdx) {
				t.Errorf("%s: patterns differ", c.name)
			}
		}
		nx, np := model.NumStates(im), model.NumParams(im)
		pg, pw := make([]float64, np), make([]float64, np)
		c.gen.DefaultParams(pg)
		im.DefaultParams(pw)
		if !slices.Equal(pg, pw) {
			t.Errorf("%s: default parameters differ: %v, %v", c.name, pg, pw)
		}
		worst := map[string]float64{}
		rng := rand.New(rand.NewPCG(1, 1))
		nout := len(im.Outputs())
		for range 200 {
			tt := 10 * rng.Float64()
			x, p := make([]float64, nx), make([]float64, np)
			for i := range x {
				x[i] = 0.05 + 3*rng.Float64()
			}
			for j := range p {
				p[j] = pw[j] * (0.5 + rng.Float64())
			}
			for _, f := range []struct {
				what string
				n    int
				gen  func(dst []float64)
				ref  func(dst []float64)
			}{
				{"F", nx, func(d []float64) { c.gen.F(d, tt, x, p) }, func(d []float64) { im.F(d, tt, x, p) }},
				{"Jx", c.gen.JxPattern().NNZ(), func(d []float64) { c.gen.Jx(d, tt, x, p) }, func(d []float64) { im.Jx(d, tt, x, p) }},
				{"Jp", c.gen.JpPattern().NNZ(), func(d []float64) { c.gen.Jp(d, tt, x, p) }, func(d []float64) { im.Jp(d, tt, x, p) }},
				{"InitialState", nx, func(d []float64) { c.gen.InitialState(d, p) }, func(d []float64) { im.InitialState(d, p) }},
				{"InitialSens", nx * np, func(d []float64) { c.gen.InitialSens(d, p) }, func(d []float64) { im.InitialSens(d, p) }},
				{"OutputsTo", nout, func(d []float64) { c.gen.OutputsTo(d, tt, x, p) }, func(d []float64) { im.OutputsTo(d, tt, x, p) }},
			} {
				g, w := make([]float64, f.n), make([]float64, f.n)
				for i := range g {
					g[i] = math.NaN()
				}
				f.gen(g)
				f.ref(w)
				for i := range g {
					d := relDiff(g[i], w[i])
					if math.IsNaN(g[i]) || math.IsNaN(w[i]) {
						d = math.Inf(1)
					}
					worst[f.what] = math.Max(worst[f.what], d)
					if d > 1e-12 {
						t.Errorf("%s: %s[%d] = %v, interp %v", c.name, f.what, i, g[i], w[i])
					}
				}
			}
			// JpColumns: the chosen columns' entries equal interp's Jp,
			// the others keep the marker.
			jc, ok := c.gen.(model.JpColumns)
			if !ok {
				t.Fatalf("%s: the generated model has no JpColumns", c.name)
			}
			var cols []int
			for j := np - 1; j >= 0; j -= 2 {
				cols = append(cols, j)
			}
			pat := c.gen.JpPattern()
			g, w := make([]float64, pat.NNZ()), make([]float64, pat.NNZ())
			const marker = -7.5
			for i := range g {
				g[i] = marker
			}
			jc.JpColumns(cols)(g, tt, x, p)
			im.Jp(w, tt, x, p)
			for k, j := range pat.ColIdx {
				switch in := slices.Contains(cols, j); {
				case in && (relDiff(g[k], w[k]) > 1e-12 || math.IsNaN(g[k])):
					t.Errorf("%s: JpColumns entry %d (column %d) = %v, interp's Jp %v", c.name, k, j, g[k], w[k])
				case !in && g[k] != marker:
					t.Errorf("%s: JpColumns wrote entry %d of column %d, not chosen", c.name, k, j)
				}
			}
		}
		for _, what := range []string{"F", "Jx", "Jp", "InitialState", "InitialSens", "OutputsTo"} {
			t.Logf("MAXREL %s %s %.3g", c.name, what, worst[what])
		}
	}
}

func TestNoAllocations(t *testing.T) {
	for _, c := range cases() {
		nx, np := model.NumStates(c.gen), model.NumParams(c.gen)
		x, p := make([]float64, nx), make([]float64, np)
		c.gen.DefaultParams(p)
		c.gen.InitialState(x, p)
		f := make([]float64, nx)
		jx := make([]float64, c.gen.JxPattern().NNZ())
		jp := make([]float64, c.gen.JpPattern().NNZ())
		s0 := make([]float64, nx*np)
		cols := make([]int, np)
		for j := range cols {
			cols[j] = j
		}
		jpc := c.gen.(model.JpColumns).JpColumns(cols)
		if a := testing.AllocsPerRun(100, func() {
			c.gen.F(f, 1, x, p)
			c.gen.Jx(jx, 1, x, p)
			c.gen.Jp(jp, 1, x, p)
			jpc(jp, 1, x, p)
			c.gen.InitialSens(s0, p)
		}); a != 0 {
			t.Errorf("%s: %v allocations per evaluation", c.name, a)
		}
	}
}
`

// repoRoot walks up from the package directory to the module root.
func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(b, []byte("module github.com/pbgen/pbgen\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("repository root not found")
		}
		dir = parent
	}
}

// TestEndToEnd generates packages into a temporary module that replaces
// github.com/pbgen/pbgen with this repository, then runs gofmt -l, go vet
// and a test comparing the generated models with interp there.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a temporary module")
	}
	root := repoRoot(t)
	tmp := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go .*$`).Find(gomod)
	mod := fmt.Sprintf("module pbgene2e\n\n%s\n\nrequire github.com/pbgen/pbgen v0.0.0-00010101000000-000000000000\n\nreplace github.com/pbgen/pbgen => %s\n", goLine, root)
	write := func(name string, data []byte) {
		t.Helper()
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte(mod))
	if sum, err := os.ReadFile(filepath.Join(root, "go.sum")); err == nil {
		write("go.sum", sum)
	}
	copyTestnet(t, root, write)
	var imports, cases []string
	for _, c := range e2eCases {
		files, err := codegen.Generate(c.sys(), &c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.pkg, err)
		}
		for name, src := range files {
			write(filepath.Join(c.pkg, name), src)
		}
		imports = append(imports, fmt.Sprintf("%q", "pbgene2e/"+c.pkg))
		cases = append(cases, fmt.Sprintf("{%q, %s.New(), %s},", c.pkg, c.pkg, c.ctor))
	}
	src := strings.Replace(compareTest, "{{IMPORTS}}", strings.Join(imports, "\n"), 1)
	src = strings.Replace(src, "{{CASES}}", strings.Join(cases, "\n"), 1)
	formatted, err := format.Source([]byte(src))
	if err != nil {
		t.Fatalf("compare test: %v\n%s", err, src)
	}
	write("compare_test.go", formatted)

	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = tmp
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	gofmt := filepath.Join(goRoot(t), "bin", "gofmt")
	if out := run(gofmt, "-l", "."); strings.TrimSpace(out) != "" {
		t.Errorf("gofmt -l lists %s", out)
	}
	run("go", "vet", "./...")
	out := run("go", "test", "-count=1", "-v", "-run", "TestMatchesInterp|TestNoAllocations", ".")
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if i := strings.Index(sc.Text(), "MAXREL "); i >= 0 {
			t.Log("max relative difference generated vs interp:", sc.Text()[i+len("MAXREL "):])
		}
	}
}

func goRoot(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// copyTestnet writes a copy of internal/testnet into a temporary module
// (as its package testnet): the fixtures are internal to pbgen, and they
// import only symbolic and the standard library.
// testnetModule makes a temporary module named mod that requires this
// repository through a replace directive, with its go.sum and
// internal/testnet copied in (see copyTestnet), and returns its folder and
// a writer of files into it: the set-up of every test here that compiles
// generated code.
func testnetModule(t *testing.T, mod string) (string, func(name string, data []byte)) {
	t.Helper()
	root := repoRoot(t)
	tmp := t.TempDir()
	write := func(name string, data []byte) {
		t.Helper()
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte("module "+mod+"\n\ngo 1.24\n\nrequire github.com/pbgen/pbgen v0.0.0\n\nreplace github.com/pbgen/pbgen => "+root+"\n"))
	if sum, err := os.ReadFile(filepath.Join(root, "go.sum")); err == nil {
		write("go.sum", sum)
	}
	copyTestnet(t, root, write)
	return tmp, write
}

func copyTestnet(t *testing.T, root string, write func(name string, data []byte)) {
	t.Helper()
	fixture, err := os.ReadFile(filepath.Join(root, "internal", "testnet", "testnet.go"))
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join("testnet", "testnet.go"), fixture)
}
