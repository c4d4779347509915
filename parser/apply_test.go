package parser

import (
	"strconv"
	"strings"
	"testing"
)

// TestApplyHeadApply: an <apply> whose first child is an <apply> is read
// as libSBML reads it, the inner operator over the inner arguments and then
// the outer ones (x = 2 in assigned).
func TestApplyHeadApply(t *testing.T) {
	cases := []struct {
		m    string
		want float64
	}{
		{`<apply><apply><plus/><ci>x</ci><cn>1</cn></apply></apply>`, 3},
		{`<apply><apply><apply><plus/><ci>x</ci><cn>1</cn></apply></apply></apply>`, 3},
		{`<apply><apply><plus/><ci>x</ci><cn>1</cn></apply><cn>4</cn></apply>`, 7},
		{`<apply><apply><apply><times/><ci>x</ci></apply><cn>3</cn></apply><cn>5</cn></apply>`, 30},
		{`<apply><apply><minus/><ci>x</ci></apply></apply>`, -2},
		{`<apply><apply><minus/><ci>x</ci></apply><cn>5</cn></apply>`, -3},
		{`<apply><apply><divide/></apply><ci>x</ci><cn>4</cn></apply>`, 0.5},
		{`<apply><apply><power/><ci>x</ci></apply><cn>3</cn></apply>`, 8},
		{`<apply><apply><root/></apply><degree><cn>3</cn></degree><cn>8</cn></apply>`, 2},
		{`<apply><times/><ci>x</ci><apply><apply><plus/><cn>1</cn><cn>2</cn></apply></apply></apply>`, 6},
	}
	for _, c := range cases {
		if got := assigned(t, c.m, 0); !near(got, c.want) {
			t.Errorf("%s = %v, want %v", c.m, got, c.want)
		}
	}
	doc := l3(`<listOfFunctionDefinitions><functionDefinition id="f">` + ma(`<lambda><bvar><ci>a</ci></bvar><bvar><ci>b</ci></bvar><apply><minus/><ci>a</ci><ci>b</ci></apply></lambda>`) + `</functionDefinition></listOfFunctionDefinitions>
<listOfParameters><parameter id="y" constant="false"/></listOfParameters>
<listOfRules><assignmentRule variable="y">` + ma(`<apply><apply><ci>f</ci><cn>10</cn></apply><cn>3</cn></apply>`) + `</assignmentRule></listOfRules>`)
	if got := evalAt(lowerDoc(t, doc, nil), 0, nil).out["y"]; got != 7 {
		t.Errorf("f(10)(3) read as f(10, 3) = %v, want 7", got)
	}
}

// TestApplyHeadErrors: what libSBML refuses after <apply> is refused with
// the line.
func TestApplyHeadErrors(t *testing.T) {
	cases := []struct{ m, marker, want string }{
		{"\n<apply><apply/></apply>", "<apply><apply/>", `empty <apply>`},
		{"\n<apply><apply><divide/><ci>k</ci></apply><cn>1</cn><cn>2</cn></apply>", "<apply><apply>", `<divide/> with 3 arguments`},
		{"<apply>\n<cn>1</cn><ci>k</ci></apply>", "<cn>1", `<cn> is not an operator and cannot be the first child of <apply>`},
		{"<apply>\n<pi/><ci>k</ci></apply>", "<pi/>", `<pi> is not an operator and cannot be the first child of <apply>`},
		{"<apply>\n<piecewise><otherwise><cn>1</cn></otherwise></piecewise></apply>", "<piecewise>", `<piecewise> is not an operator and cannot be the first child of <apply>`},
		{"<apply><apply>\n<true/></apply><ci>k</ci></apply>", "<true/>", `<true> is not an operator and cannot be the first child of <apply>`},
	}
	for _, c := range cases {
		doc := l3(basics + law(c.m))
		_, err := Read(strings.NewReader(doc), "a.xml")
		want := "a.xml:" + strconv.Itoa(lineOf(t, doc, c.marker)) + `: reaction "R": ` + c.want
		if err == nil || err.Error() != want {
			t.Errorf("%s:\ngot  %v\nwant %s", c.m, err, want)
		}
	}
}
