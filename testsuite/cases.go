// Package testsuite runs semantic test cases of the SBML Test Suite laid
// out as in its cases/semantic folder: NNNNN/NNNNN-sbml-lXvY.xml,
// NNNNN-settings.txt, NNNNN-results.csv and NNNNN-model.m. It parses and
// lowers each case with pbgen's reader, simulates it, and compares the
// requested variables with the expected results by the suite's criterion
// |expected - actual| <= absolute + relative * |expected| at every time.
//
// Models with events are lowered with parser.Options.Events and
// simulated with runtime/events, through interp.NewWithEvents or, on the
// generated path, through the generated package's model.Events.
package testsuite

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Case is one test case folder.
type Case struct {
	ID       string // NNNNN
	Dir      string
	TestType string   // TimeCourse, FluxBalanceSteadyState, ...
	Tags     []string // componentTags and testTags
	Settings Settings
}

// Settings is NNNNN-settings.txt.
type Settings struct {
	Start, Duration float64
	Steps           int
	Variables       []string
	Absolute        float64
	Relative        float64
	Amount          []string // variables reported as amounts
	Concentration   []string // variables reported as concentrations
}

// Discover lists the case folders in dir, sorted by id.
func Discover(dir string) ([]*Case, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var cases []*Case
	for _, e := range ents {
		if !e.IsDir() || !isCaseID(e.Name()) {
			continue
		}
		c, err := ReadCase(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].ID < cases[j].ID })
	return cases, nil
}

func isCaseID(s string) bool {
	if len(s) != 5 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// ReadCase reads the settings and tags of the case in dir.
func ReadCase(dir string) (*Case, error) {
	id := filepath.Base(dir)
	c := &Case{ID: id, Dir: dir}
	s, err := readSettings(filepath.Join(dir, id+"-settings.txt"))
	if err != nil {
		return nil, err
	}
	c.Settings = s
	if err := c.readTags(filepath.Join(dir, id+"-model.m")); err != nil {
		return nil, err
	}
	return c, nil
}

// readTags reads testType, componentTags and testTags from the model.m header.
func (c *Case) readTags(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "testType":
			c.TestType = strings.TrimSpace(val)
		case "componentTags", "testTags":
			for _, t := range strings.Split(val, ",") {
				if t = strings.TrimSpace(t); t != "" {
					c.Tags = append(c.Tags, t)
				}
			}
		}
	}
	return sc.Err()
}

func readSettings(path string) (Settings, error) {
	var s Settings
	f, err := os.Open(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if val == "" {
			continue // e.g. flux-balance cases leave the time course empty
		}
		var err error
		switch key {
		case "start":
			s.Start, err = strconv.ParseFloat(val, 64)
		case "duration":
			s.Duration, err = strconv.ParseFloat(val, 64)
		case "steps":
			s.Steps, err = strconv.Atoi(val)
		case "absolute":
			s.Absolute, err = strconv.ParseFloat(val, 64)
		case "relative":
			s.Relative, err = strconv.ParseFloat(val, 64)
		case "variables":
			s.Variables = splitList(val)
		case "amount":
			s.Amount = splitList(val)
		case "concentration":
			s.Concentration = splitList(val)
		}
		if err != nil {
			return s, fmt.Errorf("%s:%d: %s: %v", path, line, key, err)
		}
	}
	return s, sc.Err()
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Results is an expected-results table.
type Results struct {
	Columns []string    // after "time"
	T       []float64   // times
	V       [][]float64 // V[row][col]
}

// readResults reads NNNNN-results.csv.
func readResults(path string) (*Results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("%s: no results", path)
	}
	res := &Results{}
	for _, h := range rows[0][1:] {
		res.Columns = append(res.Columns, strings.TrimSpace(h))
	}
	for i, row := range rows[1:] {
		vals := make([]float64, len(row))
		for j, s := range row {
			v, err := parseNumber(s)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: column %d: %v", path, i+2, j+1, err)
			}
			vals[j] = v
		}
		res.T = append(res.T, vals[0])
		res.V = append(res.V, vals[1:])
	}
	return res, nil
}

// parseNumber accepts the suite's spellings of NaN and infinities.
func parseNumber(s string) (float64, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "nan":
		return math.NaN(), nil
	case "inf", "infinity", "+inf":
		return math.Inf(1), nil
	case "-inf", "-infinity":
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(strings.TrimSpace(s), 64)
}

// Close reports whether actual matches expected by the suite's criterion;
// NaN matches NaN and an infinity matches the same infinity.
func Close(expected, actual, abs, rel float64) bool {
	switch {
	case math.IsNaN(expected):
		return math.IsNaN(actual)
	case math.IsInf(expected, 0):
		return expected == actual
	}
	return math.Abs(expected-actual) <= abs+rel*math.Abs(expected)
}

// excludedTags mark cases outside pbgen's core scope, the 717 cases
// without events, algebraic rules, fast reactions, delays, rateOf,
// stoichiometryMath or packages. rateOf, stoichiometryMath and comp are
// read now; their cases run with Filter.All, which keeps the core count
// comparable across versions.
var excludedTags = []string{"EventNoDelay", "EventWithDelay", "EventPriority", "AlgebraicRule",
	"FastReaction", "CSymbolDelay", "CSymbolRateOf", "StoichiometryMath"}

// Core reports whether the case is in pbgen's core scope: a TimeCourse test
// without the excluded tags and without package (comp:, fbc:, ...) tags.
func (c *Case) Core() bool {
	if c.TestType != "TimeCourse" {
		return false
	}
	for _, t := range c.Tags {
		if strings.Contains(t, ":") {
			return false
		}
		for _, x := range excludedTags {
			if t == x {
				return false
			}
		}
	}
	return true
}

// ModelFile is the case's SBML file of the highest level and version.
func (c *Case) ModelFile() (string, error) {
	for _, lv := range []string{"l3v2", "l3v1", "l2v5", "l2v4", "l2v3", "l2v2", "l2v1"} {
		p := filepath.Join(c.Dir, c.ID+"-sbml-"+lv+".xml")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("case %s: no SBML Level 2 or 3 file", c.ID)
}

// Times are the output times start + i*duration/steps, i = 0..steps.
func (s *Settings) Times() []float64 {
	ts := make([]float64, s.Steps+1)
	for i := range ts {
		ts[i] = s.Start + s.Duration*float64(i)/float64(s.Steps)
	}
	return ts
}
