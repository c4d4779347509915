package camkiipetab_test

import (
	"fmt"
	"log"

	"github.com/pbgen/pbgen/generated/camkiipetab"
	"github.com/pbgen/pbgen/runtime/objective"
)

// Example evaluates the shipped CaMKII problem at its nominal point from
// the generated model and the embedded data alone: what an optimiser or a
// sampler links, without the PEtab files, parser or symbolic. One
// objective per goroutine; Eval reuses its workspaces and out's slices.
func Example() {
	o, err := objective.New(camkiipetab.New(), camkiipetab.Problem(), &objective.Options{Grad: true, FIM: true})
	if err != nil {
		log.Fatal(err)
	}
	defer o.Close()
	theta := o.Nominal() // on the parameters' scales (log10 here)
	var out objective.Result
	if err := o.Eval(theta, &out); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d estimated parameters %v, %d data\n", len(theta), o.Params()[:2], o.NumData())
	fmt.Printf("llh %.1f, chi2 %.1f, %d gradient entries, %dx%d FIM\n", out.LLH, out.Chi2, len(out.Grad), len(theta), len(out.FIM)/len(theta))
	// Output:
	// 7 estimated parameters [kf__CaM__Ca KD__CaM__Ca], 66 data
	// llh -121.2, chi2 63.0, 7 gradient entries, 7x7 FIM
}
