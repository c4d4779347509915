package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/pbgen/pbgen/codegen"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// paramSet collects repeated -p id=value flags.
type paramSet map[string]float64

func (s paramSet) String() string { return fmt.Sprint(map[string]float64(s)) }

func (s paramSet) Set(v string) error {
	id, val, ok := strings.Cut(v, "=")
	if !ok || id == "" {
		return fmt.Errorf("want id=value, found %q", v)
	}
	x, err := parseNumber(val)
	if err != nil {
		return fmt.Errorf("%s: %v", id, err)
	}
	s[id] = x
	return nil
}

// cmdPEtab evaluates a PEtab problem, or checks it (pbgen petab check).
func cmdPEtab(args []string, stdout, stderr io.Writer) (err error) {
	if len(args) > 0 && args[0] == "check" {
		fs := newFlagSet("pbgen petab check", stderr, "pbgen petab check problem.yaml")
		if err := parseFlags(fs, args[1:], 1); err != nil {
			return err
		}
		p, err := petab.Load(fs.Arg(0))
		if err != nil {
			return listErrors(stdout, err)
		}
		p.Summary(stdout)
		return nil
	}
	fs := newFlagSet("pbgen petab", stderr, "pbgen petab [flags] problem.yaml | pbgen petab -gen [-o DIR] [-pkg NAME] problem.yaml | pbgen petab check problem.yaml")
	gen := fs.Bool("gen", false, "generate a Go package for the problem (model, observables, data) into -o instead of evaluating it")
	pkg := fs.String("pkg", "", "with -gen: package `name` (default: the model id in lower case)")
	var scale sensScaleFlag
	fs.Var(&scale, "sens-scale", sensScaleUsage)
	method := fs.String("method", "auto", "sensitivity `method`: auto, fs, pbs, pbsr or exp. auto chooses fs or pbsr once per problem (sens.Resolve:\n"+
		"fs, with or without -errcon, except for linear kinetics, where pbsr computes one exponential per step length)\n"+
		"and prints its choice on stderr. A model with csymbol delay: forward sensitivity through runtime/dde whatever the method")
	rtol, atol := tolFlag{1e-6, true}, tolFlag{1e-8, false}
	fs.Var(&rtol, "rtol", "relative `tolerance`, in [1e-14, 1)")
	fs.Var(&atol, "atol", "absolute `tolerance`, > 0, in the units of each state")
	errcon := fs.Bool("errcon", true, "fs: include S in the error test and step-size choice (CVODES errconS; AMICI's default,\n"+
		"objective.Options.NoErrCon false). On by default because without it the gradient at the defaults missed the\n"+
		"gradient at rtol 1e-10 by more than 1e-3 + 1e-2 |g| on 3 of the 15 problems of the PEtab benchmark collection\n"+
		"that it mends (docs/bench/petab-errcon-2026-12-08.txt); -errcon=false takes the state's steps alone, for speed.\n"+
		"Not with -sens adjoint, whose forward solve is the state alone")
	grad := fs.Bool("grad", false, "print the gradient of the log-likelihood")
	fim := fs.Bool("fim", false, "print the Fisher information matrix")
	sensFlag := fs.String("sens", "forward", "how -grad is computed: forward (from S by -method) or adjoint (backwards in time, cost independent of the number of parameters; not with -fim, pre-equilibration, steady-state data, periods, events, delays or algebraic rules yet)")
	set := paramSet{}
	fs.Var(set, "p", "set an estimated parameter, `id=value` on linear scale (repeatable)")
	jobs := countFlag{1, 1}
	fs.Var(&jobs, "j", "`number` of experiments solved in parallel, at least 1 (more than the experiments: one each)")
	simOut := fs.String("o", "", "write the PEtab simulation table to `file`; with -gen, the output directory (default ./NAME)")
	jsonOut := fs.String("json", "", "write llh, chi2, parameters, grad and fim as JSON to `file`")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of loading and evaluating the problem to `file` (runtime/pprof; read it with go tool pprof)")
	switches := fs.Bool("switches", true, "turn switching times of piecewise inputs (time against an estimated parameter in a rate) into a state kept by two events; -switches=false leaves them in the rates, where the solver locates them as switches of f (the same sensitivities; petab.LoadOptions.KeepTimeRelations); also with -gen")
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	lopt := &petab.LoadOptions{KeepTimeRelations: !*switches}
	if *gen {
		return genPEtab(fs, *simOut, *pkg, lopt, stderr)
	}
	if *pkg != "" {
		return &usageError{cmd: fs.Name(), msg: "-pkg is a flag of -gen"}
	}
	m, err := sens.ParseMethod(*method)
	if err != nil {
		return &usageError{cmd: fs.Name(), msg: fmt.Sprintf("-method %q: want fs, pbs, pbsr or exp", *method), synopsis: synopsis(fs)}
	}
	gm, err := objective.ParseGradMethod(*sensFlag)
	if err != nil {
		return &usageError{cmd: fs.Name(), msg: fmt.Sprintf("-sens %q: want forward or adjoint", *sensFlag), synopsis: synopsis(fs)}
	}
	if err := checkPEtabOutputs(fs, *simOut, *jsonOut); err != nil {
		return err
	}
	if flagSet(fs, "errcon") && m != sens.FS && m != sens.Auto {
		return &usageError{cmd: fs.Name(), msg: "-errcon applies to -method fs only (and to auto where it chooses fs)", synopsis: synopsis(fs)}
	}
	if flagSet(fs, "errcon") && gm == objective.GradAdjoint {
		return &usageError{cmd: fs.Name(), msg: "-errcon applies to -sens forward only (the adjoint's forward solve is the state alone)", synopsis: synopsis(fs)}
	}
	if *cpuprofile != "" {
		stop, err := startCPUProfile(*cpuprofile)
		if err != nil {
			return err
		}
		defer func() {
			if cerr := stop(); err == nil {
				err = cerr
			}
		}()
	}
	p, err := petab.LoadWith(fs.Arg(0), lopt)
	if err != nil {
		return listErrors(stderr, err)
	}
	theta, err := p.Theta(set)
	if err != nil {
		return err
	}
	if (*grad || *fim || *jsonOut != "") && m != sens.FS && m != sens.Auto && model.HasDelays(p.Model) {
		// runtime/objective's delay path: the sensitivities are
		// dde.SolveSens's whatever the method.
		fmt.Fprintf(stderr, "pbgen petab: note: model %q has csymbol delay: its sensitivities are forward sensitivity through the delays (runtime/dde), not -method %s\n", p.Model.Name(), *method)
	}
	r, err := p.Evaluate(theta, &petab.EvalOptions{Method: m, RTol: rtol.v, ATol: atol.v, SensScale: scale.v, NoErrCon: !*errcon, Grad: *grad || *jsonOut != "", FIM: *fim, Workers: jobs.v, Gradient: gm})
	if err != nil {
		return err
	}
	if m == sens.Auto {
		fmt.Fprintf(stderr, "pbgen petab: -method auto chose %s: %s\n", strings.ToLower(r.Method.String()), r.Choice.Reason)
	}
	fmt.Fprintf(stdout, "llh: %.17g\nchi2: %.17g\n", r.LLH, r.Chi2)
	ids := p.EstimatedIDs()
	if *grad {
		fmt.Fprintln(stdout, "gradient:")
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		for k, id := range ids {
			fmt.Fprintf(tw, "  %s\t%.10g\n", id, r.Grad[k])
		}
		tw.Flush()
	}
	if *fim {
		fmt.Fprintln(stdout, "fim:")
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "\t%s\n", strings.Join(ids, "\t"))
		for i, id := range ids {
			row := make([]string, len(ids))
			for j := range ids {
				row[j] = strconv.FormatFloat(r.FIM[i][j], 'g', 6, 64)
			}
			fmt.Fprintf(tw, "  %s\t%s\n", id, strings.Join(row, "\t"))
		}
		tw.Flush()
	}
	if *simOut != "" {
		if err := writeFile(*simOut, func(w io.Writer) error { return p.WriteSimulations(w, r.Sim) }); err != nil {
			return err
		}
	}
	if *jsonOut != "" {
		doc := struct {
			LLH    float64     `json:"llh"`
			Chi2   float64     `json:"chi2"`
			Params []string    `json:"parameters"`
			Grad   []float64   `json:"grad,omitempty"`
			FIM    [][]float64 `json:"fim,omitempty"`
		}{r.LLH, r.Chi2, ids, r.Grad, r.FIM}
		if err := writeFile(*jsonOut, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(doc)
		}); err != nil {
			return err
		}
	}
	return nil
}

