package codegen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/pbgen/pbgen/symbolic"
)

// fnSpec describes one generated function that writes roots into dst.
type fnSpec struct {
	method   string     // method name on Model, e.g. "Jx"
	helper   string     // prefix of chunk helpers, e.g. "jx"
	doc      string     // doc comment of the method
	params   []jen.Code // parameters, e.g. dst []float64, t float64, x, p []float64
	args     []jen.Code // the parameters as call arguments, for chunk calls
	prologue []jen.Code // argument checks, clear(dst), ...
	roots    []*symbolic.Node
	dst      []int    // dst index of each root
	comments []string // comment of each root
}

// stmt is one statement of a body: either the definition of a local
// (def != nil) or the write of root number root to dst.
type stmt struct {
	def  *symbolic.Node
	root int
	refs []*symbolic.Node // locals and symbols it refers to
}

// body schedules and emits fs: the method and, for long bodies, its chunk
// helpers. It also returns the number of statements.
func (g *generator) body(fs *fnSpec) ([]jen.Code, int) {
	prog := symbolic.NewProgram(fs.roots)

	// Use counts on the DAG as emitted (see operands).
	uses := make(map[*symbolic.Node]int)
	var visit func(n *symbolic.Node)
	visit = func(n *symbolic.Node) {
		if isLeaf(n) {
			return
		}
		uses[n]++
		if uses[n] > 1 {
			return
		}
		for _, a := range operands(n) {
			visit(a)
		}
	}
	for _, r := range fs.roots {
		visit(r)
	}
	local := func(n *symbolic.Node) bool {
		return !isLeaf(n) && (uses[n] > 1 || n.Op == symbolic.OpPiecewise)
	}

	// refs lists what the emitted code of n (a definition when def) refers
	// to: symbols and other locals, in first-reference order.
	refs := func(n *symbolic.Node, def bool) []*symbolic.Node {
		var out []*symbolic.Node
		seen := make(map[*symbolic.Node]bool)
		var walk func(m *symbolic.Node)
		walk = func(m *symbolic.Node) {
			if m.Op == symbolic.OpConst {
				return
			}
			if m.Op == symbolic.OpSym || local(m) {
				if !seen[m] {
					seen[m] = true
					out = append(out, m)
				}
				return
			}
			for _, a := range operands(m) {
				walk(a)
			}
		}
		if def {
			for _, a := range operands(n) {
				walk(a)
			}
		} else {
			walk(n)
		}
		return out
	}

	// Statements in Program order: leaf roots first, then each local as
	// soon as it is scheduled, each root write right after its node.
	rootsAt := make(map[*symbolic.Node][]int)
	var stmts []stmt
	for i, r := range fs.roots {
		if isLeaf(r) {
			stmts = append(stmts, stmt{root: i, refs: refs(r, false)})
		} else {
			rootsAt[r] = append(rootsAt[r], i)
		}
	}
	for _, s := range prog.Steps {
		if uses[s] == 0 {
			continue // bypassed by the emitted form, e.g. c^-1 in a*c^-1
		}
		if local(s) {
			stmts = append(stmts, stmt{def: s, refs: refs(s, true)})
		}
		for _, i := range rootsAt[s] {
			stmts = append(stmts, stmt{root: i, refs: refs(s, false)})
		}
	}

	// Chunks of at most chunkSize statements; a local used outside its
	// chunk lives in the work array w shared by the chunks.
	nchunks := 1
	if len(stmts) > g.chunkSize {
		nchunks = (len(stmts) + g.chunkSize - 1) / g.chunkSize
	}
	chunkOf := func(k int) int { return k / g.chunkSize }
	defChunk := make(map[*symbolic.Node]int)
	for k, s := range stmts {
		if s.def != nil {
			defChunk[s.def] = chunkOf(k)
		}
	}
	names := make(map[*symbolic.Node]code)
	cross := make(map[*symbolic.Node]bool)
	for k, s := range stmts {
		for _, r := range s.refs {
			if c, ok := defChunk[r]; ok && c != chunkOf(k) {
				cross[r] = true
			}
		}
	}
	nlocal, nwork := 0, 0
	for _, s := range stmts {
		if s.def == nil {
			continue
		}
		if cross[s.def] {
			names[s.def] = code{c: jen.Id("w").Index(jen.Lit(nwork)), prec: precUnary}
			nwork++
		} else {
			names[s.def] = ident(fmt.Sprintf("e%d", nlocal))
			nlocal++
		}
	}

	var current *symbolic.Node
	em := &emitter{usedB2F: &g.usedB2F, ref: func(n *symbolic.Node) (code, bool) {
		if n.Op == symbolic.OpSym {
			return g.symRef(n), true
		}
		if n == current {
			return code{}, false
		}
		c, ok := names[n]
		return c, ok
	}}

	emitChunk := func(grp *jen.Group, first, last int) {
		// Load the states and parameters this chunk uses, in index order.
		var syms []*symbolic.Node
		seen := make(map[*symbolic.Node]bool)
		for _, s := range stmts[first:last] {
			for _, r := range s.refs {
				if r.Op == symbolic.OpSym && r.Kind != symbolic.KindTime && !seen[r] {
					seen[r] = true
					syms = append(syms, r)
				}
			}
		}
		g.sortSyms(syms)
		for _, s := range syms {
			grp.Add(g.symLoad(s))
		}
		for _, s := range stmts[first:last] {
			if s.def == nil {
				if c := fs.comments[s.root]; c != "" {
					grp.Comment(c)
				}
				current = nil
				grp.Id("dst").Index(jen.Lit(fs.dst[s.root])).Op("=").Add(em.expr(fs.roots[s.root]).c)
				continue
			}
			current = s.def
			name := names[s.def]
			if s.def.Op != symbolic.OpPiecewise {
				if cross[s.def] {
					grp.Add(name.c).Op("=").Add(em.expr(s.def).c)
				} else {
					grp.Add(name.c).Op(":=").Add(em.expr(s.def).c)
				}
				continue
			}
			// var e3 float64
			// if c1 { e3 = v1 } else if c2 { e3 = v2 } else { e3 = v3 }
			if !cross[s.def] {
				grp.Var().Add(name.c).Float64()
			}
			args := s.def.Args
			var chain *jen.Statement
			for i := 0; i+1 < len(args); i += 2 {
				cond := em.cond(args[i+1]).c
				body := jen.Block(jen.Add(name.c).Op("=").Add(em.expr(args[i]).c))
				if chain == nil {
					chain = jen.If(cond).Add(body)
				} else {
					chain.Else().If(cond).Add(body)
				}
			}
			other := jen.Add(name.c).Op("=").Add(em.expr(args[len(args)-1]).c)
			if chain == nil {
				grp.Add(other)
			} else {
				grp.Add(chain.Else().Block(other))
			}
		}
		current = nil
	}

	method := doc(fs.doc).Func().Params(jen.Id("Model")).Id(fs.method).Params(fs.params...)
	if nchunks == 1 {
		return []jen.Code{method.BlockFunc(func(grp *jen.Group) {
			for _, c := range fs.prologue {
				grp.Add(c)
			}
			emitChunk(grp, 0, len(stmts))
		})}, len(stmts)
	}
	wType := jen.Index(jen.Lit(nwork)).Float64()
	out := []jen.Code{method.BlockFunc(func(grp *jen.Group) {
		for _, c := range fs.prologue {
			grp.Add(c)
		}
		args := append([]jen.Code(nil), fs.args...)
		if nwork > 0 {
			grp.Var().Id("w").Add(wType)
			args = append(args, jen.Op("&").Id("w"))
		}
		for c := range nchunks {
			grp.Id(fmt.Sprintf("%sChunk%d", fs.helper, c)).Call(args...)
		}
	})}
	for c := range nchunks {
		first, last := c*g.chunkSize, min((c+1)*g.chunkSize, len(stmts))
		name := fmt.Sprintf("%sChunk%d", fs.helper, c)
		d := fmt.Sprintf("%s computes statements %d to %d of %s.", name, first, last-1, fs.method)
		sig := doc(d).Func().Id(name).ParamsFunc(func(pg *jen.Group) {
			for _, p := range fs.params {
				pg.Add(p)
			}
			if nwork > 0 {
				pg.Id("w").Op("*").Add(wType)
			}
		})
		out = append(out, sig.BlockFunc(func(grp *jen.Group) { emitChunk(grp, first, last) }))
	}
	return out, len(stmts)
}

func isLeaf(n *symbolic.Node) bool { return n.Op == symbolic.OpConst || n.Op == symbolic.OpSym }

// oneLine returns s on one line, or "" if it is longer than limit.
func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > limit {
		return ""
	}
	return s
}
