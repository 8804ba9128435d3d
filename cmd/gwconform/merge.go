package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/report"
)

// runMerge rebuilds one report from shard outputs: each IN is a
// results.jsonl, a report.json, or a directory holding a results.jsonl.
func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gwconform merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	strict := fs.Bool("strict", false, "strict-tier failures count in the report's verdict")
	casesDir := fs.String("cases", "", "case directory the results came from (default: the embedded catalog)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gwconform merge OUT IN...   (IN: results.jsonl, report.json or a directory)")
	}
	if err := fs.Parse(args); err != nil || fs.NArg() < 2 {
		fs.Usage()
		return exitNotStart
	}
	out := fs.Arg(0)
	var shards [][]results.Result
	var reps []*report.Report
	for _, in := range fs.Args()[1:] {
		rs, err := readResults(in)
		if err != nil {
			fmt.Fprintf(stderr, "gwconform merge: %s: %v\n", in, err)
			return exitNotStart
		}
		shards = append(shards, rs)
		reps = append(reps, besideReport(in))
	}
	merged, err := report.Merge(shards...)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform merge:", err)
		return exitFailed
	}
	suite, err := conformance.LoadSuite(*casesDir)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitNotStart
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		fmt.Fprintln(stderr, "gwconform merge:", err)
		return exitFailed
	}
	if err := results.WriteFile(filepath.Join(out, results.FileName), merged); err != nil {
		fmt.Fprintln(stderr, "gwconform merge:", err)
		return exitFailed
	}
	s := &settings{out: out, strict: *strict}
	extra := mergeExtra(reps, &s.selection)
	if err := writeReports(s, suite.Catalog, merged, extra); err != nil {
		fmt.Fprintln(stderr, "gwconform merge:", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "merged %d results from %d inputs into %s\n", len(merged), len(shards), out)
	return exitOK
}

// besideReport returns the report.json an input is, or that sits beside
// its results.jsonl (a shard's --out), or nil: it carries what results do
// not, the plan's cost and the models no case covers.
func besideReport(in string) *report.Report {
	path := in
	if st, err := os.Stat(in); err == nil && st.IsDir() {
		path = filepath.Join(in, report.FileJSON)
	} else if !strings.HasSuffix(in, ".json") {
		path = filepath.Join(filepath.Dir(in), report.FileJSON)
	}
	r, err := readReport(path)
	if err != nil {
		return nil
	}
	return r
}

// mergeExtra joins the shards' cost and coverage: the planned cost and the
// budget are sums when every shard says them (each shard planned and
// spent apart), the models no case covers a union.
func mergeExtra(reps []*report.Report, sel *conformance.Selection) reportExtra {
	var extra reportExtra
	planned, budget := 0.0, 0.0
	allPlanned, allBudget := true, true
	seen := map[report.UncoveredModel]bool{}
	for _, r := range reps {
		if r == nil {
			allPlanned, allBudget = false, false
			continue
		}
		if r.Cost.Planned == nil {
			allPlanned = false
		} else {
			planned += *r.Cost.Planned
		}
		if r.Cost.Budget == 0 {
			allBudget = false
		}
		budget += r.Cost.Budget
		for _, u := range r.UncoveredModels {
			if !seen[u] {
				seen[u] = true
				extra.uncovered = append(extra.uncovered, u)
			}
		}
	}
	if allPlanned && len(reps) > 0 {
		extra.planned = &planned
	}
	if allBudget {
		sel.MaxCost = budget
	}
	return extra
}

func readResults(path string) ([]results.Result, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, results.FileName)
	}
	if strings.HasSuffix(path, ".json") {
		r, err := readReport(path)
		if err != nil {
			return nil, err
		}
		return r.Results, nil
	}
	return results.ReadFile(path)
}
