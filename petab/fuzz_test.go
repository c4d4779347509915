package petab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/symbolic"
)

// FuzzPEtab feeds arbitrary bytes to the TSV reader (and every typed table
// reader on what it parses, v1 and v2), to the YAML reader and to the
// formula parser: none may panic, and every error must name its file.
//
//	go test -run '^$' -fuzz FuzzPEtab -fuzztime 60s ./petab
func FuzzPEtab(f *testing.F) {
	for _, s := range []string{
		"parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\nk1\tlog10\t1e-3\t1e3\t1\t1\n",
		"conditionId\tk1\tA\nc0\t0.5\tNaN\nc1\tk2\t\n",
		"conditionId\ttargetId\ttargetValue\nc0\tA\ta + b\n",
		"observableId\tobservableFormula\tnoiseFormula\tobservableTransformation\nobs\tscale*A + observableParameter1_obs\tnoiseParameter1_obs\tlog\n",
		"observableId\tsimulationConditionId\tpreequilibrationConditionId\ttime\tmeasurement\tobservableParameters\tnoiseParameters\nobs\tc0\t\tinf\t1.5\t1;p\t0.1\n",
		"experimentId\ttime\tconditionId\ne1\t-inf\tc0\ne1\t0\tc1\n",
		"format_version: 1\nparameter_file: p.tsv\nproblems:\n- sbml_files: [m.xml]\n  condition_files: [c.tsv]\n  measurement_files: [m.tsv]\n  observable_files: [o.tsv]\n",
		"format_version: 2.0.0\nparameter_files: [p.tsv]\nmodel_files:\n  m: {location: m.xml, language: sbml}\nobservable_files: [o.tsv]\nmeasurement_files: [m.tsv]\n",
		"a\t\"b\tc\n1\t2\n", "\xef\xbb\xbfx\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		e := &errs{}
		if tab := parseTable("f.tsv", data, e); tab != nil {
			ts := []*table{tab}
			for _, v := range []int{1, 2} {
				readParameters(ts, v, e)
				readObservables(ts, v, e)
				readMeasurements(ts, v, e)
			}
			readConditionsV1(ts, e)
			readConditionsV2(ts, e)
			readExperiments(ts, e)
			readMappings(ts, e)
		}
		parseYAML("p.yaml", data, e)
		for _, x := range e.list {
			if x.File == "" || x.Msg == "" {
				t.Fatalf("error without file or message: %#v", x)
			}
		}
		if len(e.list) > MaxErrors {
			t.Fatalf("%d errors, more than MaxErrors", len(e.list))
		}
		if len(data) < 2000 {
			_, _ = symbolic.NewBuilder().ParsePEtab(string(data), nil)
		}
	})
}

// FuzzLoad replaces one table of the fixture problem with arbitrary text
// and loads it: the lowering (formulas, placeholders, conditions,
// experiments) must fail with errors, never panic.
//
//	go test -run '^$' -fuzz FuzzLoad -fuzztime 60s ./petab
func FuzzLoad(f *testing.F) {
	files := []string{"parameters.tsv", "conditions.tsv", "observables.tsv", "measurements.tsv", "problem.yaml"}
	for i, name := range files {
		data, err := os.ReadFile(filepath.Join("testdata/conv", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), string(data))
	}
	f.Add(uint8(2), "observableId\tobservableFormula\tnoiseFormula\nobs_a\tpiecewise(A, time > 1, log(B, 0))\tnoiseParameter1_obs_a*obs_a\nobs_b\tB^observableParameter1_obs_b\t1\n")
	f.Add(uint8(1), "conditionId\tA\tB\tcell\nc0\t1\tk1\t2\nc1\tNaN\tscale\t3\n")
	f.Fuzz(func(t *testing.T, which uint8, content string) {
		if len(content) > 1<<14 {
			return
		}
		dir := t.TempDir()
		for _, name := range append(files, "model.xml") {
			data, _ := os.ReadFile(filepath.Join("testdata/conv", name))
			os.WriteFile(filepath.Join(dir, name), data, 0o644)
		}
		os.WriteFile(filepath.Join(dir, files[int(which)%len(files)]), []byte(content), 0o644)
		p, err := Load(filepath.Join(dir, "problem.yaml"))
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatal(err)
		}
		if err == nil && (p.Model == nil || p.Objective == nil) {
			t.Fatal("no error, but no model or objective")
		}
	})
}
