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
	for _, in := range fs.Args()[1:] {
		rs, err := readResults(in)
		if err != nil {
			fmt.Fprintf(stderr, "gwconform merge: %s: %v\n", in, err)
			return exitNotStart
		}
		shards = append(shards, rs)
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
	w, err := results.Create(filepath.Join(out, results.FileName))
	if err != nil {
		fmt.Fprintln(stderr, "gwconform merge:", err)
		return exitFailed
	}
	for _, r := range merged {
		w.Write(r)
	}
	if err := w.Close(); err != nil {
		fmt.Fprintln(stderr, "gwconform merge:", err)
		return exitFailed
	}
	s := &settings{out: out, strict: *strict}
	if err := writeReports(s, suite.Catalog, merged); err != nil {
		fmt.Fprintln(stderr, "gwconform merge:", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "merged %d results from %d inputs into %s\n", len(merged), len(shards), out)
	return exitOK
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
