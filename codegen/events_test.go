package codegen

import (
	"errors"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/testnet"
	"github.com/pbgen/pbgen/symbolic"
)

// TestEventsRefused: a system with events is refused by name (ErrEvents)
// rather than generated without them.
func TestEventsRefused(t *testing.T) {
	sys := testnet.Toy()
	b := sys.B
	sys.ODE.Events = []symbolic.Event{{Name: "E1", Trigger: b.Rel(symbolic.OpGt, b.Time(), b.Const(1)),
		Meta: map[string]string{"file": "toy.xml", "line": "12"}}}
	files, err := Generate(sys, nil)
	if !errors.Is(err, ErrEvents) || files != nil {
		t.Fatalf("got %d files, error %v; want ErrEvents", len(files), err)
	}
	if !strings.Contains(err.Error(), `toy.xml:12: model "toy": event "E1"`) {
		t.Errorf("error %q does not name the file, line and event", err)
	}
	sys.ODE.Events = nil
	if _, err := Generate(sys, nil); err != nil {
		t.Errorf("without events: %v", err)
	}
}
