package petab

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pandasScript reads the inputs of TestAgainstPandas as the PEtab library
// does (pd.read_csv(sep='\t'), here with dtype=str and no NA conversion so
// that the cells come back as text) and writes what pandas read or the
// error it raised.
const pandasScript = `
import io, json, sys, pandas as pd
out = []
for s in json.load(open(sys.argv[1])):
    try:
        df = pd.read_csv(io.BytesIO(s.encode('utf-8', 'surrogatepass')), sep='\t', dtype=str,
                         keep_default_na=False, float_precision='round_trip')
        rows = [["" if not isinstance(v, str) else v for v in r] for r in df.values.tolist()]
        out.append({"ok": True, "cols": [str(c) for c in df.columns], "rows": rows,
                    "shifted": not isinstance(df.index, pd.RangeIndex)})
    except Exception as e:
        out.append({"ok": False, "err": type(e).__name__ + ": " + str(e)})
json.dump(out, open(sys.argv[2], "w"))
`

// TestAgainstPandas compares parseTable with pandas itself on random
// tables built from the characters that matter (tabs, line ends, quotes,
// spaces, #): pandas' columns and cells, trimmed, must be pbgen's header
// and rows, and each must refuse what the other refuses, except where
// pbgen refuses on purpose (docs/petab-tables.md): a header name with
// surrounding whitespace, and a first row one field longer than the
// header, which pandas reads shifted. It runs when PBGEN_PANDAS names a
// Python with pandas, e.g. PBGEN_PANDAS=python3 go test ./petab -run
// AgainstPandas -v.
func TestAgainstPandas(t *testing.T) {
	py := os.Getenv("PBGEN_PANDAS")
	if py == "" {
		t.Skip("set PBGEN_PANDAS to a Python that has pandas to compare with it")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "1", " ", "\t", "\t", "\n", "\n", "\r\n", `"`, `""`, "#", "a.1", "\t\t", "\r"}
	const n = 4000 // the first half without lone CRs
	var ins []string
	for i := range n {
		k := len(alphabet)
		if i < n/2 {
			k--
		}
		var b strings.Builder
		for range 1 + rng.IntN(40) {
			b.WriteString(alphabet[rng.IntN(k)])
		}
		ins = append(ins, b.String())
	}
	dir := t.TempDir()
	in, outp := filepath.Join(dir, "in.json"), filepath.Join(dir, "out.json")
	data, _ := json.Marshal(ins)
	os.WriteFile(in, data, 0o644)
	script := filepath.Join(dir, "read.py")
	os.WriteFile(script, []byte(pandasScript), 0o644)
	if out, err := exec.Command(py, script, in, outp).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", py, err, out)
	}
	var res []struct {
		OK      bool
		Cols    []string
		Rows    [][]string
		Shifted bool
		Err     string
	}
	data, err := os.ReadFile(outp)
	if err != nil || json.Unmarshal(data, &res) != nil || len(res) != len(ins) {
		t.Fatalf("pandas output: %v", err)
	}
	agree, onPurpose, bad, crDiffer := 0, 0, 0, 0
	for i, s := range ins {
		e := &errs{}
		tab := parseTable("f.tsv", []byte(s), e)
		r := res[i]
		msg := strings.Join(errorStrings(e.list), "; ")
		switch {
		case strings.Contains(msg, "surrounding whitespace") || r.OK && r.Shifted && strings.Contains(msg, "as the row index"):
			onPurpose++
			continue
		case !r.OK && len(e.list) > 0 || r.OK && len(e.list) == 0 && tab != nil && sameAsPandas(tab, r.Cols, r.Rows):
			agree++
			continue
		}
		if i >= n/2 {
			crDiffer++
			continue
		}
		bad++
		if bad <= 10 {
			t.Errorf("%q:\npbgen  %.300q header %.200q rows %.300q\npandas ok=%v %.300s cols %.200q rows %.300q", s, msg, header(tab), rows(tab), r.OK, r.Err, r.Cols, r.Rows)
		}
	}
	t.Logf("%d inputs: %d read alike, %d refused by pbgen on purpose, %d differ; of the %d with lone CRs, %d read differently", len(ins), agree, onPurpose, bad, n/2, crDiffer)
}

func header(t *table) []string {
	if t == nil {
		return nil
	}
	return t.header
}

func rows(t *table) [][]string { return fullRows(t) }

// sameAsPandas compares a table with pandas' columns and cells, trimmed as
// parseTable trims them.
func sameAsPandas(t *table, cols []string, rows [][]string) bool {
	full := fullRows(t)
	if !slices.Equal(t.header, cols) || len(full) != len(rows) {
		return false
	}
	for r, row := range rows {
		for j := range row {
			row[j] = strings.TrimFunc(row[j], isSpace)
		}
		if !slices.Equal(full[r], row) {
			return false
		}
	}
	return true
}
