package catalog

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Diagnostic is one problem found in a case file, at a position a user can
// jump to. Line and Col are 1-based.
type Diagnostic struct {
	File    string
	Line    int
	Col     int
	Message string
}

// String renders the diagnostic the way compilers do, so editors and CI
// annotators can link it: "file:line:col: message".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", d.File, d.Line, d.Col, d.Message)
}

// Diagnostics is every problem of a load, sorted by file, line and column.
// It is the error Load returns when case files are bad.
type Diagnostics []Diagnostic

// Error joins all diagnostics, one per line.
func (ds Diagnostics) Error() string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// sorted returns the diagnostics in file, line, column, message order
// without duplicates (an aliased node can report the same problem twice).
func (ds Diagnostics) sorted() Diagnostics {
	out := slices.Clone(ds)
	slices.SortFunc(out, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Col, b.Col), cmp.Compare(a.Message, b.Message))
	})
	return slices.Compact(out)
}

// Pos is a position in a case file.
type Pos struct{ Line, Col int }

func (p Pos) valid() bool { return p.Line > 0 }
