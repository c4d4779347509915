package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPEtabPandasForms runs pbgen petab check and pbgen petab on the petab
// package's fixture rewritten in forms pandas reads as the same tables
// (a BOM, CRLF, blank lines, quoted ids, trailing empty fields dropped, a
// number with spaces): check passes and prints the one warning in the
// "warning: FILE:ROW: column C: ..." form, and the evaluation prints the
// same llh, gradient and FIM as on the fixture as written. A long row is
// refused with its file, row and what is wrong.
func TestPEtabPandasForms(t *testing.T) {
	const src = "../../petab/testdata/conv"
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
			data = []byte(rewriteTSV(string(data), &short))
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if short == 0 {
		t.Fatal("the rewrite shortened no row")
	}
	meas := filepath.Join(dir, "measurements.tsv")
	data, _ := os.ReadFile(meas)
	if !strings.Contains(string(data), "\t1.9\t") || !strings.Contains(string(data), "\td4\t1\tc0\r\n") {
		t.Fatalf("measurements.tsv lacks the 1.9 measurement:\n%q", data)
	}
	os.WriteFile(meas, []byte(strings.Replace(string(data), "\t1.9\t", "\t 1.9 \t", 1)), 0o644)
	prob := filepath.Join(dir, "problem.yaml")

	code, out, stderr := pbgen(t, "petab", "check", prob)
	wantWarn := "warning: " + meas + ":7: column measurement: number \"1.9\" has surrounding whitespace"
	if code != 0 || !strings.Contains(out, "observables: 2, measurements: 5") || !strings.Contains(out, wantWarn) {
		t.Fatalf("petab check: exit %d, want 0 and %q\n%s%s", code, wantWarn, out, stderr)
	}
	args := []string{"petab", "-grad", "-fim"}
	code, want, stderr := pbgen(t, append(args, src+"/problem.yaml")...)
	if code != 0 {
		t.Fatalf("petab on the fixture: exit %d\n%s", code, stderr)
	}
	code, got, stderr := pbgen(t, append(args, prob)...)
	if code != 0 || got != want {
		t.Fatalf("petab on the rewritten fixture: exit %d\n%s\nwant\n%s%s", code, got, want, stderr)
	}

	os.WriteFile(meas, []byte(strings.Replace(string(data), "\td4\t1\tc0\r\n", "\td4\t1\tc0\t\t\t\r\n", 1)), 0o644)
	code, out, _ = pbgen(t, "petab", "check", prob)
	wantErr := meas + ":8: row has 10 fields, the header has 9"
	if code != 1 || !strings.Contains(out, wantErr) {
		t.Errorf("check with a long row: exit %d, want 1 and %q\n%s", code, wantErr, out)
	}
}

// rewriteTSV writes a plain table as pandas reads the same: the columns
// with empty cells moved last (the order of PEtab columns is free), a
// BOM, CRLF line ends, a blank and a space-only line after the header, the
// first field of each row quoted and trailing empty fields dropped. It
// counts the rows it shortened in *short.
func rewriteTSV(s string, short *int) string {
	var recs [][]string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		recs = append(recs, strings.Split(l, "\t"))
	}
	var full, gaps []int
	for j := range recs[0] {
		empty := false
		for _, r := range recs[1:] {
			empty = empty || r[j] == ""
		}
		if empty && j > 0 {
			gaps = append(gaps, j)
		} else {
			full = append(full, j)
		}
	}
	order := append(full, gaps...)
	var b strings.Builder
	b.WriteString("\ufeff")
	for i, r := range recs {
		f := make([]string, len(order))
		for k, j := range order {
			f[k] = r[j]
		}
		if i > 0 {
			n := len(f)
			for len(f) > 1 && f[len(f)-1] == "" {
				f = f[:len(f)-1]
			}
			if len(f) < n {
				*short++
			}
			f[0] = `"` + f[0] + `"`
		}
		b.WriteString(strings.Join(f, "\t") + "\r\n")
		if i == 0 {
			b.WriteString("\r\n  \r\n")
		}
	}
	return b.String()
}
