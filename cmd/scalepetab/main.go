// Command scalepetab writes a synthetic PEtab problem on a scalenet
// reaction network (package internal/scalepetab) into a folder, for
// measuring `pbgen petab` on models of the size of the large published
// problems:
//
//	go run ./cmd/scalepetab -n 500 -o /tmp/scale500
//	pbgen petab /tmp/scale500/problem.yaml
//	pbgen petab -grad /tmp/scale500/problem.yaml
//
// -preeq pre-equilibrates every condition in the model's initial state,
// -grid takes the grid network instead of the chain.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/internal/scalepetab"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("scalepetab: ")
	n := flag.Int("n", 500, "number of states (rounded to the network's shape)")
	out := flag.String("o", "", "output `folder` (required)")
	preeq := flag.Bool("preeq", false, "pre-equilibrate every condition")
	grid := flag.Bool("grid", false, "the grid network instead of the chain")
	conds := flag.Int("conditions", 4, "simulation conditions")
	obs := flag.Int("observables", 8, "observables")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: scalepetab [-n N] [-preeq] [-grid] -o folder\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	opt := &scalepetab.Options{N: *n, Preeq: *preeq, Conditions: *conds, Observables: *obs}
	if *grid {
		opt.Shape = scalenet.Grid
	}
	path, err := scalepetab.Write(*out, opt)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(path)
}
