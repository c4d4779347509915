package objective

import (
	"math"
	"slices"
	"testing"
)

// replicates groups by phase, output, observable and placeholder values,
// and chains each group in data order.
func TestReplicatesGroups(t *testing.T) {
	k := func(v float64) Value { return Value{Theta: -1, Const: v} }
	th := func(a int) Value { return Value{Theta: a} }
	inf := math.Inf(1)
	data := []Datum{
		{Obs: 0, T: 1, U: []Value{th(0)}},                   // 0: lead
		{Obs: 0, T: 1, U: []Value{th(0)}},                   // 1: with 0
		{Obs: 0, T: 1, U: []Value{th(1)}},                   // 2: another theta
		{Obs: 0, T: 1, U: []Value{k(0)}},                    // 3: a constant
		{Obs: 0, T: 1, U: []Value{k(math.Copysign(0, -1))}}, // 4: -0 is kept apart (a constant's bits)
		{Obs: 1, T: 1, U: []Value{th(0)}},                   // 5: another observable
		{Obs: 0, T: 2, U: []Value{th(0)}},                   // 6: another output
		{Obs: 0, T: 1, U: []Value{th(0)}},                   // 7: with 0, in another phase
		{Obs: 0, T: inf, U: []Value{th(0)}},                 // 8: steady state
		{Obs: 0, T: inf, U: []Value{th(0)}},                 // 9: with 8
		{Obs: 0, T: 1, U: []Value{th(0)}},                   // 10: with 0 and 1
	}
	phaseOf := []int{0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0}
	out := []int{0, 0, 0, 0, 0, 0, 1, 0, -1, -1, 0}
	lead, next := replicates(data, phaseOf, out)
	wantLead := []bool{true, false, true, true, true, true, true, true, true, false, false}
	wantNext := []int{1, 10, -1, -1, -1, -1, -1, -1, 9, -1, -1}
	if !slices.Equal(lead, wantLead) || !slices.Equal(next, wantNext) {
		t.Errorf("lead %v next %v, want %v %v", lead, next, wantLead, wantNext)
	}
}
