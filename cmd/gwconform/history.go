package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/report"
	"github.com/gwconform/gwconform/report/runs"
)

// runHistory writes one page of the matrix over nights from the nights'
// report.json files: each REPORT is a report.json or a directory holding one.
func runHistory(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gwconform history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "out", "directory to write "+runs.FileHistory+" into")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: gwconform history --out DIR REPORT.json...   (REPORT: a report.json or a directory holding one; nights are ordered by start time)")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitNotStart
	}
	var nights []runs.NamedReport
	for _, p := range fs.Args() {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			p = filepath.Join(p, report.FileJSON)
		}
		r, err := readReport(p)
		if err != nil {
			fmt.Fprintf(stderr, "gwconform history: %s: %v\n", p, err)
			return exitNotStart
		}
		nights = append(nights, runs.NamedReport{Name: p, Report: r})
	}
	h := runs.BuildHistory(nights)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(stderr, "gwconform history:", err)
		return exitFailed
	}
	if err := results.WriteAtomic(filepath.Join(*out, runs.FileHistory), h.WriteHTML); err != nil {
		fmt.Fprintln(stderr, "gwconform history:", err)
		return exitFailed
	}
	for _, w := range h.Warnings {
		fmt.Fprintln(stderr, "gwconform history: warning:", w)
	}
	red, flapping := 0, h.Flapping()
	last := len(h.Nights) - 1
	for _, c := range h.Cells {
		if c.Red[last] {
			red++
		}
	}
	fmt.Fprintf(stdout, "%d nights, %s to %s: %d cells red in the last night (%s), %d flapping\n",
		len(h.Nights), h.Nights[0].Label, h.Nights[last].Label, red, h.Nights[last].Verdict, len(flapping))
	for _, c := range flapping {
		fmt.Fprintf(stdout, "  flapping: %s × %s (first red %s)\n", c.Model, c.Feature, h.Nights[c.FirstRed].Label)
	}
	fmt.Fprintf(stdout, "written to %s\n", filepath.Join(*out, runs.FileHistory))
	return exitOK
}
