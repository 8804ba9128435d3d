package v1

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes report.json, indented for people and diffs.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadJSON parses a report.json written by WriteJSON. It refuses another
// apiVersion or kind: comparing reports of different formats would silently
// misread them. Unknown fields are allowed, because v1alpha1 may gain fields.
func ReadJSON(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("report.json: %w", err)
	}
	if r.Kind != Kind {
		return nil, fmt.Errorf("report.json: kind %q, want %q", r.Kind, Kind)
	}
	if r.APIVersion != APIVersion {
		return nil, fmt.Errorf("report.json: apiVersion %q not supported (this build reads %q)", r.APIVersion, APIVersion)
	}
	if len(r.Cells) != len(r.Models)*len(r.Features) {
		return nil, fmt.Errorf("report.json: %d cells for %d models × %d features", len(r.Cells), len(r.Models), len(r.Features))
	}
	return &r, nil
}
