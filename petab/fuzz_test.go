package petab

import (
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
