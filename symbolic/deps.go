package symbolic

import "slices"

// maxDepSet bounds the size of a cached free-symbol set; larger sets are
// recorded as unknown (the node may depend on anything), which keeps the
// cache linear in the size of the DAG even for adversarial nestings.
const maxDepSet = 256

// depSet is the set of symbol IDs a node depends on, sorted; unknown if
// the set was too large to keep.
type depSet struct {
	ids     []int
	unknown bool
}

// depIndex caches free-symbol sets so that differentiation can skip
// subexpressions that do not contain the variable. One index may be shared
// by differs for different variables.
type depIndex struct {
	sets map[*Node]depSet
	wide map[*Node]*wideArgs
}

func newDepIndex() *depIndex { return &depIndex{sets: make(map[*Node]depSet)} }

// mayDepend reports whether n may depend on the symbol x. Callers keep the
// height of n at most MaxDepth (of recurses).
func (d *depIndex) mayDepend(n, x *Node) bool {
	s := d.of(n)
	if s.unknown {
		return true
	}
	_, found := slices.BinarySearch(s.ids, x.id)
	return found
}

func (d *depIndex) of(n *Node) depSet {
	switch n.Op {
	case OpConst:
		return depSet{}
	case OpSym:
		return depSet{ids: []int{n.id}}
	}
	if s, ok := d.sets[n]; ok {
		return s
	}
	var ids []int
	var s depSet
	for _, a := range n.Args {
		as := d.of(a)
		if as.unknown {
			s.unknown = true
			break
		}
		ids = append(ids, as.ids...)
		if len(ids) > 4*maxDepSet {
			slices.Sort(ids)
			ids = slices.Compact(ids)
			if len(ids) > maxDepSet {
				s.unknown = true
				break
			}
		}
	}
	if !s.unknown {
		slices.Sort(ids)
		ids = slices.Compact(ids)
		if len(ids) > maxDepSet {
			s.unknown = true
		} else {
			s.ids = slices.Clip(ids)
		}
	}
	if s.unknown {
		s.ids = nil
	}
	d.sets[n] = s
	return s
}

// wideArgs is an inverted index of a wide node's arguments: for each
// symbol, the positions of the arguments that contain it, plus the
// arguments whose set is unknown. It turns differentiating a sum of m
// terms with respect to each of its v symbols from O(m*v) into O(m + v).
type wideArgs struct {
	bySym  map[int][]int
	always []int
}

// wideThreshold is the argument count above which sums get an index.
const wideThreshold = 16

// argsWith returns the positions of n's arguments that may depend on x, in
// increasing order.
func (d *depIndex) argsWith(n, x *Node) []int {
	if d.wide == nil {
		d.wide = make(map[*Node]*wideArgs)
	}
	w := d.wide[n]
	if w == nil {
		w = &wideArgs{bySym: make(map[int][]int)}
		for i, a := range n.Args {
			s := d.of(a)
			if s.unknown {
				w.always = append(w.always, i)
				continue
			}
			for _, id := range s.ids {
				w.bySym[id] = append(w.bySym[id], i)
			}
		}
		d.wide[n] = w
	}
	if len(w.always) == 0 {
		return w.bySym[x.id]
	}
	out := append(slices.Clone(w.bySym[x.id]), w.always...)
	slices.Sort(out)
	return out
}

// symbols returns the distinct symbols of n, in no particular order. It
// takes cached sets where they are known and walks only the nodes whose
// set is too large to cache, so rows of f that share a large
// subexpression (a total over all species, say) cost their own size, not
// the shared one's, each time.
func (d *depIndex) symbols(b *Builder, n *Node, seen map[*Node]bool) []*Node {
	var out []*Node
	have := make(map[int]bool)
	stack := []*Node{n}
	for len(stack) > 0 {
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[m] {
			continue
		}
		seen[m] = true
		if m.Op == OpConst {
			continue
		}
		if s := d.of(m); !s.unknown {
			for _, id := range s.ids {
				if !have[id] {
					have[id] = true
					out = append(out, b.nodes[id])
				}
			}
			continue
		}
		stack = append(stack, m.Args...)
	}
	return out
}
