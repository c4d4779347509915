package sens

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// Auto chooses FS or PBSR per model and tolerance (Resolve): a user need
// not know which network is stiff. The crossovers below were measured at
// pbgen sim's defaults (t in [0, 10], rtol 1e-6, atol 1e-8, Check, FS with
// ErrCon) and at the PEtab objective's (FS with and without ErrCon,
// outputs interpolated, no Check; docs/bench/petab-errcon-2026-12-08.txt) on
// CaMKII, PKA, Chua, the SBML models and problems of the PEtab benchmark
// collection, the scalenet chains and the random linear system
// (docs/bench/auto-2026-12-08.txt, from TestAutoWithinBound in cmd/pbgen;
// the chains and the linear system by sens.Solve at sim's options, not in
// that table).
// There FS was never slower than 1.5 times the fastest method that met
// the check, PBSR up to 20 times slower than FS on stiff networks
// (Lang_PLOSComputBiol2024, Laske_PLOSComputBiol2019, CaMKII), where each
// exponential of h Jx takes many squarings and Check's retries cost
// solves, and on sparse ones (the chains, Alkan_SciSignal2018), where its
// dense nx x nx products cost more than FS's sparse corrector. PBSR was
// faster than FS with ErrCon by at most 1.4 on small, dense, non-stiff
// networks with many columns (Okuonghae, Zhao, SalazarCavazos), and 3 to
// 4 times faster than FS with or without ErrCon on the linear system,
// whose exponentials it computes once per step length. So Auto takes FS
// unless the tests below all say PBSR, and never Exp or PBS, whose S is not
// controlled (Exp fails Check on CaMKII, Chua, Perelson and Rahman).
//
// Resolve's decision is deterministic: a function of the model, p, the
// start, the end time and the options, through Jx and the step sizes of
// a probe integration of the state, never of timings.
const (
	// AutoMinColumns is the fewest columns of S for which Auto takes
	// PBSR: FS costs about ns+1 state integrations, PBSR's exponentials
	// nx^3 each whatever ns, so with few columns FS wins (Chua, 2
	// columns: pbgen sim 2.4 ms of CPU with fs, 5.1 ms with pbsr).
	AutoMinColumns = 8
	// AutoMaxStates is the most states for which Auto takes PBSR: from
	// sparseExpLargeStates = 500 states on PBSR and Exp take the sparse
	// exponential actions, whose cost grows with ||h Jx|| (see
	// SparseExpMinStates), while FS's sparse LU grows with nnz(Jx): a
	// held-out 500-state published model took more than 300 s with PBSR
	// and Exp where FS took 3.8 s (issue #24). Below it the dense
	// exponentials pay where the stiffness test lets them: on the random
	// linear system of 100 states PBSR took 64 ms, FS 277 ms (sim's
	// tolerances without Check; 409 and 618 ms with it).
	AutoMaxStates = sparseExpLargeStates - 1
	// AutoLinearStates is the fewest states for which Auto takes PBSR on
	// linear kinetics (Jx independent of x and t), whatever the rules
	// below: PBSR then computes one exponential per step length and
	// reuses it. On the random linear system PBSR took 1.6 (8 states) to 4
	// (100 states) times less CPU than FS without ErrCon and 1.3 to 1.5
	// less than FS with ErrCon and Check (at 12 states 1.1 more); on the
	// PEtab objective of Armistead_CellDeathDis2024 (4 states, linear) FS
	// was 1.3 times faster per pbgen petab -grad.
	AutoLinearStates = 8
	// AutoSparse bounds nx^2 / nnz(Jx), the number of states over the
	// non-zeros per row, for PBSR: its steps multiply S by dense nx x nx
	// exponentials (nx^2 per column) where FS's corrector works with the
	// sparse Jx (about nnz per column). Measured: the scalenet chains (48
	// to 198 states, 13/3 non-zeros a row, ratio 11 to 46) took 2.3 to
	// 6.5 times less CPU with FS than PBSR at sim's tolerances,
	// Alkan_SciSignal2018 (7.7) 10 times less in its PEtab objective,
	// Raia_CancerResearch2011 (6.3) as much per pbgen sim (1.2 times
	// more in the solve alone); SalazarCavazos_MBoC2020 (3.6) 1.22 times more,
	// and PKA, CaMKII and the other benchmark models are at 1.7 to 3.5.
	AutoSparse = 4
	// AutoStiff is the stiffness, the largest h ||Jx||_inf over the
	// steps of the probe (the state alone by the BDF at the user's
	// tolerances), above which Auto takes FS: the BDF's steps are then
	// many times the explicit stability limit, and each exponential of
	// h Jx costs log2(h ||Jx||) squarings. Measured: CaMKII 5.1e3,
	// Raimundez 1.1e3, Laske 6.5e6, Liu 4.4e6, Lang 1.8e7 (all FS or a
	// tie); PKA 46 (26 at rtol 1e-8, 113 at 1e-4) and SalazarCavazos 56
	// (29, 127), where FS with S's weights scaled by p took 0.67 and 1.13
	// times PBSR's CPU at sim's defaults (auto at 500 was 1.55 and 2.04
	// times the fastest on PKA at rtol 1e-6 and 1e-8:
	// docs/bench/auto-2026-12-08-stiff500.txt); Perelson 17 and below 2 on
	// the others (PBSR within 1.1 of FS or faster).
	AutoStiff = 20
	// autoProbeSteps bounds the probe: a state that needs more BDF steps
	// than this over the span is taken as stiff (FS), and the probe costs
	// at most this many state steps (1 to 15% of the solve it chooses for
	// on the measured networks).
	autoProbeSteps = 20000
	// autoProbeJx is the number of the probe's longest steps at whose
	// ends Jx is evaluated for the stiffness.
	autoProbeJx = 32
)

