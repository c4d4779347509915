package petab

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
	"github.com/pbgen/pbgen/runtime/sens"
)

// errorStrings returns the messages of l, formatted.
func errorStrings(l ErrorList) []string {
	var s []string
	for _, x := range l {
		s = append(s, x.Error())
	}
	return s
}

// fullRows returns a table's rows with the cells past short rows' ends.
func fullRows(t *table) [][]string {
	if t == nil {
		return nil
	}
	out := make([][]string, len(t.rows))
	for r := range t.rows {
		for j := range t.header {
			out[r] = append(out[r], t.cell(r, j))
		}
	}
	return out
}

// TestPandasForms reads each input form of parseTable's table and checks
// the parsed header, rows and physical lines, or the exact errors, against
// what pandas 1.5.3 (pd.read_csv(sep='\t')) was seen to read from the same
// bytes: the expected tables below are pandas' output, written by hand.
func TestPandasForms(t *testing.T) {
	cases := []struct {
		name, in string
		header   []string
		rows     [][]string
		lines    []int
		warn     []string // exact warnings
		err      []string // exact errors (then header, rows are not checked)
	}{
		{name: "canonical", in: "a\tb\tc\nx\t1\t2\ny\t\t\n",
			header: []string{"a", "b", "c"}, rows: [][]string{{"x", "1", "2"}, {"y", "", ""}}, lines: []int{2, 3}},
		{name: "short rows", in: "a\tb\tc\nx\t1\ny\n",
			header: []string{"a", "b", "c"}, rows: [][]string{{"x", "1", ""}, {"y", "", ""}}, lines: []int{2, 3}},
		{name: "CRLF", in: "a\tb\r\nx\t1\r\ny\t2\r\n",
			header: []string{"a", "b"}, rows: [][]string{{"x", "1"}, {"y", "2"}}, lines: []int{2, 3}},
		{name: "lone CR", in: "a\tb\rx\t1\ry\t2",
			header: []string{"a", "b"}, rows: [][]string{{"x", "1"}, {"y", "2"}}, lines: []int{2, 3}},
		{name: "CR inside an unquoted field ends the line", in: "a\tb\nx\ry\t2\n",
			header: []string{"a", "b"}, rows: [][]string{{"x", ""}, {"y", "2"}}, lines: []int{2, 3}},
		{name: "BOM", in: "\ufeffa\tb\nx\t1\n",
			header: []string{"a", "b"}, rows: [][]string{{"x", "1"}}, lines: []int{2}},
		{name: "blank and space-only lines", in: "\n  \na\tb\n\nx\t1\n   \r\n\r\ny\t2\n\n",
			header: []string{"a", "b"}, rows: [][]string{{"x", "1"}, {"y", "2"}}, lines: []int{5, 8}},
		{name: "line of only tabs is a row", in: "a\tb\nx\t1\n\t\n",
			header: []string{"a", "b"}, rows: [][]string{{"x", "1"}, {"", ""}}, lines: []int{2, 3}},
		{name: "leading spaces keep a line", in: "a\tb\n  y\t2\n",
			header: []string{"a", "b"}, rows: [][]string{{"y", "2"}}, lines: []int{2}},
		{name: "quoted fields", in: "\"a\"\tb\n\"x\"\t\"\"\n",
			header: []string{"a", "b"}, rows: [][]string{{"x", ""}}, lines: []int{2}},
		{name: "quotes holding tabs, newlines, doubled quotes", in: "a\tb\tc\n\"x\ty\"\t\"say \"\"hi\"\"\"\t\"l1\r\nl2\nl3\"\nz\t1\t2\n",
			header: []string{"a", "b", "c"}, rows: [][]string{{"x\ty", `say "hi"`, "l1\r\nl2\nl3"}, {"z", "1", "2"}}, lines: []int{2, 5}},
		{name: "text after a closing quote, quote inside a field", in: "a\tb\n\"x\"y\tp\"q\n",
			header: []string{"a", "b"}, rows: [][]string{{"xy", `p"q`}}, lines: []int{2}},
		{name: "# is data", in: "#a\tb\n#x\t1\n",
			header: []string{"#a", "b"}, rows: [][]string{{"#x", "1"}}, lines: []int{2}},
		{name: "cells trimmed", in: "a\tb\n x \t 1 \n",
			header: []string{"a", "b"}, rows: [][]string{{"x", "1"}}, lines: []int{2}},
		{name: "no final newline, header only", in: "a\tb",
			header: []string{"a", "b"}},
		{name: "empty header field", in: "a\t\tc\nx\t1\t2\n",
			header: []string{"a", "Unnamed: 1", "c"}, rows: [][]string{{"x", "1", "2"}}, lines: []int{2},
			warn: []string{`f.tsv:1: header field 2 is empty; pandas names the column "Unnamed: 1"`}},
		{name: "trailing tab in the header", in: "a\tb\t\nx\t1\n",
			header: []string{"a", "b", "Unnamed: 2"}, rows: [][]string{{"x", "1", ""}}, lines: []int{2},
			warn: []string{`f.tsv:1: header field 3 is empty; pandas names the column "Unnamed: 2"`}},
		{name: "duplicate columns", in: "a\ta\ta.1\ta\nx\t1\t2\t3\n",
			header: []string{"a", "a.2", "a.1", "a.3"}, rows: [][]string{{"x", "1", "2", "3"}}, lines: []int{2},
			warn: []string{
				`f.tsv:1: column a: the column appears again in header field 2 (first in field 1); pandas names it "a.2" and petab, like pbgen, ignores it`,
				`f.tsv:1: column a: the column appears again in header field 4 (first in field 1); pandas names it "a.3" and petab, like pbgen, ignores it`}},
		{name: "row longer than the header", in: "a\tb\nx\t1\ny\t2\t3\n",
			err: []string{"f.tsv:3: row has 3 fields, the header has 2"}},
		{name: "first row one field longer", in: "a\tb\nx\t1\t\ny\t2\n",
			err: []string{"f.tsv:2: row has 3 fields, the header 2: pandas would take the first column as the row index and shift the others left; drop the extra fields (trailing tabs?) or name the columns"}},
		{name: "first row two fields longer", in: "a\nx\t1\t2\n",
			err: []string{"f.tsv:2: row has 3 fields, the header 1: pandas would take the first 2 columns as the row index and shift the others left; drop the extra fields (trailing tabs?) or name the columns"}},
		{name: "line after a multi-line field", in: "a\tb\n\"p\nq\r\nr\"\t1\nx\t2\t3\n",
			err: []string{"f.tsv:5: row has 3 fields, the header has 2"}},
		{name: "unclosed quote", in: "a\tb\nx\t1\ny\t\"2\n3\n",
			err: []string{"f.tsv:3: a quoted field opened here is not closed before the end of the file"}},
		{name: "invalid UTF-8", in: "a\tb\nx\xff\t1\n",
			err: []string{`f.tsv:2: column a: "x\xff" is not valid UTF-8`}},
		{name: "invalid UTF-8 in the header", in: "a\tb\xff\nx\t1\n",
			err: []string{`f.tsv:1: header field 2: "b\xff" is not valid UTF-8`}},
		{name: "NUL byte", in: "a\tb\nx\t1\x002\n",
			err: []string{`f.tsv:2: column b: "1\x002" holds a NUL byte`}},
		{name: "header name with spaces", in: "a \tb\nx\t1\n",
			err: []string{`f.tsv:1: column a: the column name "a " has surrounding whitespace, which petab refuses`}},
		{name: "empty", in: "", err: []string{"f.tsv: empty table (no header)"}},
		{name: "only blank lines and a BOM", in: "\ufeff\n  \r\n", err: []string{"f.tsv: empty table (no header)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := &errs{}
			tab := parseTable("f.tsv", []byte(c.in), e)
			if c.err != nil {
				if got := errorStrings(e.list); !slices.Equal(got, c.err) {
					t.Fatalf("errors\n%q\nwant\n%q", got, c.err)
				}
				return
			}
			if len(e.list) > 0 || tab == nil {
				t.Fatalf("errors %q", errorStrings(e.list))
			}
			if got := errorStrings(e.warn); !slices.Equal(got, c.warn) {
				t.Errorf("warnings\n%q\nwant\n%q", got, c.warn)
			}
			if !slices.Equal(tab.header, c.header) {
				t.Errorf("header %q, want %q", tab.header, c.header)
			}
			if got := fullRows(tab); !slices.EqualFunc(got, c.rows, slices.Equal) {
				t.Errorf("rows %q, want %q", got, c.rows)
			}
			if !slices.Equal(tab.lines, c.lines) {
				t.Errorf("lines %v, want %v", tab.lines, c.lines)
			}
		})
	}
}

