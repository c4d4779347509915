package capi

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Floats marshal to JSON with every float64 exact (the shortest decimal
// that reads back to the same value) and the non-finite values, which
// JSON lacks, as the strings "inf", "-inf" and "nan": a nominal value 0
// on a log scale is -Inf, a datum at steady state at time +Inf.
type Floats []float64

// MarshalJSON writes the list.
func (fs Floats) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, v := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case math.IsNaN(v):
			b = append(b, `"nan"`...)
		case math.IsInf(v, 1):
			b = append(b, `"inf"`...)
		case math.IsInf(v, -1):
			b = append(b, `"-inf"`...)
		default:
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		}
	}
	return append(b, ']'), nil
}

// InfoJSON is v as JSON, what the C ABI hands out as a description.
func InfoJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// listNames joins names for a message, at most max of them.
func listNames(names []string, max int) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:max], ", ") + ", ... (" + strconv.Itoa(len(names)-max) + " more)"
}

// sortedKeys are m's keys in order, for messages.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
