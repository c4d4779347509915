package testsuite

import (
	"runtime"
	"sync"
)

// Filter chooses which cases run.
type Filter struct {
	All bool     // run every TimeCourse case, not only the core ones
	IDs []string // run only these ids (empty = all that pass the other tests)
}

func (f *Filter) keep(c *Case) bool {
	if f != nil && len(f.IDs) > 0 {
		return contains(f.IDs, c.ID)
	}
	if f != nil && f.All {
		return c.TestType == "TimeCourse"
	}
	return c.Core()
}

// RunDir discovers the cases in dir and runs those the filter keeps, on all
// cores, returning outcomes in case order.
func RunDir(dir string, f *Filter, opt *Options) ([]Outcome, error) {
	cases, err := Discover(dir)
	if err != nil {
		return nil, err
	}
	var keep []*Case
	for _, c := range cases {
		if f.keep(c) {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		return nil, errNoCases
	}
	outs := make([]Outcome, len(keep))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				outs[i] = runSafe(keep[i], opt)
			}
		}()
	}
	for i := range keep {
		next <- i
	}
	close(next)
	wg.Wait()
	return outs, nil
}

// runSafe runs a case, turning a panic anywhere below into a failure that
// names it, so that one bad case cannot stop the harness.
func runSafe(c *Case, opt *Options) (out Outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = Outcome{Case: c, Status: Failed, Reason: "panic: " + firstLine(fmtPanic(r))}
		}
	}()
	return Run(c, opt)
}
