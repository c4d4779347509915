package camkiipetab_test

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/generated/camkiipetab"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// The adjoint gradient of the compiled problem (generated model, embedded
// data) agrees with FS at rtol 1e-12, and its Eval allocates nothing after
// the first. At rtol 1e-10 the adjoint (whose forward pass takes the
// state's steps alone) is 1.2e-6 off in dllh/dKD__CaM_Ca1__Ca
// (-1.45580474 against -1.45580301 from FS with S in its error test,
// which agrees with every method at rtol 1e-12), as FS without S in its
// error test is (-1.45580470).
func TestAdjointGenerated(t *testing.T) {
	mk := func(g objective.GradMethod) *objective.Objective {
		o, err := objective.New(camkiipetab.New(), camkiipetab.Problem(), &objective.Options{Method: sens.FS, RTol: 1e-12, ATol: 1e-14, Grad: true, Gradient: g})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	fs, ad := mk(objective.GradForward), mk(objective.GradAdjoint)
	defer fs.Close()
	defer ad.Close()
	th := fs.Nominal()
	var rf, ra objective.Result
	if err := fs.Eval(th, &rf); err != nil {
		t.Fatal(err)
	}
	if err := ad.Eval(th, &ra); err != nil {
		t.Fatal(err)
	}
	for a, g := range rf.Grad {
		if math.Abs(ra.Grad[a]-g) > 1e-7*(1+math.Abs(g)) {
			t.Errorf("%s: adjoint %.12g, FS %.12g", fs.Params()[a], ra.Grad[a], g)
		}
	}
	if n := testing.AllocsPerRun(3, func() { _ = ad.Eval(th, &ra) }); n != 0 {
		t.Errorf("%v allocations per adjoint Eval", n)
	}
}
