package codegen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/pbgen/pbgen/symbolic"
)

// stmt is one statement of a body: either the definition of a local
// (def != nil) or the write of root number root to dst.
type stmt struct {
	def  *symbolic.Node
	root int
	refs []*symbolic.Node // locals and symbols it refers to
}

// body emits the code of one section. Building it is a pipeline of
// passes, each a method that fills in the fields it documents, in this
// order:
//
//  1. countUses: how often the emitted code refers to each node, which
//     decides the shared subexpressions bound to locals (isLocal);
//  2. schedule: the statements, in symbolic.Program order;
//  3. findShared: the locals used outside the chunk (helper function)
//     that defines them;
//  4. nameLocals: the name of each local, e0, e1, ... or, if shared, an
//     element of the work array w that the chunks share.
//
// The emitting methods (decls and below) then only read these fields; em
// only records whether the code needs b2f. Nothing is shared between
// bodies except the generator, which they only read.
type body struct {
	g   *generator
	sec *section

	uses  map[*symbolic.Node]int // references in the emitted DAG (countUses)
	stmts []stmt                 // schedule

	shared map[*symbolic.Node]bool // locals held in w (findShared)
	names  map[*symbolic.Node]code // local of each definition (nameLocals)
	nwork  int                     // length of w (nameLocals)

	em emitter
}

// newBody schedules sec and names its locals.
func newBody(g *generator, sec *section) *body {
	b := &body{g: g, sec: sec}
	b.countUses()
	b.schedule()
	b.findShared()
	b.nameLocals()
	b.em = emitter{syms: b, locals: b.names}
	return b
}

// countUses counts the references to each non-leaf node on the DAG as
// emitted (see operands), visiting the operands of a node only on its
// first use.
func (b *body) countUses() {
	b.uses = make(map[*symbolic.Node]int)
	for _, r := range b.sec.roots {
		b.use(r)
	}
}

func (b *body) use(n *symbolic.Node) {
	if isLeaf(n) {
		return
	}
	b.uses[n]++
	if b.uses[n] > 1 {
		return
	}
	for _, a := range operands(n) {
		b.use(a)
	}
}

// isLocal reports whether n is computed once into a local: it is used
// more than once, or it is a piecewise (an if/else chain is a statement,
// never an expression).
func (b *body) isLocal(n *symbolic.Node) bool {
	return !isLeaf(n) && (b.uses[n] > 1 || n.Op == symbolic.OpPiecewise)
}

// schedule lists the statements in Program order: leaf roots first, then
// each local as soon as it is scheduled, each root write right after its
// node.
func (b *body) schedule() {
	rootsAt := make(map[*symbolic.Node][]int)
	for i, r := range b.sec.roots {
		if isLeaf(r) {
			b.stmts = append(b.stmts, stmt{root: i, refs: b.refs(r, false)})
		} else {
			rootsAt[r] = append(rootsAt[r], i)
		}
	}
	for _, s := range symbolic.NewProgram(b.sec.roots).Steps {
		if b.uses[s] == 0 {
			continue // bypassed by the emitted form, e.g. c^-1 in a*c^-1
		}
		if b.isLocal(s) {
			b.stmts = append(b.stmts, stmt{def: s, refs: b.refs(s, true)})
		}
		for _, i := range rootsAt[s] {
			b.stmts = append(b.stmts, stmt{root: i, refs: b.refs(s, false)})
		}
	}
}

// refs lists what the emitted code of n refers to, symbols and locals, in
// first-reference order. For a definition (def) that is what its operands
// refer to, as n itself is being defined.
func (b *body) refs(n *symbolic.Node, def bool) []*symbolic.Node {
	var out []*symbolic.Node
	seen := make(map[*symbolic.Node]bool)
	if !def {
		return b.collectRefs(n, seen, out)
	}
	for _, a := range operands(n) {
		out = b.collectRefs(a, seen, out)
	}
	return out
}

func (b *body) collectRefs(m *symbolic.Node, seen map[*symbolic.Node]bool, out []*symbolic.Node) []*symbolic.Node {
	if m.Op == symbolic.OpConst {
		return out
	}
	if m.Op == symbolic.OpSym || b.isLocal(m) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
		return out
	}
	for _, a := range operands(m) {
		out = b.collectRefs(a, seen, out)
	}
	return out
}

