// Command gen writes the coverage table of cases/README.md: every row of
// cases/requirements/requirements.yaml with its tier and the cases that cite
// it, so a requirement no case covers shows as such. It replaces only the
// text between the README's coverage markers; `go generate ./cases` runs it
// from the cases directory, and a test fails when the table is stale.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gwconform/gwconform/cases"
	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/fixtures"
)

func main() {
	readme := flag.String("readme", "README.md", "the README whose coverage table to rewrite")
	flag.Parse()
	if err := run(*readme); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(readme string) error {
	cat, err := loadCatalog()
	if err != nil {
		return err
	}
	old, err := os.ReadFile(readme)
	if err != nil {
		return err
	}
	out, err := splice(string(old), coverageTable(cat))
	if err != nil {
		return fmt.Errorf("%s: %w", readme, err)
	}
	return os.WriteFile(readme, []byte(out), 0o644)
}

// loadCatalog loads the embedded catalog; schema names are not needed for
// the table, so they are not checked here (lint checks them).
func loadCatalog() (*catalog.Catalog, error) {
	return catalog.Load(cases.FS, fixtures.FS, nil)
}
