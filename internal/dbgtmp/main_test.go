package dbg

import (
	"fmt"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/dae"
	"github.com/pbgen/pbgen/testsuite"
)

func TestDbg(t *testing.T) {
	sys, err := testsuite.Lower("/work/shared/sbml-test-suite/cases/01575/01575-sbml-l3v2.xml")
	if err != nil { t.Fatal(err) }
	for _, s := range sys.ODE.States { fmt.Println(s.Name, s.Rate, s.Init) }
	for _, e := range sys.ODE.Events { fmt.Println(e.Name, e.Trigger, e.Delay, e.Assign) }
	m, _ := interp.NewWithEvents(sys)
	r, err := dae.New(m)
	if err != nil { t.Fatal(err) }
	p := make([]float64, 0)
	x := []float64{3.5}
	rt := make([]float64, r.NumRoots())
	r.RootsTo(rt, 2.5, x, p)
	tr := make([]bool, 1)
	r.TriggersTo(tr, 2.5, []float64{3.7}, p)
	fmt.Println(rt, tr, r.NumEvents())
	sim, err := testsuite.SimulateModel(m, []float64{0,1,2,3,4}, nil)
	fmt.Println(sim, err)
}