// nchunks is the number of functions the statements are split into, at
// most chunkSize statements each.
func (b *body) nchunks() int {
	if len(b.stmts) <= b.g.chunkSize {
		return 1
	}
	return (len(b.stmts) + b.g.chunkSize - 1) / b.g.chunkSize
}

func (b *body) chunkOf(k int) int { return k / b.g.chunkSize }

// findShared marks the locals used in a chunk other than the one that
// defines them: they must outlive their chunk.
func (b *body) findShared() {
	defChunk := make(map[*symbolic.Node]int)
	for k, s := range b.stmts {
		if s.def != nil {
			defChunk[s.def] = b.chunkOf(k)
		}
	}
	b.shared = make(map[*symbolic.Node]bool)
	for k, s := range b.stmts {
		for _, r := range s.refs {
			if c, ok := defChunk[r]; ok && c != b.chunkOf(k) {
				b.shared[r] = true
			}
		}
	}
}

// nameLocals names each definition, in definition order: a shared local
// is w[0], w[1], ... in the work array the chunks share; any other is e0,
// e1, ....
func (b *body) nameLocals() {
	b.names = make(map[*symbolic.Node]code)
	nlocal := 0
	for _, s := range b.stmts {
		switch {
		case s.def == nil:
		case b.shared[s.def]:
			b.names[s.def] = code{c: jen.Id("w").Index(jen.Lit(b.nwork)), prec: precUnary}
			b.nwork++
		default:
			b.names[s.def] = ident(fmt.Sprintf("e%d", nlocal))
			nlocal++
		}
	}
}

// isU reports whether the symbol n is one of the section's placeholders,
// returning its index in u.
func (b *body) isU(n *symbolic.Node) (int, bool) {
	if n.Kind != symbolic.KindParam || b.sec.u == nil {
		return 0, false
	}
	i, ok := b.sec.u[n.Name]
	return i, ok
}

// symRef is the local holding symbol n: a placeholder's is u0, u1, ...
// (no state or parameter local starts with u), others are the generator's.
func (b *body) symRef(n *symbolic.Node) code {
	if i, ok := b.isU(n); ok {
		return ident(fmt.Sprintf("u%d", i))
	}
	return b.g.symRef(n)
}

// decls emits the section's method (or function) and, for a body of
// several chunks, its chunk helpers.
func (b *body) decls() []jen.Code {
	method := doc(b.sec.doc).Func()
	if !b.sec.function {
		method.Params(jen.Id("Model"))
	}
	method.Id(b.sec.method).Params(b.sec.params...)
	if b.nchunks() == 1 {
		return []jen.Code{method.Block(concat(b.sec.prologue, b.chunk(0, len(b.stmts)))...)}
	}
	out := []jen.Code{method.Block(concat(b.sec.prologue, b.chunkCalls())...)}
	for c := range b.nchunks() {
		out = append(out, b.chunkFunc(c))
	}
	return out
}

// workType is the type of the work array, [nwork]float64.
func (b *body) workType() *jen.Statement { return jen.Index(jen.Lit(b.nwork)).Float64() }

func (b *body) chunkName(c int) string { return fmt.Sprintf("%sChunk%d", b.sec.helper, c) }

// chunkCalls emits the method body of a chunked section:
//
//	var w [n]float64
//	fChunk0(dst, t, x, p, &w)
//	fChunk1(dst, t, x, p, &w)
func (b *body) chunkCalls() []jen.Code {
	var out []jen.Code
	args := b.sec.args
	if b.nwork > 0 {
		out = append(out, jen.Var().Id("w").Add(b.workType()))
		args = concat(args, []jen.Code{jen.Op("&").Id("w")})
	}
	for c := range b.nchunks() {
		out = append(out, jen.Id(b.chunkName(c)).Call(args...))
	}
	return out
}

// chunkFunc emits helper number c, which computes its share of the
// statements:
//
//	func fChunk1(dst []float64, t float64, x, p []float64, w *[n]float64) { ... }
func (b *body) chunkFunc(c int) jen.Code {
	first, last := c*b.g.chunkSize, min((c+1)*b.g.chunkSize, len(b.stmts))
	name := b.chunkName(c)
	d := fmt.Sprintf("%s computes statements %d to %d of %s.", name, first, last-1, b.sec.method)
	params := b.sec.params
	if b.nwork > 0 {
		params = concat(params, []jen.Code{jen.Id("w").Op("*").Add(b.workType())})
	}
	return doc(d).Func().Id(name).Params(params...).Block(b.chunk(first, last)...)
}

