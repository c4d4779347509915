package interp

import (
	"fmt"
	"sync"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

// Observable is one observable of a measurement model (a PEtab observable
// lowered to symbols): H is the observable h(t, x, p, u) and Sigma its noise
// scale, over the states and parameters of the System passed to
// NewObserved, time, and the placeholder symbols named in U (of kind
// KindParam; their names must not be parameter names). U holds the NObs
// observable placeholders first, then the noise placeholders.
type Observable struct {
	ID       string
	H, Sigma *symbolic.Node
	U        []string
	NObs     int
}

// Observed is an interpreted model with observables: a *Model that also
// implements model.Observables. The derivatives of h and sigma with respect
// to x, p and u are formed symbolically once (symbolic.Diff) and compiled
// with the values into one program per observable, so h, sigma and their
// derivatives share subexpressions.
type Observed struct {
	*Model
	obs []obsProg
	asg []asgProg // NewObservedAssign
}

// obsProg is one observable compiled: roots h, sigma, then the non-zero
// derivative entries; slot[k] says where root 2+k goes.
type obsProg struct {
	id         string
	nObs, nU   int
	c          *symbolic.Compiled
	dst        []int // for each derivative root: which ObsDeriv slice (0..5) and index
	idx        []int
	nroots     int
	scratchLen int
	pool       *sync.Pool // *obsScratch
}

type obsScratch struct {
	slots []float64
	pu    []float64 // p then u
	out   []float64
}

var _ model.Observables = (*Observed)(nil)

// NewObserved compiles sys and the observables obs. Events are compiled
// too (as NewWithEvents): the model implements model.Events, and its user
// (runtime/objective) solves them with runtime/events.
func NewObserved(sys *symbolic.System, obs []Observable) (*Observed, error) {
	m, err := NewWithEvents(sys)
	if err != nil {
		return nil, err
	}
	o := &Observed{Model: m}
	b := sys.B
	for k, ob := range obs {
		if ob.H == nil || ob.Sigma == nil || !b.Owns(ob.H) || !b.Owns(ob.Sigma) {
			return nil, fmt.Errorf("interp: observable %q: h or sigma is nil or from another Builder", ob.ID)
		}
		if ob.NObs < 0 || ob.NObs > len(ob.U) {
			return nil, fmt.Errorf("interp: observable %q: %d observable placeholders of %d", ob.ID, ob.NObs, len(ob.U))
		}
		params := append(append([]string(nil), m.paramNames...), ob.U...)
		seen := make(map[string]bool, len(params))
		for _, s := range params {
			if seen[s] {
				return nil, fmt.Errorf("interp: observable %q: placeholder %q is also a parameter or placeholder", ob.ID, s)
			}
			seen[s] = true
		}
		roots := []*symbolic.Node{ob.H, ob.Sigma}
		pr := obsProg{id: ob.ID, nObs: ob.NObs, nU: len(ob.U)}
		// Variables: states (slices 0 and 3), parameters (1, 4),
		// placeholders (2, 5).
		free := make(map[string]*symbolic.Node)
		for _, f := range []*symbolic.Node{ob.H, ob.Sigma} {
			for _, s := range symbolic.FreeSymbols(f) {
				free[s.Name+"\x00"+s.Kind.String()] = s
			}
		}
		vars := func(names []string, kind symbolic.SymKind) []*symbolic.Node {
			v := make([]*symbolic.Node, len(names))
			for i, n := range names {
				if s, ok := free[n+"\x00"+kind.String()]; ok {
					v[i] = s
				}
			}
			return v
		}
		groups := [][]*symbolic.Node{
			vars(m.stateNames, symbolic.KindState),
			vars(m.paramNames, symbolic.KindParam),
			vars(ob.U, symbolic.KindParam),
		}
		for f, fn := range []*symbolic.Node{ob.H, ob.Sigma} {
			for g, vs := range groups {
				for i, v := range vs {
					if v == nil {
						continue
					}
					d, err := b.Diff(fn, v)
					if err != nil {
						return nil, fmt.Errorf("interp: observable %q: %w", ob.ID, err)
					}
					if d.IsConst(0) {
						continue
					}
					roots = append(roots, d)
					pr.dst = append(pr.dst, 3*f+g)
					pr.idx = append(pr.idx, i)
				}
			}
		}
		c, err := symbolic.Compile(roots, m.stateNames, params)
		if err != nil {
			return nil, fmt.Errorf("interp: observable %q (number %d): %w", ob.ID, k, err)
		}
		pr.c, pr.nroots, pr.scratchLen = c, len(roots), c.ScratchLen()
		np, nroots, sl, nu := m.np, len(roots), c.ScratchLen(), len(ob.U)
		pr.pool = &sync.Pool{New: func() any {
			return &obsScratch{slots: make([]float64, sl), pu: make([]float64, np+nu), out: make([]float64, nroots)}
		}}
		o.obs = append(o.obs, pr)
	}
	return o, nil
}

// ObservableIDs returns the observables' ids in order.
func (o *Observed) ObservableIDs() []string {
	ids := make([]string, len(o.obs))
	for k, p := range o.obs {
		ids[k] = p.id
	}
	return ids
}

// Placeholders returns observable k's numbers of observable and noise
// placeholders.
func (o *Observed) Placeholders(k int) (nObs, nNoise int) {
	return o.obs[k].nObs, o.obs[k].nU - o.obs[k].nObs
}

// Observe evaluates h_k and sigma_k at (t, x, p, u) and, when d is not nil,
// their derivatives into d (each slice written whole).
func (o *Observed) Observe(k int, t float64, x, p, u []float64, d *model.ObsDeriv) (y, sigma float64) {
	pr := &o.obs[k]
	if len(x) != o.nx || len(p) != o.np || len(u) != pr.nU {
		panic("interp: Observe: x, p or u length mismatch")
	}
	s := pr.pool.Get().(*obsScratch)
	copy(s.pu, p)
	copy(s.pu[o.np:], u)
	pr.c.EvalTo(s.out, s.slots, t, x, s.pu)
	y, sigma = s.out[0], s.out[1]
	if d != nil {
		sl := [6][]float64{d.HX, d.HP, d.HU, d.SX, d.SP, d.SU}
		want := [6]int{o.nx, o.np, pr.nU, o.nx, o.np, pr.nU}
		for i := range sl {
			if len(sl[i]) != want[i] {
				panic("interp: Observe: derivative slice length mismatch")
			}
			clear(sl[i])
		}
		for r, v := range s.out[2:] {
			sl[pr.dst[r]][pr.idx[r]] = v
		}
	}
	pr.pool.Put(s)
	return y, sigma
}
