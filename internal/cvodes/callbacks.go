//go:build cvodes

package cvodes

/*
#include <stdint.h>
*/
import "C"

import (
	"fmt"
	"math"
	"runtime/cgo"
	"unsafe"

	"github.com/pbgen/pbgen/runtime/sparse"
)

// Return values of the callbacks, as CVODES reads them.
const (
	cbOK          = 0
	cbRecoverable = 1  // CVODES retries with a smaller step
	cbFatal       = -1 // CVODES stops and returns a *_FAIL flag
)

// The callbacks wrap C arrays as Go slices without copying or allocating.
// They must not keep those slices after returning.

func solverOf(h C.uintptr_t) *Solver { return cgo.Handle(h).Value().(*Solver) }

func cSlice(p *C.double, n int) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(p)), n)
}

// recoverTo turns a panic in the model into a fatal callback failure whose
// cause Solve reports.
func (s *Solver) recoverTo(ret *C.int, where string, t C.double) {
	if r := recover(); r != nil {
		if s.cbErr == nil {
			s.cbErr = fmt.Errorf("model %q panicked in %s at t=%g: %v", s.m.Name(), where, float64(t), r)
		}
		*ret = cbFatal
	}
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

//export pbcvGoRhs
func pbcvGoRhs(h C.uintptr_t, t C.double, y, ydot *C.double) (ret C.int) {
	s := solverOf(h)
	defer s.recoverTo(&ret, "F", t)
	dst := cSlice(ydot, s.nx)
	s.m.F(dst, float64(t), cSlice(y, s.nx), s.p)
	if !allFinite(dst) {
		return cbRecoverable
	}
	return cbOK
}

//export pbcvGoJac
func pbcvGoJac(h C.uintptr_t, t C.double, y, jac *C.double) (ret C.int) {
	s := solverOf(h)
	defer s.recoverTo(&ret, "Jx", t)
	nx := s.nx
	s.m.Jx(s.jx, float64(t), cSlice(y, nx), s.p)
	if !allFinite(s.jx) {
		return cbRecoverable
	}
	// Column-major nx x nx: element (i, c) at c*nx+i.
	sparse.CSR{Pat: s.jxPat, Val: s.jx}.ScatterColMajorTo(cSlice(jac, nx*nx))
	return cbOK
}

//export pbcvGoJacSparse
func pbcvGoJacSparse(h C.uintptr_t, t C.double, y, data *C.double, rowPtr, colIdx *C.int64_t) (ret C.int) {
	s := solverOf(h)
	defer s.recoverTo(&ret, "Jx", t)
	nx := s.nx
	s.m.Jx(s.jx, float64(t), cSlice(y, nx), s.p)
	if !allFinite(s.jx) {
		return cbRecoverable
	}
	nnz := len(s.mColIdx)
	copy(unsafe.Slice((*int64)(unsafe.Pointer(rowPtr)), nx+1), s.mRowPtr)
	copy(unsafe.Slice((*int64)(unsafe.Pointer(colIdx)), nnz), s.mColIdx)
	v := cSlice(data, nnz)
	clear(v)
	for k, q := range s.jxPos {
		v[q] = s.jx[k]
	}
	return cbOK
}

//export pbcvGoSensRhs
func pbcvGoSensRhs(h C.uintptr_t, t C.double, y *C.double, ys, ysdot **C.double) (ret C.int) {
	s := solverOf(h)
	defer s.recoverTo(&ret, "sensitivity right-hand side", t)
	nx, ns := s.nx, s.ns
	yv := cSlice(y, nx)
	s.m.Jx(s.jx, float64(t), yv, s.p)
	s.m.Jp(s.jp, float64(t), yv, s.p)
	if !allFinite(s.jx) || !allFinite(s.jp) {
		return cbRecoverable
	}
	ysv := unsafe.Slice(ys, ns)
	ysdotv := unsafe.Slice(ysdot, ns)
	jx, jp := sparse.CSR{Pat: s.jxPat, Val: s.jx}, s.jp
	for j, pj := range s.params[:ns] {
		sj := cSlice(ysv[j], nx)
		dj := cSlice(ysdotv[j], nx)
		clear(dj)
		jx.MulVecTo(dj, sj)
		for q := s.jpColPtr[pj]; q < s.jpColPtr[pj+1]; q++ {
			dj[s.jpRow[q]] += jp[s.jpK[q]]
		}
	}
	return cbOK
}
