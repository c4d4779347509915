// Command pbgen turns an SBML reaction network into a Go package that
// computes the trajectory x(t) and its full parameter sensitivity matrix
// S(t) = dx/dp with the runtime in github.com/pbgen/pbgen/runtime.
//
// Usage:
//
//	pbgen [-o DIR] [-pkg NAME] network.xml     generate a package
//	pbgen check network.xml                    summarise, or list the errors
//	pbgen sim [flags] network.xml              simulate without generating
//	pbgen testsuite [flags] DIR                run SBML (or -petab) test-suite cases
//	pbgen petab [flags] problem.yaml           evaluate a PEtab problem (llh, chi2, gradient, FIM)
//	pbgen petab check problem.yaml             summarise a PEtab problem, or list its errors
//	pbgen sample [flags] problem.yaml          sample its posterior (MCMC; -chain-index, -merge for Slurm)
//	pbgen fit [flags] problem.yaml             estimate its parameters (multi-start trust-region optimisation)
//	pbgen profile -fit DIR/fit.json problem.yaml   profile likelihoods and 95% intervals through a fit's best point
//	pbgen version                              print the version
//
// Flags may come before or after the file, as with the go command; an
// argument "--" ends the flags.
//
// Generating writes DIR/*.go (default DIR ./NAME, NAME the model id in
// lower case) and rewrites only files whose bytes changed, so that it can
// run from go generate beside a model:
//
//	//go:generate go run github.com/pbgen/pbgen/cmd/pbgen -o . -pkg camkii ../../networks/CaMKII.xml
//
// The generated package imports only runtime/model; solve it with
// runtime/sens:
//
//	m := camkii.New()
//	res, err := sens.Solve(m, p, ts, &sens.Options{Method: sens.PBSR})
//
// Exit status: 0 on success, 1 on failure (bad input, integrator failure),
// 2 on wrong usage. An error's first line says what was wrong.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"runtime/debug"
	"strings"
)

// version is the pbgen release; generated code records model.GenVersion.
const version = "0.1.0"

func main() {
	log.SetFlags(0)
	log.SetPrefix("pbgen: ")
	// Every input error is an error value; a panic is a bug in pbgen. The
	// user still gets one line saying so rather than a stack trace (tests
	// and FuzzSimArgs call run directly, so they see the panic itself).
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "pbgen: internal error (a bug in pbgen; please report it with the command line): %v\n", r)
			os.Exit(1)
		}
	}()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks a usage error (exit status 2).
var errUsage = errors.New("usage")

// usageError is a wrong command line: its message is printed first,
// followed by where to find the usage, and the exit status is 2.
type usageError struct {
	cmd, msg string // "pbgen sim", what was wrong
	synopsis string // the usage line, or ""
}

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == errUsage }

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	var err error
	switch {
	case len(args) == 0:
		usage(stderr)
		return 2
	case args[0] == "version":
		if len(args) > 1 {
			err = &usageError{cmd: "pbgen", msg: "version takes no arguments"}
			break
		}
		bi, _ := debug.ReadBuildInfo()
		fmt.Fprintln(stdout, versionString(bi))
		return 0
	case args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		usage(stdout)
		return 0
	case args[0] == "check":
		err = cmdCheck(args[1:], stdout, stderr)
	case args[0] == "sim":
		err = cmdSim(args[1:], stdout, stderr)
	case args[0] == "testsuite":
		err = cmdTestsuite(args[1:], stdout, stderr)
	case args[0] == "petab":
		err = cmdPEtab(args[1:], stdout, stderr)
	case args[0] == "sample":
		err = cmdSample(args[1:], stdout, stderr)
	case args[0] == "fit":
		err = cmdFit(args[1:], stdout, stderr)
	case args[0] == "profile":
		err = cmdProfile(args[1:], stdout, stderr)
	case args[0] == "gen":
		err = cmdGen(args[1:], stdout, stderr)
	default:
		err = cmdGen(args, stdout, stderr)
	}
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: %s\n", ue.cmd, ue.msg)
		if ue.synopsis != "" {
			fmt.Fprintln(stderr, ue.synopsis)
		}
		fmt.Fprintf(stderr, "Run '%s -h' for usage.\n", ue.cmd)
		return 2
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	fmt.Fprintf(stderr, "pbgen: %v\n", err)
	return 1
}