// checkPEtabOutputs checks -o and -json before the problem is read: each
// must be a file that can be written, neither the problem file, and not
// the same file as the other (the second would overwrite the first).
func checkPEtabOutputs(fs *flag.FlagSet, simOut, jsonOut string) error {
	bad := func(err error) error { return &usageError{cmd: fs.Name(), msg: err.Error(), synopsis: synopsis(fs)} }
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, o := range []struct{ name, path string }{{"o", simOut}, {"json", jsonOut}} {
		if set[o.name] && o.path == "" {
			return bad(fmt.Errorf("-%s needs a file name", o.name))
		}
		if o.path != "" {
			if err := checkOutFile(o.name, o.path, fs.Arg(0)); err != nil {
				return bad(err)
			}
		}
	}
	if simOut != "" && jsonOut != "" && (filepath.Clean(simOut) == filepath.Clean(jsonOut) || sameFile(simOut, jsonOut)) {
		return bad(fmt.Errorf("-o and -json are both %s: give each its own file", simOut))
	}
	return nil
}

// startCPUProfile starts a CPU profile into path; stop ends it and closes
// the file. pbgen petab -cpuprofile is how the time of a large problem is
// split into reading, building and solving (docs/bench/chensize.md).
func startCPUProfile(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// listErrors prints every error of a PEtab ErrorList, one a line, and
// returns a one-line summary for the exit message.
func listErrors(w io.Writer, err error) error {
	l, ok := err.(petab.ErrorList)
	if !ok {
		return err
	}
	for _, e := range l {
		fmt.Fprintln(w, e)
	}
	if len(l) >= petab.MaxErrors {
		return fmt.Errorf("%d or more errors (reading stopped at %d)", len(l), petab.MaxErrors)
	}
	return fmt.Errorf("%d error(s)", len(l))
}

// writeFile writes a file through fill, reporting close errors.
func writeFile(path string, fill func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// genPEtab is pbgen petab -gen: it loads the problem and writes the Go
// package of its lowered model, observables, state assignment sets and
// data (codegen.Generate with Observables, Assignments and Problem) into
// dir. The evaluation flags mean
// nothing here and are refused, as is a bad -pkg before anything is read.
func genPEtab(fs *flag.FlagSet, dir, pkg string, lopt *petab.LoadOptions, stderr io.Writer) error {
	var evalFlags []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "gen", "o", "pkg", "switches":
		default:
			evalFlags = append(evalFlags, "-"+f.Name)
		}
	})
	if len(evalFlags) > 0 {
		return &usageError{cmd: fs.Name(), msg: strings.Join(evalFlags, ", ") + " cannot be used with -gen"}
	}
	if pkg != "" {
		if err := checkPackageName(pkg); err != nil {
			return &usageError{cmd: fs.Name(), msg: "-pkg " + err.Error()}
		}
	}
	if dir != "" {
		if err := checkOutDir("o", dir); err != nil {
			return &usageError{cmd: fs.Name(), msg: err.Error()}
		}
	}
	path := fs.Arg(0)
	p, err := petab.LoadWith(path, lopt)
	if err != nil {
		return listErrors(stderr, err)
	}
	if pkg == "" {
		pkg = packageName(p.System.ODE.Name)
	}
	if dir == "" {
		dir = pkg
	}
	obs := make([]codegen.Observable, len(p.ObservableExprs))
	for k, o := range p.ObservableExprs {
		obs[k] = codegen.Observable{ID: o.ID, H: o.H, Sigma: o.Sigma, U: o.U, NObs: o.NObs}
	}
	asg := make([]codegen.Assignment, len(p.AssignExprs))
	for k, a := range p.AssignExprs {
		asg[k] = codegen.Assignment{States: a.States, Values: a.Values}
	}
	files, err := codegen.Generate(p.System, &codegen.Options{Package: pkg, Source: sourceName(path), Observables: obs, Assignments: asg, Problem: p.Objective})
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return writePackage(dir, files)
}
