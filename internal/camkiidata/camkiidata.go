// Package camkiidata simulates the measurements of the CaMKII PEtab problem
// shipped in networks/petab/CaMKII: the generated CaMKII model at its default
// parameters, solved by FS at rtol 1e-10, observed at fixed times in two
// calcium conditions, with Gaussian noise of the documented standard
// deviations drawn from a PCG generator with a fixed seed. The data file is
// a product of this code; TestMeasurementsFresh keeps the two in step.
package camkiidata

import (
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/runtime/sens"
)

// Seed is the noise generator's seed (PCG state and stream).
var Seed = [2]uint64{2026, 11}

// Times are the observation times: CaMKII's calcium response happens in the
// first seconds of the paper's 600 s span.
var Times = []float64{0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10}

// Condition is a PEtab condition: a value of the model's Ca_set.
type Condition struct {
	ID    string
	CaSet float64
}

// Conditions of the problem (conditions.tsv).
var Conditions = []Condition{{"Ca_high", 175.8}, {"Ca_low", 80}}

// Observable is a sum of states with the standard deviation of its noise
// (observables.tsv, parameters.tsv).
type Observable struct {
	ID      string
	States  []string
	NoiseID string
	Sigma   float64
}

// Observables of the problem.
var Observables = []Observable{
	{"obs_CaM_Ca1", []string{"CaM_Ca1"}, "sd_CaM_Ca1", 5},
	{"obs_CaM_Ca2", []string{"CaM_Ca2"}, "sd_CaM_Ca2", 0.5},
	{"obs_CaMKII_CaM", []string{"CaMKII_CaM", "CaMKII_CaM_Ca1", "CaMKII_CaM_Ca2", "CaMKII_CaM_Ca3", "CaMKII_CaM_Ca4"}, "sd_CaMKII_CaM", 1.5},
}

// Write simulates the measurements and writes them as a PEtab measurement
// table.
func Write(w io.Writer) error {
	m := camkii.New()
	p := make([]float64, camkii.NumParams)
	m.DefaultParams(p)
	ca := index(m.ParamNames(), "Ca_set")
	states := m.StateNames()
	rng := rand.New(rand.NewPCG(Seed[0], Seed[1]))
	ts := append([]float64{0}, Times...)
	if _, err := fmt.Fprintln(w, "observableId\tsimulationConditionId\tmeasurement\ttime\tnoiseParameters"); err != nil {
		return err
	}
	for _, c := range Conditions {
		p[ca] = c.CaSet
		res, err := sens.Solve(m, p, ts, &sens.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12})
		if err != nil {
			return fmt.Errorf("camkiidata: condition %s: %w", c.ID, err)
		}
		for _, o := range Observables {
			for k, t := range Times {
				x := res.XAt(k + 1)
				y := 0.0
				for _, s := range o.States {
					y += x[index(states, s)]
				}
				y += o.Sigma * rng.NormFloat64()
				if _, err := fmt.Fprintf(w, "%s\t%s\t%.6g\t%g\t%s\n", o.ID, c.ID, y, t, o.NoiseID); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func index(names []string, id string) int {
	for i, n := range names {
		if n == id {
			return i
		}
	}
	panic("camkiidata: no " + id + " in the CaMKII model")
}
