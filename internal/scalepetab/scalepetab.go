// Package scalepetab writes PEtab problems on the synthetic scalenet
// networks, so that the PEtab path can be measured on models of the size
// of the large published problems (Chen_MSB2009: 500 states, 188
// estimated parameters) that the shared benchmark copy lacks (issue #24).
//
// # The problem
//
// The model is a scalenet chain (or grid) of about N states, written as
// SBML by scalenet.WriteSBML. Its rate constants are the PEtab parameters
// on log10 scale: every kon, the kcat of the even units, koff and krev are
// estimated, the kcat of the odd units are fixed, which gives 170
// estimated rate constants at N = 500. Each observable k reads three
// states of one unit u_k spread along the chain,
//
//	obs_k = observableParameter1_obs_k * (C_u + C_{u+1} + X_{u+2})
//
// with normal noise noiseParameter1_obs_k; the measurement table maps the
// placeholders to the estimated scale_k and sigma_k (8 observables: 16
// more parameters, 186 estimated in all), as the published problems map
// theirs. Each simulation condition c sets the initial substrate X0 and
// the enzyme of the middle unit; with Options.Preeq every condition is
// pre-equilibrated in the model's own initial state first.
//
// The data are the problem's own simulations at the nominal parameters
// (petab.Evaluate, llh alone, tight tolerances) plus sigma_k z with z a
// seeded standard normal: Write loads the problem twice, once to simulate
// and once to check that the written problem loads.
package scalepetab

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/sens"
)

// Options shape the problem. A zero field means its default.
type Options struct {
	N           int            // states (default 500; rounded as scalenet.New rounds)
	Shape       scalenet.Shape // default scalenet.Chain
	Conditions  int            // simulation conditions (default 4)
	Observables int            // observables (default 8)
	Times       []float64      // measurement times (default 0, 1, 2, 5, 10, 20, 30, 50, 75, 100)
	Preeq       bool           // pre-equilibrate every condition in the model's initial state
}

func (o *Options) defaults() Options {
	d := Options{N: 500, Conditions: 4, Observables: 8, Times: []float64{0, 1, 2, 5, 10, 20, 30, 50, 75, 100}}
	if o == nil {
		return d
	}
	if o.N > 0 {
		d.N = o.N
	}
	d.Shape = o.Shape
	if o.Conditions > 0 {
		d.Conditions = o.Conditions
	}
	if o.Observables > 0 {
		d.Observables = o.Observables
	}
	if len(o.Times) > 0 {
		d.Times = o.Times
	}
	d.Preeq = o.Preeq
	return d
}

// YAML is the problem file's name in the folder Write fills.
const YAML = "problem.yaml"

