package petab

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
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

// FuzzPandasTable checks the invariants of reading tables as pandas does
// (parseTable): it never panics; every error and warning, of the reader
// and of the typed table readers on what it read, names the file and a
// line within the input; an accepted table written canonically (quoted
// where pandas needs quotes) reads back as the same table without
// warnings; and filling short rows with trailing tabs up to the header's
// width changes nothing: not the table, its lines, errors or warnings.
//
//	go test -run '^$' -fuzz FuzzPandasTable -fuzztime 60s ./petab
func FuzzPandasTable(f *testing.F) {
	for _, s := range []string{
		"a\tb\tc\nx\t1\t2\ny\n", "\ufeffa\tb\r\nx\t1\r\n\r\n  \ny\r", "a\tb\n\"x\ty\"\t\"l1\nl2\"\"\"\n\"p\"q\t\n",
		"a\t\ta\ta.1\nx\n", "a\tb\nx\t1\t\ny\t2\n", "a\tb\nx\t\"1\n", "a \tb\n x \t 1 \n\t\n",
		"observableId\tsimulationConditionId\ttime\tmeasurement\nobs_a\tc0\t1\n obs_b\tc0\t 2 \t1\n",
		"parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\nk1\tlin\t0\t1\t0.5\t1\nk2\tlin\n",
		"conditionId\tk1\t\nc0\n", "#a\n#b\n", "\r\r\n\n", "x\xff\ty\n", "a\n\"\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		e := &errs{}
		tab := parseTable("f.tsv", data, e)
		accepted := tab != nil && len(e.list) == 0
		lines := physicalLines(data)
		inRange := func(l ErrorList) {
			for _, x := range l {
				if x.File != "f.tsv" || x.Msg == "" || x.Line < 0 || x.Line > lines {
					t.Fatalf("%q (line %d of %d lines)", x.Error(), x.Line, lines)
				}
			}
		}
		inRange(e.list)
		inRange(e.warn)
		padded := padShortRows(data)
		ep := &errs{}
		tp := parseTable("f.tsv", padded, ep)
		if !slices.Equal(errorStrings(ep.list), errorStrings(e.list)) || !slices.Equal(errorStrings(ep.warn), errorStrings(e.warn)) {
			t.Fatalf("short rows filled with tabs:\n%q\n%q %q\nbefore:\n%q\n%q %q", padded, errorStrings(ep.list), errorStrings(ep.warn), data, errorStrings(e.list), errorStrings(e.warn))
		}
		if (tp == nil) != (tab == nil) || tab != nil && !sameTable(tab, tp, true) {
			t.Fatalf("short rows filled with tabs changed the table:\n%q\n%q\n%q", padded, tab.rows, tp.rows)
		}
		if tab == nil {
			return
		}
		ts := []*table{tab}
		readParameters(ts, 1, e)
		readObservables(ts, 1, e)
		readMeasurements(ts, 1, e)
		readConditionsV1(ts, e)
		readConditionsV2(ts, e)
		readExperiments(ts, e)
		inRange(e.list)
		inRange(e.warn)
		if !accepted {
			return
		}
		canon := writeCanonical(tab)
		ec := &errs{}
		tc := parseTable("f.tsv", canon, ec)
		if tc == nil || len(ec.list) > 0 || len(ec.warn) > 0 || !sameTable(tab, tc, false) {
			t.Fatalf("canonical form does not read back:\n%q\n%q %q\n%q\n%q", canon, errorStrings(ec.list), errorStrings(ec.warn), tab.rows, rowsOf(tc))
		}
	})
}

func rowsOf(t *table) [][]string {
	if t == nil {
		return nil
	}
	return t.rows
}

// physicalLines counts the lines of data: LF, CRLF and lone CR end one.
func physicalLines(data []byte) int {
	n := 1
	for i, c := range data {
		if c == '\n' || c == '\r' && (i+1 == len(data) || data[i+1] != '\n') {
			n++
		}
	}
	return n
}

// padShortRows appends to each data record shorter than the header the
// tabs that make it as wide, using the scanner's record ends.
func padShortRows(data []byte) []byte {
	body, bom := bytes.CutPrefix(data, []byte("\xef\xbb\xbf"))
	s := tsvScanner{data: body, line: 1}
	var out []byte
	if bom {
		out = append(out, "\xef\xbb\xbf"...)
	}
	last, width := 0, -1
	for {
		rec, ok := s.next()
		if !ok {
			break
		}
		if width < 0 {
			width = len(rec.fields)
			continue
		}
		if k := width - len(rec.fields); k > 0 {
			out = append(out, body[last:rec.end]...)
			out = append(out, strings.Repeat("\t", k)...)
			last = rec.end
		}
	}
	return append(out, body[last:]...)
}

// sameTable compares header, rows (up to their trailing empty cells, so
// that a wide header over many short rows costs no memory here either)
// and (if lines) the rows' lines.
func sameTable(a, b *table, lines bool) bool {
	cut := func(row []string) []string {
		for len(row) > 0 && row[len(row)-1] == "" {
			row = row[:len(row)-1]
		}
		return row
	}
	return slices.Equal(a.header, b.header) && slices.EqualFunc(a.rows, b.rows, func(x, y []string) bool { return slices.Equal(cut(x), cut(y)) }) &&
		(!lines || slices.Equal(a.lines, b.lines) && a.headerLine == b.headerLine)
}

// writeCanonical writes a table as plain TSV, quoting a field where pandas
// would otherwise read it differently: tabs, line ends or a leading quote
// inside, or an empty single field (a blank line).
func writeCanonical(t *table) []byte {
	var b bytes.Buffer
	for _, rec := range append([][]string{t.header}, t.rows...) {
		for j, f := range rec {
			if j > 0 {
				b.WriteByte('\t')
			}
			if strings.ContainsAny(f, "\t\r\n") || strings.HasPrefix(f, `"`) || len(rec) == 1 && f == "" {
				f = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
			}
			b.WriteString(f)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}
