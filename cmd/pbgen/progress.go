package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress reports on stderr, when it is a terminal, that a run longer than
// a second is still going. It returns the function that stops the report.
func progress(stderr io.Writer, what string) (stop func()) {
	f, ok := stderr.(*os.File)
	if !ok || !isTerminal(f) {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		start := time.Now()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		shown := false
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprintf(f, "\r%s: done in %.1fs\n", what, time.Since(start).Seconds())
				}
				return
			case <-tick.C:
				shown = true
				fmt.Fprintf(f, "\r%s: %.0fs", what, time.Since(start).Seconds())
			}
		}
	}()
	return func() { close(done); <-finished }
}

// isTerminal reports whether f is a character device (a terminal), without
// a dependency on x/term.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
