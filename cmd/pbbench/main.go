// Command pbbench runs the paper's experiments side by side with forward
// sensitivity (ours and, when built with -tags cvodes, SUNDIALS CVODES) and
// prints times, ratios measured in the same run, and errors against a
// tight forward-sensitivity reference. It writes the figures (PNG) and all
// numbers (results.json) into the output folder.
//
//	make bench                      # installs libsundials-dev, -tags cvodes
//	go run ./cmd/pbbench -o results # without CVODES
//
// Flags choose the models, the number of timed solves, the sizes of the
// random linear system and the PEtab problems (-petab: the benchmark
// collection's problems with at most 100 states, evaluated through
// runtime/objective with FS, PBSR, Exp and CVODES FS; see petab.go) and
// the scaling section (-scale: time against the number of states on
// generated networks of 50 to 2000 states, with fitted exponents, beside
// CVODES with KLU; see scale.go), the Lang section (-lang: FS of the
// collection's largest problem, 124 states and 317 parameters, with our
// sparse and dense paths and CVODES with KLU; see lang.go) and the events
// section (-events: PKA with daily doses through runtime/events against
// CVODES's root finding; see events.go).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type config struct {
	out     string
	solves  int
	models  string
	linear  int
	linReps int
	// linBudget bounds the timed solves per method and n of the random
	// linear system (see timeBudget).
	linBudget time.Duration
	wp        bool

	petab          bool
	petabDir       string
	petabOnly      string
	petabMaxStates int
	petabReps      int
	petabBudget    time.Duration
	petabRTol      float64
	petabOnGrid    bool
	petabNoErrCon  bool
	// the sampling section (sample.go)
	sample                                    bool
	sampleProblem                             string
	sampleChains, sampleWarmup, sampleSamples int
	// the scaling section (scale.go)
	scale         bool
	scaleN        string
	scaleMaxDense int
	// scaleMaxCVDense is the largest n of CVODES's dense FS column.
	scaleMaxCVDense int
	scaleReps       int
	scaleBudget     time.Duration
	// the Lang section (lang.go)
	lang       bool
	langPB     bool
	langReps   int
	langBudget time.Duration
	// the events section (events.go)
	events       bool
	eventsDays   int
	eventsReps   int
	eventsBudget time.Duration
	// the adjoint section (adjoint.go)
	adjoint     bool
	adjointLang bool
	adjointList string
	adjointReps int
	// The solver section.
	solvers       bool
	solversReps   int
	solversBudget time.Duration
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("pbbench: ")
	var c config
	flag.StringVar(&c.out, "o", "results", "output `dir` for figures and results.json")
	flag.IntVar(&c.solves, "n", 20, "timed solves per method (after one warm-up)")
	flag.StringVar(&c.models, "models", "pka,camkii,chua", "comma-separated models of Table 1 (empty: none)")
	flag.IntVar(&c.linear, "linear", 100, "largest n of the random linear system, as in the paper (0 skips it; PBSR without its exponential branch takes about a minute per solve at n = 100)")
	flag.IntVar(&c.linReps, "linear-reps", 5, "timed solves per method and n of the random linear system (at most)")
	flag.DurationVar(&c.linBudget, "linear-budget", 10*time.Second, "time for the timed solves of one method and n of the random linear system: fewer solves past it (at least one; none after a warm-up longer than it, which is then the measurement)")
	flag.BoolVar(&c.wp, "wp", true, "print the work-precision view")
	flag.BoolVar(&c.petab, "petab", true, "time the PEtab benchmark collection's problems (llh, gradient, FIM) with our methods and CVODES FS")
	flag.StringVar(&c.petabDir, "petab-dir", "", "folder of the PEtab benchmark problems (default: the shared folder's petab-benchmark, see internal/suites)")
	flag.StringVar(&c.petabOnly, "petab-problems", "", "comma-separated substrings of the problems to run (empty: all)")
	flag.IntVar(&c.petabMaxStates, "petab-max-states", 100, "skip PEtab problems with more states")
	flag.IntVar(&c.petabReps, "petab-reps", 51, "timed rounds per PEtab problem and mode, each evaluating every method once (at most; the median is reported)")
	flag.DurationVar(&c.petabBudget, "petab-budget", 3*time.Second, "time for the timed rounds of one PEtab problem and mode: fewer rounds past it, but at least 3")
	flag.Float64Var(&c.petabRTol, "petab-rtol", 0, "relative tolerance of the PEtab evaluations, timed and checked, ours and CVODES's (0: the objective's default, 1e-6)")
	flag.BoolVar(&c.petabNoErrCon, "petab-no-errcon", false, "PEtab evaluations with S out of FS's error test (objective.Options.NoErrCon), ours and CVODES's alike; the default puts it in, as AMICI (the rtol 1e-10 reference always does)")
	flag.BoolVar(&c.petabOnGrid, "petab-on-grid", false, "PEtab evaluations land on every output time (objective.Options.OutputsOnGrid) instead of interpolating")
	flag.BoolVar(&c.sample, "sample", true, "run the sampling section: ESS per second of SMMALA (PBSR, Exp, FS), MALA and RWM and the sampler's overhead on a PEtab problem")
	flag.StringVar(&c.sampleProblem, "sample-problem", "networks/petab/CaMKII/problem.yaml", "PEtab `problem` of the sampling section")
	flag.IntVar(&c.sampleChains, "sample-chains", 2, "chains per sampler in the sampling section")
	flag.IntVar(&c.sampleWarmup, "sample-warmup", 300, "warm-up iterations per chain in the sampling section")
	flag.IntVar(&c.sampleSamples, "sample-samples", 500, "kept iterations per chain in the sampling section")
	flag.BoolVar(&c.scale, "scale", true, "run the scaling section: states only, FS, PBSR and Exp against n on scalenet chains, with fitted exponents (scaling.png)")
	flag.StringVar(&c.scaleN, "scale-n", "50,100,200,500,1000,2000", "comma-separated numbers of states of the scaling section (rounded down to multiples of 3)")
	flag.IntVar(&c.scaleMaxDense, "scale-max-dense", 1<<20, "largest n of PBSR and Exp in the scaling section (by default every size: from sens.SparseExpMinStates states on the chains they take the sparse exponential actions, whose cost grows with nnz(Jx), not the dense n^3 exponentials)")
	flag.IntVar(&c.scaleMaxCVDense, "scale-max-cvodes-dense", 500, "largest n of CVODES FS with the dense solver in the scaling section (-tags cvodes; its LU costs n^3)")
	flag.IntVar(&c.scaleReps, "scale-reps", 5, "timed rounds (one solve per method) per n of the scaling section (at most; the median is reported)")
	flag.DurationVar(&c.scaleBudget, "scale-budget", 5*time.Second, "time per method for the timed rounds of one n of the scaling section: fewer rounds past it, but at least 3 (or -scale-reps if smaller)")
	flag.BoolVar(&c.lang, "lang", false, "run the Lang section: FS of Lang_PLOSComputBiol2024 (124 states) for all 317 parameters, ours with the automatic and the dense linear solver and CVODES FS with KLU (minutes)")
	flag.BoolVar(&c.langPB, "lang-pb", false, "add PBSR and Exp to the Lang section, timed once each")
	flag.IntVar(&c.langReps, "lang-reps", 3, "timed rounds of the Lang section (at most; the median is reported)")
	flag.DurationVar(&c.langBudget, "lang-budget", 3*time.Minute, "time for the timed rounds of the Lang section: fewer past it, but at least 3 (or -lang-reps if smaller)")
	flag.BoolVar(&c.events, "events", true, "run the events section: PKA with daily doses through runtime/events (states, FS, PBSR, Exp) against CVODES's root finding and event loop")
	flag.IntVar(&c.eventsDays, "events-days", 30, "doses of the events section, one per day of 20 time units")
	flag.IntVar(&c.eventsReps, "events-reps", 11, "timed rounds of the events section, each running every method once (at most; the median is reported)")
	flag.DurationVar(&c.eventsBudget, "events-budget", 10*time.Second, "time for the timed rounds of the events section: fewer rounds past it, but at least 3")
	flag.BoolVar(&c.adjoint, "adjoint", false, "run the adjoint section: llh + gradient by our FS and our adjoint on Lang_PLOSComputBiol2024 and the -adjoint-problems")
	flag.BoolVar(&c.adjointLang, "adjoint-lang", true, "include Lang_PLOSComputBiol2024 in the adjoint section")
	flag.StringVar(&c.adjointList, "adjoint-problems", "", "comma-separated PEtab problem.yaml files for the adjoint section (e.g. written by go run ./cmd/scalepetab on branch chensize)")
	flag.IntVar(&c.adjointReps, "adjoint-reps", 3, "timed Evals per problem and gradient method of the adjoint section (the median is reported)")
	flag.BoolVar(&c.solvers, "solvers", true, "run the solver section: FS with each integrator (ours: BDF, Adams, DOPRI5, Cash-Karp; CVODES: BDF, Adams) on Chua and PKA at rtol 1e-8")
	flag.IntVar(&c.solversReps, "solvers-reps", 11, "timed solves per solver and model of the solver section (at most; the median CPU time is reported)")
	flag.DurationVar(&c.solversBudget, "solvers-budget", 10*time.Second, "CPU time for the timed solves of one solver and model: fewer past it, but at least 3")
	flag.Parse()
	if err := run(&c); err != nil {
		log.Fatal(err)
	}
}

