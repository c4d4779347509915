package petab

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxTableBytes bounds one table file, so that a wrong path (a multi-GB
// file) fails fast instead of exhausting memory.
const MaxTableBytes = 1 << 30

// table is one TSV file: its header and rows, each with its line number
// (for messages), cells trimmed of surrounding blanks.
type table struct {
	file   string
	header []string
	col    map[string]int
	rows   [][]string
	lines  []int
}

// get returns row r's cell in column name, "" when the column is absent.
func (t *table) get(r int, name string) string {
	if j, ok := t.col[name]; ok {
		return t.rows[r][j]
	}
	return ""
}

func (t *table) has(name string) bool { _, ok := t.col[name]; return ok }

// readTable reads a TSV file. Quotes are taken literally where they are not
// proper CSV quoting (LazyQuotes), because PEtab cells are plain text and
// formulas never need quoting; every row must have as many fields as the
// header.
func readTable(path string, e *errs) *table {
	data, err := readFile(path)
	if err != nil {
		e.add(path, 0, "", "%v", err)
		return nil
	}
	return parseTable(path, data, e)
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", unwrapPath(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxTableBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", unwrapPath(err))
	}
	if len(data) > MaxTableBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxTableBytes)
	}
	return data, nil
}

// unwrapPath drops the path that *os.PathError repeats, since messages
// already start with the file name.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// parseTable is readTable on bytes (the fuzz target's entry).
func parseTable(file string, data []byte, e *errs) *table {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // UTF-8 BOM
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = '\t'
	r.LazyQuotes = true
	r.FieldsPerRecord = -1 // checked below, with the line in the message
	r.ReuseRecord = false
	t := &table{file: file, col: make(map[string]int)}
	first := true
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				e.add(file, pe.Line, "", "%v", pe.Err)
			} else {
				e.add(file, 0, "", "%v", err)
			}
			return nil
		}
		line, _ := r.FieldPos(0)
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		if first {
			first = false
			for j, h := range rec {
				if h == "" {
					e.add(file, line, "", "header field %d is empty", j+1)
					continue
				}
				if _, dup := t.col[h]; dup {
					e.add(file, line, h, "column appears twice in the header")
					continue
				}
				t.col[h] = j
			}
			t.header = rec
			continue
		}
		if len(rec) == 1 && rec[0] == "" {
			continue // a blank line
		}
		if len(rec) != len(t.header) {
			e.add(file, line, "", "row has %d fields, the header has %d", len(rec), len(t.header))
			continue
		}
		t.rows = append(t.rows, rec)
		t.lines = append(t.lines, line)
	}
	if first {
		e.add(file, 0, "", "empty table (no header)")
		return nil
	}
	return t
}

// require reports each missing required column.
func (t *table) require(e *errs, cols ...string) bool {
	ok := true
	for _, c := range cols {
		if !t.has(c) {
			e.add(t.file, 1, c, "required column is missing")
			ok = false
		}
	}
	return ok
}
