package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/report/runs"
)

func runDiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gwconform diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: gwconform diff OLD/report.json NEW/report.json")
		fmt.Fprintln(fs.Output(), "exit 1: regressions; 3: no regression, but NEW was incomplete; 0: neither")
	}
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return exitNotStart
	}
	var reps [2]*reportv1.Report
	for i, p := range fs.Args() {
		r, err := readReport(p)
		if err != nil {
			fmt.Fprintf(stderr, "gwconform diff: %s: %v\n", p, err)
			return exitNotStart
		}
		reps[i] = r
	}
	d := runs.Compare(reps[0], reps[1])
	if err := d.WriteMarkdown(stdout); err != nil {
		fmt.Fprintln(stderr, "gwconform diff:", err)
		return exitNotStart
	}
	switch {
	case d.HasRegressions():
		return exitFailed
	case d.New.Incomplete():
		// Not a regression, and not green either: the run's own code for
		// "nothing failed, but not everything was checked".
		return exitIncomplete
	}
	return exitOK
}

func readReport(path string) (*reportv1.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return reportv1.ReadJSON(f)
}
