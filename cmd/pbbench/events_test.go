package main

import (
	"io"
	"testing"
	"time"
)

// TestBenchEvents runs the events section on three doses: every method
// executes the three, S is near the reference, and with CVODES the
// ratios are there.
func TestBenchEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("times PKA solves")
	}
	er, err := benchEvents(&config{eventsDays: 3, eventsReps: 3, eventsBudget: time.Second}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := 5
	if haveCVODES {
		want = 8
	}
	if len(er.Methods) != want {
		t.Fatalf("%d methods, want %d", len(er.Methods), want)
	}
	for _, m := range er.Methods {
		if m.Err != "" || m.Fired != 3 || !(m.Median > 0) {
			t.Errorf("%s: error %q, %d executions, median %g", m.Name, m.Err, m.Fired, float64(m.Median))
		}
		// Exp has no error control of S; the others are at rtol 1e-5.
		if e := float64(m.MaxErr); e > 1e-2 {
			t.Errorf("%s: S error %g against the reference", m.Name, e)
		}
	}
	if haveCVODES && len(er.Ratios) != 5 {
		t.Errorf("ratios %v, want 5", er.Ratios)
	}
}
