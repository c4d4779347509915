package objective_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// TestAutoResolvedOnce checks that Method sens.Auto is resolved by New:
// on the abc problem (three experiments, two pre-equilibrated, 7 thetas)
// it is FS (fewer than sens.AutoMinColumns columns), the objective says
// so (Method, Choice), and its llh, gradient and FIM are
// bit for bit those of an FS objective, at the nominal point and at a
// second one (the method does not change with theta).
func TestAutoResolvedOnce(t *testing.T) {
	opt := func(m sens.Method) *objective.Options {
		return &objective.Options{Method: m, Grad: true, FIM: true}
	}
	auto, err := objective.New(newABC(), abcProblem(), opt(sens.Auto))
	if err != nil {
		t.Fatal(err)
	}
	defer auto.Close()
	fs, err := objective.New(newABC(), abcProblem(), opt(sens.FS))
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	if ch := auto.Choice(); auto.Method() != sens.FS || ch.Method != sens.FS || ch.NS != 7 || !strings.Contains(ch.Reason, "7 columns") {
		t.Errorf("Auto resolved to %v (%+v), want FS by the column rule (7 thetas)", auto.Method(), ch)
	}
	if fs.Method() != sens.FS || fs.Choice() != (sens.Choice{}) {
		t.Errorf("FS objective: Method %v, Choice %+v", fs.Method(), fs.Choice())
	}
	th := auto.Nominal()
	for k := 0; k < 2; k++ {
		var a, b objective.Result
		if err := auto.Eval(th, &a); err != nil {
			t.Fatal(err)
		}
		if err := fs.Eval(th, &b); err != nil {
			t.Fatal(err)
		}
		if a.LLH != b.LLH || !slices.Equal(a.Grad, b.Grad) || !slices.Equal(a.FIM, b.FIM) {
			t.Errorf("point %d: Auto llh %v grad %v, FS llh %v grad %v", k, a.LLH, a.Grad, b.LLH, b.Grad)
		}
		for i := range th {
			th[i] += 0.1
		}
	}
}
