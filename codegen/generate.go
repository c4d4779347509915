package codegen

import (
	"bytes"
	"fmt"
	"go/format"
	"go/token"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

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
	// is split into model.go, f.go, jac.go (and obs.go, assign.go).
	// Default 2000.
	SplitFiles int
	// Observables, when not empty, make Model a model.Observables as well:
	// the measurement model of an estimation problem (see Observable).
	Observables []Observable
	// Assignments, when not empty, make Model a model.Assigner as well:
	// the state assignments of an estimation problem's experiments at
	// later periods' starts (see Assignment). A System without them
	// generates exactly what it did before assignments existed.
	Assignments []Assignment
	// Problem, when not nil, is emitted into problem.go as a function
	// Problem returning a fresh copy of it, written as a Go composite
	// literal: a pointer to a struct of exported fields that are numbers,
	// strings, booleans, arrays, slices and structs of the same (for
	// pbgen, a *objective.Problem). The generated package then imports the
	// struct's package; see the package doc, "Observables and estimation
	// problems".
	Problem any
}

// generator holds what every part of the output needs: the system, the
// options with their defaults applied, and the names of states and
// parameters. It is filled in by newGenerator and only read afterwards.
type generator struct {
	sys        *symbolic.System
	pkg        string
	source     string
	chunkSize  int
	splitFiles int

	obs       []Observable
	obsU      []map[string]int // placeholder name -> index in u, per observable
	obsDerivs [][]obsDeriv     // per observable (checkObservables)
	assigns   []Assignment     // as given
	asg       []asgSet         // checked and differentiated (checkAssignments)
	problem   any

	evs          []evSet          // events checked and differentiated (checkEvents)
	evRoots      []*symbolic.Node // root functions of the triggers, then the switches of f, as interp numbers them
	nsw          int              // the last nsw of evRoots are switches of f (model.Switches)
	evRootDerivs [][]evDeriv      // per root function

	nx, np, nout int
	stateIx      map[string]int
	paramIx      map[string]int
	stateConst   []string // exported index constants
	paramConst   []string
	stateLocal   []string // locals holding x[i] and p[j]
	paramLocal   []string
	delayIx      map[string]int // delayed values (delay.go)
	delayDerivs  *symbolic.DelayDerivs
}

// Generate returns the Go source of a package implementing model.Model for
// sys, as file name -> gofmt'ed source. The output is a deterministic
// function of sys and opt. It returns an error if sys is malformed (unknown
// symbols, initial values depending on states or time, unsorted or
// out-of-range Jacobian entries), if the package name is not a valid
// identifier, or if the generated source
// does not parse (with the line-numbered source in the message).
func Generate(sys *symbolic.System, opt *Options) (map[string][]byte, error) {
	g, err := newGenerator(sys, opt)
	if err != nil {
		return nil, err
	}
	return g.renderFiles(g.files(g.emitSections()))
}

// newGenerator applies the defaults of opt, checks sys and names the
// states and parameters.
func newGenerator(sys *symbolic.System, opt *Options) (*generator, error) {
	if sys == nil || sys.ODE == nil {
		return nil, fmt.Errorf("codegen: nil system")
	}
	g := withDefaults(sys, opt)
	if !token.IsIdentifier(g.pkg) || g.pkg == "_" {
		return nil, fmt.Errorf("codegen: model %q: invalid package name %q", sys.ODE.Name, g.pkg)
	}
	if err := g.check(); err != nil {
		return nil, err
	}
	g.names()
	return g, nil
}

// withDefaults is a generator for sys with the options of opt, defaults
// applied (see Options).
func withDefaults(sys *symbolic.System, opt *Options) *generator {
	var o Options
	if opt != nil {
		o = *opt
	}
	g := &generator{sys: sys, pkg: o.Package, source: o.Source, chunkSize: o.ChunkSize, splitFiles: o.SplitFiles,
		obs: o.Observables, assigns: o.Assignments, problem: o.Problem}
	if g.source == "" {
		g.source = sys.ODE.Source
	}
	if g.chunkSize <= 0 {
		g.chunkSize = 500
	}
	if g.splitFiles <= 0 {
		g.splitFiles = 2000
	}
	if g.pkg == "" {
		g.pkg = Ident(strings.ToLower(sys.ODE.Name))
	}
	return g
}

// emitted is the code of one section.
type emitted struct {
	file    string // as section.file
	decls   []jen.Code
	stmts   int  // number of statements
	usedB2F bool // the code calls b2f
}

