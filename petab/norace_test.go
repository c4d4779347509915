//go:build !race

package petab

const raceEnabled = false
