// Command tab2sbml converts a reaction network given as tab-separated
// tables (State.tsv, Parameter.tsv, Constant.tsv, Expression.tsv,
// Reaction.tsv) into an SBML Level 3 Version 2 core document.
//
// Usage:
//
//	tab2sbml [-o out.xml] [-id modelID] [-raterules] folder
//
// The table format and the SBML conventions are those of package
// github.com/pbgen/pbgen/internal/tables. Without -o the document goes to
// standard output. -raterules writes the states as parameters with rate
// rules instead of species and reactions (for systems such as Chua's
// circuit that are not reaction networks). The output depends only on the
// tables, so repeated runs are byte-identical. The shipped networks were
// produced with
//
//	go run ./cmd/tab2sbml -o networks/PKA.xml internal/tables/testdata/PKA
//	go run ./cmd/tab2sbml -o networks/CaMKII.xml internal/tables/testdata/CaMKII
//	go run ./cmd/tab2sbml -raterules -o networks/Chua.xml internal/tables/testdata/Chua
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/pbgen/pbgen/internal/tables"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("tab2sbml: ")
	out := flag.String("o", "", "write the SBML to this file instead of standard output")
	id := flag.String("id", "", "model id (default: the folder name, or folder name + \"_model\" if that id is taken)")
	rateRules := flag.Bool("raterules", false, "write states as parameters with rate rules (not a reaction network)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: tab2sbml [-o out.xml] [-id modelID] [-raterules] folder\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, *out, flag.Arg(0), &tables.SBMLOptions{ID: *id, RateRules: *rateRules}); err != nil {
		log.Fatal(err)
	}
}

// run converts the folder dir and writes the document to out (a path) or,
// when out is empty, to stdout. A file is rewritten only when its bytes
// change, so that an unchanged conversion does not touch its timestamp.
func run(stdout io.Writer, out, dir string, opt *tables.SBMLOptions) error {
	n, err := tables.Load(dir)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := tables.WriteSBML(&buf, n, opt); err != nil {
		return err
	}
	if out == "" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	if old, err := os.ReadFile(out); err == nil && bytes.Equal(old, buf.Bytes()) {
		return nil
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}
