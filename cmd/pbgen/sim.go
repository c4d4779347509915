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

// cmdSim simulates a network through the interpreted model and writes
// x(t) and S(t) as TSV.
func cmdSim(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("pbgen sim", stderr, "pbgen sim [flags] network.xml")
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
	fs.Var(&f.inits, "x0", "set an initial state: `name=value` (repeatable)")
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
	method, err := sens.ParseMethod(f.method)
	if err != nil {
		fs.Usage()
		return errUsage
	}
	ts, err := f.outputTimes()
	if err != nil {
		return err
	}
	p, x0, err := f.values(m)
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
	if err := writeTSV(w, m, res); err != nil {
		return err
	}
	if f.plot != "" {
		return writePlots(f.plot, m, p, res, f.scaled)
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

// values applies -p and -x0 to the model's defaults.
func (f *simFlags) values(m model.Model) (p, x0 []float64, err error) {
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
	if err := assign(x0, m.StateNames(), f.inits, "state"); err != nil {
		return nil, nil, err
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

// writeTSV writes t, the states, then S:<state>:<param> row-major.
func writeTSV(w io.Writer, m model.Model, res *sens.Result) error {
	bw := bufio.NewWriter(w)
	xs, ps := m.StateNames(), m.ParamNames()
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
