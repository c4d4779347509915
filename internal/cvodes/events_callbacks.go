//go:build cvodes

package cvodes

/*
#include <stdint.h>
*/
import "C"

import "github.com/pbgen/pbgen/runtime/model"

//export pbcvGoRoots
func pbcvGoRoots(h C.uintptr_t, t C.double, y, gout *C.double) (ret C.int) {
	s := solverOf(h)
	defer s.recoverTo(&ret, "RootsTo", t)
	ev := s.m.(model.Events) // NewEvents checked it
	g := cSlice(gout, ev.NumRoots())
	ev.RootsTo(g, float64(t), cSlice(y, s.nx), s.p)
	return cbOK
}
