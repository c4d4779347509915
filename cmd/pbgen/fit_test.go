package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
)

// fastPEtab is the repository's small fixture in its ODE form. Its DAE
// form (problem.yaml, fast reactions) is not used: an objective solved
// through runtime/dae varies in the last digits from call to call (from
// the state of pooled work buffers, see docs/fit.md), so its fits are
// reproducible only to the optimiser's tolerances.
const fastPEtab = "../../petab/testdata/fast/problem_ode.yaml"

// fitCmd runs pbgen fit and fails unless it exits 0; it returns stdout.
func fitCmd(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"fit"}, args...), &out, &errb); code != 0 {
		t.Fatalf("pbgen fit %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// readFitJSON reads DIR/fit.json.
func readFitJSON(t *testing.T, dir string) fitJSON {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "fit.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc fitJSON
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// startsWithoutTimes returns starts.tsv without its time_s column.
func startsWithoutTimes(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "starts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	col := -1
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		cells := strings.Split(line, "\t")
		if i == 0 {
			col = slices.Index(cells, "time_s")
		}
		if col >= 0 {
			cells = append(cells[:col], cells[col+1:]...)
		}
		out = append(out, strings.Join(cells, "\t"))
	}
	return strings.Join(out, "\n")
}

// sameStarts requires two fits' starts.tsv to be equal but for the
// times, bit for bit.
func sameStarts(t *testing.T, what, dirA, dirB string) {
	t.Helper()
	if a, b := startsWithoutTimes(t, dirA), startsWithoutTimes(t, dirB); a != b {
		t.Errorf("%s differ:\n%s\n---\n%s", what, a, b)
	}
}

// TestFitFast fits the repository's small PEtab fixture (ODE form): the best start
// improves on the nominal log-likelihood, pbgen petab on the written
// best_problem.yaml gives the best llh, its gradient vanishes in every
// parameter not at a bound, and -j 1 and -j 3 give the same starts.
func TestFitFast(t *testing.T) {
	dir := t.TempDir()
	d1, d3, plots := filepath.Join(dir, "j1"), filepath.Join(dir, "j3"), filepath.Join(dir, "plots")
	common := []string{"-starts", "6", "-seed", "2", fastPEtab}
	out := fitCmd(t, append(common, "-j", "1", "-o", d1, "-plot", plots)...)
	fitCmd(t, append(common, "-j", "3", "-o", d3)...)
	sameStarts(t, "-j 1 and -j 3", d1, d3)
	doc := readFitJSON(t, d1)
	if doc.Best == nil || doc.Best.LLH == nil || doc.NominalLLH == nil {
		t.Fatalf("fit.json without best or nominal llh:\n%s", out)
	}
	best := *doc.Best.LLH
	if best < *doc.NominalLLH-0.1 {
		t.Errorf("best llh %g below the nominal %g", best, *doc.NominalLLH)
	}
	for _, s := range doc.Starts {
		if s.LLH == nil || s.Status == "start-failed" {
			t.Errorf("start %d: status %s, llh %v", s.Start, s.Status, s.LLH)
		}
	}
	var pout, perr bytes.Buffer
	if code := run([]string{"petab", "-grad", filepath.Join(d1, "best_problem.yaml")}, &pout, &perr); code != 0 {
		t.Fatalf("pbgen petab on best_problem.yaml: exit %d: %s", code, perr.String())
	}
	m := regexp.MustCompile(`llh: (\S+)`).FindStringSubmatch(pout.String())
	if m == nil {
		t.Fatalf("no llh in %s", pout.String())
	}
	llh, _ := strconv.ParseFloat(m[1], 64)
	if math.Abs(llh-best) > 1e-8*math.Abs(best) {
		t.Errorf("pbgen petab best_problem.yaml: llh %.17g, fit's best %.17g", llh, best)
	}
	checkGradAtBest(t, pout.String(), doc)
	for _, f := range []string{"waterfall.png", "parameters.png"} {
		if st, err := os.Stat(filepath.Join(plots, f)); err != nil || st.Size() == 0 {
			t.Errorf("plot %s: %v", f, err)
		}
	}
}

// checkGradAtBest parses pbgen petab -grad's gradient (of the llh, in
// the linear values) and checks that each parameter's entry is small
// unless the estimate sits at a bound: a first-order optimality check
// independent of the optimiser.
func checkGradAtBest(t *testing.T, petabOut string, doc fitJSON) {
	t.Helper()
	_, grads, _ := strings.Cut(petabOut, "gradient:\n")
	for k, line := range strings.Split(strings.TrimSpace(grads), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 || k >= len(doc.Parameters) {
			continue
		}
		g, _ := strconv.ParseFloat(f[1], 64)
		x := doc.Best.X[k]
		lo, hi := paramBounds(t, doc, k)
		atBound := math.Abs(x-lo) < 1e-3*(hi-lo) || math.Abs(x-hi) < 1e-3*(hi-lo)
		if !atBound && math.Abs(g) > 1e-2 {
			t.Errorf("parameter %s = %g (bounds %g, %g): gradient %g at the best", f[0], x, lo, hi, g)
		}
	}
}

func paramBounds(t *testing.T, doc fitJSON, k int) (lo, hi float64) {
	// The fixture's bounds on the parameter scales (petab/testdata/fast).
	bounds := map[string][2]float64{"kf": {-2, 2}, "kr": {-2, 2}, "s": {-2, 2}, "d": {math.Log(0.01), math.Log(100)}, "scale": {0.1, 10}, "sd": {0.01, 10}}
	b, ok := bounds[doc.Parameters[k]]
	if !ok {
		t.Fatalf("unknown parameter %s", doc.Parameters[k])
	}
	return b[0], b[1]
}

func TestFitBadArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-starts", "0", fastPEtab}, "-starts"},
		{[]string{"-j", "-1", fastPEtab}, "-j"},
		{[]string{"-method", "rk4", fastPEtab}, "-method"},
		{[]string{"-hessian", "newton", fastPEtab}, "-hessian"},
		{[]string{"-subspace", "3d", fastPEtab}, "-subspace"},
		{[]string{"-sampling", "sobol", fastPEtab}, "-sampling"},
		{[]string{"-maxiter", "0", fastPEtab}, "-maxiter"},
		{[]string{"-rtol", "NaN", fastPEtab}, "-rtol"},
		{[]string{"-tol", "-1", fastPEtab}, "-tol"},
		{[]string{"-starts", "x", fastPEtab}, "-starts"},
		{[]string{"-rtol", "0", fastPEtab}, "-rtol"},
		{[]string{"-rtol", "2", fastPEtab}, "-rtol"},
		{[]string{"-atol", "0", fastPEtab}, "-atol"},
		{[]string{"-atol", "Inf", fastPEtab}, "-atol"},
		// The start points alone would not fit in memory: refused with
		// the estimate before anything is allocated (was the runtime's
		// out-of-memory crash).
		{[]string{"-starts", "1000000000000", fastPEtab}, "GB in memory"},
		{[]string{"-starts", "100000000", fastPEtab}, "-starts 100000000: the starts would hold"},
		{[]string{"-starts", "15000000", fastPEtab}, "-starts 15000000: with 6 estimated parameters"},
		{[]string{}, "missing argument"},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"fit"}, c.args...), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("pbgen fit %s: exit %d, stderr %q; want 2 naming %s", strings.Join(c.args, " "), code, errb.String(), c.want)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"fit", "-starts", "2", "no/such/problem.yaml"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "no/such/problem.yaml") {
		t.Errorf("missing problem: exit %d, stderr %q", code, errb.String())
	}
}