// emitSections emits every section, in order.
func (g *generator) emitSections() []emitted {
	var out []emitted
	for _, sec := range g.sections() {
		b := newBody(g, sec)
		decls := b.decls()
		out = append(out, emitted{file: sec.file, decls: decls, stmts: len(b.stmts), usedB2F: b.em.usedB2F})
	}
	return out
}

// files assigns the declarations to files: everything to model.go, unless
// the sections have more than splitFiles statements in all; then each
// section with a file of its own goes there (F to f.go, Jx and Jp to
// jac.go), so that no file is too large to read or compile comfortably.
func (g *generator) files(secs []emitted) map[string][]jen.Code {
	total, usedB2F := 0, false
	for _, e := range secs {
		total += e.stmts
		usedB2F = usedB2F || e.usedB2F
	}
	files := map[string][]jen.Code{"model.go": g.modelDecls()}
	if len(g.obs) > 0 {
		files["model.go"] = append(files["model.go"], g.observableDecls()...)
	}
	if len(g.asg) > 0 {
		files["model.go"] = append(files["model.go"], g.assignDecls()...)
	}
	if g.hasEvents() {
		files["model.go"] = append(files["model.go"], g.eventDecls()...)
	}
	if g.delayed() {
		files["model.go"] = append(files["model.go"], g.delayDecls()...)
	}
	if g.sys.ODE.Algebraic > 0 {
		files["model.go"] = append(files["model.go"], g.algebraicDecls()...)
	}
	if g.hasJpColumns() {
		files["model.go"] = append(files["model.go"], g.jpColumnsDecls()...)
	}
	if g.problem != nil {
		files["problem.go"] = g.problemDecls()
	}
	for _, e := range secs {
		name := "model.go"
		if total > g.splitFiles && e.file != "" {
			name = e.file
		}
		files[name] = append(files[name], e.decls...)
	}
	if usedB2F {
		files["model.go"] = append(files["model.go"], g.b2f())
	}
	return files
}

// renderFiles renders each file that has declarations, in name order so
// that the first error is always the same.
func (g *generator) renderFiles(files map[string][]jen.Code) (map[string][]byte, error) {
	out := make(map[string][]byte, len(files))
	for _, name := range slices.Sorted(maps.Keys(files)) {
		src, err := g.render(name, files[name])
		if err != nil {
			return nil, err
		}
		out[name] = src
	}
	return out, nil
}

// check validates sys before anything is emitted: the sections index
// states and parameters by the entries' rows and columns and by the
// symbols' names, so these must be in range.
func (g *generator) check() error {
	g.nx, g.np, g.nout = len(g.sys.ODE.States), len(g.sys.ODE.Params), len(g.sys.ODE.Outputs)
	if err := g.checkDims(); err != nil {
		return err
	}
	if err := g.checkSymbols(); err != nil {
		return err
	}
	if err := g.checkEntries(); err != nil {
		return err
	}
	if err := g.checkObservables(); err != nil {
		return err
	}
	if err := g.checkAssignments(); err != nil {
		return err
	}
	if err := g.checkEvents(); err != nil {
		return err
	}
	if err := g.checkAlgebraic(); err != nil {
		return err
	}
	return g.checkProblem()
}

// checkDims checks the number of rates and initial values and that state
// and parameter names are unique, and indexes them.
func (g *generator) checkDims() error {
	sys, name := g.sys, g.sys.ODE.Name
	if len(sys.F) != g.nx || len(sys.X0) != g.nx {
		return fmt.Errorf("codegen: model %q has %d states but %d rates and %d initial values", name, g.nx, len(sys.F), len(sys.X0))
	}
	g.stateIx = make(map[string]int)
	g.paramIx = make(map[string]int)
	g.delayIx = sys.ODE.DelayIndex()
	dd, err := sys.DelayDerivs()
	if err != nil {
		return fmt.Errorf("codegen: %w", err)
	}
	g.delayDerivs = dd
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
	return nil
}

