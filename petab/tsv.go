package petab

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTableBytes bounds one table file, so that a wrong path (a multi-GB
// file) fails fast instead of exhausting memory.
const MaxTableBytes = 1 << 30

// table is one TSV file as pandas reads it (see parseTable): its header
// (pandas' column names), rows (as long as the fields the file gives, at
// most the header's width: the cells after a short row's end are empty,
// read through cell or get, so that a wide header over many short rows
// costs no more memory than the file), each row's physical line (for
// messages), cells trimmed of surrounding whitespace with the trimmed
// cells noted for checkPadding.
type table struct {
	file       string
	headerLine int
	header     []string
	col        map[string]int
	rows       [][]string
	lines      []int
	padded     []cellPos // cells that had surrounding whitespace, in row order
	records    int       // data records read, rows or not
}

// cellPos is a cell of a table: row index and column index.
type cellPos struct{ r, j int }

// get returns row r's cell in column name, "" when the column is absent.
func (t *table) get(r int, name string) string {
	if j, ok := t.col[name]; ok {
		return t.cell(r, j)
	}
	return ""
}

// cell returns row r's cell in column j, "" past the row's end.
func (t *table) cell(r, j int) string {
	if j < len(t.rows[r]) {
		return t.rows[r][j]
	}
	return ""
}

func (t *table) has(name string) bool { _, ok := t.col[name]; return ok }

// readTable reads a TSV file the way the PEtab library does
// (pandas.read_csv with sep='\t'); see parseTable for the forms accepted.
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

// parseTable is readTable on bytes (the fuzz targets' entry). It reads a
// table as the PEtab library does, pd.read_csv(sep='\t') with pandas'
// C parser defaults, and refuses by file, line and column what pandas or
// petab's linter refuses or what pandas would read into different values
// than the file shows (docs/petab-tables.md has this table with examples):
//
//	input                        pandas / petab                   pbgen
//	row shorter than header      missing fields NaN               accept, empty cells
//	row longer than header       "Expected N fields in line L"    error
//	first row k fields longer    first k columns become the       error
//	                             index, the others shift
//	empty line, spaces only      skipped (skip_blank_lines)       skip
//	line of only tabs            a row of NaN                     a row of empty cells
//	"quoted" field, "" inside    unquoted, "" -> "; tabs and      same
//	                             newlines kept (QUOTE_MINIMAL)
//	"x"y (text after quote)      xy                               same
//	unclosed quote               "EOF inside string"              error at its line
//	CRLF, lone CR                line ends (pandas 1.5.3 misreads line ends
//	                             some lone-CR files)
//	UTF-8 BOM                    dropped                          dropped
//	invalid UTF-8                UnicodeDecodeError               error
//	NUL byte                     cuts the field there             error
//	# at line start              data (no comment=)               data
//	header name with spaces      petab: get_*_df raises           error
//	empty header name            "Unnamed: j" (j 0-based)         same, warning
//	duplicate header name        second is name.1 (mangled)       same, warning
//	cell with spaces, a number   int: number; float: text, which  the number, warning
//	                             the linter refuses in required
//	                             columns
//	cell with spaces, not a      kept; the linter refuses it      error (checkPadding)
//	number (an id, a formula)    (is_valid_identifier, whitespace
//	                             check)
//
// Lines are physical lines: a quoted field spanning lines moves the next
// row's line on by as many, and CRLF counts once.
func parseTable(file string, data []byte, e *errs) *table {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // UTF-8 BOM
	s := tsvScanner{data: data, line: 1}
	var t *table
	for {
		rec, ok := s.next()
		if s.errLine > 0 {
			e.add(file, s.errLine, "", "%s", s.errMsg)
			return nil
		}
		if !ok {
			break
		}
		if t == nil {
			t = newTable(file, rec, e)
			continue
		}
		t.addRow(rec, e)
	}
	if t == nil {
		e.add(file, 0, "", "empty table (no header)")
	}
	return t
}

// newTable makes a table from its header record, naming columns as pandas
// does: an empty name is "Unnamed: j" (j counted from 0), a repeated name
// gets ".1", ".2", ... (mangle_dupe_cols). Both are warnings: pbgen, like
// petab, then reads only the first of a repeated column. A name with
// surrounding whitespace is an error because petab's table readers
// (assert_no_leading_trailing_whitespace on the columns) refuse it.
func newTable(file string, rec tsvRecord, e *errs) *table {
	t := &table{file: file, headerLine: rec.line, col: make(map[string]int, len(rec.fields))}
	names := make([]string, len(rec.fields))
	var unnamed []int
	for j, h := range rec.fields {
		if msg := badText(h); msg != "" {
			e.add(file, rec.line, "", "header field %d: %s", j+1, msg)
		}
		if h == "" {
			names[j] = "Unnamed: " + strconv.Itoa(j)
			unnamed = append(unnamed, j)
			e.warnf(file, rec.line, "", "header field %d is empty; pandas names the column %q", j+1, names[j])
			continue
		}
		names[j] = h
		if tr := strings.TrimFunc(h, isSpace); tr != h {
			e.add(file, rec.line, tr, "the column name %q has surrounding whitespace, which petab refuses", h)
			if tr != "" {
				names[j] = tr // so that the readers do not also call the column missing
			}
		}
	}
	dedupe(names, unnamed, func(j int, name string, first int) {
		e.warnf(file, rec.line, names[j], "the column appears again in header field %d (first in field %d); pandas names it %q and petab, like pbgen, ignores it", j+1, first+1, name)
	})
	for j, name := range names {
		t.col[name] = j
	}
	t.header = names
	return t
}

// dedupe renames repeated names in place as pandas does (named columns
// first, then the unnamed ones; the k-th repeat of x becomes x.k, or the
// next free x.k', skipping names the header already holds), calling
// renamed before each rename with the column, its new name and the column
// of the name's first appearance.
func dedupe(names []string, unnamed []int, renamed func(j int, name string, first int)) {
	isUnnamed := make([]bool, len(names))
	for _, j := range unnamed {
		isUnnamed[j] = true
	}
	order := make([]int, 0, len(names))
	for j := range names {
		if !isUnnamed[j] {
			order = append(order, j)
		}
	}
	order = append(order, unnamed...)
	in := make(map[string]int, len(names)) // how many columns bear each name now
	first := make(map[string]int, len(names))
	for j, n := range names {
		in[n]++
		if _, ok := first[n]; !ok {
			first[n] = j
		}
	}
	counts := make(map[string]int, len(names))
	for _, j := range order {
		base := names[j]
		name, n := base, counts[base]
		for n > 0 {
			counts[base] = n + 1
			name = base + "." + strconv.Itoa(n)
			if in[name] > 0 {
				n++
			} else {
				n = counts[name]
			}
		}
		if name != base {
			renamed(j, name, first[base])
			in[base]--
			in[name]++
			names[j] = name
		}
		counts[name] = n + 1
	}
}

// addRow adds a data record: cells after its last field are empty
// (pandas' NaN), a record longer than the header is an error, cells are trimmed
// and the trimmed ones noted for checkPadding.
func (t *table) addRow(rec tsvRecord, e *errs) {
	n := len(t.header)
	first := t.records == 0
	t.records++
	if k := len(rec.fields) - n; k > 0 {
		if first {
			cols := "column"
			if k > 1 {
				cols = strconv.Itoa(k) + " columns"
			}
			e.add(t.file, rec.line, "", "row has %d fields, the header %d: pandas would take the first %s as the row index and shift the others left; drop the extra fields (trailing tabs?) or name the columns", len(rec.fields), n, cols)
		} else {
			e.add(t.file, rec.line, "", "row has %d fields, the header has %d", len(rec.fields), n)
		}
		return
	}
	row := rec.fields // the record's own slice, trimmed in place
	for j, f := range row {
		if msg := badText(f); msg != "" {
			e.add(t.file, rec.line, t.header[j], "%s", msg)
		}
		tr := strings.TrimFunc(f, isSpace)
		if tr != f {
			t.padded = append(t.padded, cellPos{len(t.rows), j})
		}
		row[j] = tr
	}
	t.rows = append(t.rows, row)
	t.lines = append(t.lines, rec.line)
}

// badText says what is wrong with a field pandas would not read as it
// stands, "" if nothing: invalid UTF-8 (pandas: UnicodeDecodeError) and NUL
// bytes (pandas' C parser ends the field there, silently).
func badText(f string) string {
	if !utf8.ValidString(f) {
		return fmt.Sprintf("%q is not valid UTF-8", f)
	}
	if strings.IndexByte(f, 0) >= 0 {
		return fmt.Sprintf("%q holds a NUL byte", f)
	}
	return ""
}

// isSpace is Python's str.isspace, the \s of the linter's whitespace
// check: Unicode White_Space plus the separators U+001C to U+001F.
func isSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// checkPadding reports the cells of columns cols (those a table reader
// uses) that had surrounding whitespace. petab's linter refuses such ids,
// keywords and formulas, and pandas would keep the whitespace as part of
// them, so they are errors; a number with spaces is what float() reads,
// and is accepted with one warning per column.
func (t *table) checkPadding(e *errs, cols ...string) {
	warned := make(map[int]bool)
	for _, c := range t.padded {
		name := t.header[c.j]
		if !slices.Contains(cols, name) {
			continue
		}
		v := t.rows[c.r][c.j]
		if _, ok := parseNum(v); ok && v != "" {
			if !warned[c.j] {
				warned[c.j] = true
				e.warnf(t.file, t.lines[c.r], name, "number %q has surrounding whitespace (read as %s; pandas keeps decimals with spaces as text, which petab's linter refuses in required columns)", v, v)
			}
			continue
		}
		if v == "" {
			e.add(t.file, t.lines[c.r], name, "the cell holds only whitespace, which petab's linter refuses (pandas reads it as text, not as an empty cell)")
			continue
		}
		e.add(t.file, t.lines[c.r], name, "%q has surrounding whitespace, which petab's linter refuses (pandas keeps it as part of the value)", v)
	}
}

// tsvRecord is one record of a TSV file: its fields as written (quotes
// removed), the physical line it starts on, and the byte offset just after
// its last field (where the fuzz target inserts tabs).
type tsvRecord struct {
	fields []string
	line   int
	end    int
}

// tsvScanner splits a file into records as pandas' C tokenizer does with
// sep='\t', quotechar='"', doublequote, skip_blank_lines and no comment
// character. It reports the first error in errLine and errMsg.
type tsvScanner struct {
	data    []byte
	pos     int
	line    int    // physical line of data[pos]
	buf     []byte // the record's fields, back to back
	ends    []int  // where each field ends in buf
	errLine int
	errMsg  string
}

// next returns the next record, skipping lines that are empty or hold
// only spaces; ok is false at the end of the data or on an error.
func (s *tsvScanner) next() (rec tsvRecord, ok bool) {
	for s.pos < len(s.data) {
		i := s.pos
		for i < len(s.data) && s.data[i] == ' ' {
			i++
		}
		if i == len(s.data) {
			s.pos = i
			return rec, false
		}
		if c := s.data[i]; c == '\n' || c == '\r' {
			s.pos = i
			s.eol()
			continue
		}
		break
	}
	if s.pos >= len(s.data) {
		return rec, false
	}
	rec.line = s.line
	s.buf, s.ends = s.buf[:0], s.ends[:0]
	for {
		if !s.field() {
			return rec, false
		}
		s.ends = append(s.ends, len(s.buf))
		rec.end = s.pos
		if s.pos < len(s.data) && s.data[s.pos] == '\t' {
			s.pos++
			continue
		}
		if s.pos < len(s.data) {
			s.eol()
		}
		break
	}
	// One string per record, the fields slices of it (as encoding/csv).
	str := string(s.buf)
	rec.fields = make([]string, len(s.ends))
	start := 0
	for k, end := range s.ends {
		rec.fields[k] = str[start:end]
		start = end
	}
	return rec, true
}

// eol consumes the line end at s.pos (LF, CRLF or a lone CR).
func (s *tsvScanner) eol() {
	if s.data[s.pos] == '\r' && s.pos+1 < len(s.data) && s.data[s.pos+1] == '\n' {
		s.pos++
	}
	s.pos++
	s.line++
}

// field appends one field to s.buf, reading up to (not including) the
// tab or line end that ends it. A field opening with a quote is quoted
// until a quote that is not doubled; what follows the closing quote up to
// the tab is appended, as pandas does. A quote elsewhere is a character.
func (s *tsvScanner) field() bool {
	d := s.data
	if s.pos < len(d) && d[s.pos] == '"' {
		start := s.line
		s.pos++
		for {
			if s.pos >= len(d) {
				s.errLine, s.errMsg = start, "a quoted field opened here is not closed before the end of the file"
				return false
			}
			c := d[s.pos]
			if c == '"' {
				if s.pos+1 < len(d) && d[s.pos+1] == '"' {
					s.buf = append(s.buf, '"')
					s.pos += 2
					continue
				}
				s.pos++
				break
			}
			if c == '\n' || (c == '\r' && (s.pos+1 >= len(d) || d[s.pos+1] != '\n')) {
				s.line++
			}
			s.buf = append(s.buf, c)
			s.pos++
		}
	}
	for s.pos < len(d) {
		c := d[s.pos]
		if c == '\t' || c == '\n' || c == '\r' {
			break
		}
		s.buf = append(s.buf, c)
		s.pos++
	}
	return true
}

// require reports each missing required column.
func (t *table) require(e *errs, cols ...string) bool {
	ok := true
	for _, c := range cols {
		if !t.has(c) {
			e.add(t.file, t.headerLine, c, "required column is missing")
			ok = false
		}
	}
	return ok
}
