package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pbgen/pbgen/runtime/sens"
	"github.com/pbgen/pbgen/testsuite"
)

// cmdTestsuite runs SBML Test Suite cases and prints the suite report.
func cmdTestsuite(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("pbgen testsuite", stderr, "pbgen testsuite [-all | -cases ID,...] [-gen] DIR | pbgen testsuite -petab [-method M] DIR")
	all := fs.Bool("all", false, "run every TimeCourse case, not only the core ones (not with -cases)")
	ids := fs.String("cases", "", "comma-separated case `ids` to run, five digits each (00001,00002)")
	gen := fs.Bool("gen", false, "run the cases through generated packages (one temporary module, one go build)")
	petabSuite := fs.Bool("petab", false, "DIR is a PEtab test suite folder (vX/sbml): compare llh, chi2 and simulations")
	petabMethod := fs.String("method", "fs", "with -petab: sensitivity `method` fs, pbs, pbsr or exp")
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	if err := checkTestsuiteFlags(fs, *ids, *all); err != nil {
		return err
	}
	dir := fs.Arg(0)
	if st, err := os.Stat(dir); err != nil {
		return fmt.Errorf("DIR %s: %v", dir, unwrapPath(err))
	} else if !st.IsDir() {
		return fmt.Errorf("DIR %s: not a directory (want the folder of the cases)", dir)
	}
	if *petabSuite {
		m, err := sens.ParseMethod(*petabMethod)
		if err != nil {
			return &usageError{cmd: fs.Name(), msg: fmt.Sprintf("-method %q: want fs, pbs, pbsr or exp", *petabMethod), synopsis: synopsis(fs)}
		}
		return runPEtabSuite(dir, m, stdout)
	}
	f := &testsuite.Filter{All: *all}
	if *ids != "" {
		f.IDs = strings.Split(*ids, ",")
		for _, id := range f.IDs {
			if st, err := os.Stat(filepath.Join(dir, id)); err != nil || !st.IsDir() {
				return fmt.Errorf("-cases %s: no case folder %s in %s", id, id, dir)
			}
		}
	}
	var outs []testsuite.Outcome
	var err error
	if *gen {
		outs, err = testsuite.RunDirGenerated(dir, f, nil, stderr)
	} else {
		outs, err = testsuite.RunDir(dir, f, nil)
	}
	if err != nil {
		return err
	}
	s := testsuite.Report(stdout, outs)
	if s.Failed > 0 {
		return fmt.Errorf("%d of %d cases failed", s.Failed, len(outs))
	}
	return nil
}

// checkTestsuiteFlags refuses flags that would be ignored (the SBML
// suite's flags with -petab, -method without it, -all with -cases) and
// case ids that are not five digits, before any case is read.
func checkTestsuiteFlags(fs *flag.FlagSet, ids string, all bool) error {
	bad := func(format string, a ...any) error {
		return &usageError{cmd: fs.Name(), msg: fmt.Sprintf(format, a...), synopsis: synopsis(fs)}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	petabSuite := fs.Lookup("petab").Value.String() == "true"
	for _, name := range []string{"all", "cases", "gen"} {
		if petabSuite && set[name] {
			return bad("-%s applies to the SBML Test Suite, not -petab", name)
		}
	}
	switch {
	case set["method"] && !petabSuite:
		return bad("-method applies to -petab only (the SBML Test Suite runs check the states)")
	case all && ids != "":
		return bad("-all and -cases: give one or the other (-cases runs exactly the cases named)")
	case set["cases"] && ids == "":
		return bad("-cases needs at least one case id")
	}
	if ids == "" {
		return nil
	}
	for _, id := range strings.Split(ids, ",") {
		if len(id) != 5 || strings.Trim(id, "0123456789") != "" {
			return bad("-cases %q: case ids are five digits (00001), got %q", ids, id)
		}
	}
	return nil
}

// runPEtabSuite is pbgen testsuite -petab.
func runPEtabSuite(dir string, m sens.Method, stdout io.Writer) error {
	outs, err := testsuite.RunPEtabDir(dir, &testsuite.PEtabOptions{Method: m})
	if err != nil {
		return err
	}
	if _, failed, _ := testsuite.PEtabReport(stdout, outs); failed > 0 {
		return fmt.Errorf("%d of %d PEtab cases failed", failed, len(outs))
	}
	return nil
}