// chunk emits statements first to last-1, after loading the states and
// parameters they use.
func (b *body) chunk(first, last int) []jen.Code {
	out := b.symLoads(b.stmts[first:last])
	for _, s := range b.stmts[first:last] {
		if s.def == nil {
			out = append(out, b.rootWrite(s.root)...)
		} else {
			out = append(out, b.definition(s.def)...)
		}
	}
	return out
}

// symLoads emits xA := x[StateA], pK := p[ParamK] and u0 := u[0] for the
// states, parameters and placeholders stmts use, in that order, each by
// index.
func (b *body) symLoads(stmts []stmt) []jen.Code {
	var syms, us []*symbolic.Node
	seen := make(map[*symbolic.Node]bool)
	for _, s := range stmts {
		for _, r := range s.refs {
			if r.Op == symbolic.OpSym && r.Kind != symbolic.KindTime && !seen[r] {
				seen[r] = true
				if _, ok := b.isU(r); ok {
					us = append(us, r)
				} else {
					syms = append(syms, r)
				}
			}
		}
	}
	b.g.sortSyms(syms)
	slices.SortFunc(us, func(m, n *symbolic.Node) int { return b.sec.u[m.Name] - b.sec.u[n.Name] })
	out := make([]jen.Code, 0, len(syms)+len(us))
	for _, s := range syms {
		out = append(out, b.g.symLoad(s))
	}
	for _, s := range us {
		i := b.sec.u[s.Name]
		out = append(out, jen.Id(fmt.Sprintf("u%d", i)).Op(":=").Id("u").Index(jen.Lit(i)))
	}
	return out
}

// rootWrite emits the comment of root i and dst[k] = value.
func (b *body) rootWrite(i int) []jen.Code {
	var out []jen.Code
	if c := b.sec.comments[i]; c != "" {
		out = append(out, jen.Comment(c))
	}
	lhs := b.sec.lhs[i]
	if lhs == nil {
		lhs = jen.Id("dst").Index(jen.Lit(b.sec.dst[i]))
	}
	return append(out, jen.Add(lhs).Op("=").Add(b.em.expr(b.sec.roots[i]).c))
}

// definition emits the statement computing the local of n: e3 := ..., or
// w[2] = ... for a shared local.
func (b *body) definition(n *symbolic.Node) []jen.Code {
	name := b.names[n]
	if n.Op == symbolic.OpPiecewise {
		return b.piecewise(n, name)
	}
	op := ":="
	if b.shared[n] {
		op = "="
	}
	return []jen.Code{jen.Add(name.c).Op(op).Add(b.em.inline(n).c)}
}

// piecewise emits a piecewise into its local, the first true condition
// winning:
//
//	var e3 float64
//	if c1 { e3 = v1 } else if c2 { e3 = v2 } else { e3 = v3 }
//
// A shared local (w[k]) is not declared.
func (b *body) piecewise(n *symbolic.Node, name code) []jen.Code {
	var out []jen.Code
	if !b.shared[n] {
		out = append(out, jen.Var().Add(name.c).Float64())
	}
	args := n.Args
	var chain *jen.Statement
	for i := 0; i+1 < len(args); i += 2 {
		cond, then := b.em.cond(args[i+1]).c, jen.Block(b.assign(name, args[i]))
		if chain == nil {
			chain = jen.If(cond).Add(then)
		} else {
			chain.Else().If(cond).Add(then)
		}
	}
	otherwise := b.assign(name, args[len(args)-1])
	if chain == nil {
		return append(out, otherwise)
	}
	return append(out, chain.Else().Block(otherwise))
}

// assign emits name = v.
func (b *body) assign(name code, v *symbolic.Node) *jen.Statement {
	return jen.Add(name.c).Op("=").Add(b.em.expr(v).c)
}

func isLeaf(n *symbolic.Node) bool { return n.Op == symbolic.OpConst || n.Op == symbolic.OpSym }

// concat returns a new slice holding a then b, leaving both unchanged
// (sections share their parameter lists).
func concat(a, b []jen.Code) []jen.Code {
	return append(append(make([]jen.Code, 0, len(a)+len(b)), a...), b...)
}

// oneLine returns s on one line, or "" if it is longer than limit.
func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > limit {
		return ""
	}
	return s
}
