//go:build !race

package dae_test

const raceEnabled = false
