package events_test

import (
	"testing"

	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

var benchSink float64

// conversionBench times the refilling conversion model (an event every
// few time units) over [0, 50]: Solve alone, or SolveSens with meth.
func conversionBench(b *testing.B, meth sens.Method, withSens bool) {
	m := conversion(b, true)
	p := []float64{1.2, 0.3, 0.5, 0.4}
	ts := make([]float64, 101)
	for i := range ts {
		ts[i] = 0.5 * float64(i)
	}
	x0 := []float64{1, 0}
	b.ReportAllocs()
	nev := 0
	for b.Loop() {
		if withSens {
			r, err := events.SolveSens(m, p, x0, nil, ts, sensSet(meth))
			if err != nil {
				b.Fatal(err)
			}
			benchSink, nev = r.S[len(r.S)-1], len(r.Fired)
		} else {
			r, err := events.Solve(m, p, x0, ts, &events.Settings{ODE: &ode.Settings{RTol: 1e-10, ATol: 1e-12}})
			if err != nil {
				b.Fatal(err)
			}
			benchSink, nev = r.X[len(r.X)-1], len(r.Fired)
		}
	}
	b.ReportMetric(float64(nev), "events")
}

func BenchmarkConversionSolve(b *testing.B)    { conversionBench(b, 0, false) }
func BenchmarkConversionSensFS(b *testing.B)   { conversionBench(b, sens.FS, true) }
func BenchmarkConversionSensPBSR(b *testing.B) { conversionBench(b, sens.PBSR, true) }
func BenchmarkConversionSensExp(b *testing.B)  { conversionBench(b, sens.Exp, true) }
