// Command batch shows how an MCMC-style user drives a generated model:
// many parameter vectors solved in parallel, one reusable solver per
// goroutine sharing one model value, all of S(t) from PBSR.
//
//	go run ./examples/batch -n 64 -workers 2
//
// It prints, for each parameter vector, dx/dp at t = 600 for one state and
// one parameter (by default pCaMKIIa and kautMax).
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"sync"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sens"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("batch: ")
	n := flag.Int("n", 16, "number of parameter vectors")
	workers := flag.Int("workers", 2, "goroutines, one solver each")
	state := flag.String("state", "pCaMKIIa", "state whose sensitivity is printed")
	param := flag.String("param", "kautMax", "parameter whose sensitivity is printed")
	flag.Parse()

	m := camkii.New()
	i, j := index(m.StateNames(), *state), index(m.ParamNames(), *param)
	if i < 0 || j < 0 {
		log.Fatalf("unknown state %q or parameter %q", *state, *param)
	}
	ps := perturbed(m, *n)
	ts := make([]float64, 601) // t = 0, 1, ..., 600
	for k := range ts {
		ts[k] = float64(k)
	}
	opt := &sens.Options{Method: sens.PBSR, RTol: 1e-5, ATol: 1e-6}

	out := make([]float64, *n)
	errs := make([]error, *n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := sens.NewSolver(m, opt) // per goroutine; the model is shared
			var res sens.Result         // reused: no allocation after the first solve
			nx, np := model.NumStates(m), model.NumParams(m)
			for k := range jobs {
				if errs[k] = s.Solve(&res, ps[k], nil, ts[0], ts); errs[k] == nil {
					last := len(res.T) - 1
					out[k] = res.S[last*nx*np+i*np+j]
				}
			}
		}()
	}
	for k := range ps {
		jobs <- k
	}
	close(jobs)
	wg.Wait()
	fmt.Printf("# d%s/d%s at t = 600 (PBSR)\n", *state, *param)
	for k := range ps {
		if errs[k] != nil {
			fmt.Fprintf(os.Stderr, "vector %d: %v\n", k, errs[k])
			continue
		}
		fmt.Printf("%d\t%.6g\n", k, out[k])
	}
}

// perturbed returns n parameter vectors: the defaults scaled by
// log-normal factors (sigma 0.1), as a sampler would propose them.
func perturbed(m model.Model, n int) [][]float64 {
	r := rand.New(rand.NewPCG(1, 1))
	ps := make([][]float64, n)
	for k := range ps {
		p := make([]float64, model.NumParams(m))
		m.DefaultParams(p)
		for j := range p {
			p[j] *= math.Exp(0.1 * r.NormFloat64())
		}
		ps[k] = p
	}
	return ps
}

func index(names []string, name string) int {
	for i, s := range names {
		if s == name {
			return i
		}
	}
	return -1
}