// checkSymbols checks that every expression is non-nil and uses only
// known states and parameters, and time; initial values may use neither
// states nor time.
func (g *generator) checkSymbols() error {
	sys := g.sys
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
		for _, r := range c.roots {
			if err := g.checkRoot(c.what, r, c.initial); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkRoot checks one expression of what (see checkSymbols).
func (g *generator) checkRoot(what string, r *symbolic.Node, initial bool) error {
	if r == nil {
		return fmt.Errorf("codegen: model %q: nil expression in %s", g.sys.ODE.Name, what)
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
		case symbolic.KindDelay:
			_, ok = g.delayIx[s.Name]
			ok = ok && !initial
		}
		if !ok {
			return fmt.Errorf("codegen: model %q: %s uses %s %q, which is not allowed there", g.sys.ODE.Name, what, s.Kind, s.Name)
		}
	}
	return nil
}

// checkEntries checks that the entries of the sparse matrices are in
// range and sorted by (row, column), the order of their CSR patterns.
func (g *generator) checkEntries() error {
	sys := g.sys
	for _, c := range []struct {
		what       string
		es         []symbolic.Entry
		rows, cols int
	}{{"Jx", sys.Jx, g.nx, g.nx}, {"Jp", sys.Jp, g.nx, g.np}, {"dx0/dp", sys.X0p, g.nx, g.np}} {
		for k, e := range c.es {
			if e.Row < 0 || e.Row >= c.rows || e.Col < 0 || e.Col >= c.cols {
				return fmt.Errorf("codegen: model %q: %s entry %d at (%d,%d) out of range %dx%d", sys.ODE.Name, c.what, k, e.Row, e.Col, c.rows, c.cols)
			}
			if k > 0 && (e.Row < c.es[k-1].Row || e.Row == c.es[k-1].Row && e.Col <= c.es[k-1].Col) {
				return fmt.Errorf("codegen: model %q: %s entries not sorted by (row, column) at entry %d", sys.ODE.Name, c.what, k)
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
	case symbolic.KindDelay:
		return ident(delayLocal(g.delayIx[n.Name]))
	}
	return ident("t")
}

// symLoad emits xName := x[StateName] (or the parameter form).
func (g *generator) symLoad(n *symbolic.Node) jen.Code {
	if n.Kind == symbolic.KindState {
		i := g.stateIx[n.Name]
		return jen.Id(g.stateLocal[i]).Op(":=").Id("x").Index(jen.Id(g.stateConst[i]))
	}
	if n.Kind == symbolic.KindDelay {
		k := g.delayIx[n.Name]
		return jen.Id(delayLocal(k)).Op(":=").Id("d").Index(jen.Lit(k))
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
		if n.Kind == symbolic.KindDelay {
			return g.nx + g.np + g.delayIx[n.Name]
		}
		return g.nx + g.paramIx[n.Name]
	}
	for i := 1; i < len(ss); i++ {
		for k := i; k > 0 && key(ss[k]) < key(ss[k-1]); k-- {
			ss[k], ss[k-1] = ss[k-1], ss[k]
		}
	}
}

// render assembles one file and formats it. On a formatting failure the
// error holds the line-numbered source, never unformatted output.
func (g *generator) render(name string, decls []jen.Code) ([]byte, error) {
	f := jen.NewFile(g.pkg)
	f.NoFormat = true
	f.ImportName(modelPkg, "model")
	if g.problem != nil {
		// The problem type's package, named by the last element of its
		// path (jennifer would otherwise write an alias it is unsure of).
		pp := reflect.TypeOf(g.problem).Elem().PkgPath()
		f.ImportName(pp, path.Base(pp))
	}
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
	switch {
	case len(g.obs) > 0 && g.source != "":
		s = fmt.Sprintf("Package %s is the estimation problem %s on the %s reaction network", g.pkg, g.source, g.sys.ODE.Name)
	case g.source != "":
		s += " (" + g.source + ")"
	}
	s += fmt.Sprintf(", generated by pbgen: %d states, %d parameters, %d and %d structural non-zeros in Jx = df/dx and Jp = df/dp.", g.nx, g.np, len(g.sys.Jx), len(g.sys.Jp))
	s += "\n\nType Model implements the runtime's model.Model contract with straight-line code: each shared subexpression is computed once, and no evaluation method allocates. States and parameters are in the order of StateNames and ParamNames, and of the State* and Param* index constants."
	if len(g.obs) > 0 {
		s += fmt.Sprintf("\n\nModel also implements model.Observables: the %d observables of an estimation problem, with their noise scales and the structurally non-zero derivatives of both.", len(g.obs))
	}
	if len(g.asg) > 0 {
		s += fmt.Sprintf("\n\nModel also implements model.Assigner: the %d sets of states that the experiments assign at later periods' starts, with the structurally non-zero derivatives of the new values.", len(g.asg))
	}
	if g.problem != nil {
		s += " Problem returns the estimation problem itself, its data included, for the runtime's objective: objective.New(New(), Problem(), opt) needs neither the problem's files nor the generator."
	}
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
