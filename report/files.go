package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gwconform/gwconform/conformance/results"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// Output file names in an --out directory.
const (
	FileJSON     = "report.json"
	FileMarkdown = "matrix.md"
	FileHTML     = "report.html"
	FileJUnit    = "junit.xml"
)

// files are the reports of a run, by name, with the writer of each: one
// list for writing them and for removing them.
var files = []struct {
	name  string
	write func(io.Writer, *reportv1.Report) error
}{
	{FileJSON, func(w io.Writer, r *reportv1.Report) error { return r.WriteJSON(w) }},
	{FileMarkdown, WriteMarkdown},
	{FileHTML, WriteHTML},
	{FileJUnit, WriteJUnit},
}

// WriteAll writes report.json, matrix.md, report.html and junit.xml into dir
// (created if missing). Each file is written to a temporary name and renamed,
// so a reader (a CI upload step, a browser) never sees half a file.
func WriteAll(dir string, r *reportv1.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := results.WriteAtomic(filepath.Join(dir, f.name), func(w io.Writer) error { return f.write(w, r) }); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return nil
}
