package testsuite

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
)

// Summary counts outcomes overall and per tag.
type Summary struct {
	Passed, Failed, Skipped int
	Tags                    map[string]*TagCount
}

// TagCount counts the outcomes of the cases carrying one tag.
type TagCount struct{ Cases, Passed, Failed, Skipped int }

// Summarize counts outcomes.
func Summarize(outs []Outcome) *Summary {
	s := &Summary{Tags: make(map[string]*TagCount)}
	for _, o := range outs {
		switch o.Status {
		case Passed:
			s.Passed++
		case Failed:
			s.Failed++
		case Skipped:
			s.Skipped++
		}
		for _, t := range o.Case.Tags {
			tc := s.Tags[t]
			if tc == nil {
				tc = &TagCount{}
				s.Tags[t] = tc
			}
			tc.Cases++
			switch o.Status {
			case Passed:
				tc.Passed++
			case Failed:
				tc.Failed++
			case Skipped:
				tc.Skipped++
			}
		}
	}
	return s
}

// Report prints one line per failing or skipped case, the per-tag table
// and last the line "N passed, N failed, N skipped".
func Report(w io.Writer, outs []Outcome) *Summary {
	for _, o := range outs {
		if o.Status != Passed {
			fmt.Fprintf(w, "%s %s: %s\n", o.Case.ID, o.Status, o.Reason)
		}
	}
	s := Summarize(outs)
	tags := make([]string, 0, len(s.Tags))
	for t := range s.Tags {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tag\tcases\tpassed\tfailed\tskipped\t")
	for _, t := range tags {
		c := s.Tags[t]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", t, c.Cases, c.Passed, c.Failed, c.Skipped)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", s.Passed, s.Failed, s.Skipped)
	return s
}
