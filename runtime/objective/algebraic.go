package objective

import (
	"fmt"
	"math"
	"sync"

	"github.com/pbgen/pbgen/runtime/dae"
	"github.com/pbgen/pbgen/runtime/model"
)

// algModel is the model the objective solves when the problem's model has
// algebraic variables (model.Algebraic: SBML algebraic rules, fast
// reactions): runtime/dae's reduced model over the differential states x,
// with z(t, x, p) solved wherever the model is evaluated, and the
// observables and assignment sets of the wrapped model carried over to
// it. Everything downstream (thetaModel, the solvers, the steady states
// with their conservation laws, runtime/events) then sees an ODE, which
// is why the wrapping is done once here rather than in each path.
//
// Consistency is automatic: z is a function of (t, x, p), so a condition
// that changes parameters, a re-initialised or assigned state, or an
// event re-establishes consistent algebraic values at the next
// evaluation without a separate step. An observable or noise formula
// reading z is differentiated through it (dae.Model.ReduceRows), so
// gradients and the FIM of every method need nothing else.
//
// The states re-initialised and assigned must be differential, whose
// indices are the same in both models (petab refuses conditions that
// would set an algebraic variable there; objective.check the indices).
type algModel struct {
	*dae.Model
	obs model.Observables
	asg model.Assigner // nil unless the wrapped model implements it
	n   int            // states of the wrapped model (x and z)
	np  int
	// Scratch per call: (x, z), and the derivatives over the wrapped
	// states; pooled because a Model is shared by the workers.
	pool sync.Pool
}

type algWork struct {
	full  []float64
	d     model.ObsDeriv // HX, SX over (x, z); HP, SP over p
	dFull []float64      // 2 x n: HX then SX, for ReduceRows
	dP    []float64      // 2 x np
	dX    []float64      // 2 x nx
	asgX  []float64      // an assignment set's derivatives over (x, z), rows x n
	s0    []float64      // the wrapped model's dx0/dp, n x np
}

// newAlgModel wraps m, which has NumAlgebraic > 0 and implements
// model.Observables.
func newAlgModel(m model.Algebraic, obs model.Observables) (*algModel, error) {
	r, err := dae.New(m)
	if err != nil {
		return nil, fmt.Errorf("objective: %w", err)
	}
	a := &algModel{Model: r, obs: obs, n: model.NumStates(m), np: model.NumParams(m)}
	if as, ok := m.(model.Assigner); ok {
		a.asg = as
	}
	nx := a.n - m.NumAlgebraic()
	maxU := 0
	for k := range obs.ObservableIDs() {
		no, nn := obs.Placeholders(k)
		maxU = max(maxU, no+nn)
	}
	maxT := 0
	if a.asg != nil {
		for k := 0; k < a.asg.NumAssignments(); k++ {
			maxT = max(maxT, len(a.asg.AssignTargets(k)))
		}
	}
	n, np := a.n, a.np
	a.pool.New = func() any {
		w := &algWork{full: make([]float64, n), dFull: make([]float64, 2*n), dP: make([]float64, 2*np), dX: make([]float64, 2*nx)}
		w.d = model.ObsDeriv{HX: w.dFull[:n], SX: w.dFull[n:], HP: w.dP[:np], SP: w.dP[np:], HU: make([]float64, maxU), SU: make([]float64, maxU)}
		w.asgX = make([]float64, maxT*n)
		w.s0 = make([]float64, n*np)
		return w
	}
	return a, nil
}

// InitialSens writes dx0/dp of the differential states (nx x np): the
// wrapped model's rows of x, into pooled scratch (dae.Model's allocates,
// and the objective calls it at every evaluation).
func (a *algModel) InitialSens(dst, p []float64) {
	w := a.pool.Get().(*algWork)
	defer a.pool.Put(w)
	a.Wrapped().InitialSens(w.s0, p)
	copy(dst, w.s0[:len(dst)])
}

