//go:build race

package events_test

// The race detector makes sync.Pool drop items at random (interp pools
// its event-derivative scratch), so allocation counts are meaningless
// under -race.
const raceEnabled = true
