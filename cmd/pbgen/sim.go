package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sens"
	"github.com/pbgen/pbgen/symbolic"
)

// assignList collects repeated name=value flags.
type assignList []assignment

type assignment struct {
	name  string
	value float64
}

func (a *assignList) String() string { return fmt.Sprint(*a) }

func (a *assignList) Set(s string) error {
	name, val, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("want name=value, got %q", s)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("value of %s: %q is not a finite number", name, val)
	}
	*a = append(*a, assignment{strings.TrimSpace(name), v})
	return nil
}

type simFlags struct {
	method        string
	paper         bool
	t0, t1        float64
	n             int
	times         string
	rtol, atol    float64
	params, inits assignList
	out, plot     string
	scaled        bool
}

// simColumnsDoc describes the columns of the sim output; it is part of
// the usage text.
const simColumnsDoc = `Output is TSV with a header line. Columns: t (the time), then one
column per state, then S:<state>:<param> (states outer, parameters
inner) with the same state names. A state column is the state's SBML id,
except:
  amount:<id>  a species held as an amount (hasOnlySubstanceUnits, a
               0-D compartment or a compartment changed by a rule);
               a bare species id is always a concentration
  state:t      a state whose id is t (t is always the time)
SBML ids cannot contain ':', so every column name is unique. -x0 takes a
state by its id or by its column name, in the units of its column.
`

// cmdSim simulates a network through the interpreted model and writes
// x(t) and S(t) as TSV.
//
// Columns: t (the time), then one per state, then S:<state>:<param>
// (states outer, parameters inner) with the same state names. A state
// column is its SBML id, except amount:<id> for a species held as an
// amount (an SBML reader takes a bare species id for a concentration) and
// state:t for a state whose id is t, so that t is only the time. SBML ids
// are unique and contain no ':', so the names are unique (simColumns).
func cmdSim(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("pbgen sim", stderr, "pbgen sim [flags] network.xml")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: pbgen sim [flags] network.xml\n")
		fs.PrintDefaults()
		fmt.Fprint(stderr, "\n"+simColumnsDoc)
	}
	var f simFlags
	fs.StringVar(&f.method, "method", "pbsr", "sensitivity `method`: fs, pbs, pbsr or exp")
	fs.BoolVar(&f.paper, "paper", false, "use the published algorithms exactly (for comparison)")
	fs.Float64Var(&f.t0, "t0", 0, "start `time`")
	fs.Float64Var(&f.t1, "t1", 10, "end `time`")
	fs.IntVar(&f.n, "n", 100, "number of uniform output intervals")
	fs.StringVar(&f.times, "times", "", "`file` of output times, one per line (overrides -t0, -t1, -n)")
	fs.Float64Var(&f.rtol, "rtol", 1e-6, "relative tolerance")
	fs.Float64Var(&f.atol, "atol", 1e-8, "absolute tolerance")
	fs.Var(&f.params, "p", "set a parameter: `name=value` (repeatable)")
	fs.Var(&f.inits, "x0", "set an initial state by id or column name: `name=value`, in the column's units (repeatable)")
	fs.StringVar(&f.out, "o", "", "output `file` (default stdout)")
	fs.StringVar(&f.plot, "plot", "", "write PNG plots into `dir`")
	fs.BoolVar(&f.scaled, "scaled", false, "plot scaled sensitivities p_j S_ij / x_i in the heat map")
	var lf lowerFlags
	lf.register(fs)
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	path := fs.Arg(0)
	_, sys, err := load(path, &lf)
	if err != nil {
		return err
	}
	m, err := interp.New(sys)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	cols := simColumns(sys.ODE.States)
	method, err := sens.ParseMethod(f.method)
	if err != nil {
		fs.Usage()
		return errUsage
	}
	ts, err := f.outputTimes()
	if err != nil {
		return err
	}
	p, x0, err := f.values(m, cols)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	opt := &sens.Options{Method: method, Paper: f.paper, RTol: f.rtol, ATol: f.atol}
	stop := progress(stderr, "simulating "+path)
	res, err := solve(m, opt, p, x0, ts)
	stop()
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	w := stdout
	if f.out != "" {
		file, err := os.Create(f.out)
		if err != nil {
			return err
		}
		defer file.Close()
		w = file
	}
	if err := writeTSV(w, cols, m.ParamNames(), res); err != nil {
		return err
	}
	if f.plot != "" {
		return writePlots(f.plot, m, cols, p, res, f.scaled)
	}
	return nil
}

