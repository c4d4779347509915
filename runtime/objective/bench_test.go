package objective_test

import (
	"testing"

	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

var sink float64

func BenchmarkEvalFS(b *testing.B)        { benchEval(b, sens.FS, 1) }
func BenchmarkEvalPBSR(b *testing.B)      { benchEval(b, sens.PBSR, 1) }
func BenchmarkEvalExp(b *testing.B)       { benchEval(b, sens.Exp, 1) }
func BenchmarkEvalPBSRWork2(b *testing.B) { benchEval(b, sens.PBSR, 2) }

// benchEval times Eval (llh, gradient, FIM) of the abc problem: three
// experiments, two pre-equilibrated, steady-state data.
func benchEval(b *testing.B, meth sens.Method, workers int) {
	o, err := objective.New(newABC(), abcProblem(), &objective.Options{Method: meth, Grad: true, FIM: true, Workers: workers})
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	theta := o.Nominal()
	var r objective.Result
	if err := o.Eval(theta, &r); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := o.Eval(theta, &r); err != nil {
			b.Fatal(err)
		}
	}
	sink = r.LLH
	b.ReportMetric(float64(r.Stats.Steps), "steps/op")
	b.ReportMetric(float64(r.Stats.SteadyChunks), "chunks/op")
}
