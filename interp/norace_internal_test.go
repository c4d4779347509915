//go:build !race

package interp

const raceOn = false