// TestFitBenchmark fits small problems of the PEtab benchmark collection
// and requires enough starts to reach the collection's nominal
// log-likelihood within 0.1 or better. Quick: two problems, few starts;
// PBGEN_LONG=1: 50 starts on each problem of benchLong.
func TestFitBenchmark(t *testing.T) {
	root := suites.Dir(t, suites.PEtabBenchmark)
	cases := []struct {
		dir    string
		starts int
	}{{"Bertozzi_PNAS2020", 6}, {"Rahman_MBS2016", 4}}
	if os.Getenv("PBGEN_LONG") != "" {
		cases = nil
		for _, d := range benchLong {
			cases = append(cases, struct {
				dir    string
				starts int
			}{d, 50})
		}
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			yaml, _ := filepath.Glob(filepath.Join(root, c.dir, "*.yaml"))
			if len(yaml) == 0 {
				t.Skipf("no YAML in %s", c.dir)
			}
			out := filepath.Join(t.TempDir(), "out")
			fitCmd(t, "-starts", strconv.Itoa(c.starts), "-j", "2", "-o", out, yaml[0])
			doc := readFitJSON(t, out)
			if doc.Best == nil || doc.NominalLLH == nil {
				t.Fatal("no best start or nominal llh")
			}
			reached := 0
			for _, s := range doc.Starts {
				if s.LLH == nil {
					t.Errorf("start %d: status %s, error %q, no llh", s.Start, s.Status, s.Error)
					continue
				}
				if *s.LLH >= *doc.NominalLLH-0.1 {
					reached++
				}
			}
			t.Logf("%s: %d of %d starts within 0.1 of the nominal llh %.6f or better (best %.6f)", c.dir, reached, len(doc.Starts), *doc.NominalLLH, *doc.Best.LLH)
			if reached == 0 {
				t.Errorf("no start reached the nominal llh %.6f (best %.6f)", *doc.NominalLLH, *doc.Best.LLH)
			}
		})
	}
}

