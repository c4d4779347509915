//go:build cvodes

package cvodes

// #include "bridge.h"
import "C"

import (
	"errors"
	"fmt"
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
// initial step as the first output of CV_NORMAL does) and returns every
// accepted step, at most maxSteps; s0 is row-major nx x ns (nil: zeros).
// With tstops, the stop times are set in turn (CVodeSetStopTime), so that
// steps land on them as runtime/ode's BDF lands on output times. It is a
// diagnostic for comparing step sequences with runtime/ode's BDF, and
// allocates.
func (s *Solver) Trace(p, x0, s0 []float64, t0, tfirst, tend float64, tstops []float64, maxSteps int) ([]TraceStep, error) {
	if s.pb == nil {
		return nil, errors.New("cvodes: Trace on a closed Solver")
	}
	nx, ns := s.nx, s.ns
	if len(p) != s.np || len(x0) != nx || s0 != nil && len(s0) != nx*ns {
		return nil, fmt.Errorf("cvodes: Trace: p, x0 or s0 has the wrong length (want %d, %d and %d values)", s.np, nx, nx*ns)
	}
	copy(s.p, p)
	copy(s.x0, x0)
	if s0 == nil {
		clear(s.s0)
	} else {
		copy(s.s0, s0)
	}
	var s0p *C.double
	if ns > 0 {
		s0p = (*C.double)(unsafe.Pointer(&s.s0[0]))
	}
	s.cbErr = nil
	if flag := C.pbcv_trace_start(s.pb, C.double(t0), (*C.double)(unsafe.Pointer(&s.x0[0])), s0p); flag < 0 {
		return nil, s.flagError(flag, t0, math.NaN())
	}
	f := int(C.PBCV_TRACE_FIELDS)
	ele, ewt := make([]float64, nx), make([]float64, nx)
	var out []TraceStep
	t, k, tout := t0, 0, tfirst
	for t < tend && len(out) < maxSteps {
		for k < len(tstops) && tstops[k] <= t {
			k++
		}
		tstop, has := 0.0, C.int(0)
		if k < len(tstops) {
			tstop, has = tstops[k], 1
		}
		r := make([]float64, f+nx+nx*ns)
		flag := C.pbcv_trace_step(s.pb, C.double(tout), C.double(tstop), has,
			(*C.double)(unsafe.Pointer(&ele[0])), (*C.double)(unsafe.Pointer(&ewt[0])), (*C.double)(unsafe.Pointer(&r[0])))
		if flag < 0 {
			return out, s.flagError(flag, t, tend)
		}
		tout = tend
		t = r[0]
		out = append(out, TraceStep{T: r[0], H: r[1], Q: int(r[2]), Dsm: r[3], Nef: int(r[4]), NefS: int(r[5]),
			Nni: int(r[6]), NniS: int(r[7]), Ncf: int(r[8]), NcfS: int(r[9]), Setup: int(r[10]),
			HNext: r[11], QNext: int(r[12]), X: r[f : f+nx], S: r[f+nx:]})
	}
	return out, nil
}
