package parser

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ParseDouble parses s as an XML Schema double (xsd:double), the type of
// every SBML number attribute: an optional sign, digits with an optional
// decimal point (at least one digit), an optional exponent (e or E,
// optional sign, digits), or one of the special values INF, +INF, -INF
// and NaN (XSD 1.1; 1.0 lacks +INF). Surrounding XML white space (space,
// tab, CR, LF) is ignored, as the type's whiteSpace="collapse" facet says.
//
// Everything else is an error, in particular Go's own number syntax that
// strconv.ParseFloat would take (0_5, 0x1p-1, infinity, inf, nan), so that
// a document means the same in every SBML tool. A finite literal too large
// for float64 (1e999) is an error too: XSD would round it to INF, but a
// literal that was meant as a number and silently became infinite only
// fails later, far from its line. Values too small for float64 round to
// zero or a subnormal number, as XSD and strtod do.
//
// The command line uses ParseDouble for -p and -x0 values so that they
// follow the same rules as the document.
func ParseDouble(s string) (float64, error) {
	t := strings.Trim(s, " \t\r\n")
	switch t {
	case "INF", "+INF":
		return math.Inf(1), nil
	case "-INF":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	if !isDecimal(t, true) {
		return 0, fmt.Errorf("%q is not a number (XML Schema double)", t)
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange && math.IsInf(v, 0) {
			return 0, fmt.Errorf("%q overflows float64 (largest %g)", t, math.MaxFloat64)
		}
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return 0, fmt.Errorf("%q is not a number (XML Schema double)", t)
		}
	}
	return v, nil
}

// isDecimal reports whether t matches
//
//	[+-]? ( [0-9]+ ( '.' [0-9]* )? | '.' [0-9]+ ) ( [eE] [+-]? [0-9]+ )?
//
// (the exponent part only when exp is true): the finite xsd:double
// lexical space, and with exp false the decimal notation of MathML 2.
func isDecimal(t string, exp bool) bool {
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(t) && '0' <= t[i] && t[i] <= '9' {
			i++
			n++
		}
		return n
	}
	n := digits()
	if i < len(t) && t[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if exp && i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(t)
}

// parseInteger parses a MathML 2 integer: an optional sign and digits in
// base (2 to 36, digits beyond 9 are letters in either case), rounded to
// the nearest float64. It is an error if the value overflows float64.
func parseInteger(s string, base int) (float64, error) {
	t := strings.Trim(s, " \t\r\n")
	u := strings.TrimLeft(t, "+-")
	if len(t)-len(u) > 1 || u == "" || strings.ContainsAny(u, "_+-") {
		return 0, fmt.Errorf("%q is not an integer in base %d", t, base)
	}
	var z big.Int
	if _, ok := z.SetString(u, base); !ok {
		return 0, fmt.Errorf("%q is not an integer in base %d", t, base)
	}
	f, _ := new(big.Float).SetInt(&z).Float64()
	if math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q overflows float64 (largest %g)", t, math.MaxFloat64)
	}
	if strings.HasPrefix(t, "-") {
		f = -f
	}
	return f, nil
}
