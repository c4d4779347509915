//go:build race

package interp

// raceOn: the race detector makes sync.Pool drop items at random, so
// allocation counts of the in-package tests are meaningless under -race.
const raceOn = true
