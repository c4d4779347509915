package parser

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pbgen/pbgen/symbolic"
)

// nestedDoc defines f0(x) = sin(x) + x and f_i(x) = f_{i-1}(f_{i-1}(x))
// for i up to n, and uses f_n in a rate: a 7 KB document for n = 29 whose
// expansion has about 2^30 distinct nodes.
func nestedDoc(n int) string {
	var b strings.Builder
	b.WriteString("<listOfFunctionDefinitions>\n")
	b.WriteString(`<functionDefinition id="f0">` + ma(`<lambda><bvar><ci>x</ci></bvar><apply><plus/><apply><sin/><ci>x</ci></apply><ci>x</ci></apply></lambda>`) + "</functionDefinition>\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<functionDefinition id="f%d">`+ma(`<lambda><bvar><ci>x</ci></bvar><apply><ci>f%d</ci><apply><ci>f%d</ci><ci>x</ci></apply></apply></lambda>`)+"</functionDefinition>\n", i, i-1, i-1)
	}
	b.WriteString("</listOfFunctionDefinitions>\n")
	return l3(b.String() + basics + law(fmt.Sprintf("\n<apply><times/><ci>k</ci><apply><ci>f%d</ci><ci>S</ci></apply></apply>", n)))
}

// TestExpansionLimits: expansion that would pass MaxExprSize is refused
// quickly, at the line of the definition (with the size it would reach)
// or of the call, for every kind of blow-up: exponential nesting of
// definitions, quadratic flattening inside one, and chains of rules.
func TestExpansionLimits(t *testing.T) {
	rules := func(n int) string {
		var b strings.Builder
		b.WriteString(comp1 + "\n" + spS + "\n<listOfParameters><parameter id=\"k\" value=\"1\" constant=\"true\"/><parameter id=\"p0\" value=\"1\" constant=\"true\"/>\n")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "<parameter id=\"p%d\" constant=\"false\"/>\n", i)
		}
		b.WriteString("</listOfParameters>\n<listOfRules>\n")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, `<assignmentRule variable="p%d">`+ma(`<apply><plus/><apply><sin/><ci>p%d</ci></apply><ci>p%d</ci></apply>`)+"</assignmentRule>\n", i, i-1, i-1)
		}
		b.WriteString("</listOfRules>\n")
		return l3(b.String() + law(fmt.Sprintf("<apply><times/><ci>k</ci><ci>S</ci><ci>p%d</ci></apply>", n)))
	}
	cases := []struct {
		name, doc, marker, want string
		lower                   bool
	}{
		// One expansion of f_i has s_i = 7*2^i - 3 nodes (s_0 = 4 for
		// sin(x) + x, s_i = 3 + 2*s_{i-1} for two calls and x).
		{"nested 29", nestedDoc(29), `<functionDefinition id="f29"`, fmt.Sprintf(`functionDefinition "f29": expanding its calls would create about %.3g expression nodes, more than the limit of %d`, float64(7<<29-3), MaxExprSize), false},
		{"nested 13", nestedDoc(13), `<functionDefinition id="f11"`, `functionDefinition "f11": expressions larger than the limit of ` + strconv.Itoa(MaxExprSize) + ` nodes and arguments (expanding the call of function "f10")`, false},
		{"rule chain", rules(5000), `<species id="S"`, `species "S": its expressions (assignment rules and reaction rates substituted) are larger than the limit of ` + strconv.Itoa(MaxExprSize), true},
	}
	for _, c := range cases {
		start := time.Now()
		m, err := Read(strings.NewReader(c.doc), "big.xml")
		if c.lower {
			if err != nil {
				t.Fatalf("%s: Read: %v", c.name, err)
			}
			_, err = m.ODE(nil)
		}
		want := "big.xml:" + strconv.Itoa(lineOf(t, c.doc, c.marker)) + ": " + c.want
		var list ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("%s: got %v", c.name, err)
		}
		found := false
		for _, e := range list {
			found = found || strings.HasPrefix(e.Error(), want)
		}
		if !found {
			t.Errorf("%s:\ngot  %v\nwant %s...", c.name, err, want)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s: took %v", c.name, d)
		}
	}
	// A chain of definitions, each calling the previous one: the
	// expansion recurses as deep as the chain is long.
	var chain strings.Builder
	chain.WriteString("<listOfFunctionDefinitions>\n" + `<functionDefinition id="g0">` + ma(`<lambda><bvar><ci>x</ci></bvar><apply><sin/><ci>x</ci></apply></lambda>`) + "</functionDefinition>\n")
	n := symbolic.MaxDepth + 100
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&chain, `<functionDefinition id="g%d">`+ma(`<lambda><bvar><ci>x</ci></bvar><apply><ci>g%d</ci><ci>x</ci></apply></lambda>`)+"</functionDefinition>\n", i, i-1)
	}
	chain.WriteString("</listOfFunctionDefinitions>\n")
	doc := l3(chain.String() + basics + law(fmt.Sprintf("<apply><ci>g%d</ci><ci>S</ci></apply>", n)))
	if _, err := Read(strings.NewReader(doc), "deep.xml"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf(`reaction "R": math nested deeper than %d levels`, symbolic.MaxDepth)) {
		t.Errorf("chain of %d definitions: got %v", n, err)
	}
	// Below the limits the same shapes read and lower.
	for _, doc := range []string{nestedDoc(6), rules(200)} {
		lowerDoc(t, doc, nil)
	}
}