// ObservableIDs are the wrapped model's.
func (a *algModel) ObservableIDs() []string { return a.obs.ObservableIDs() }

// Placeholders are the wrapped model's.
func (a *algModel) Placeholders(k int) (nObs, nNoise int) { return a.obs.Placeholders(k) }

// Observe evaluates observable k at (t, x, z(t, x, p), p, u); the
// derivatives in x and p are total (through z).
func (a *algModel) Observe(k int, t float64, x, p, u []float64, d *model.ObsDeriv) (y, sigma float64) {
	w := a.pool.Get().(*algWork)
	defer a.pool.Put(w)
	if !a.FullState(w.full, t, x, p) {
		if d != nil {
			for _, s := range [][]float64{d.HX, d.SX, d.HP, d.SP, d.HU, d.SU} {
				fill(s, math.NaN())
			}
		}
		return math.NaN(), math.NaN()
	}
	if d == nil {
		return a.obs.Observe(k, t, w.full, p, u, nil)
	}
	w.d.HU, w.d.SU = d.HU, d.SU // the placeholders' derivatives need no reduction
	y, sigma = a.obs.Observe(k, t, w.full, p, u, &w.d)
	w.d.HU, w.d.SU = nil, nil
	if !a.ReduceRows(2, t, x, p, w.dFull, w.dX, w.dP) {
		return math.NaN(), math.NaN()
	}
	nx := len(x)
	copy(d.HX, w.dX[:nx])
	copy(d.SX, w.dX[nx:2*nx])
	copy(d.HP, w.dP[:a.np])
	copy(d.SP, w.dP[a.np:])
	return y, sigma
}

// NumAssignments is the wrapped model's number of assignment sets (0
// without model.Assigner).
func (a *algModel) NumAssignments() int {
	if a.asg == nil {
		return 0
	}
	return a.asg.NumAssignments()
}

// AssignTargets are the wrapped model's targets of set k.
func (a *algModel) AssignTargets(k int) []int { return a.asg.AssignTargets(k) }

// Assign evaluates set k at (t, x, z(t, x, p), p); the derivatives in x
// and p are total (through z).
func (a *algModel) Assign(k int, t float64, x, p, dst []float64, d *model.AssignDeriv) {
	w := a.pool.Get().(*algWork)
	defer a.pool.Put(w)
	rows := len(a.asg.AssignTargets(k))
	if !a.FullState(w.full, t, x, p) {
		fill(dst, math.NaN())
		return
	}
	if d == nil {
		a.asg.Assign(k, t, w.full, p, dst, nil)
		return
	}
	full := &model.AssignDeriv{X: w.asgX[:rows*a.n], P: d.P}
	a.asg.Assign(k, t, w.full, p, dst, full)
	if !a.ReduceRows(rows, t, x, p, full.X, d.X, d.P) {
		fill(dst, math.NaN())
	}
}

// explainDAE adds to the error of experiment e why the algebraic
// equations fail at the start of one of its conditions, when they do
// (dae.Model.Consistent names the variables): the solvers only see a
// non-finite initial state. It runs on the error path and allocates.
func (c *core) explainDAE(e int, err error) error {
	pl := &c.exps[e]
	p, dp := make([]float64, c.np), make([]float64, c.np)
	conds := []*Condition{pl.pre}
	for k := range pl.phases {
		conds = append(conds, pl.phases[k].cond)
	}
	for _, cd := range conds {
		if cd == nil {
			continue
		}
		c.params(p, dp, cd)
		if cerr := c.alg.Consistent(nil, p); cerr != nil {
			return fmt.Errorf("%w (condition %q: %v)", err, cd.ID, cerr)
		}
	}
	return err
}

func fill(s []float64, v float64) {
	for i := range s {
		s[i] = v
	}
}

var (
	_ model.Observables = (*algModel)(nil)
	_ model.Assigner    = (*algModel)(nil)
)
