package events

import (
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
)

// backModel is x' = -1 with one switch root g = x - 1 and no events: a
// model whose f- carries the root away from the side it was located
// crossing to, as a crossing found on a straddling step's interpolant
// can be where the solution only touched the switch.
type backModel struct{}

func (backModel) Name() string                               { return "back" }
func (backModel) StateNames() []string                       { return []string{"x"} }
func (backModel) ParamNames() []string                       { return nil }
func (backModel) DefaultParams(dst []float64)                {}
func (backModel) InitialState(dst, p []float64)              { dst[0] = 1 }
func (backModel) InitialSens(dst, p []float64)               {}
func (backModel) F(dst []float64, t float64, x, p []float64) { dst[0] = -1 }
func (backModel) JxPattern() *model.Pattern {
	return &model.Pattern{Rows: 1, Cols: 1, RowPtr: []int{0, 0}}
}
func (backModel) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: 1, Cols: 0, RowPtr: []int{0, 0}}
}
func (backModel) Jx(dst []float64, t float64, x, p []float64)       {}
func (backModel) Jp(dst []float64, t float64, x, p []float64)       {}
func (backModel) NumEvents() int                                    { return 0 }
func (backModel) EventInfo(k int) model.EventInfo                   { return model.EventInfo{} }
func (backModel) TriggersTo(dst []bool, t float64, x, p []float64)  {}
func (backModel) NumRoots() int                                     { return 1 }
func (backModel) RootsTo(dst []float64, t float64, x, p []float64)  { dst[0] = x[0] - 1 }
func (backModel) Delay(k int, t float64, x, p []float64) float64    { return 0 }
func (backModel) Priority(k int, t float64, x, p []float64) float64 { return 0 }
func (backModel) EventTargets(k int) []int                          { return nil }
func (backModel) EventAssign(k int, t float64, x, p, dst []float64) {}
func (backModel) NumSwitches() int                                  { return 1 }

// TestAcrossSwitchStuck: a switch root that f- does not carry to its new
// side (located rising through zero, while f- takes it down) is an
// error naming the root and the time, not a state carried 2^30 times the
// bracket onwards with f-, as acrossSwitch did before it returned errors
// (Solve and SolveSens went on from there with exit status 0).
func TestAcrossSwitchStuck(t *testing.T) {
	var m backModel
	s := &solver{m: m, nx: 1}
	s.setup(m)
	s.tl = 0.5
	s.swOld[0] = -1e-9 // below zero before the crossing: its new side is above
	_, err := s.acrossSwitch([]float64{1}, 0.5+1e-12)
	if err == nil || !strings.Contains(err.Error(), "switch root 0") || !strings.Contains(err.Error(), "t=0.5") {
		t.Fatalf("err = %v, want the stuck switch root 0 at t=0.5", err)
	}
	// The same root crossed downwards is carried across by f-.
	s.swOld[0] = 1e-9
	tc, err := s.acrossSwitch([]float64{1}, 0.5+1e-12)
	if err != nil || !(tc > 0.5) || !(s.xbuf[0] < 1) {
		t.Fatalf("downward crossing: t+ = %g, x = %g, err %v", tc, s.xbuf[0], err)
	}
}
