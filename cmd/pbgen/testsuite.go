package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/pbgen/pbgen/runtime/sens"
	"github.com/pbgen/pbgen/testsuite"
)

// cmdTestsuite runs SBML Test Suite cases and prints the suite report.
func cmdTestsuite(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("pbgen testsuite", stderr, "pbgen testsuite [-all] [-cases ID,...] [-gen] DIR | pbgen testsuite -petab [-method M] DIR")
	all := fs.Bool("all", false, "run every TimeCourse case, not only the core ones")
	ids := fs.String("cases", "", "comma-separated case `ids` to run")
	gen := fs.Bool("gen", false, "run the cases through generated packages (one temporary module, one go build)")
	petabSuite := fs.Bool("petab", false, "DIR is a PEtab test suite folder (vX/sbml): compare llh, chi2 and simulations")
	petabMethod := fs.String("method", "fs", "with -petab: sensitivity `method` fs, pbs, pbsr or exp")
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	if *petabSuite {
		return runPEtabSuite(fs.Arg(0), *petabMethod, stdout)
	}
	f := &testsuite.Filter{All: *all}
	if *ids != "" {
		f.IDs = strings.Split(*ids, ",")
	}
	var outs []testsuite.Outcome
	var err error
	if *gen {
		outs, err = testsuite.RunDirGenerated(fs.Arg(0), f, nil, stderr)
	} else {
		outs, err = testsuite.RunDir(fs.Arg(0), f, nil)
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

// runPEtabSuite is pbgen testsuite -petab.
func runPEtabSuite(dir, method string, stdout io.Writer) error {
	m, err := sens.ParseMethod(method)
	if err != nil {
		return err
	}
	outs, err := testsuite.RunPEtabDir(dir, &testsuite.PEtabOptions{Method: m})
	if err != nil {
		return err
	}
	if _, failed, _ := testsuite.PEtabReport(stdout, outs); failed > 0 {
		return fmt.Errorf("%d of %d PEtab cases failed", failed, len(outs))
	}
	return nil
}