// Choice is what Resolve chose and why: the measurements and the rule
// that decided, for a user to see (pbgen sim prints Reason).
type Choice struct {
	// Method is FS or PBSR.
	Method Method
	// Reason says which rule decided, with its numbers.
	Reason string
	// NX, NS and NNZ are the states, the columns of S and the non-zeros
	// of Jx.
	NX, NS, NNZ int
	// Stiffness is the largest h ||Jx||_inf over the probe's steps (0
	// when no probe ran), ProbeSteps their number.
	Stiffness  float64
	ProbeSteps int
}

// Resolve chooses the method Auto stands for on m with parameters p from
// the start st (nil: x0 of the model at t0 = 0) to t1, at the tolerances
// of opt (nil: defaults), for the columns opt.Params (nil: all). It is
// ResolveColumns with ns = len(opt.Params) or the number of parameters.
func Resolve(m model.Model, p []float64, st *Start, t1 float64, opt *Options) (Choice, error) {
	ns := model.NumParams(m)
	if opt != nil && opt.Params != nil {
		ns = len(opt.Params)
	}
	return ResolveColumns(m, p, st, t1, ns, opt)
}

// ResolveColumns chooses FS or PBSR for a solve of ns columns of S (see
// Auto for the measurements behind the rules). The first rule that
// applies decides:
//
//   - FS without columns (the state alone), on a model with delays
//     (only FS has them), with fewer than AutoMinColumns columns or more
//     than AutoMaxStates states;
//   - PBSR from AutoLinearStates states on if Jx is the same at x0, t0
//     and at a second state and time (linear kinetics);
//   - FS without opt.ErrCon: without S in its error test FS takes the
//     state's steps alone, and was the fastest on every PEtab objective
//     of the collection;
//   - FS with opt.ODE.Interpolate (the integrator steps over the output
//     times, the PEtab objective's default): FS with ErrCon then took
//     less CPU per llh + gradient than PBSR on every non-linear problem
//     of the collection: 1.2 to 2.1 times less on Armistead, Giordano,
//     Liu, Rahman and Zhao, where the rules below chose PBSR, a tie on
//     Okuonghae (1.02), 1.5 to 7.5 on the others
//     (docs/bench/petab-errcon-2026-12-08.txt); the rules below were
//     measured with the outputs on the grid (pbgen sim);
//   - FS if nx^2 / nnz(Jx) > AutoSparse;
//   - a probe integrates the state alone by the BDF from st to t1 at
//     opt's RTol and ATol: FS if the largest h ||Jx||_inf of its steps
//     exceeds AutoStiff, or if the probe failed or took 20000 steps (the
//     solve itself will then say what is wrong);
//   - else PBSR.
//
// opt.Method must be Auto (or PBSR, the zero value: options left at their
// defaults); the other options are validated as NewSolver would. Only the
// last two rules cost more than a few evaluations of Jx: one integration of
// the state at the user's tolerances, 1 to 15% of the solve on the
// measured networks; a caller solving the same problem for many p (an
// objective, a sampler) resolves once.
func ResolveColumns(m model.Model, p []float64, st *Start, t1 float64, ns int, opt *Options) (Choice, error) {
	if m == nil {
		return Choice{}, errors.New("sens: Resolve: nil model")
	}
	var o Options
	if opt != nil {
		o = *opt
	}
	if o.Method != Auto && o.Method != PBSR {
		// PBSR is the zero value: options left at their defaults.
		return Choice{}, invalid("Resolve chooses the method of Auto, but the options name %v", o.Method)
	}
	o.Method = Auto
	c, err := resolve(&o)
	if err != nil {
		return Choice{}, err
	}
	nx, np := model.NumStates(m), model.NumParams(m)
	if len(p) != np {
		return Choice{}, invalid("Resolve: %d parameter values given for a model of %d parameters", len(p), np)
	}
	if ns < 0 {
		return Choice{}, invalid("Resolve: %d columns of S", ns)
	}
	ch := Choice{Method: FS, NX: nx, NS: ns, NNZ: m.JxPattern().NNZ()}
	switch {
	case ns == 0:
		ch.Reason = "no columns of S: the state alone"
		return ch, nil
	case model.HasDelays(m):
		ch.Reason = "the model has delays, which only FS solves"
		return ch, nil
	case ns < AutoMinColumns:
		ch.Reason = fmt.Sprintf("%d columns of S, fewer than %d", ns, AutoMinColumns)
		return ch, nil
	case nx > AutoMaxStates:
		ch.Reason = fmt.Sprintf("%d states, more than %d", nx, AutoMaxStates)
		return ch, nil
	}
	var t0 float64
	var x0 []float64
	if st != nil {
		t0, x0 = st.T0, st.X0
	}
	if x0 == nil {
		x0 = make([]float64, nx)
		m.InitialState(x0, p)
	} else if len(x0) != nx {
		return Choice{}, invalid("Resolve: an initial state of %d values for a model of %d states", len(x0), nx)
	}
	switch {
	case nx >= AutoLinearStates && linearJx(m, p, x0, t0, t1):
		ch.Method = PBSR
		ch.Reason = "Jx does not depend on x or t (linear kinetics): PBSR computes one exponential per step length"
		return ch, nil
	case !c.errCon:
		ch.Reason = "FS without S in its error test (ErrCon off) takes the state's steps alone"
		return ch, nil
	case o.ODE.Interpolate:
		ch.Reason = "outputs interpolated (the PEtab objective): FS with S in its error test was faster than PBSR on every non-linear problem of the collection"
		return ch, nil
	case float64(nx)*float64(nx) > AutoSparse*float64(ch.NNZ):
		ch.Reason = fmt.Sprintf("a sparse Jx: %d states, %d non-zeros, nx^2/nnz above %d", nx, ch.NNZ, AutoSparse)
		return ch, nil
	}
	stiff, steps, perr := probeStiffness(m, p, x0, t0, t1, c.rtol, c.atol)
	ch.Stiffness, ch.ProbeSteps = stiff, steps
	switch {
	case perr == nil && steps == 0:
		ch.Reason = "no time span to probe"
	case perr != nil:
		ch.Reason = fmt.Sprintf("the probe of the state failed (%v)", perr)
	case steps >= autoProbeSteps:
		ch.Reason = fmt.Sprintf("the probe of the state took %d steps or more", autoProbeSteps)
	case !(stiff <= AutoStiff):
		// NaN included: a Jx that is not finite where the state went.
		ch.Reason = fmt.Sprintf("stiff: h ||Jx|| up to %.3g over %d probe steps, above %d", stiff, steps, AutoStiff)
	default:
		ch.Method = PBSR
		ch.Reason = fmt.Sprintf("%d states, %d columns, h ||Jx|| at most %.3g over %d probe steps", nx, ns, stiff, steps)
	}
	return ch, nil
}

