package codegen

import (
	"bytes"
	"fmt"
	"go/format"
	"go/token"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

// modelPkg is the only non-standard package generated code imports.
const modelPkg = "github.com/pbgen/pbgen/runtime/model"

// Options control Generate. A nil *Options or a zero field means the
// default.
type Options struct {
	// Package is the Go package name; default Ident of the model name in
	// lower case.
	Package string
	// Source is the network file shown in the header, e.g.
	// "networks/CaMKII.xml"; default sys.ODE.Source. Use a path relative to
	// the repository so that output does not depend on the machine.
	Source string
	// ChunkSize is the largest number of statements in one function body;
	// longer bodies are split into helper functions. Default 500.
	ChunkSize int
	// SplitFiles is the total number of statements above which the output
	// is split into model.go, f.go and jac.go. Default 2000.
	SplitFiles int
}

type generator struct {
	sys       *symbolic.System
	pkg       string
	source    string
	chunkSize int
	usedB2F   bool

	nx, np, nout int
	stateIx      map[string]int
	paramIx      map[string]int
	stateConst   []string // exported index constants
	paramConst   []string
	stateLocal   []string // locals holding x[i] and p[j]
	paramLocal   []string
}

// Generate returns the Go source of a package implementing model.Model for
// sys, as file name -> gofmt'ed source. The output is a deterministic
// function of sys and opt. It returns an error if sys is malformed (unknown
// symbols, initial values depending on states or time, unsorted or
// out-of-range Jacobian entries), if the package name is not a valid
// identifier, or if the generated source does not parse (with the
// line-numbered source in the message).
func Generate(sys *symbolic.System, opt *Options) (map[string][]byte, error) {
	if sys == nil || sys.ODE == nil {
		return nil, fmt.Errorf("codegen: nil system")
	}
	var o Options
	if opt != nil {
		o = *opt
	}
	g := &generator{sys: sys, source: o.Source, chunkSize: o.ChunkSize, pkg: o.Package}
	if g.source == "" {
		g.source = sys.ODE.Source
	}
	if g.chunkSize <= 0 {
		g.chunkSize = 500
	}
	split := o.SplitFiles
	if split <= 0 {
		split = 2000
	}
	if g.pkg == "" {
		g.pkg = Ident(strings.ToLower(sys.ODE.Name))
	}
	if !token.IsIdentifier(g.pkg) || g.pkg == "_" {
		return nil, fmt.Errorf("codegen: model %q: invalid package name %q", sys.ODE.Name, g.pkg)
	}
	if err := g.check(); err != nil {
		return nil, err
	}
	g.names()

	var fns []*fnSpec
	for _, fs := range []*fnSpec{g.fSpec(), g.jSpec("Jx", sys.Jx, true), g.jSpec("Jp", sys.Jp, false),
		g.x0Spec(), g.x0pSpec(), g.outSpec()} {
		fns = append(fns, fs)
	}
	decls := make([][]jen.Code, len(fns))
	total := 0
	for i, fs := range fns {
		var n int
		decls[i], n = g.body(fs)
		total += n
	}
	files := map[string][]jen.Code{"model.go": g.modelDecls()}
	// model.go: F, Jx, Jp, initial values and outputs, unless the
	// network is large: then f.go holds F and jac.go Jx and Jp.
	for i, fs := range fns {
		name := "model.go"
		if total > split {
			switch fs.method {
			case "F":
				name = "f.go"
			case "Jx", "Jp":
				name = "jac.go"
			}
		}
		files[name] = append(files[name], decls[i]...)
	}
	if g.usedB2F {
		files["model.go"] = append(files["model.go"], g.b2f())
	}
	out := make(map[string][]byte, len(files))
	for _, name := range []string{"model.go", "f.go", "jac.go"} {
		ds, ok := files[name]
		if !ok {
			continue
		}
		src, err := g.render(name, ds)
		if err != nil {
			return nil, err
		}
		out[name] = src
	}
	return out, nil
}

// check validates sys before anything is emitted.
func (g *generator) check() error {
	sys := g.sys
	g.nx, g.np, g.nout = len(sys.ODE.States), len(sys.ODE.Params), len(sys.ODE.Outputs)
	name := sys.ODE.Name
	if len(sys.F) != g.nx || len(sys.X0) != g.nx {
		return fmt.Errorf("codegen: model %q has %d states but %d rates and %d initial values", name, g.nx, len(sys.F), len(sys.X0))
	}
	g.stateIx = make(map[string]int)
	g.paramIx = make(map[string]int)
	for i, s := range sys.ODE.States {
		if _, dup := g.stateIx[s.Name]; dup {
			return fmt.Errorf("codegen: model %q: duplicate state %q", name, s.Name)
		}
		g.stateIx[s.Name] = i
	}
	for j, p := range sys.ODE.Params {
		if _, dup := g.paramIx[p.Name]; dup {
			return fmt.Errorf("codegen: model %q: duplicate parameter %q", name, p.Name)
		}
		g.paramIx[p.Name] = j
	}
	syms := func(what string, roots []*symbolic.Node, initial bool) error {
		for _, r := range roots {
			if r == nil {
				return fmt.Errorf("codegen: model %q: nil expression in %s", name, what)
			}
			for _, s := range symbolic.FreeSymbols(r) {
				ok := false
				switch s.Kind {
				case symbolic.KindState:
					_, ok = g.stateIx[s.Name]
					ok = ok && !initial
				case symbolic.KindParam:
					_, ok = g.paramIx[s.Name]
				case symbolic.KindTime:
					ok = !initial
				}
				if !ok {
					return fmt.Errorf("codegen: model %q: %s uses %s %q, which is not allowed there", name, what, s.Kind, s.Name)
				}
			}
		}
		return nil
	}
	outs := make([]*symbolic.Node, g.nout)
	for i, o := range sys.ODE.Outputs {
		outs[i] = o.Expr
	}
	for _, c := range []struct {
		what    string
		roots   []*symbolic.Node
		initial bool
	}{
		{"rates", sys.F, false}, {"Jx", symbolic.Exprs(sys.Jx), false}, {"Jp", symbolic.Exprs(sys.Jp), false},
		{"outputs", outs, false}, {"initial values", sys.X0, true}, {"dx0/dp", symbolic.Exprs(sys.X0p), true},
	} {
		if err := syms(c.what, c.roots, c.initial); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		what       string
		es         []symbolic.Entry
		rows, cols int
	}{{"Jx", sys.Jx, g.nx, g.nx}, {"Jp", sys.Jp, g.nx, g.np}, {"dx0/dp", sys.X0p, g.nx, g.np}} {
		for k, e := range c.es {
			if e.Row < 0 || e.Row >= c.rows || e.Col < 0 || e.Col >= c.cols {
				return fmt.Errorf("codegen: model %q: %s entry %d at (%d,%d) out of range %dx%d", name, c.what, k, e.Row, e.Col, c.rows, c.cols)
			}
			if k > 0 && (e.Row < c.es[k-1].Row || e.Row == c.es[k-1].Row && e.Col <= c.es[k-1].Col) {
				return fmt.Errorf("codegen: model %q: %s entries not sorted by (row, column) at entry %d", name, c.what, k)
			}
		}
	}
	return nil
}

// names assigns the exported index constants and the locals.
func (g *generator) names() {
	pkgScope := newNamer("Model", "New", "NumStates", "NumParams", "NumOutputs", "NNZJx", "NNZJp")
	for _, s := range g.sys.ODE.States {
		c := pkgScope.unique(exported("State", s.Name))
		g.stateConst = append(g.stateConst, c)
		g.stateLocal = append(g.stateLocal, "x"+strings.TrimPrefix(c, "State"))
	}
	for _, p := range g.sys.ODE.Params {
		c := pkgScope.unique(exported("Param", p.Name))
		g.paramConst = append(g.paramConst, c)
		g.paramLocal = append(g.paramLocal, "p"+strings.TrimPrefix(c, "Param"))
	}
}

func (g *generator) symRef(n *symbolic.Node) code {
	switch n.Kind {
	case symbolic.KindState:
		return ident(g.stateLocal[g.stateIx[n.Name]])
	case symbolic.KindParam:
		return ident(g.paramLocal[g.paramIx[n.Name]])
	}
	return ident("t")
}

// symLoad emits xName := x[StateName] (or the parameter form).
func (g *generator) symLoad(n *symbolic.Node) jen.Code {
	if n.Kind == symbolic.KindState {
		i := g.stateIx[n.Name]
		return jen.Id(g.stateLocal[i]).Op(":=").Id("x").Index(jen.Id(g.stateConst[i]))
	}
	j := g.paramIx[n.Name]
	return jen.Id(g.paramLocal[j]).Op(":=").Id("p").Index(jen.Id(g.paramConst[j]))
}

// sortSyms orders symbols states first, then parameters, each by index.
func (g *generator) sortSyms(ss []*symbolic.Node) {
	key := func(n *symbolic.Node) int {
		if n.Kind == symbolic.KindState {
			return g.stateIx[n.Name]
		}
		return g.nx + g.paramIx[n.Name]
	}
	for i := 1; i < len(ss); i++ {
		for k := i; k > 0 && key(ss[k]) < key(ss[k-1]); k-- {
			ss[k], ss[k-1] = ss[k-1], ss[k]
		}
	}
}

var (
	txpParams = []jen.Code{jen.Id("dst").Index().Float64(), jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p")).Index().Float64()}
	txpArgs   = []jen.Code{jen.Id("dst"), jen.Id("t"), jen.Id("x"), jen.Id("p")}
	pParams   = []jen.Code{jen.List(jen.Id("dst"), jen.Id("p")).Index().Float64()}
	pArgs     = []jen.Code{jen.Id("dst"), jen.Id("p")}
)

// lengthCheck panics with a package-prefixed message on a length mismatch.
func (g *generator) lengthCheck(method string, dstLen jen.Code, withX bool) jen.Code {
	cond := jen.Len(jen.Id("dst")).Op("!=").Add(dstLen)
	if withX {
		cond = cond.Op("||").Len(jen.Id("x")).Op("!=").Id("NumStates")
	}
	cond = cond.Op("||").Len(jen.Id("p")).Op("!=").Id("NumParams")
	return jen.If(cond).Block(jen.Panic(jen.Lit(g.pkg + ": " + method + ": argument length mismatch")))
}

func (g *generator) infix(n *symbolic.Node) string {
	if s := oneLine(n.String(), 100); s != "" {
		return " = " + s
	}
	return ""
}

func (g *generator) fSpec() *fnSpec {
	fs := &fnSpec{method: "F", helper: "f", params: txpParams, args: txpArgs, roots: g.sys.F,
		doc:      "F writes f(t, x, p) = dx/dt into dst.",
		prologue: []jen.Code{g.lengthCheck("F", jen.Id("NumStates"), true)}}
	for i, s := range g.sys.ODE.States {
		fs.dst = append(fs.dst, i)
		fs.comments = append(fs.comments, fmt.Sprintf("f[%d] = d(%s)/dt%s", i, s.Name, g.infix(g.sys.F[i])))
	}
	return fs
}

func (g *generator) jSpec(method string, es []symbolic.Entry, wrtX bool) *fnSpec {
	nnz := "NNZ" + method
	what := "df/dp"
	if wrtX {
		what = "df/dx"
	}
	fs := &fnSpec{method: method, helper: strings.ToLower(method), params: txpParams, args: txpArgs, roots: symbolic.Exprs(es),
		doc:      fmt.Sprintf("%s writes the values of %s at (t, x, p) into dst, in %sPattern order.", method, what, method),
		prologue: []jen.Code{g.lengthCheck(method, jen.Id(nnz), true)}}
	for k, e := range es {
		var col string
		if wrtX {
			col = g.sys.ODE.States[e.Col].Name
		} else {
			col = g.sys.ODE.Params[e.Col].Name
		}
		fs.dst = append(fs.dst, k)
		fs.comments = append(fs.comments, fmt.Sprintf("%s[%d] = d(d%s/dt)/d(%s)%s", method, k, g.sys.ODE.States[e.Row].Name, col, g.infix(e.Expr)))
	}
	return fs
}

func (g *generator) x0Spec() *fnSpec {
	fs := &fnSpec{method: "InitialState", helper: "x0", params: pParams, args: pArgs, roots: g.sys.X0,
		doc:      "InitialState writes x(t0) for parameters p into dst.",
		prologue: []jen.Code{g.lengthCheck("InitialState", jen.Id("NumStates"), false)}}
	for i, s := range g.sys.ODE.States {
		fs.dst = append(fs.dst, i)
		fs.comments = append(fs.comments, fmt.Sprintf("%s(t0)%s", s.Name, g.infix(g.sys.X0[i])))
	}
	return fs
}

func (g *generator) x0pSpec() *fnSpec {
	fs := &fnSpec{method: "InitialSens", helper: "x0p", params: pParams, args: pArgs, roots: symbolic.Exprs(g.sys.X0p),
		doc: "InitialSens writes dx(t0)/dp, row-major NumStates x NumParams, into dst.",
		prologue: []jen.Code{g.lengthCheck("InitialSens", jen.Id("NumStates").Op("*").Id("NumParams"), false),
			jen.Id("clear").Call(jen.Id("dst"))}}
	for _, e := range g.sys.X0p {
		fs.dst = append(fs.dst, e.Row*g.np+e.Col)
		fs.comments = append(fs.comments, fmt.Sprintf("d(%s(t0))/d(%s)%s", g.sys.ODE.States[e.Row].Name, g.sys.ODE.Params[e.Col].Name, g.infix(e.Expr)))
	}
	return fs
}

func (g *generator) outSpec() *fnSpec {
	fs := &fnSpec{method: "OutputsTo", helper: "out", params: txpParams, args: txpArgs,
		doc:      "OutputsTo writes the outputs at (t, x, p) into dst, in the order of Outputs.",
		prologue: []jen.Code{g.lengthCheck("OutputsTo", jen.Id("NumOutputs"), true)}}
	for i, o := range g.sys.ODE.Outputs {
		fs.roots = append(fs.roots, o.Expr)
		fs.dst = append(fs.dst, i)
		fs.comments = append(fs.comments, fmt.Sprintf("%s%s", o.Name, g.infix(o.Expr)))
	}
	return fs
}

// modelDecls emits everything in model.go except the evaluation functions.
func (g *generator) modelDecls() []jen.Code {
	sys := g.sys
	var ds []jen.Code
	intc := func(name string, v int, doc string) jen.Code {
		return jen.Comment(doc).Line().Const().Id(name).Int().Op("=").Lit(v)
	}
	ds = append(ds,
		jen.Comment("genVersion is the model.GenVersion this package was generated for.").Line().
			Const().Id("genVersion").Op("=").Lit(model.GenVersion),
		jen.Comment("The build fails here if the runtime no longer supports this generated code.").Line().
			Const().Id("_").Op("=").Qual(modelPkg, "EnforceVersion").Call(jen.Id("genVersion").Op("-").Qual(modelPkg, "MinVersion")),
		jen.Const().Id("_").Op("=").Qual(modelPkg, "EnforceVersion").Call(jen.Qual(modelPkg, "MaxVersion").Op("-").Id("genVersion")),
		intc("NumStates", g.nx, "NumStates is the number of states."),
		intc("NumParams", g.np, "NumParams is the number of parameters."),
		intc("NumOutputs", g.nout, "NumOutputs is the number of outputs."),
		intc("NNZJx", len(sys.Jx), "NNZJx is the number of structural non-zeros of Jx = df/dx."),
		intc("NNZJp", len(sys.Jp), "NNZJp is the number of structural non-zeros of Jp = df/dp."),
	)
	idx := func(d string, names []string, ids []string) jen.Code {
		return jen.Add(doc(d)).Const().DefsFunc(func(grp *jen.Group) {
			for i, c := range names {
				d := jen.Id(c).Int().Op("=").Lit(i)
				if exported := c[5:]; exported != ids[i] {
					d.Comment(fmt.Sprintf("%q", ids[i]))
				}
				grp.Add(d)
			}
		})
	}
	stateIDs, paramIDs := sys.ODE.StateNames(), sys.ODE.ParamNames()
	if g.nx > 0 {
		ds = append(ds, idx("State indices: x[StateA] is the state with id \"A\" (the original id is noted where the name differs).", g.stateConst, stateIDs))
	}
	if g.np > 0 {
		ds = append(ds, idx("Parameter indices: p[ParamK] is the parameter with id \"K\" (or \"k\").", g.paramConst, paramIDs))
	}
	strs := func(name, d, size string, vals []string) jen.Code {
		return jen.Add(doc(d)).Var().Id(name).Op("=").Index(jen.Id(size)).String().ValuesFunc(func(grp *jen.Group) {
			for _, v := range vals {
				grp.Lit(v)
			}
		})
	}
	var outNames []string
	for _, o := range sys.ODE.Outputs {
		outNames = append(outNames, o.Name)
	}
	ds = append(ds,
		strs("stateNames", "stateNames are the original state ids, in state order.", "NumStates", stateIDs),
		strs("paramNames", "paramNames are the original parameter ids, in parameter order.", "NumParams", paramIDs),
		strs("outputNames", "outputNames are the output names, in output order.", "NumOutputs", outNames),
		jen.Comment("defaultParams are the default parameter values.").Line().
			Var().Id("defaultParams").Op("=").Index(jen.Id("NumParams")).Float64().ValuesFunc(func(grp *jen.Group) {
			for _, p := range sys.ODE.Params {
				grp.Add(lit(p.Value).c)
			}
		}),
	)
	for _, pat := range []struct {
		name string
		es   []symbolic.Entry
	}{{"jx", sys.Jx}, {"jp", sys.Jp}} {
		rowPtr := make([]int, g.nx+1)
		rows := make([][]int, g.nx)
		for _, e := range pat.es {
			rowPtr[e.Row+1]++
			rows[e.Row] = append(rows[e.Row], e.Col)
		}
		for i := 0; i < g.nx; i++ {
			rowPtr[i+1] += rowPtr[i]
		}
		up := strings.ToUpper(pat.name[:1]) + pat.name[1:]
		ds = append(ds,
			doc(fmt.Sprintf("%sRowPtr and %sColIdx are the CSR pattern of %s; the columns of row i are %sColIdx[%sRowPtr[i]:%sRowPtr[i+1]].",
				pat.name, pat.name, up, pat.name, pat.name, pat.name)).
				Var().Id(pat.name+"RowPtr").Op("=").Index(jen.Id("NumStates").Op("+").Lit(1)).Int().Add(intTable([][]int{rowPtr})),
			jen.Var().Id(pat.name+"ColIdx").Op("=").Index(jen.Id("NNZ"+up)).Int().Add(intTable(rows)),
		)
	}
	ds = append(ds,
		doc(fmt.Sprintf("Model is the generated %s model. It has no state: a Model value is safe for concurrent use, and no method allocates except those returning slices or patterns, which return fresh copies.", sys.ODE.Name)).
			Type().Id("Model").Struct(),
		jen.Var().Id("_").Qual(modelPkg, "Model").Op("=").Id("Model").Values(),
		jen.Comment("New returns the model.").Line().Func().Id("New").Params().Id("Model").Block(jen.Return(jen.Id("Model").Values())),
		jen.Comment("Name returns the model id.").Line().Func().Params(jen.Id("Model")).Id("Name").Params().String().
			Block(jen.Return(jen.Lit(sys.ODE.Name))),
		copier("StateNames", "StateNames returns a copy of the state ids, in state order.", "stateNames", jen.String()),
		copier("ParamNames", "ParamNames returns a copy of the parameter ids, in parameter order.", "paramNames", jen.String()),
		copier("Outputs", "Outputs returns a copy of the output names, in the order of OutputsTo.", "outputNames", jen.String()),
		jen.Comment("DefaultParams writes the default parameter values into dst.").Line().
			Func().Params(jen.Id("Model")).Id("DefaultParams").Params(jen.Id("dst").Index().Float64()).Block(
			jen.If(jen.Len(jen.Id("dst")).Op("!=").Id("NumParams")).Block(jen.Panic(jen.Lit(g.pkg+": DefaultParams: argument length mismatch"))),
			jen.Copy(jen.Id("dst"), jen.Id("defaultParams").Index(jen.Op(":"))),
		),
		g.patternFunc("JxPattern", "jx", "NumStates", "Jx = df/dx (NumStates x NumStates)"),
		g.patternFunc("JpPattern", "jp", "NumParams", "Jp = df/dp (NumStates x NumParams)"),
	)
	return ds
}

func copier(method, doc, arr string, elem jen.Code) jen.Code {
	return jen.Comment(doc).Line().Func().Params(jen.Id("Model")).Id(method).Params().Index().Add(elem).Block(
		jen.Return(jen.Append(jen.Index().Add(elem).Parens(jen.Nil()), jen.Id(arr).Index(jen.Op(":")).Op("..."))))
}

func (g *generator) patternFunc(method, name, cols, what string) jen.Code {
	cp := func(arr string) jen.Code {
		return jen.Append(jen.Index().Int().Parens(jen.Nil()), jen.Id(arr).Index(jen.Op(":")).Op("..."))
	}
	return doc(fmt.Sprintf("%s returns a copy of the sparsity pattern of %s.", method, what)).
		Func().Params(jen.Id("Model")).Id(method).Params().Op("*").Qual(modelPkg, "Pattern").Block(
		jen.Return(jen.Op("&").Qual(modelPkg, "Pattern").Values(jen.Dict{
			jen.Id("Rows"):   jen.Id("NumStates"),
			jen.Id("Cols"):   jen.Id(cols),
			jen.Id("RowPtr"): cp(name + "RowPtr"),
			jen.Id("ColIdx"): cp(name + "ColIdx"),
		})))
}

// intTable emits {a, b, c,\n d, e,\n} with one line per non-empty row,
// wrapped at 16 values.
func intTable(rows [][]int) jen.Code {
	var lines []jen.Code
	for _, r := range rows {
		for len(r) > 0 {
			n := min(len(r), 16)
			vals := make([]jen.Code, n)
			for i, v := range r[:n] {
				vals[i] = jen.Lit(v)
			}
			lines = append(lines, jen.List(vals...))
			r = r[n:]
		}
	}
	if len(lines) == 0 {
		return jen.Values()
	}
	return jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, lines...)
}

// b2f is the helper converting a condition to 1 or 0.
func (g *generator) b2f() jen.Code {
	return doc("b2f converts a truth value to 1 or 0, as relational and logical operators evaluate in numeric context.").
		Func().Id("b2f").Params(jen.Id("b").Bool()).Float64().Block(
		jen.If(jen.Id("b")).Block(jen.Return(jen.Lit(1))),
		jen.Return(jen.Lit(0)),
	)
}

// render assembles one file and formats it. On a formatting failure the
// error holds the line-numbered source, never unformatted output.
func (g *generator) render(name string, decls []jen.Code) ([]byte, error) {
	f := jen.NewFile(g.pkg)
	f.NoFormat = true
	f.ImportName(modelPkg, "model")
	f.HeaderComment("Code generated by pbgen from " + g.sourceName() + ". DO NOT EDIT.")
	if name == "model.go" {
		for _, l := range wrap(g.packageDoc(), 76) {
			f.PackageComment(l)
		}
	}
	for _, d := range decls {
		f.Add(d)
		f.Line()
	}
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, fmt.Errorf("codegen: %s: %v", name, err)
	}
	src, err := format.Source(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("codegen: %s: unparsable Go source: %v\n%s", name, err, numbered(buf.Bytes()))
	}
	return src, nil
}

