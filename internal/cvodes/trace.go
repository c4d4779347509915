//go:build cvodes

package cvodes

// #include "bridge.h"
import "C"

import (
	"math"
	"unsafe"
)

// TraceStep is one accepted CVODES step, as Trace records it.
type TraceStep struct {
	T, H  float64 // the step's end and size
	Q     int     // its order
	Dsm   float64 // weighted RMS norm of the state's local error estimate (tq[2] acor)
	Nef   int     // cumulative state error test failures
	NefS  int     // cumulative sensitivity error test failures
	Nni   int     // cumulative state Newton iterations
	NniS  int     // cumulative sensitivity Newton iterations
	Ncf   int     // cumulative state convergence failures
	NcfS  int     // cumulative sensitivity convergence failures
	Setup int     // cumulative linear solver setups
	HNext float64 // the step CVODES will try next
	QNext int     // and its order
	X, S  []float64
}

// Trace integrates from (t0, x0, s0) to tend one step at a time
// (CV_ONE_STEP, the first call with tout = tfirst, which bounds the
// initial step as the first output of CV_NORMAL does) and returns every accepted step; with tstops, the stop
// times are set in turn so that steps land on them. It is a diagnostic for
// comparing step sequences with pbgen's BDF and allocates.
func (s *Solver) Trace(p, x0, s0 []float64, t0, tfirst, tend float64, tstops []float64, maxSteps int) ([]TraceStep, error) {
	copy(s.p, p)
	copy(s.x0, x0)
	nx, ns := s.nx, s.ns
	if s0 == nil {
		s0 = make([]float64, nx*ns)
	}
	s.s0 = append(s.s0[:0], s0...)
	width := int(C.PBCV_TRACE_FIELDS) + nx + nx*ns
	rec := make([]float64, maxSteps*width)
	var s0p, tsp *C.double
	if ns > 0 {
		s0p = (*C.double)(unsafe.Pointer(&s.s0[0]))
	}
	if len(tstops) > 0 {
		tsp = (*C.double)(unsafe.Pointer(&tstops[0]))
	}
	s.cbErr = nil
	n := C.pbcv_trace(s.pb, C.double(t0), (*C.double)(unsafe.Pointer(&s.x0[0])), s0p,
		C.double(tfirst), C.double(tend), tsp, C.int(len(tstops)), C.int(maxSteps), (*C.double)(unsafe.Pointer(&rec[0])))
	if n < 0 {
		return nil, s.flagError(n, math.NaN(), tend)
	}
	out := make([]TraceStep, int(n))
	for k := range out {
		r := rec[k*width : (k+1)*width]
		f := int(C.PBCV_TRACE_FIELDS)
		out[k] = TraceStep{T: r[0], H: r[1], Q: int(r[2]), Dsm: r[3], Nef: int(r[4]), NefS: int(r[5]),
			Nni: int(r[6]), NniS: int(r[7]), Ncf: int(r[8]), NcfS: int(r[9]), Setup: int(r[10]),
			HNext: r[11], QNext: int(r[12]),
			X: r[f : f+nx], S: r[f+nx:]}
	}
	return out, nil
}