// probeStiffness integrates the state alone from st to t1 at rtol, atol
// (the BDF, stepping over t1's outputs) and returns the largest
// h ||Jx(t_k, x_k)||_inf over its autoProbeJx longest accepted steps
// (h = t_k - t_{k-1}) and the number of steps, stopping at
// autoProbeSteps.
func probeStiffness(m model.Model, p, x0 []float64, t0, t1 float64, rtol, atol float64) (float64, int, error) {
	if !(t1 > t0) {
		return 0, 0, nil
	}
	os := ode.NewSolver(m, &ode.Settings{RTol: math.Max(rtol, ode.MinRTol), ATol: atol, Interpolate: true, MaxSteps: autoProbeSteps + 1, MemoryLimit: -1})
	if err := os.Err(); err != nil {
		return 0, 0, err
	}
	os.SetStop(func(tr *ode.Trajectory) bool { return tr.Len() > autoProbeSteps })
	var tr ode.Trajectory
	if err := os.Integrate(&tr, p, x0, t0, []float64{t1}); err != nil {
		return 0, tr.Len() - 1, err
	}
	// Jx at the autoProbeJx longest steps only: a step is stiff where h
	// is long against 1/||Jx||, and an evaluation of Jx can cost more
	// than the step (PKA, interpreted: 155 evaluations were 10% of a pbgen
	// sim run).
	ks := make([]int, tr.Len()-1)
	for k := range ks {
		ks[k] = k + 1
	}
	h := func(k int) float64 { return tr.T[k] - tr.T[k-1] }
	slices.SortStableFunc(ks, func(a, b int) int { return cmp.Compare(h(b), h(a)) })
	pat := m.JxPattern()
	jx := make([]float64, pat.NNZ())
	stiff := 0.0
	for _, k := range ks[:min(len(ks), autoProbeJx)] {
		m.Jx(jx, tr.T[k], tr.XAt(k), p)
		stiff = math.Max(stiff, h(k)*rowNormInf(pat, jx))
	}
	return stiff, tr.Len() - 1, nil
}

