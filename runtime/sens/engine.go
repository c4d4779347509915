package sens

import (
	"math"

	"github.com/pbgen/pbgen/runtime/expm"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// point is a node of the sensitivity grid with its Jacobian values.
type point struct {
	t  float64
	x  []float64 // nx
	jx []float64 // nnz(Jx)
	jp []float64 // nnz of the reduced Jp
}

// engine runs the Peano-Baker methods on a trajectory: a driver (the
// integrator's grid, stategrid.go, or the dyadic grid, dyadic.go) takes
// steps of one kind (the series step, series.go; the paper's exponential
// steps, paperexp.go; the end-point exponential W-step, endpoint.go). Each
// part keeps its state in its own field; all buffers are allocated once
// for a model and parameter subset.
type engine struct {
	// The solve: model, options, sizes, parameters, the state's
	// trajectory and the counters of the Result.
	m      model.Model
	cfg    *config
	nx, ns int
	p      []float64
	tr     *ode.Trajectory
	stats  *Stats
	// err is the first reason the method gave up (see MethodError); the
	// drivers stop at it. stepT is the start of the step being taken.
	err   error
	stepT float64
	// roundAcc is the integral of ||Jx||_inf over the steps taken (see
	// accRound).
	roundAcc float64

	jac  jacobians // the Jx and reduced Jp patterns, and their evaluation
	a, b point     // the ends of the step being taken (swapped as a grid advances)

	// The step kinds.
	series   seriesStep      // the truncated Peano-Baker series step (PBS)
	paper    paperExp        // the frozen and Magnus exponential steps, and their cache
	endpoint endpointStepper // the end-point exponential W-step and its cached slots

	// The drivers and what they decide with.
	stateGrid stateGrid   // the integrator's grid: refinement points and bisection levels
	control   stepControl // the step-size control of the dyadic grid (PBSR)
	corrector corrector   // the third-order correction (Tuning.Order 3, correct.go)
	// refRel is the relative reuse distance of the cached exponentials
	// (refRel, or refRelExpLarge).
	refRel float64
	// localTol is the share of the tolerance the local error test of the
	// dyadic grid allows: order3Safety with the corrector, else 1.
	localTol float64
	freeze   freezer // frozen steps near equilibrium (dyadic grid)

	// Scratch of the steps; nothing in it outlives a step, except that
	// the dyadic grid, whose end-point steps use none of t1..t3, keeps
	// its second S block in t1.
	t1, t2, t3 []float64 // nx*ns
	// ad is the dense nx*nx of a Jx-pattern scatter (scatterAd): only
	// pattern positions are ever written, the others stay zero.
	ad      []float64
	denseJx bool      // spmm through a dense product
	jd      []float64 // nx*nx scratch of spmm
	// sparseJProd: the W-method products X Jx-pattern of mulJ are taken
	// by the columns of the pattern (jxT: its transpose, the map of its
	// entries to Jx's and their values), not through a dense scatter.
	sparseJProd bool
	// doubleSlots: a fresh exponential of step h may be made from a
	// cached one of step h/2 (doubleSlot): Exp on the models of
	// sparseJProd.
	doubleSlots bool
	jxT         struct {
		pat  *model.Pattern
		from []int
		val  []float64
	}
	ex    *expm.Workspace
	norms normScratch
	// sparse is the state of the exponential steps without dense
	// matrices (ExpActionSparse, sparseexp.go); nil on the dense path,
	// whose nx x nx buffers (ad, ex, the endpoint slots, the paper's and
	// the freezer's matrices) are then not allocated.
	sparse *sparseExp
}

// jacobians are the sparsity patterns of Jx and of the reduced Jp (the
// columns of the sensitivity parameters) and what maps the model's Jp
// onto the reduced one.
type jacobians struct {
	jx *model.Pattern
	// sel is the reduced Jp pattern: the columns in cfg.params, in that
	// order; from maps its entries to those of the full Jp, whose values
	// full holds.
	sel  *model.Pattern
	from []int
	full []float64
	// jp evaluates the full Jp's entries of those columns into full: the
	// model's model.JpColumns when it has them (the other entries stay
	// zero and are not gathered), else its Jp.
	jp model.JpFunc
	// identity: the reduced Jp is the full one in the same order (all
	// parameters, in model order), so Jp is written into a point directly:
	// the remapping was half of an evaluation near equilibrium, where one
	// runs at every step.
	identity bool
}

func newJacobians(m model.Model, params []int) jacobians {
	jp := m.JpPattern()
	jc := jacobians{jx: m.JxPattern(), sel: &model.Pattern{}, full: make([]float64, jp.NNZ())}
	jc.from = sparse.SelectCols(jc.sel, nil, jp, params)
	jc.identity = len(jc.from) == jp.NNZ()
	for k, f := range jc.from {
		jc.identity = jc.identity && f == k
	}
	if !jc.identity {
		jc.jp = model.JpColumnsOf(m, params)
	}
	return jc
}

// normScratch holds the work vectors of the norms of Jx (norm, relChange).
type normScratch struct {
	diff []float64 // nnz(Jx): the difference of relChange
	u, w []float64 // nx: power iteration (Norm2)
}

func newPoint(nx, nnzx, nnzp int) point {
	return point{x: make([]float64, nx), jx: make([]float64, nnzx), jp: make([]float64, nnzp)}
}

func newEngine(m model.Model, cfg *config, params []int) *engine {
	nx := model.NumStates(m)
	ns := len(params)
	en := &engine{m: m, cfg: cfg, nx: nx, ns: ns, jac: newJacobians(m, params)}
	nnzx, nnzp := en.jac.jx.NNZ(), len(en.jac.from)
	mk := func(n int) []float64 { return make([]float64, n) }
	en.a, en.b = newPoint(nx, nnzx, nnzp), newPoint(nx, nnzx, nnzp)
	en.series = seriesStep{jsum: mk(nnzx)}
	// Every Peano-Baker method may take exponential steps (PBS where Jx
	// barely changes, JacTol), so every engine has one of the two paths:
	// the dense exponentials or their sparse actions (useSparseExp).
	dense := !useSparseExp(cfg.expAction, nx, nnzx)
	en.paper = newPaperExp(nx, nnzx, nnzp, dense)
	nslots := 4
	if !dense {
		nslots = 0
		en.sparse = newSparseExp(en.jac.jx, nx, ns)
	}
	en.endpoint = newEndpointStepper(nx, ns, nnzx, nnzp, nslots, dense)
	en.initForcing()
	en.stateGrid = newStateGrid(nx, ns, nnzx, nnzp, cfg.maxDepth)
	en.control = newStepControl(nx, ns)
	en.corrector = newCorrector(cfg.orderFor(nx, nnzx) == 3 && dense && cfg.method == PBSR && cfg.grid == GridDyadic, nx, ns)
	en.localTol = 1
	if en.corrector.on {
		en.localTol = order3Safety
	}
	en.freeze = newFreezer(nx, ns, nnzx, nnzp, dense)
	blk := nx * ns
	en.t1, en.t2, en.t3 = mk(blk), mk(blk), mk(blk)
	en.denseJx = nx >= 8 && 4*nnzx >= nx*nx
	if dense {
		en.ad = mk(nx * nx)
		en.ex = expm.NewWorkspace(nx)
	}
	if en.denseJx {
		en.jd = mk(nx * nx)
	}
	// Large sparse Jacobians on the dense path (Lang); the paper's
	// networks keep the dense products.
	en.sparseJProd = dense && !en.denseJx && nx >= SparseExpMinStates
	en.doubleSlots = en.sparseJProd && cfg.method == Exp
	en.refRel = refRel
	if dense && cfg.method == Exp && nx >= SparseExpMinStates {
		en.refRel = refRelExpLarge
	}
	if en.sparseJProd {
		en.jxT.pat, en.jxT.from = sparse.Transpose(en.jac.jx)
		en.jxT.val = mk(nnzx)
		if en.corrector.on {
			en.corrector.sparse = newCorrFilter(en.jac.jx, nx, ns)
		}
	}
	en.norms = normScratch{diff: mk(nnzx), u: mk(nx), w: mk(nx)}
	return en
}

// eval fills pt.jx and pt.jp at (pt.t, pt.x).
func (en *engine) eval(pt *point) {
	en.m.Jx(pt.jx, pt.t, pt.x, en.p)
	if en.jac.identity {
		en.m.Jp(pt.jp, pt.t, pt.x, en.p)
		en.stats.JacEvals++
		return
	}
	en.jac.jp(en.jac.full, pt.t, pt.x, en.p)
	sparse.Gather(pt.jp, en.jac.full, en.jac.from)
	en.stats.JacEvals++
}

// interpX writes x(t) for ta <= t <= tb inside grid interval k.
func (en *engine) interpX(dst []float64, t float64, k int) {
	tr := en.tr
	ta, tb := tr.T[k], tr.T[k+1]
	if en.cfg.interp == InterpLinear {
		s := (t - ta) / (tb - ta)
		xa, xb := tr.XAt(k), tr.XAt(k+1)
		for i := range dst {
			dst[i] = xa[i] + s*(xb[i]-xa[i])
		}
		return
	}
	tr.InterpStep(dst, t, k)
}

// ---------------------------------------------------------------- sparse kernels

// jxm is the Jx matrix with values v (a point's, or a combination of
// points' in the pattern of Jx).
func (en *engine) jxm(v []float64) sparse.CSR { return sparse.CSR{Pat: en.jac.jx, Val: v} }

// jpm is the reduced Jp matrix (nx x ns) with values v.
func (en *engine) jpm(v []float64) sparse.CSR { return sparse.CSR{Pat: en.jac.sel, Val: v} }

// spmm writes dst = J S for the CSR J (pattern jx, values v) and dense
// row-major S (nx x ns).
func (en *engine) spmm(dst, v, s []float64) {
	ns := en.ns
	if en.denseJx {
		// Reaction-network Jacobians of a few dozen states are dense
		// enough for the blocked dense product to win.
		en.jxm(v).ScatterTo(en.jd)
		en.gemm(dst, en.jd, s, en.nx, ns, 1, 0)
		return
	}
	en.jxm(v).MulBlockTo(dst, s, ns)
}

// addP adds alpha * P (reduced Jp values v) to the dense dst.
func (en *engine) addP(dst []float64, alpha float64, v []float64) {
	en.jpm(v).AddTo(dst, alpha)
}

// ---------------------------------------------------------------- norms

func (en *engine) norm(v []float64) float64 {
	a := en.jxm(v)
	switch en.cfg.norm {
	case Norm1:
		return a.Norm1(en.norms.u)
	case NormFro:
		return a.NormFro()
	case Norm2:
		return a.Norm2(en.norms.u, en.norms.w)
	default:
		return a.NormInf()
	}
}

// relChange is ||vb - va|| / ||va|| in the configured norm, with 0/0 = 0.
func (en *engine) relChange(va, vb []float64) float64 {
	for k := range en.norms.diff {
		en.norms.diff[k] = vb[k] - va[k]
	}
	d := en.norm(en.norms.diff)
	n := en.norm(va)
	if d == 0 {
		return 0
	}
	if n == 0 {
		return math.Inf(1)
	}
	return d / n
}

// relChangeP is the max-abs relative change of the Jp values; NaN when
// either has a NaN (math.Max keeps it), so that no test of it passes.
func relChangeP(va, vb []float64) float64 {
	var d, n float64
	for k, x := range va {
		d = math.Max(d, math.Abs(vb[k]-x))
		n = math.Max(n, math.Abs(x))
	}
	if d == 0 {
		return 0
	}
	return d / n
}

func (en *engine) recordExp(t float64) {
	en.stats.ExpTimes = append(en.stats.ExpTimes, t)
}