// Write writes the problem into dir (created if missing): model.xml,
// parameters.tsv, conditions.tsv, observables.tsv, measurements.tsv and
// problem.yaml, whose path it returns.
func Write(dir string, opt *Options) (string, error) {
	o := opt.defaults()
	net := scalenet.New(o.Shape, o.N)
	m := len(net.StateNames()) / 3
	if o.Observables > m-2 || o.Conditions < 1 {
		return "", fmt.Errorf("scalepetab: %d units cannot hold %d observables", m, o.Observables)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.Create(filepath.Join(dir, "model.xml"))
	if err != nil {
		return "", err
	}
	err = net.WriteSBML(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	files := map[string]string{
		"parameters.tsv":  parameters(net, o),
		"conditions.tsv":  conditions(m, o),
		"observables.tsv": observables(m, o),
		YAML: `format_version: 1
parameter_file: parameters.tsv
problems:
- condition_files:
  - conditions.tsv
  measurement_files:
  - measurements.tsv
  observable_files:
  - observables.tsv
  sbml_files:
  - model.xml
`,
	}
	// First pass: placeholder data, to simulate the observables.
	files["measurements.tsv"] = measurements(o, nil)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	path := filepath.Join(dir, YAML)
	sim, err := simulate(path)
	if err != nil {
		return "", err
	}
	rng := rand.New(rand.NewPCG(uint64(o.N), 24))
	data := make([]float64, len(sim))
	for i, v := range sim {
		data[i] = v + sigma(i/len(o.Times)%o.Observables)*rng.NormFloat64()
	}
	if err := os.WriteFile(filepath.Join(dir, "measurements.tsv"), []byte(measurements(o, data)), 0o644); err != nil {
		return "", err
	}
	if _, err := petab.Load(path); err != nil {
		return "", fmt.Errorf("scalepetab: the written problem does not load: %v", err)
	}
	return path, nil
}

// simulate returns the observables at the nominal parameters, one per
// measurement row.
func simulate(path string) ([]float64, error) {
	p, err := petab.Load(path)
	if err != nil {
		return nil, fmt.Errorf("scalepetab: %v", err)
	}
	th, err := p.Theta(nil)
	if err != nil {
		return nil, err
	}
	r, err := p.Evaluate(th, &petab.EvalOptions{Method: sens.FS, RTol: 1e-8, ATol: 1e-10})
	if err != nil {
		return nil, fmt.Errorf("scalepetab: simulating the data: %v", err)
	}
	for i, v := range r.Sim {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("scalepetab: measurement %d simulates to %g", i, v)
		}
	}
	return r.Sim, nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// parameters is the parameter table: the rate constants, then scale_k
// and sigma_k per observable.
func parameters(net *scalenet.Network, o Options) string {
	var b strings.Builder
	b.WriteString("parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\n")
	def := make([]float64, len(net.ParamNames()))
	net.DefaultParams(def)
	for i, id := range net.ParamNames() {
		est := 1
		if k, err := strconv.Atoi(strings.TrimPrefix(id, "kcat")); err == nil && strings.HasPrefix(id, "kcat") && k%2 == 1 {
			est = 0
		}
		fmt.Fprintf(&b, "%s\tlog10\t%s\t%s\t%s\t%d\n", id, num(def[i]/1000), num(def[i]*1000), num(def[i]), est)
	}
	for k := range o.Observables {
		fmt.Fprintf(&b, "scale_%d\tlog10\t0.001\t1000\t%s\t1\n", k, num(1+0.25*float64(k)))
	}
	for k := range o.Observables {
		fmt.Fprintf(&b, "sigma_%d\tlog10\t0.0001\t10\t%s\t1\n", k, num(sigma(k)))
	}
	return b.String()
}

// sigma is the nominal noise level of observable k.
func sigma(k int) float64 { return 0.05 + 0.01*float64(k) }

// unit is the unit observable k reads.
func unit(m, k, nobs int) int { return k * (m - 2) / nobs }

func observables(m int, o Options) string {
	var b strings.Builder
	b.WriteString("observableId\tobservableFormula\tobservableTransformation\tnoiseFormula\tnoiseDistribution\n")
	for k := range o.Observables {
		u := unit(m, k, o.Observables)
		fmt.Fprintf(&b, "obs_%d\tobservableParameter1_obs_%d * (C%d + C%d + X%d)\tlin\tnoiseParameter1_obs_%d\tnormal\n", k, k, u, u+1, u+2, k)
	}
	return b.String()
}

// conditions sets X0 and the middle unit's enzyme per condition; the
// pre-equilibration condition leaves every state at the model's value.
func conditions(m int, o Options) string {
	var b strings.Builder
	mid := m / 2
	fmt.Fprintf(&b, "conditionId\tX0\tE%d\n", mid)
	if o.Preeq {
		b.WriteString("preeq\tNaN\tNaN\n")
	}
	for c := range o.Conditions {
		fmt.Fprintf(&b, "c%d\t%s\t%s\n", c, num(1+float64(c)), num(0.1*float64(c+1)))
	}
	return b.String()
}

// measurements is the measurement table: every condition, observable and
// time, in that nesting; data nil writes placeholders.
func measurements(o Options, data []float64) string {
	var b strings.Builder
	bw := bufio.NewWriter(&b)
	bw.WriteString("observableId\tpreequilibrationConditionId\tsimulationConditionId\tmeasurement\ttime\tobservableParameters\tnoiseParameters\n")
	preeq := ""
	if o.Preeq {
		preeq = "preeq"
	}
	i := 0
	for c := range o.Conditions {
		for k := range o.Observables {
			for _, t := range o.Times {
				y := 1.0
				if data != nil {
					y = data[i]
				}
				i++
				fmt.Fprintf(bw, "obs_%d\t%s\tc%d\t%s\t%s\tscale_%d\tsigma_%d\n", k, preeq, c, num(y), num(t), k, k)
			}
		}
	}
	bw.Flush()
	return b.String()
}
