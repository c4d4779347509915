package mcmc

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// CSV output follows CmdStan's layout, which ArviZ (from_cmdstan) and R
// (read.csv with comment.char = "#", then posterior::as_draws) read:
// '#' comment lines with "key = value" settings, one header line whose
// sampler columns end in "__" (lp__, accept_stat__, stepsize__), then one
// line per kept draw, then the adaptation results as comments. Numbers
// are written with the shortest representation that round-trips.
//
// Unlike CmdStan, the chain file holds no elapsed times: they go to a
// sidecar file (TimingPath), so that a chain file depends on the seed and
// settings alone and the same chain run anywhere (one process, a Slurm
// array task) gives the same bytes, which cmp can check.

// CSVName returns name with every character other than letters, digits,
// '_' and '.' replaced by '_', so CSV readers neither split the column nor
// misread it (ArviZ groups "theta.1", "theta.2" into a vector theta).
func CSVName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// WriteCSV writes chain c (0-based) of r to w.
func WriteCSV(w io.Writer, r *Result, c int) error {
	if c < 0 || c >= len(r.Chains) {
		return fmt.Errorf("mcmc: no chain %d of %d", c+1, len(r.Chains))
	}
	ch := &r.Chains[c]
	o := &r.Options
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	p("# generator = pbgen mcmc\n")
	p("# method = sample\n")
	p("#   sample\n")
	p("#     num_samples = %d\n", o.Samples)
	p("#     num_warmup = %d\n", o.Warmup)
	p("#     save_warmup = %d\n", b2i(len(ch.WarmupLogPost) > 0))
	p("#     thin = 1\n")
	p("#     adapt\n")
	p("#       engaged = %d\n", b2i(o.Warmup > 0))
	p("#       target_accept = %s\n", ftoa(o.TargetAccept))
	p("#     algorithm = %v\n", r.Sampler)
	p("#     initial_step_size = %s\n", ftoa(o.StepSize))
	p("# id = %d\n", c+1)
	p("# num_chains = %d\n", len(r.Chains))
	p("# random\n")
	p("#   seed = %d\n", o.Seed)
	p("# initial_point = %s\n", floats(ch.Init))
	p("lp__,accept_stat__,stepsize__")
	for _, n := range r.Names {
		p(",%s", CSVName(n))
	}
	p("\n")
	var buf []byte
	row := func(lp, acc, step float64, x []float64) {
		buf = strconv.AppendFloat(buf[:0], lp, 'g', -1, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, acc, 'g', -1, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, step, 'g', -1, 64)
		for _, v := range x {
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	// Saved warm-up rows come before the adaptation comments, as in
	// CmdStan; readers split the rows at num_warmup.
	for i := range ch.WarmupLogPost {
		row(ch.WarmupLogPost[i], ch.WarmupAcceptStat[i], ch.WarmupStepSize[i], ch.WarmupDraws[i*r.Dim:(i+1)*r.Dim])
	}
	p("# Adaptation terminated\n")
	p("# Step size = %s\n", ftoa(ch.StepSize))
	switch r.Sampler {
	case SMMALA:
		p("# Metric: the target's (Fisher information + negative Hessian of the log prior) at each point\n")
	case MALA:
		p("# Elements of inverse mass matrix:\n")
	case RWM:
		p("# Proposal covariance (before step size squared):\n")
	}
	for i := 0; ch.Preconditioner != nil && i < r.Dim; i++ {
		p("# %s\n", floats(ch.Preconditioner[i*r.Dim:(i+1)*r.Dim]))
	}
	for i := range ch.LogPost {
		row(ch.LogPost[i], ch.AcceptStat[i], ch.StepSize, ch.Draw(i, r.Dim))
	}
	p("# accepted = %d\n", ch.Accepted)
	p("# warmup_accept_stat = %s\n", ftoa(ch.WarmupAccept))
	p("# out_of_bounds = %d\n", ch.OutOfBounds)
	p("# failed_evaluations = %d\n", ch.Failed)
	if ch.FirstFailure != "" {
		// One line, and one '=' per comment line: readers split settings
		// at '=' (ArviZ may not limit the split).
		p("# first_failure = %s\n", strings.NewReplacer("\n", " ", "\r", " ", "=", ":").Replace(ch.FirstFailure))
	}
	p("# evaluations = %d\n", ch.Evals)
	return bw.Flush()
}

// WriteCSVFiles writes chain_1.csv, chain_2.csv, ... into dir (created if
// needed), each with its timing sidecar chain_1.timing.json, ..., and
// returns the paths of the CSV files.
func WriteCSVFiles(dir string, r *Result) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for c := range r.Chains {
		path := filepath.Join(dir, fmt.Sprintf("chain_%d.csv", c+1))
		if err := createFile(path, func(w io.Writer) error { return WriteCSV(w, r, c) }); err != nil {
			return paths, err
		}
		if err := createFile(TimingPath(path), func(w io.Writer) error { return WriteTiming(w, &r.Chains[c]) }); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func createFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("mcmc: %s: %w", path, err)
	}
	return nil
}

// Timing is the content of a chain's timing sidecar: the wall-clock
// seconds of its warm-up and sampling phases, which CmdStan writes as
// "Elapsed Time" comments into the chain file itself.
type Timing struct {
	WarmupSeconds   float64 `json:"warmup_seconds"`
	SamplingSeconds float64 `json:"sampling_seconds"`
}

// TimingPath returns the sidecar path of the chain file csvPath:
// chain_1.csv → chain_1.timing.json. The name does not end in .csv, so a
// glob for chain files does not pick it up.
func TimingPath(csvPath string) string {
	return strings.TrimSuffix(csvPath, filepath.Ext(csvPath)) + ".timing.json"
}

// WriteTiming writes ch's warm-up and sampling times to w as a one-line
// JSON object (Timing).
func WriteTiming(w io.Writer, ch *Chain) error {
	b, err := json.Marshal(Timing{WarmupSeconds: ch.WarmupTime.Seconds(), SamplingSeconds: ch.SampleTime.Seconds()})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadTiming parses a timing sidecar. Unknown fields and trailing data
// are errors, and so are negative or non-finite times, so a wrong file
// is not taken for one.
func ReadTiming(r io.Reader) (Timing, error) {
	var t Timing
	d := json.NewDecoder(r)
	d.DisallowUnknownFields()
	if err := d.Decode(&t); err != nil {
		return Timing{}, fmt.Errorf("mcmc: timing: %v", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return Timing{}, fmt.Errorf("mcmc: timing: data after the object")
	}
	for _, v := range []float64{t.WarmupSeconds, t.SamplingSeconds} {
		if !(v >= 0) || math.IsInf(v, 1) {
			return Timing{}, fmt.Errorf("mcmc: timing: %v seconds", v)
		}
	}
	return t, nil
}

// Durations returns the warm-up and sampling times as Durations (rounded
// to nanoseconds), as Chain.WarmupTime and Chain.SampleTime hold them.
func (t Timing) Durations() (warmup, sampling time.Duration) {
	return time.Duration(math.Round(t.WarmupSeconds * 1e9)), time.Duration(math.Round(t.SamplingSeconds * 1e9))
}

// CSV is a parsed CmdStan-style CSV file.
type CSV struct {
	// Config holds the "key = value" comment lines by key (the innermost
	// name, as ArviZ reads them); a repeated key keeps its first value.
	Config  map[string]string
	Columns []string
	Rows    [][]float64
}

// Column returns the values of the named column, nil if absent.
func (c *CSV) Column(name string) []float64 {
	for j, n := range c.Columns {
		if n == name {
			out := make([]float64, len(c.Rows))
			for i, r := range c.Rows {
				out[i] = r[j]
			}
			return out
		}
	}
	return nil
}

// ReadCSV parses a CmdStan-style CSV file (ours or CmdStan's).
func ReadCSV(r io.Reader) (*CSV, error) {
	out := &CSV{Config: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		if strings.HasPrefix(s, "#") {
			if k, v, ok := strings.Cut(strings.TrimPrefix(s, "#"), "="); ok {
				k = strings.TrimSpace(k)
				v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "(Default)"))
				if _, seen := out.Config[k]; !seen && k != "" {
					out.Config[k] = v
				}
			}
			continue
		}
		fields := strings.Split(s, ",")
		if out.Columns == nil {
			out.Columns = fields
			continue
		}
		if len(fields) != len(out.Columns) {
			return nil, fmt.Errorf("mcmc: csv line %d: %d fields, header has %d", line, len(fields), len(out.Columns))
		}
		row := make([]float64, len(fields))
		for j, f := range fields {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return nil, fmt.Errorf("mcmc: csv line %d column %s: %v", line, out.Columns[j], err)
			}
			row[j] = v
		}
		out.Rows = append(out.Rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if out.Columns == nil {
		return nil, fmt.Errorf("mcmc: csv has no header line")
	}
	return out, nil
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func floats(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = ftoa(v)
	}
	return strings.Join(s, ", ")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
