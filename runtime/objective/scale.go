package objective

import "math"

// FromScale returns the linear value of v given on scale s and its
// derivative d(linear)/dv: the chain factor every gradient path through an
// estimated parameter carries (1, x, x ln 10).
func FromScale(s Scale, v float64) (x, dxdv float64) {
	switch s {
	case Log:
		x = math.Exp(v)
		return x, x
	case Log10:
		x = math.Pow(10, v)
		return x, x * math.Ln10
	}
	return v, 1
}

// ToScale returns the linear value x on scale s (log of a non-positive
// value is -Inf or NaN, as math.Log gives).
func ToScale(s Scale, x float64) float64 {
	switch s {
	case Log:
		return math.Log(x)
	case Log10:
		return math.Log10(x)
	}
	return x
}

// String returns the PEtab name of the scale.
func (s Scale) String() string {
	switch s {
	case Lin:
		return "lin"
	case Log:
		return "log"
	case Log10:
		return "log10"
	}
	return "Scale(?)"
}
