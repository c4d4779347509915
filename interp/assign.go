package interp

import (
	"fmt"
	"slices"
	"sync"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

// Assignment is a set of simultaneous state assignments x_i := g_i(t, x, p)
// (model.Assigner): States[i] is a state's name, Values[i] its new value,
// an expression over the System's states, parameters and time. Every
// value sees the state before the assignment.
type Assignment struct {
	States []string
	Values []*symbolic.Node
}

// asgProg is one assignment set compiled: roots the values, then the
// non-zero derivative entries at dense index idx (in X, or in P when
// inP).
type asgProg struct {
	targets []int
	c       *symbolic.Compiled
	idx     []int
	inP     []bool
	pool    *sync.Pool // *asgScratch
}

type asgScratch struct{ slots, out []float64 }

var _ model.Assigner = (*Observed)(nil)

// NewObservedAssign compiles sys and the observables as NewObserved, and
// the assignment sets as, which the returned model offers through
// model.Assigner (a PEtab experiment's condition changes after its first
// period). The derivatives dg/dx and dg/dp are formed symbolically once.
func NewObservedAssign(sys *symbolic.System, obs []Observable, as []Assignment) (*Observed, error) {
	o, err := NewObserved(sys, obs)
	if err != nil {
		return nil, err
	}
	b := sys.B
	stateIdx := make(map[string]int, o.nx)
	for i, s := range o.stateNames {
		stateIdx[s] = i
	}
	for k, a := range as {
		if len(a.States) != len(a.Values) {
			return nil, fmt.Errorf("interp: assignment set %d: %d states but %d values", k, len(a.States), len(a.Values))
		}
		// Targets ascending (the contract), values permuted alike.
		ord := make([]int, len(a.States))
		for i := range ord {
			ord[i] = i
		}
		for _, s := range a.States {
			if _, ok := stateIdx[s]; !ok {
				return nil, fmt.Errorf("interp: assignment set %d: %q is not a state", k, s)
			}
		}
		slices.SortFunc(ord, func(i, j int) int { return stateIdx[a.States[i]] - stateIdx[a.States[j]] })
		pr := asgProg{}
		var roots []*symbolic.Node
		for n, i := range ord {
			v := a.Values[i]
			if v == nil || !b.Owns(v) {
				return nil, fmt.Errorf("interp: assignment set %d: value of %q is nil or from another Builder", k, a.States[i])
			}
			t := stateIdx[a.States[i]]
			if n > 0 && t == pr.targets[n-1] {
				return nil, fmt.Errorf("interp: assignment set %d: state %q assigned twice", k, a.States[i])
			}
			pr.targets = append(pr.targets, t)
			roots = append(roots, v)
		}
		nt := len(roots)
		for r := 0; r < nt; r++ {
			for _, s := range symbolic.FreeSymbols(roots[r]) {
				var col int
				var inP bool
				switch s.Kind {
				case symbolic.KindState:
					j, ok := stateIdx[s.Name]
					if !ok {
						continue // Compile reports it
					}
					col = r*o.nx + j
				case symbolic.KindParam:
					j := slices.Index(o.paramNames, s.Name)
					if j < 0 {
						continue
					}
					col, inP = r*o.np+j, true
				default:
					continue
				}
				d, err := b.Diff(roots[r], s)
				if err != nil {
					return nil, fmt.Errorf("interp: assignment set %d: %w", k, err)
				}
				if d.IsConst(0) {
					continue
				}
				roots = append(roots, d)
				pr.idx = append(pr.idx, col)
				pr.inP = append(pr.inP, inP)
			}
		}
		c, err := symbolic.Compile(roots, o.stateNames, o.paramNames)
		if err != nil {
			return nil, fmt.Errorf("interp: assignment set %d: %w", k, err)
		}
		pr.c = c
		sl, nr := c.ScratchLen(), len(roots)
		pr.pool = &sync.Pool{New: func() any {
			return &asgScratch{slots: make([]float64, sl), out: make([]float64, nr)}
		}}
		o.asg = append(o.asg, pr)
	}
	return o, nil
}

// NumAssignments returns the number of assignment sets.
func (o *Observed) NumAssignments() int { return len(o.asg) }

// AssignTargets returns the states set k assigns, ascending; the slice
// must not be modified.
func (o *Observed) AssignTargets(k int) []int { return o.asg[k].targets }

// Assign evaluates set k at (t, x, p) into dst and, when d is not nil,
// the derivatives into d (written whole).
func (o *Observed) Assign(k int, t float64, x, p, dst []float64, d *model.AssignDeriv) {
	pr := &o.asg[k]
	n := len(pr.targets)
	if len(x) != o.nx || len(p) != o.np || len(dst) != n {
		panic("interp: Assign: x, p or dst length mismatch")
	}
	if d != nil && (len(d.X) != n*o.nx || len(d.P) != n*o.np) {
		panic("interp: Assign: derivative slice length mismatch")
	}
	s := pr.pool.Get().(*asgScratch)
	pr.c.EvalTo(s.out, s.slots, t, x, p)
	copy(dst, s.out[:n])
	if d != nil {
		clear(d.X)
		clear(d.P)
		for r, v := range s.out[n:] {
			if pr.inP[r] {
				d.P[pr.idx[r]] = v
			} else {
				d.X[pr.idx[r]] = v
			}
		}
	}
	pr.pool.Put(s)
}
