package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/gwconform/gwconform/cases"
	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
)

func runLint(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gwconform lint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("cases", "", "case directory (default: the embedded catalog)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: gwconform lint [--cases DIR | DIR]")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() == 1 && *dir == "" {
		*dir = fs.Arg(0)
	}
	suite, err := conformance.LoadSuite(*dir)
	// The case files must also be what cases.schema.json describes (the
	// schema editors validate with); its violations join the loader's.
	files, opts := lintFiles(*dir)
	if err = catalog.JoinSchema(err, catalog.CheckSchema(files, opts...)); err != nil {
		fmt.Fprintln(stderr, err)
		return exitNotStart
	}
	// The requirement rows are what every case's spec: was checked against.
	fmt.Fprintf(stdout, "ok: %d cases, %d schemas, %d requirements", len(suite.Catalog.Cases), len(suite.Schemas.Names()), len(suite.Catalog.Spec.Rows))
	if *dir == "" {
		// The table of clients is the embedded catalog's: its needs cite
		// its cases, so it is read with them.
		table, err := catalog.EmbeddedClients()
		if err != nil {
			fmt.Fprintln(stdout)
			fmt.Fprintln(stderr, err)
			return exitNotStart
		}
		fmt.Fprintf(stdout, ", %d known clients", len(table.Entries))
	}
	fmt.Fprintln(stdout)
	return exitOK
}

// lintFiles is the case directory lint reads, shown as LoadSuite shows it.
func lintFiles(dir string) (fs.FS, []catalog.Option) {
	if dir == "" {
		return cases.FS, nil
	}
	return os.DirFS(dir), []catalog.Option{catalog.WithDisplayDir(dir)}
}