// Results is everything the bench measured, as written to results.json.
type Results struct {
	CVODES  bool           `json:"cvodes"`
	Table   []*ModelResult `json:"table1"`
	Linear  *LinearResult  `json:"random_linear,omitempty"`
	Petab   []*PetabResult `json:"petab,omitempty"`
	Targets []*Target      `json:"targets"`
	// Sampling is the sampling section (-sample).
	Sampling *SamplingResult `json:"sampling,omitempty"`
	// Scaling is the scaling section (-scale).
	Scaling *ScaleResult `json:"scaling,omitempty"`
	// Lang is the Lang section (-lang).
	Lang *LangResult `json:"lang,omitempty"`
	// Events is the events section (-events).
	Events *EventsResult `json:"events,omitempty"`
	// Adjoint is the adjoint section (-adjoint).
	Adjoint []*AdjointResult `json:"adjoint,omitempty"`
	// Solvers is the solver section (-solvers).
	Solvers *SolversResult `json:"solvers,omitempty"`
}

// num is a float64 that encodes NaN and infinities as JSON null.
type num float64

func (x num) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

func nums(v []float64) []num {
	out := make([]num, len(v))
	for i, x := range v {
		out[i] = num(x)
	}
	return out
}

func run(c *config) error {
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	res := &Results{CVODES: haveCVODES}
	if !haveCVODES {
		fmt.Println("note: built without -tags cvodes; CVODES columns are absent (make bench builds them)")
	}
	for _, name := range strings.Split(c.models, ",") {
		if strings.TrimSpace(name) == "" {
			continue // -models "": the random linear system alone
		}
		spec, err := lookupModel(strings.TrimSpace(name))
		if err != nil {
			return err
		}
		mr, err := benchModel(spec, c)
		if err != nil {
			return fmt.Errorf("%s: %v", spec.name, err)
		}
		res.Table = append(res.Table, mr)
		if err := plotErrors(filepath.Join(c.out, "error-"+spec.name+".png"), mr); err != nil {
			return err
		}
	}
	if c.linear > 0 {
		lr, err := benchLinear(c)
		if err != nil {
			return fmt.Errorf("random linear: %v", err)
		}
		res.Linear = lr
		if err := plotLinear(filepath.Join(c.out, "random-linear.png"), lr); err != nil {
			return err
		}
	}
	if c.petab {
		pr, err := benchPetab(c)
		if err != nil {
			return fmt.Errorf("petab: %v", err)
		}
		res.Petab = pr
	}
	if !haveCVODES {
		fmt.Println("\nnote: the CVODES targets need -tags cvodes (make bench)")
	}
	if c.sample {
		sr, err := benchSampling(c)
		if err != nil {
			return fmt.Errorf("sampling: %v", err)
		}
		res.Sampling = sr
	}
	if c.scale {
		sr, err := benchScale(c, os.Stdout)
		if err != nil {
			return fmt.Errorf("scaling: %v", err)
		}
		res.Scaling = sr
		if err := plotScale(filepath.Join(c.out, "scaling.png"), sr); err != nil {
			return err
		}
	}
	if c.adjoint {
		ar, err := benchAdjoint(c, os.Stdout)
		if err != nil {
			return fmt.Errorf("adjoint: %v", err)
		}
		res.Adjoint = ar
	}
	if c.lang {
		lr, err := benchLang(c, os.Stdout)
		if err != nil {
			return fmt.Errorf("lang: %v", err)
		}
		res.Lang = lr
	}
	if c.events {
		er, err := benchEvents(c, os.Stdout)
		if err != nil {
			return fmt.Errorf("events: %v", err)
		}
		res.Events = er
	}
	if c.solvers {
		sr, err := benchSolvers(c, os.Stdout)
		if err != nil {
			return fmt.Errorf("solvers: %v", err)
		}
		res.Solvers = sr
	}
	res.Targets = checkTargets(res)
	if res.Sampling != nil {
		res.Targets = append(res.Targets, samplingTargets(res.Sampling)...)
	}
	if res.Scaling != nil {
		res.Targets = append(res.Targets, scaleTargets(res.Scaling)...)
	}
	if res.Lang != nil {
		res.Targets = append(res.Targets, langTargets(res.Lang)...)
	}
	if res.Solvers != nil && haveCVODES {
		res.Targets = append(res.Targets, solversTargets(res.Solvers)...)
	}
	if res.Events != nil && haveCVODES {
		res.Targets = append(res.Targets, eventsTargets(res.Events)...)
	}
	printTargets(res.Targets)
	f, err := os.Create(filepath.Join(c.out, "results.json"))
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	enc.SetIndent("", " ")
	if err := enc.Encode(res); err != nil {
		return err
	}
	fmt.Printf("\nwrote %s\n", c.out)
	return nil
}