// linearJx reports whether Jx is the same at (t0, x0) and at a second,
// distinct time and state (t1, 1.5 x0 + 1): a network whose Jx does not
// depend on x or t (linear kinetics) has it so, a mass-action network
// with a bimolecular reaction or a saturating rate law does not.
func linearJx(m model.Model, p, x0 []float64, t0, t1 float64) bool {
	n := m.JxPattern().NNZ()
	a, b := make([]float64, n), make([]float64, n)
	x1 := make([]float64, len(x0))
	for i, v := range x0 {
		x1[i] = 1.5*v + 1
	}
	if !(t1 > t0) {
		t1 = t0 + 1
	}
	m.Jx(a, t0, x0, p)
	m.Jx(b, t1, x1, p)
	for q := range a {
		if a[q] != b[q] || math.IsNaN(a[q]) {
			return false
		}
	}
	return true
}

// rowNormInf is the largest absolute row sum of the sparse matrix with
// pattern pat and values v.
func rowNormInf(pat *model.Pattern, v []float64) float64 {
	n := 0.0
	for i := 0; i < pat.Rows; i++ {
		r := 0.0
		for q := pat.RowPtr[i]; q < pat.RowPtr[i+1]; q++ {
			r += math.Abs(v[q])
		}
		n = math.Max(n, r)
	}
	return n
}
