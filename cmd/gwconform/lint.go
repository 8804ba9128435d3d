package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/gwconform/gwconform/conformance"
)

func runLint(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gwconform lint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("cases", "", "case directory (default: the embedded catalog)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gwconform lint [--cases DIR | DIR]")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() == 1 && *dir == "" {
		*dir = fs.Arg(0)
	}
	suite, err := conformance.LoadSuite(*dir)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitNotStart
	}
	// The requirement rows are what every case's spec: was checked against.
	fmt.Fprintf(stdout, "ok: %d cases, %d schemas, %d requirements\n", len(suite.Catalog.Cases), len(suite.Schemas.Names()), len(suite.Catalog.Spec.Rows))
	return exitOK
}
