package codegen

import (
	"errors"
	"fmt"

	"github.com/pbgen/pbgen/symbolic"
)

// ErrEvents is wrapped by the error Generate returns for a system with
// events: generated code does not implement model.Events yet, and a
// package that silently dropped the events would simulate a different
// model. Use interp (and runtime/events) for such models.
var ErrEvents = errors.New("events are not supported by generated code")

// checkEvents refuses a system with events, naming the first.
func checkEvents(sys *symbolic.System) error {
	if len(sys.ODE.Events) == 0 {
		return nil
	}
	e := sys.ODE.Events[0]
	where := ""
	if f, l := e.Meta["file"], e.Meta["line"]; f != "" && l != "" {
		where = f + ":" + l + ": "
	}
	return fmt.Errorf("codegen: %smodel %q: event %q: %w (the model has %d events)", where, sys.ODE.Name, e.Name, ErrEvents, len(sys.ODE.Events))
}
