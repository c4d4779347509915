package symbolic

import (
	"cmp"
	"fmt"
	"slices"
)

// Partial is one structurally non-zero partial derivative of an
// expression: with respect to time (Kind KindTime, Index 0), state,
// parameter or delayed value number Index.
type Partial struct {
	Kind  SymKind
	Index int
	Expr  *Node
}

// DelayDerivs are the derivatives that sensitivities through delays
// need (runtime/model.DelaySens): Fd = df/dd, sparse, and per delayed
// value k the partial derivatives of its argument Expr (in t, x, p and
// the delayed values before it), of its delay Tau and of its History (in
// t and p). Each list is sorted by kind, then index.
type DelayDerivs struct {
	Fd                []Entry // df_i/dd_k: Row the state, Col the delayed value
	Arg, Tau, History [][]Partial
}

// DelayDerivs differentiates the delays of s (nil, nil without any).
// Like Build it returns an error for a derivative that cannot be formed.
func (s *System) DelayDerivs() (*DelayDerivs, error) {
	o := s.ODE
	if len(o.Delays) == 0 {
		return nil, nil
	}
	b := s.B
	index := map[SymKind]map[string]int{
		KindState: make(map[string]int), KindParam: make(map[string]int), KindDelay: o.DelayIndex(),
	}
	for i, st := range o.States {
		index[KindState][st.Name] = i
	}
	for j, p := range o.Params {
		index[KindParam][p.Name] = j
	}
	partials := func(n *Node, what string) ([]Partial, error) {
		var out []Partial
		for _, v := range FreeSymbols(n) {
			k := 0
			if v.Kind != KindTime {
				var ok bool
				if k, ok = index[v.Kind][v.Name]; !ok {
					continue
				}
			}
			d, err := b.Diff(n, v)
			if err != nil {
				return nil, fmt.Errorf("symbolic: model %q: derivative of the %s in %s: %w", o.Name, what, v.Name, err)
			}
			if !d.IsConst(0) {
				out = append(out, Partial{Kind: v.Kind, Index: k, Expr: d})
			}
		}
		slices.SortFunc(out, func(a, c Partial) int {
			if r := cmp.Compare(a.Kind, c.Kind); r != 0 {
				return r
			}
			return cmp.Compare(a.Index, c.Index)
		})
		return out, nil
	}
	dd := &DelayDerivs{}
	for i, f := range s.F {
		ps, err := partials(f, "rate of "+o.States[i].Name)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if p.Kind == KindDelay {
				dd.Fd = append(dd.Fd, Entry{Row: i, Col: p.Index, Expr: p.Expr})
			}
		}
	}
	for _, d := range o.Delays {
		for _, r := range []struct {
			n    *Node
			what string
			dst  *[][]Partial
		}{{d.Expr, "argument of " + d.Label, &dd.Arg}, {d.Tau, "delay of " + d.Label, &dd.Tau}, {d.History, "history of " + d.Label, &dd.History}} {
			ps, err := partials(r.n, r.what)
			if err != nil {
				return nil, err
			}
			*r.dst = append(*r.dst, ps)
		}
	}
	return dd, nil
}
