//go:build !race

package events_test

const raceEnabled = false
