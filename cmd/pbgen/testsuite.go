package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/pbgen/pbgen/testsuite"
)

// cmdTestsuite runs SBML Test Suite cases and prints the suite report.
func cmdTestsuite(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("pbgen testsuite", stderr, "pbgen testsuite [-all] [-cases ID,...] [-gen] DIR")
	all := fs.Bool("all", false, "run every TimeCourse case, not only the core ones")
	ids := fs.String("cases", "", "comma-separated case `ids` to run")
	gen := fs.Bool("gen", false, "run the cases through generated packages (one temporary module, one go build)")
	if err := parseFlags(fs, args, 1); err != nil {
		return err
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
