//go:build cvodes

package cvodes

/*
#cgo CFLAGS: -I/usr/include/suitesparse
#cgo LDFLAGS: -lsundials_cvodes -lsundials_nvecserial -lsundials_sunlinsoldense -lsundials_sunmatrixdense -lsundials_sunlinsolklu -lsundials_sunmatrixsparse -lsundials_sunnonlinsolfixedpoint -lklu -lm
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"math"
	"runtime/cgo"
	"slices"
	"unsafe"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// Options configure a Solver. The zero value gives the tolerances of the
// Peano-Baker paper's CVODES runs.
type Options struct {
	// RTol is the relative tolerance of states (and, through
	// CVodeSensEEtolerances, of sensitivities); 0 means 1e-5.
	RTol float64
	// ATol is the scalar absolute tolerance; 0 means 1e-6.
	ATol float64
	// MaxSteps bounds the steps CVODES takes to reach one output time;
	// 0 means CVODES's default (500), a negative value means no bound.
	MaxSteps int
	// ErrCon includes the sensitivities in the local error test
	// (CVodeSetSensErrCon). Without it the step size is chosen from the
	// states alone and the sensitivities only have to converge.
	ErrCon bool
	// PBar are the scales of the sensitivity columns (CVodeSetSensParams'
	// pbar, one per column in Params order, non-zero): with
	// CVodeSensEEtolerances the absolute tolerance of column j is
	// ATol/|PBar[j]|. nil means CVODES's default, 1. runtime/sens's
	// default (ScaleParams) is PBar = |p| (1 where p_j = 0).
	PBar []float64
	// Sens turns on forward sensitivities, with respect to Params.
	Sens bool
	// Params are the parameters of the sensitivity columns, in this order
	// (indices into the model's parameters, without repeats); nil means all.
	Params []int
	// Linear selects the matrix and linear solver of the Newton systems
	// I - gamma Jx; CVODES's staggered corrector solves the sensitivity
	// systems with the same solver and factorisation. The zero value is
	// Dense.
	Linear Linear
	// Adams selects CV_ADAMS (variable-order Adams-Moulton up to order
	// 12) with fixed-point iteration (SUNNonlinSol_FixedPoint, and
	// SUNNonlinSol_FixedPointSens for the staggered sensitivities)
	// instead of the BDF with Newton iteration: the reference for
	// runtime/ode's Adams. Linear is then not used.
	Adams bool
}

// Linear is a configuration of CVODES's linear solver.
type Linear int

const (
	// Dense is SUNDIALS's dense SUNMatrix with its dense LU
	// (SUNLinSol_Dense): O(nx^2) memory and O(nx^3) per factorisation.
	Dense Linear = iota
	// KLU is a sparse SUNMatrix in CSR with the pattern of Jx plus the
	// diagonal, factorised by SuiteSparse's KLU (SUNLinSol_KLU, COLAMD
	// ordering, symbolic analysis once per Solver and numeric
	// refactorisations after it).
	KLU
)

func (l Linear) String() string {
	switch l {
	case Dense:
		return "dense"
	case KLU:
		return "KLU"
	}
	return fmt.Sprintf("Linear(%d)", int(l))
}

// Stats are CVODES's counters. Solver.Stats sums them over all solves,
// Solver.LastStats has those of the last solve.
type Stats struct {
	Solves          int // number of Solve calls counted
	Steps           int // internal steps (CVodeGetNumSteps)
	FEvals          int // state right-hand side evaluations
	JacEvals        int // analytic Jacobian evaluations
	LUs             int // linear solver setups = dense LU factorisations
	ErrTestFails    int // state local error test failures
	NonlinIters     int // state Newton iterations
	NonlinConvFails int // state Newton convergence failures
	SensFEvals      int // calls of the sensitivity right-hand side (all np at once)
	FEvalsSens      int // state right-hand side calls made for sensitivities (0: fS is analytic)
	SensErrFails    int // sensitivity local error test failures (ErrCon only)
	SensNonlinIters int // staggered sensitivity Newton iterations
	SensConvFails   int // staggered sensitivity Newton convergence failures
}

func (s *Stats) add(o Stats) {
	s.Solves += o.Solves
	s.Steps += o.Steps
	s.FEvals += o.FEvals
	s.JacEvals += o.JacEvals
	s.LUs += o.LUs
	s.ErrTestFails += o.ErrTestFails
	s.NonlinIters += o.NonlinIters
	s.NonlinConvFails += o.NonlinConvFails
	s.SensFEvals += o.SensFEvals
	s.FEvalsSens += o.FEvalsSens
	s.SensErrFails += o.SensErrFails
	s.SensNonlinIters += o.SensNonlinIters
	s.SensConvFails += o.SensConvFails
}

// sub subtracts o from s.
func (s *Stats) sub(o Stats) {
	s.Solves -= o.Solves
	s.Steps -= o.Steps
	s.FEvals -= o.FEvals
	s.JacEvals -= o.JacEvals
	s.LUs -= o.LUs
	s.ErrTestFails -= o.ErrTestFails
	s.NonlinIters -= o.NonlinIters
	s.NonlinConvFails -= o.NonlinConvFails
	s.SensFEvals -= o.SensFEvals
	s.FEvalsSens -= o.FEvalsSens
	s.SensErrFails -= o.SensErrFails
	s.SensNonlinIters -= o.SensNonlinIters
	s.SensConvFails -= o.SensConvFails
}

// Error is a failure reported by SUNDIALS.
type Error struct {
	Op    string  // the SUNDIALS function that failed, e.g. "CVode"
	Flag  int     // its return flag
	Name  string  // the flag's name, e.g. "CV_TOO_MUCH_WORK"
	T     float64 // the time reached (the initial time if no step was taken)
	Tout  float64 // the output time being computed, NaN outside CVode
	Msg   string  // CVODES's last error message, if any
	Cause error   // a panic recovered from the model during a callback
}

func (e *Error) Error() string {
	s := fmt.Sprintf("cvodes: %s failed with %s (%d) at t=%g", e.Op, e.Name, e.Flag, e.T)
	if !math.IsNaN(e.Tout) {
		s += fmt.Sprintf(" (tout %g)", e.Tout)
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

// Unwrap returns the recovered panic, if any.
func (e *Error) Unwrap() error { return e.Cause }

// Solver computes x(t) and S(t) of one model with one CVODES memory block.
// It is not safe for concurrent use: use one Solver per goroutine. Close
// releases the C memory; a Solver that is not closed leaks it.
type Solver struct {
	m      model.Model
	opt    Options
	nx, np int
	ns     int // len(params) with Sens, else 0
	params []int

	pb *C.pbcv
	h  cgo.Handle

	// State the callbacks read; C memory is wrapped, Go memory preallocated.
	p            []float64
	jxPat, jpPat *model.Pattern
	jx, jp       []float64
	// Jp by column (parameter): entries jpK[q] (value index) at rows
	// jpRow[q], q in [jpColPtr[j], jpColPtr[j+1]).
	jpColPtr, jpRow, jpK []int
	// KLU: the CSR pattern of Jx plus the diagonal in SUNDIALS's index
	// type, and the position in it of each Jx value.
	mRowPtr, mColIdx []int64
	jxPos            []int

	x0, s0 []float64
	s0full []float64 // InitialSens, nx x np, when params is not all of them
	pbar   []float64 // Options.PBar, copied
	raw    [C.PBCV_NSTATS]C.long
	cbErr  error // first panic recovered in a callback during this solve

	total, last Stats
}

// New creates the CVODES memory for m once: the N_Vectors, the dense
// matrix and linear solver, and with opt.Sens the staggered sensitivity
// module. Invalid options (negative tolerances) panic; an invalid model
// pattern or a SUNDIALS failure is returned as an error.
func New(m model.Model, opt Options) (*Solver, error) {
	if m == nil {
		panic("cvodes: nil model")
	}
	if opt.RTol < 0 || opt.ATol < 0 || math.IsNaN(opt.RTol) || math.IsNaN(opt.ATol) {
		panic("cvodes: negative or NaN tolerance")
	}
	if opt.Linear != Dense && opt.Linear != KLU {
		panic("cvodes: unknown linear solver " + opt.Linear.String())
	}
	if opt.RTol == 0 {
		opt.RTol = 1e-5
	}
	if opt.ATol == 0 {
		opt.ATol = 1e-6
	}
	nx, np := model.NumStates(m), model.NumParams(m)
	if nx == 0 {
		return nil, fmt.Errorf("cvodes: model %q has no states", m.Name())
	}
	jxPat, jpPat := m.JxPattern(), m.JpPattern()
	if err := jxPat.Validate(); err != nil {
		return nil, fmt.Errorf("cvodes: model %q: Jx pattern: %w", m.Name(), err)
	}
	if err := jpPat.Validate(); err != nil {
		return nil, fmt.Errorf("cvodes: model %q: Jp pattern: %w", m.Name(), err)
	}
	if jxPat.Rows != nx || jxPat.Cols != nx || jpPat.Rows != nx || jpPat.Cols != np {
		return nil, fmt.Errorf("cvodes: model %q: Jx pattern %dx%d, Jp pattern %dx%d, want %dx%d and %dx%d",
			m.Name(), jxPat.Rows, jxPat.Cols, jpPat.Rows, jpPat.Cols, nx, nx, nx, np)
	}
	s := &Solver{
		m: m, opt: opt, nx: nx, np: np,
		p:     make([]float64, np),
		jxPat: jxPat, jpPat: jpPat,
		jx: make([]float64, jxPat.NNZ()),
		jp: make([]float64, jpPat.NNZ()),
		x0: make([]float64, nx),
	}
	if opt.Sens {
		s.params = make([]int, 0, np)
		if opt.Params == nil {
			for j := 0; j < np; j++ {
				s.params = append(s.params, j)
			}
		} else {
			seen := make([]bool, np)
			for _, j := range opt.Params {
				if j < 0 || j >= np || seen[j] {
					panic(fmt.Sprintf("cvodes: sensitivity parameter %d out of range or repeated (the model has %d)", j, np))
				}
				seen[j] = true
				s.params = append(s.params, j)
			}
			s.s0full = make([]float64, nx*np)
		}
		s.ns = len(s.params)
		s.s0 = make([]float64, nx*s.ns)
		s.jpColPtr, s.jpRow, s.jpK = byColumn(jpPat)
	}
	nnz := 0 // dense
	if opt.Linear == KLU {
		s.mRowPtr, s.mColIdx, s.jxPos = withDiagonal(jxPat)
		nnz = len(s.mColIdx)
	}
	s.h = cgo.NewHandle(s)
	s.pb = C.pbcv_new()
	if s.pb == nil {
		s.h.Delete()
		return nil, &Error{Op: "calloc", Flag: int(C.CV_MEM_FAIL), Name: "CV_MEM_FAIL", Tout: math.NaN()}
	}
	errcon := C.int(0)
	if opt.ErrCon {
		errcon = 1
	}
	adams := C.int(0)
	if opt.Adams {
		adams = 1
	}
	var pbar *C.double
	if opt.Sens && opt.PBar != nil {
		if len(opt.PBar) != s.ns {
			s.Close()
			return nil, fmt.Errorf("cvodes: %d sensitivity scales PBar for %d sensitivity columns", len(opt.PBar), s.ns)
		}
		s.pbar = append([]float64(nil), opt.PBar...)
		pbar = (*C.double)(unsafe.Pointer(&s.pbar[0]))
	}
	flag := C.pbcv_init(s.pb, C.int(nx), C.int(s.ns), C.long(nnz), C.uintptr_t(s.h),
		C.double(opt.RTol), C.double(opt.ATol), C.long(opt.MaxSteps), errcon, pbar, adams)
	if flag < 0 {
		err := s.flagError(flag, 0, math.NaN())
		s.Close()
		return nil, err
	}
	return s, nil
}

// withDiagonal returns the CSR pattern of the square pattern p with every
// diagonal entry added, and the position in it of each entry of p.
func withDiagonal(p *model.Pattern) (rowPtr, colIdx []int64, pos []int) {
	n := p.Rows
	rowPtr = make([]int64, n+1)
	colIdx = make([]int64, 0, p.NNZ()+n)
	pos = make([]int, p.NNZ())
	for i := 0; i < n; i++ {
		diag := false
		for k := p.RowPtr[i]; k < p.RowPtr[i+1]; k++ {
			c := p.ColIdx[k]
			if !diag && c >= i {
				if c > i {
					colIdx = append(colIdx, int64(i))
				}
				diag = true
			}
			pos[k] = len(colIdx)
			colIdx = append(colIdx, int64(c))
		}
		if !diag {
			colIdx = append(colIdx, int64(i))
		}
		rowPtr[i+1] = int64(len(colIdx))
	}
	return rowPtr, colIdx, pos
}

// byColumn indexes a CSR pattern by column.
func byColumn(p *model.Pattern) (colPtr, row, k []int) {
	t, from := sparse.Transpose(p)
	return t.RowPtr, t.ColIdx, from
}

// Solve integrates from x(t0) = x0 with parameters p and writes the states
// at the output times tout into dstX (len(tout)*nx) and, when the Solver was
// made with Sens, the sensitivities into dstS (len(tout)*nx*ns, ns the
// number of sensitivity parameters; ignored otherwise, may be nil). S(t0) is
// the model's InitialSens(p) (its columns of Options.Params). The output
// times must be non-decreasing and not before t0; an output time equal to
// t0 gets the initial values. Solve allocates nothing on success.
//
// On failure Solve returns an *Error; the outputs before the failing time
// are written, the rest are unspecified, and the Solver stays usable.
func (s *Solver) Solve(p, x0 []float64, t0 float64, tout []float64, dstX, dstS []float64) error {
	return s.SolveFrom(p, x0, nil, t0, tout, dstX, dstS)
}

// SolveFrom is Solve with S(t0) = s0 (nx x ns row-major, the layout of
// dstS's blocks) instead of InitialSens(p); s0 nil means InitialSens(p).
// A PEtab experiment after pre-equilibration starts from a state and
// sensitivities that are not the model's initial values.
func (s *Solver) SolveFrom(p, x0, s0 []float64, t0 float64, tout []float64, dstX, dstS []float64) error {
	if s.pb == nil {
		panic("cvodes: Solve on a closed Solver")
	}
	nx, np, ns, nt := s.nx, s.np, s.ns, len(tout)
	if len(p) != np {
		panic("cvodes: p length mismatch")
	}
	if len(x0) != nx {
		panic("cvodes: x0 length mismatch")
	}
	if len(dstX) != nt*nx {
		panic("cvodes: dstX length mismatch")
	}
	if ns > 0 && len(dstS) != nt*nx*ns {
		panic("cvodes: dstS length mismatch")
	}
	if ns > 0 && s0 != nil && len(s0) != nx*ns {
		panic("cvodes: s0 length mismatch")
	}
	prev := t0
	for _, t := range tout {
		if !(t >= prev) || math.IsInf(t, 0) {
			panic("cvodes: output times must be finite, non-decreasing and not before t0")
		}
		prev = t
	}
	if nt == 0 {
		return nil
	}
	copy(s.p, p)
	copy(s.x0, x0)
	var s0p, dstSp *C.double
	if s.ns > 0 {
		switch {
		case s0 != nil:
			copy(s.s0, s0)
		case s.s0full == nil:
			s.m.InitialSens(s.s0, s.p)
		default:
			s.m.InitialSens(s.s0full, s.p)
			for i := 0; i < nx; i++ {
				for k, j := range s.params {
					s.s0[i*ns+k] = s.s0full[i*np+j]
				}
			}
		}
		s0p = (*C.double)(unsafe.Pointer(&s.s0[0]))
		dstSp = (*C.double)(unsafe.Pointer(&dstS[0]))
	}
	s.cbErr = nil
	flag := C.pbcv_solve(s.pb, C.double(t0),
		(*C.double)(unsafe.Pointer(&s.x0[0])), s0p,
		(*C.double)(unsafe.Pointer(&tout[0])), C.int(nt),
		(*C.double)(unsafe.Pointer(&dstX[0])), dstSp)
	s.readStats()
	if flag < 0 {
		tk := math.NaN()
		if k := int(s.pb.kfail); k >= 0 {
			tk = tout[k]
		}
		return s.flagError(flag, float64(s.pb.tcur), tk)
	}
	return nil
}

// flagError turns a negative SUNDIALS flag into an *Error.
func (s *Solver) flagError(flag C.int, t, tout float64) error {
	op := "unknown"
	if s.pb.where != nil {
		op = C.GoString(s.pb.where)
	}
	var cname *C.char
	switch op {
	case "CVodeSetLinearSolver", "CVodeSetJacFn", "CVodeGetNumJacEvals":
		cname = C.CVodeGetLinReturnFlagName(C.long(flag))
	default:
		cname = C.CVodeGetReturnFlagName(C.long(flag))
	}
	name := C.GoString(cname)
	C.free(unsafe.Pointer(cname))
	e := &Error{Op: op, Flag: int(flag), Name: name, T: t, Tout: tout, Cause: s.cbErr}
	if s.pb.err_code < 0 {
		e.Msg = C.GoString(&s.pb.err_msg[0])
	}
	s.cbErr = nil
	return e
}

// readStats reads CVODES's counters, which CVodeReInit resets, after a solve.
func (s *Solver) readStats() {
	s.last = s.counters()
	s.total.add(s.last)
}

// counters returns CVODES's counters since the last (re)initialisation,
// with Solves 1.
func (s *Solver) counters() Stats {
	if C.pbcv_stats(s.pb, &s.raw[0]) < 0 {
		// Only CV_MEM_NULL/CV_NO_SENS are possible, neither after New succeeded.
		panic("cvodes: reading CVODES statistics failed")
	}
	r := &s.raw
	return Stats{
		Solves:          1,
		Steps:           int(r[C.PBCV_NST]),
		FEvals:          int(r[C.PBCV_NFE]),
		JacEvals:        int(r[C.PBCV_NJE]),
		LUs:             int(r[C.PBCV_NSETUPS]),
		ErrTestFails:    int(r[C.PBCV_NETF]),
		NonlinIters:     int(r[C.PBCV_NNI]),
		NonlinConvFails: int(r[C.PBCV_NCFN]),
		SensFEvals:      int(r[C.PBCV_NFSE]),
		FEvalsSens:      int(r[C.PBCV_NFESENS]),
		SensErrFails:    int(r[C.PBCV_NETFS]),
		SensNonlinIters: int(r[C.PBCV_NNIS]),
		SensConvFails:   int(r[C.PBCV_NCFNS]),
	}
}

// Stats returns CVODES's counters summed over all solves since New.
func (s *Solver) Stats() Stats { return s.total }

// LastStats returns CVODES's counters of the last solve.
func (s *Solver) LastStats() Stats { return s.last }

// NumStates is the model's number of states.
func (s *Solver) NumStates() int { return s.nx }

// NumParams is the model's number of parameters.
func (s *Solver) NumParams() int { return s.np }

// SetPBar replaces the scales of the sensitivity columns (Options.PBar,
// one per column, non-zero and finite) for the next solves: a caller
// whose column scales change with p (runtime/objective's theta columns)
// sets them before each solve, as runtime/sens's ScaleParams takes them
// from p at each solve. A no-op without sensitivities.
func (s *Solver) SetPBar(pbar []float64) error {
	if s.ns == 0 {
		return nil
	}
	if len(pbar) != s.ns {
		return fmt.Errorf("cvodes: %d sensitivity scales PBar for %d sensitivity columns", len(pbar), s.ns)
	}
	for j, v := range pbar {
		if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("cvodes: sensitivity scale %d is %g: want non-zero and finite", j, v)
		}
	}
	if slices.Equal(s.pbar, pbar) {
		return nil
	}
	s.pbar = append(s.pbar[:0], pbar...)
	if flag := C.pbcv_set_pbar(s.pb, (*C.double)(unsafe.Pointer(&s.pbar[0]))); flag < 0 {
		return s.flagError(flag, math.NaN(), math.NaN())
	}
	return nil
}

// NumSens is the number of sensitivity columns (0 without Sens).
func (s *Solver) NumSens() int { return s.ns }

// Close frees the C memory. It is safe to call more than once.
func (s *Solver) Close() {
	if s.pb == nil {
		return
	}
	C.pbcv_free(s.pb)
	s.pb = nil
	s.h.Delete()
}
