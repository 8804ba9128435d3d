package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/gwconform/gwconform/conformance/results"
)

// Merge joins the results of shards into one set. A case × model present in
// more than one input is kept once when the copies are identical (a shard
// re-uploaded, or the same file passed twice) and is an error otherwise: two
// different outcomes for one case × model mean the shards overlapped, and
// picking one would hide it. The output is sorted by feature, case, model, so
// merging is independent of the order of the inputs.
func Merge(reports ...[]results.Result) ([]results.Result, error) {
	type entry struct {
		r   results.Result
		enc []byte
		src int
	}
	byKey := map[results.CaseModel]entry{}
	var out []results.Result
	for i, rs := range reports {
		for _, r := range rs {
			if r.Reasons == nil {
				// results.Writer writes [] for nil; treat both alike so a
				// result read back compares equal to the one in memory.
				r.Reasons = []results.Reason{}
			}
			enc, err := json.Marshal(r)
			if err != nil {
				return nil, fmt.Errorf("merge: input %d: %s/%s: %w", i+1, r.Model, r.Case, err)
			}
			k := r.CaseModel()
			if prev, ok := byKey[k]; ok {
				if bytes.Equal(prev.enc, enc) {
					continue
				}
				return nil, fmt.Errorf("merge: case %q × model %q appears in inputs %d and %d with different results (%s vs %s): overlapping shards?",
					r.Case, r.Model, prev.src+1, i+1, prev.r.Status, r.Status)
			}
			byKey[k] = entry{r: r, enc: enc, src: i}
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b results.Result) int {
		return cmp.Or(cmp.Compare(a.Feature, b.Feature), cmp.Compare(a.Case, b.Case), cmp.Compare(a.Model, b.Model))
	})
	if out == nil {
		out = []results.Result{}
	}
	return out, nil
}

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
	write func(*Report, io.Writer) error
}{
	{FileJSON, (*Report).WriteJSON},
	{FileMarkdown, (*Report).WriteMarkdown},
	{FileHTML, (*Report).WriteHTML},
	{FileJUnit, (*Report).WriteJUnit},
}

// RemoveAll removes the reports from dir, so an earlier run's cannot pass
// for a run that did not start. A missing file is no error.
func RemoveAll(dir string) error {
	for _, f := range files {
		if err := os.Remove(filepath.Join(dir, f.name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// WriteAll writes report.json, matrix.md, report.html and junit.xml into dir
// (created if missing). Each file is written to a temporary name and renamed,
// so a reader (a CI upload step, a browser) never sees half a file.
func WriteAll(dir string, r *Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		var b bytes.Buffer
		if err := f.write(r, &b); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if err := results.WriteBytes(filepath.Join(dir, f.name), b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}