// benchLong are the benchmark problems PBGEN_LONG=1 fits with 50 starts.
var benchLong = []string{"Bertozzi_PNAS2020", "Perelson_Science1996", "Rahman_MBS2016", "SalazarCavazos_MBoC2020", "Zhao_QuantBiol2020", "Raia_CancerResearch2011", "Blasi_CellSystems2016", "Liu_IFACPapersOnLine2025", "Armistead_CellDeathDis2024"}

// TestFitSlurm: the starts of a fit split between tasks (-start-index,
// and SLURM_ARRAY_TASK_ID as an array task sets it) and merged give the
// starts.tsv of the fit run in one process; a task without -o, a start
// index beyond -starts and a merge of a folder without task files are
// refused.
func TestFitSlurm(t *testing.T) {
	dir := t.TempDir()
	all, parts, merged := filepath.Join(dir, "all"), filepath.Join(dir, "parts"), filepath.Join(dir, "merged")
	common := []string{"-starts", "5", "-seed", "4", "-starts-per-task", "2", fastPEtab}
	fitCmd(t, append(common, "-o", all)...)
	fitCmd(t, append(common, "-start-index", "0", "-o", parts)...)
	fitCmd(t, append(common, "-start-index", "4", "-o", parts)...)
	t.Setenv(slurmTaskEnv, "1")
	fitCmd(t, append(common, "-o", parts)...)
	t.Setenv(slurmTaskEnv, "")
	out := fitCmd(t, "-merge", parts, "-o", merged)
	if strings.Contains(out, "missing") {
		t.Errorf("merge reports missing starts:\n%s", out)
	}
	sameStarts(t, "merged tasks and the run of all starts", all, merged)
	for _, c := range [][]string{
		append([]string{"-start-index", "1"}, common...),
		append([]string{"-start-index", "5", "-o", parts}, common...),
		{"-merge", parts, "-seed", "3"},
	} {
		var o, e bytes.Buffer
		if code := run(append([]string{"fit"}, c...), &o, &e); code != 2 {
			t.Errorf("pbgen fit %s: exit %d (%s), want 2", strings.Join(c, " "), code, e.String())
		}
	}
	var o, e bytes.Buffer
	if code := run([]string{"fit", "-merge", dir}, &o, &e); code != 1 || !strings.Contains(e.String(), "no task files") {
		t.Errorf("merge of a folder without task files: exit %d, %q", code, e.String())
	}
}