func (g *generator) sourceName() string {
	if g.source == "" {
		return "an unnamed network"
	}
	return g.source
}

func (g *generator) packageDoc() string {
	s := fmt.Sprintf("Package %s is the %s reaction network", g.pkg, g.sys.ODE.Name)
	if g.source != "" {
		s += " (" + g.source + ")"
	}
	s += fmt.Sprintf(", generated by pbgen: %d states, %d parameters, %d and %d structural non-zeros in Jx = df/dx and Jp = df/dp.", g.nx, g.np, len(g.sys.Jx), len(g.sys.Jp))
	s += "\n\nType Model implements the runtime's model.Model contract with straight-line code: each shared subexpression is computed once, and no evaluation method allocates. States and parameters are in the order of StateNames and ParamNames, and of the State* and Param* index constants."
	return s
}

// numbered prefixes each line of src with its number.
func numbered(src []byte) string {
	var sb strings.Builder
	for i, l := range strings.Split(string(src), "\n") {
		fmt.Fprintf(&sb, "%5d  %s\n", i+1, l)
	}
	return sb.String()
}

// wrap splits text into lines of at most width bytes (longer words stay
// whole); a "\n\n" in text is kept as an empty line between paragraphs.
func wrap(text string, width int) []string {
	var out []string
	for i, para := range strings.Split(text, "\n\n") {
		if i > 0 {
			out = append(out, "")
		}
		line := ""
		for _, w := range strings.Fields(para) {
			if line != "" && len(line)+1+len(w) > width {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// doc emits text as a wrapped // comment followed by a newline, ready to
// precede a declaration.
func doc(text string) *jen.Statement {
	s := jen.Null()
	for _, l := range wrap(text, 76) {
		s.Comment(l).Line()
	}
	return s
}
