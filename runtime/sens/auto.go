package sens

import (
	"errors"
	"fmt"
	"math"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// Auto chooses FS or PBSR per model and tolerance (Resolve): a user need
// not know which network is stiff. The crossovers below were measured with
// pbgen sim's defaults (rtol 1e-6, atol 1e-8, Check, FS with ErrCon) and
// the PEtab objective's on CaMKII, PKA, Chua and the 16 problems of the
// PEtab benchmark collection (docs/bench/auto-2026-12-08.txt, pbbench
// -auto). There FS was within 1.5 times the fastest method that meets the
// check everywhere, and PBSR up to 20 times slower than FS on the stiff
// networks (Lang_PLOSComputBiol2024, Laske_PLOSComputBiol2019, CaMKII),
// where its exponentials of h Jx need many squarings and Check's retries;
// PBSR was at most 1.4 times faster than FS, on small non-stiff networks
// with many columns (Okuonghae, Zhao, Raia). So Auto takes FS unless all
// of the tests below say PBSR, and never Exp, whose S is not controlled
// (it fails Check on CaMKII, Chua, Perelson and Rahman).
//
// Resolve's decision is deterministic: a function of the model, p, the
// start, the end time and the options, through the step sizes of a
// state-only probe integration, not of timings.
const (
	// AutoMinColumns is the fewest columns of S for which Auto takes
	// PBSR: FS costs about ns+1 state integrations, PBSR's exponentials
	// nx^3 each whatever ns, so with few columns FS wins (Chua, 2
	// columns: FS 1.8 ms, PBSR 5.4 ms with Check).
	AutoMinColumns = 8
	// AutoMaxStates is the most states for which Auto takes PBSR: the
	// dense exponentials cost O(nx^3) and, from SparseExpMinStates
	// states on, the sparse actions slow down with ||h Jx|| (see
	// SparseExpMinStates), while FS's sparse LU grows with nnz(Jx).
	// SalazarCavazos_MBoC2020 (75 states) was 2.6 times faster with FS in
	// its PEtab objective, and a held-out 500-state model took more than
	// 300 s with PBSR and Exp where FS took 3.8 s.
	AutoMaxStates = SparseExpMinStates - 1
	// AutoStiff is the stiffness, the largest h ||Jx||_inf over the
	// steps of the probe (the state alone by the BDF at the user's
	// tolerances), above which Auto takes FS: the BDF's steps are then
	// many times the explicit stability limit, and each exponential of
	// h Jx costs log2(h ||Jx||) squarings. Measured: CaMKII 5.1e3,
	// Raimundez 1.1e3, Laske 6.5e6, Liu 4.4e6, Lang 1.8e7 (all FS or a
	// tie); PKA 46, SalazarCavazos 56, Perelson 17 and below 6 on the
	// others (PBSR within 1.1 of FS or faster).
	AutoStiff = 500
	// autoProbeSteps bounds the probe: a state that needs more BDF steps
	// than this over the span is taken as stiff (FS), and the probe costs
	// at most this many state steps (1 to 15% of the solve it chooses for
	// on the measured networks).
	autoProbeSteps = 20000
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
// Auto for the measurements behind the rules), in this order: FS without
// columns, with fewer than AutoMinColumns, on a model with delays (only FS
// has them), with more than AutoMaxStates states; else a probe integrates
// the state alone by the BDF from st to t1 at opt's RTol and ATol and FS
// is chosen if its largest h ||Jx||_inf exceeds AutoStiff (or the probe
// failed or took more than 20000 steps: the solve itself will say why);
// else PBSR. opt.Method must be Auto (or zero, the default); the other
// options are validated as NewSolver would. The probe costs one state
// integration at the user's tolerances, 1 to 15% of the solve on the
// measured networks; a caller solving the same problem for many p
// (an objective) resolves once.
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
	stiff, steps, perr := probeStiffness(m, p, st, t1, c.rtol, c.atol)
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
// h ||Jx(t_k, x_k)||_inf over its accepted steps (h = t_k - t_{k-1}) and
// their number, stopping at autoProbeSteps.
func probeStiffness(m model.Model, p []float64, st *Start, t1 float64, rtol, atol float64) (float64, int, error) {
	nx := model.NumStates(m)
	var t0 float64
	var x0 []float64
	if st != nil {
		t0, x0 = st.T0, st.X0
	}
	if x0 == nil {
		x0 = make([]float64, nx)
		m.InitialState(x0, p)
	} else if len(x0) != nx {
		return 0, 0, invalid("Resolve: an initial state of %d values for a model of %d states", len(x0), nx)
	}
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
	pat := m.JxPattern()
	jx := make([]float64, pat.NNZ())
	stiff := 0.0
	for k := 1; k < tr.Len(); k++ {
		m.Jx(jx, tr.T[k], tr.XAt(k), p)
		stiff = math.Max(stiff, (tr.T[k]-tr.T[k-1])*rowNormInf(pat, jx))
	}
	return stiff, tr.Len() - 1, nil
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