// TestPaddedCells loads the conv fixture with one cell given surrounding
// whitespace: an id, a formula or a whitespace-only cell is an error at
// its row and column (petab's linter refuses them; pandas would keep the
// spaces); a padded number is read as the number, with a warning, and
// the problem evaluates to the same log-likelihood bit for bit.
func TestPaddedCells(t *testing.T) {
	ref := evalLLH(t, conv)
	meas := "observableId\tpreequilibrationConditionId\tsimulationConditionId\ttime\tmeasurement\tobservableParameters\tnoiseParameters\tdatasetId\treplicateId\n" +
		"obs_a\t\tc0\t0\t2.1\t0.1\tsd\td1\t1\n" +
		"obs_a\t\tc0\t5\t1.2\t0.1\tsd\td1\t1\n" +
		"obs_b\t\tc0\t5\t0.5\t\t\td2\t1\n" +
		"obs_a\tc0\tc1\t2\t1.9\t0.2\t0.3\td3\t1\n" +
		"obs_b\tc0\tc1\tinf\t0.7\t\t\td4\t1\n"
	cases := []struct {
		name, file, old, new string
		err, warn            string
	}{
		{"id", "measurements.tsv", "obs_a\tc0\tc1", " obs_a\tc0\tc1", `measurements.tsv:5: column observableId: "obs_a" has surrounding whitespace, which petab's linter refuses (pandas keeps it as part of the value)`, ""},
		{"condition id", "measurements.tsv", "obs_a\tc0\tc1", "obs_a\tc0 \tc1", `measurements.tsv:5: column preequilibrationConditionId: "c0" has surrounding whitespace, which petab's linter refuses (pandas keeps it as part of the value)`, ""},
		{"only whitespace", "measurements.tsv", "obs_b\t\tc0", "obs_b\t \tc0", `measurements.tsv:4: column preequilibrationConditionId: the cell holds only whitespace, which petab's linter refuses (pandas reads it as text, not as an empty cell)`, ""},
		{"formula", "observables.tsv", "\tB\t", "\tB \t", `observables.tsv:3: column observableFormula: "B" has surrounding whitespace, which petab's linter refuses (pandas keeps it as part of the value)`, ""},
		{"parameter id", "parameters.tsv", "scale\t", " scale\t", `parameters.tsv:3: column parameterId: "scale" has surrounding whitespace, which petab's linter refuses (pandas keeps it as part of the value)`, ""},
		{"condition value id", "conditions.tsv", "c0\tcontrol", "c0 \tcontrol", `conditions.tsv:2: column conditionId: "c0" has surrounding whitespace, which petab's linter refuses (pandas keeps it as part of the value)`, ""},
		{"number", "measurements.tsv", "\t1.9\t", "\t 1.9 \t", "", `measurements.tsv:5: column measurement: number "1.9" has surrounding whitespace (read as 1.9; pandas keeps decimals with spaces as text, which petab's linter refuses in required columns)`},
		{"names are free text", "conditions.tsv", "\tcontrol\t", "\t control \t", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, "testdata/conv", dir)
			path := filepath.Join(dir, c.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if c.file == "measurements.tsv" && string(data) != meas {
				t.Fatalf("fixture changed:\n%s", data)
			}
			if !strings.Contains(string(data), c.old) {
				t.Fatalf("%s lacks %q", c.file, c.old)
			}
			os.WriteFile(path, []byte(strings.Replace(string(data), c.old, c.new, 1)), 0o644)
			p, err := Load(filepath.Join(dir, "problem.yaml"))
			if c.err != "" {
				if err == nil || err.Error() != filepath.Join(dir, c.err) {
					t.Fatalf("error %v, want %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := errorStrings(p.Warnings); c.warn == "" && len(got) > 0 || c.warn != "" && !slices.Equal(got, []string{filepath.Join(dir, c.warn)}) {
				t.Errorf("warnings %q, want %q", got, c.warn)
			}
			if got := evalLLH(t, filepath.Join(dir, "problem.yaml")); math.Float64bits(got) != math.Float64bits(ref) {
				t.Errorf("llh %v, want %v", got, ref)
			}
		})
	}
}

// evalLLH loads a problem and returns its log-likelihood at the nominal
// parameters (FS, default tolerances).
func evalLLH(t *testing.T, path string) float64 {
	t.Helper()
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	th, err := p.Theta(nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Evaluate(th, &EvalOptions{Method: sens.FS, Grad: true})
	if err != nil {
		t.Fatal(err)
	}
	return r.LLH
}

// pandasStyle rewrites a plain TSV table (no quotes) into the forms pandas
// reads as the same table: columns reordered so that the ones with empty
// cells come last, trailing empty fields dropped (short rows), a BOM, CRLF,
// LF and lone CR line ends, a blank and a space-only line, and quoted
// first fields. It returns the rewritten bytes and how many rows it
// shortened. It splits lines itself, independently of parseTable.
func pandasStyle(data []byte) ([]byte, int) {
	var recs [][]string
	for _, l := range strings.Split(strings.TrimPrefix(string(data), "\ufeff"), "\n") {
		if l = strings.TrimSuffix(l, "\r"); l != "" {
			recs = append(recs, strings.Split(l, "\t"))
		}
	}
	if len(recs) == 0 {
		return data, 0
	}
	n := len(recs[0])
	empties := make([]int, n)
	for _, r := range recs[1:] {
		for j := range n {
			if j >= len(r) || r[j] == "" {
				empties[j]++
			}
		}
	}
	order := make([]int, n)
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order[1:], func(a, b int) int { return empties[a] - empties[b] })
	var b strings.Builder
	b.WriteString("\ufeff")
	ends := []string{"\r\n", "\n", "\r"}
	short := 0
	for i, r := range recs {
		row := make([]string, n)
		for k, j := range order {
			if j < len(r) {
				row[k] = r[j]
			}
		}
		if i > 0 {
			m := len(row)
			for m > 1 && row[m-1] == "" {
				m--
			}
			if m < n {
				short++
			}
			row = row[:m]
			if row[0] != "" {
				row[0] = `"` + row[0] + `"`
			}
		}
		b.WriteString(strings.Join(row, "\t"))
		b.WriteString(ends[i%len(ends)])
		if i == 0 {
			b.WriteString("\r\n  \n")
		}
	}
	b.WriteString("\n\n")
	return []byte(b.String()), short
}

// TestPandasStyleBenchmark rewrites small published problems of the PEtab
// benchmark collection with pandasStyle and checks that they load with no
// more warnings and evaluate to the same log-likelihood and gradient, bit
// for bit, as the files as published.
func TestPandasStyleBenchmark(t *testing.T) {
	root := suites.Dir(t, "petab-benchmark")
	for _, name := range []string{"Perelson_Science1996", "Rahman_MBS2016", "SalazarCavazos_MBoC2020"} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(root, name)
			yamls, _ := filepath.Glob(filepath.Join(src, "*.yaml"))
			if len(yamls) != 1 {
				t.Skipf("%s: %d YAML files", src, len(yamls))
			}
			dir := t.TempDir()
			ents, err := os.ReadDir(src)
			if err != nil {
				t.Fatal(err)
			}
			short := 0
			for _, e := range ents {
				data, err := os.ReadFile(filepath.Join(src, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(e.Name(), ".tsv") {
					var s int
					data, s = pandasStyle(data)
					short += s
				}
				if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if short == 0 {
				t.Fatal("the rewrite shortened no row")
			}
			orig, err := Load(yamls[0])
			if err != nil {
				t.Fatal(err)
			}
			re, err := Load(filepath.Join(dir, filepath.Base(yamls[0])))
			if err != nil {
				t.Fatal(err)
			}
			if len(re.Warnings) != len(orig.Warnings) {
				t.Errorf("warnings %q, the original has %q", errorStrings(re.Warnings), errorStrings(orig.Warnings))
			}
			opt := &EvalOptions{Method: sens.FS, Grad: true}
			th, err := orig.Theta(nil)
			if err != nil {
				t.Fatal(err)
			}
			a, err := orig.Evaluate(th, opt)
			if err != nil {
				t.Fatal(err)
			}
			b, err := re.Evaluate(th, opt)
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(a.LLH) != math.Float64bits(b.LLH) || !slices.Equal(a.Grad, b.Grad) {
				t.Errorf("llh %v grad %v, the original %v %v", b.LLH, b.Grad, a.LLH, a.Grad)
			}
			t.Logf("%d rows shortened; llh %v", short, a.LLH)
		})
	}
}
