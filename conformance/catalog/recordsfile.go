package catalog

import (
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// Record is one entry of a list file (the waivers file): its fields as
// written, with where each stands, so a bad value is reported at its place.
type Record struct {
	At     Pos
	Fields map[string]RecordField
}

// RecordField is one field of a Record; Text is set only when the value is
// a single non-null scalar.
type RecordField struct {
	Text   string
	At     Pos
	Scalar bool
}

// ReadRecords reads a list file with the case files' strict reader (the
// same limits against hostile input, anchors resolved): a list of
// mappings whose keys are fields. shape says what the file should be when
// it is not a list. An unknown field (with a did-you-mean), a duplicate, an
// entry that is not a mapping or a field that is not a single value is a
// diagnostic at file:line:col, "entry N: …"; every problem is reported,
// beside the records read, so that the caller's own checks of them are
// reported with these. An empty file is a list of none.
func ReadRecords(file string, data []byte, fields []string, shape string) ([]Record, Diagnostics) {
	var ds Diagnostics
	d := newDecoder(file, &ds, nil)
	root, ok := d.document(data)
	if !ok {
		return nil, ds
	}
	if isNull(root) {
		return nil, nil
	}
	seq, ok := d.resolve(root).(*ast.SequenceNode)
	if !ok {
		d.errf(root, "%s", shape)
		return nil, ds
	}
	var out []Record
	for i, item := range seq.Values {
		m, ok := d.resolve(item).(*ast.MappingNode)
		if !ok {
			d.errf(item, "entry %d: want a mapping with %s", i+1, strings.Join(fields, ", "))
			continue
		}
		r := Record{At: nodePos(m), Fields: map[string]RecordField{}}
		for _, p := range d.pairs(m) {
			if !slices.Contains(fields, p.key) {
				d.errf(p.keyNode, "entry %d: unknown field %q (fields: %s)%s", i+1, p.key, strings.Join(fields, ", "), Closest(p.key, fields))
				continue
			}
			v := d.resolve(p.value)
			if v == nil { // an alias the reader has reported already
				r.Fields[p.key] = RecordField{At: nodePos(p.value)}
				continue
			}
			text, scalar := scalarText(v)
			scalar = scalar && !isNull(v)
			if !scalar {
				d.errf(v, "entry %d: %s: want a text value", i+1, p.key)
			}
			r.Fields[p.key] = RecordField{Text: strings.TrimSpace(text), At: nodePos(v), Scalar: scalar}
		}
		out = append(out, r)
	}
	return out, ds
}
