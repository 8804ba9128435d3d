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
	if err := fs.Parse(args); err != nil {
		return exitNotStart
	}
	if fs.NArg() == 1 && *dir == "" {
		*dir = fs.Arg(0)
	}
	suite, err := conformance.LoadSuite(*dir)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitNotStart
	}
	fmt.Fprintf(stdout, "ok: %d cases, %d schemas\n", len(suite.Catalog.Cases), len(suite.Schemas.Names()))
	return exitOK
}