// solve runs one solve; x0 nil means the model's initial state.
func solve(m model.Model, opt *sens.Options, p, x0, ts []float64) (*sens.Result, error) {
	s := sens.NewSolver(m, opt)
	var res sens.Result
	if err := s.Solve(&res, p, x0, ts[0], ts); err != nil {
		return nil, err
	}
	return &res, nil
}

func (f *simFlags) outputTimes() ([]float64, error) {
	if f.times != "" {
		return readTimes(f.times)
	}
	span := f.t1 - f.t0
	if f.n < 1 || !(f.t1 > f.t0) || math.IsInf(span, 0) {
		return nil, fmt.Errorf("need -n >= 1 and finite -t0 < -t1 (got n=%d, t0=%g, t1=%g)", f.n, f.t0, f.t1)
	}
	ts := make([]float64, f.n+1)
	for i := range ts {
		ts[i] = f.t0 + span*(float64(i)/float64(f.n))
	}
	ts[f.n] = f.t1
	return ts, nil
}

// readTimes reads ascending output times, one per line (# starts a comment).
func readTimes(path string) ([]float64, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var ts []float64
	sc := bufio.NewScanner(file)
	for line := 1; sc.Scan(); line++ {
		s, _, _ := strings.Cut(sc.Text(), "#")
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s:%d: %q is not a finite time", path, line, s)
		}
		if len(ts) > 0 && v <= ts[len(ts)-1] {
			return nil, fmt.Errorf("%s:%d: times must increase (%g after %g)", path, line, v, ts[len(ts)-1])
		}
		ts = append(ts, v)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("%s: no output times", path)
	}
	return ts, nil
}

// simColumns returns the output name of each state (see cmdSim): the SBML
// id, amount:<id> for a species state held as an amount, and state:t for
// a state whose id is t.
func simColumns(states []symbolic.State) []string {
	cols := make([]string, len(states))
	for i, s := range states {
		switch {
		case s.Meta["sbml"] == "species" && s.Meta["units"] == "amount":
			cols[i] = "amount:" + s.Name
		case s.Name == "t":
			cols[i] = "state:t"
		default:
			cols[i] = s.Name
		}
	}
	return cols
}

// values applies -p and -x0 to the model's defaults; cols are the state
// column names, which -x0 accepts beside the state ids.
func (f *simFlags) values(m model.Model, cols []string) (p, x0 []float64, err error) {
	p = make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	if err := assign(p, m.ParamNames(), f.params, "parameter"); err != nil {
		return nil, nil, err
	}
	if len(f.inits) == 0 {
		return p, nil, nil
	}
	x0 = make([]float64, model.NumStates(m))
	m.InitialState(x0, p)
	ids := m.StateNames()
	for _, a := range f.inits {
		i := indexOf(ids, a.name)
		if i < 0 {
			i = indexOf(cols, a.name)
		}
		if i < 0 {
			return nil, nil, fmt.Errorf("no state named %q (have %s)", a.name, strings.Join(cols, ", "))
		}
		x0[i] = a.value
	}
	return p, x0, nil
}

func assign(dst []float64, names []string, as assignList, kind string) error {
	for _, a := range as {
		i := indexOf(names, a.name)
		if i < 0 {
			return fmt.Errorf("no %s named %q (have %s)", kind, a.name, strings.Join(names, ", "))
		}
		dst[i] = a.value
	}
	return nil
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// writeTSV writes t, the states named xs, then S:<state>:<param>
// row-major.
func writeTSV(w io.Writer, xs, ps []string, res *sens.Result) error {
	bw := bufio.NewWriter(w)
	nx, np := len(xs), len(ps)
	bw.WriteString("t")
	for _, x := range xs {
		bw.WriteString("\t" + x)
	}
	for _, x := range xs {
		for _, p := range ps {
			bw.WriteString("\tS:" + x + ":" + p)
		}
	}
	bw.WriteByte('\n')
	buf := make([]byte, 0, 32)
	for k, t := range res.T {
		bw.Write(strconv.AppendFloat(buf[:0], t, 'g', -1, 64))
		for _, v := range res.X[k*nx : (k+1)*nx] {
			bw.WriteByte('\t')
			bw.Write(strconv.AppendFloat(buf[:0], v, 'g', 10, 64))
		}
		for _, v := range res.S[k*nx*np : (k+1)*nx*np] {
			bw.WriteByte('\t')
			bw.Write(strconv.AppendFloat(buf[:0], v, 'g', 10, 64))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