// versionString is the output of pbgen version: the release, then, from
// the build information the go command records (nil when there is none),
// the module version and the VCS revision, time and whether the tree had
// local changes, so that a binary says which source it was built from.
func versionString(bi *debug.BuildInfo) string {
	s := "pbgen " + version
	if bi == nil {
		return s + " (no build information)"
	}
	var parts []string
	mod := bi.Main.Path
	if mod == "" {
		mod = "unknown module"
	}
	if v := bi.Main.Version; v != "" {
		mod += " " + v
	}
	parts = append(parts, mod)
	settings := make(map[string]string)
	for _, kv := range bi.Settings {
		settings[kv.Key] = kv.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		r := "revision " + rev
		if t := settings["vcs.time"]; t != "" {
			r += " " + t
		}
		if settings["vcs.modified"] == "true" {
			r += " (modified)"
		}
		parts = append(parts, r)
	} else {
		parts = append(parts, "no VCS revision recorded")
	}
	if bi.GoVersion != "" {
		parts = append(parts, bi.GoVersion)
	}
	return s + " (" + strings.Join(parts, ", ") + ")"
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  pbgen [-o DIR] [-pkg NAME] network.xml   generate a Go package for the network
  pbgen check network.xml                  summarise the network or list its errors
  pbgen sim [flags] network.xml            simulate x(t) and S(t), write TSV
  pbgen testsuite [flags] DIR              run SBML Test Suite cases in DIR
  pbgen petab [flags] problem.yaml         evaluate a PEtab problem (llh, chi2, -grad, -fim)
  pbgen petab check problem.yaml           summarise a PEtab problem or list its errors
  pbgen sample [flags] problem.yaml        sample a PEtab problem's posterior (MCMC)
  pbgen fit [flags] problem.yaml           estimate a PEtab problem's parameters (multi-start optimisation)
  pbgen profile -fit FIT.json problem.yaml profile likelihoods through a fit's best point
  pbgen version                            print the version and build information
Run 'pbgen <command> -h' for a command's flags.
`)
}

// newFlagSet returns a flag set whose Usage prints the full help (synopsis
// and flags) on its output, stderr; parseFlags shows it for -h only. A
// command's own Usage must also write to fs.Output() (synopsis reads its
// first line from there).
func newFlagSet(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and requires exactly nargs positional arguments.
// Flags may follow positional arguments (pbgen sim net.xml -n 2), as the
// go command allows; "--" ends the flags. A mistake is a *usageError whose
// message names it (the flag package's own message for a bad flag); -h
// prints the full help and returns flag.ErrHelp. Afterwards fs.Args() are
// the positional arguments.
func parseFlags(fs *flag.FlagSet, args []string, nargs int) error {
	out, help := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	pos, err := parseInterspersed(fs, args)
	fs.SetOutput(out)
	fs.Usage = help
	if errors.Is(err, flag.ErrHelp) {
		help()
		return err
	}
	if err != nil {
		return &usageError{fs.Name(), err.Error(), synopsis(fs)}
	}
	switch {
	case len(pos) < nargs:
		return &usageError{fs.Name(), "missing argument", synopsis(fs)}
	case len(pos) > nargs:
		return &usageError{fs.Name(), "too many arguments: " + strings.Join(quoteAll(pos), " "), synopsis(fs)}
	}
	// Leave the positional arguments in fs.Args().
	return fs.Parse(append([]string{"--"}, pos...))
}

// parseInterspersed parses flags anywhere in args and returns the other
// arguments in order. The flag package stops at the first non-flag; this
// takes that argument as positional and resumes after it. After "--"
// every argument is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		consumed := args[:len(args)-len(rest)]
		if n := len(consumed); n > 0 && consumed[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// synopsis is the first line of fs's help ("usage: pbgen sim [flags] ...").
func synopsis(fs *flag.FlagSet) string {
	var b strings.Builder
	out := fs.Output()
	fs.SetOutput(&b)
	fs.Usage()
	fs.SetOutput(out)
	line, _, _ := strings.Cut(b.String(), "\n")
	return line
}

func quoteAll(ss []string) []string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return q
}
