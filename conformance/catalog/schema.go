package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/goccy/go-yaml/ast"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/gwconform/gwconform/cases"
)

// The case-file format is also a JSON Schema (cases/cases.schema.json), for
// editors: each case file's first line points the YAML language server at
// it. The loader stays the authority (it checks what a schema cannot: unique
// ids, controls, fixtures, templates); CheckSchema keeps the two in step, so
// `gwconform lint` rejects a file the schema does not describe.

// schemaURL is where the case-file schema is registered (its $id).
const schemaURL = "https://github.com/gwconform/gwconform/cases/cases.schema.json"

// caseSchema compiles the embedded schema once.
var caseSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	return CompileSchema(cases.Schema)
})

// CompileSchema compiles a case-file schema (draft 2020-12) without
// fetching anything: a $ref outside the document is an error.
func CompileSchema(raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("cases.schema.json: not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("cases.schema.json: %w", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("cases.schema.json: %w", err)
	}
	return sch, nil
}

type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: the case-file schema refers to nothing outside itself", url)
}

// CheckSchema validates every case file at the root of cases (*.yaml and
// *.yml, as Load reads them) against the embedded case-file schema. Each
// file is converted to JSON as the loader reads it (anchors, aliases and
// merge keys resolved; only the first document). A violation is a
// Diagnostic at the line:col of the offending value (of the key, for a
// property not allowed), its message starting "schema:" and naming the
// field and the schema rule. It returns nil or Diagnostics; a file that
// does not parse as YAML is left to Load, which reports it.
func CheckSchema(casesFS fs.FS, opts ...Option) error {
	o := options{dir: "cases"}
	for _, f := range opts {
		f(&o)
	}
	sch, err := caseSchema()
	if err != nil {
		return err
	}
	var names []string
	for _, pat := range []string{"*.yaml", "*.yml"} {
		m, err := fs.Glob(casesFS, pat)
		if err != nil {
			return err
		}
		names = append(names, m...)
	}
	slices.Sort(names)
	var ds Diagnostics
	for _, name := range names {
		data, err := fs.ReadFile(casesFS, name)
		if err != nil {
			return fmt.Errorf("reading case file: %w", err)
		}
		display := name
		if o.dir != "" {
			display = path.Join(o.dir, name)
		}
		ds = append(ds, checkFileSchema(sch, display, data)...)
	}
	if len(ds) > 0 {
		return ds.sorted()
	}
	return nil
}

// checkFileSchema validates one file's bytes.
func checkFileSchema(sch *jsonschema.Schema, file string, data []byte) Diagnostics {
	var ignored Diagnostics // the loader reports the file's own problems
	d := newDecoder(file, &ignored, nil)
	f, err := parseYAML(data)
	if err != nil || len(f.Docs) == 0 || f.Docs[0] == nil {
		return nil
	}
	root := f.Docs[0].Body
	if !isNull(root) {
		d.collectAnchors(root)
	}
	v := d.toAny(root, "")
	if d.budget <= 0 || d.tooDeep {
		// The loader reports what makes the file too large or too deep.
		return Diagnostics{{File: file, Line: 1, Col: 1, Message: fmt.Sprintf(
			"schema: not checked: the file nests deeper than %d levels or expands past %d YAML nodes", maxDepth, maxNodes)}}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if err := sch.Validate(inst); !errors.As(err, &verr) {
		return nil
	}
	var out Diagnostics
	d.diags = &out
	d.schemaLeaves(root, verr)
	return out
}

// schemaPrinter renders the library's messages.
var schemaPrinter = message.NewPrinter(language.English)

// schemaLeaves reports the leaves of a validation error tree: the inner
// nodes (a $ref, allOf, a schema) only group the leaves that say what is
// wrong.
func (d *decoder) schemaLeaves(root ast.Node, e *jsonschema.ValidationError) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			d.schemaLeaves(root, c)
		}
		return
	}
	value, key := d.locate(root, e.InstanceLocation)
	at := nodePos(value)
	if _, scalar := value.(ast.ScalarNode); (!scalar || !at.valid()) && key != nil {
		at = nodePos(key)
	}
	where := instancePath(e.InstanceLocation)
	rule := " (cases.schema.json)"
	if _, frag, _ := strings.Cut(e.SchemaURL, "#"); frag != "" {
		rule = " (cases.schema.json#" + frag + ")"
	}
	report := func(p Pos, format string, args ...any) {
		d.errAt(p, "schema: %s: %s%s", where, fmt.Sprintf(format, args...), rule)
	}
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			report(d.keyOf(value, name, at), "property %q is not allowed", name)
		}
	case *kind.Required:
		for _, name := range k.Missing {
			report(at, "missing property %q", name)
		}
	case *kind.FalseSchema:
		report(at, "not allowed here")
	case *kind.OneOf:
		report(at, "matches more than one of the alternatives; give exactly one")
	default:
		report(at, "%s", e.ErrorKind.LocalizedString(schemaPrinter))
	}
}

// instancePath renders a JSON-pointer token list the way the loader names
// fields: cases[3].request.json.
func instancePath(loc []string) string {
	if len(loc) == 0 {
		return "(file)"
	}
	var b strings.Builder
	for _, tok := range loc {
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteString(".")
		}
		b.WriteString(tok)
	}
	return b.String()
}

// locate follows an instance location through the YAML nodes (resolving
// anchors, aliases and merge keys as the conversion did) and returns the
// value found and the key it was reached by (nil for a list item or the
// root). It stops at the deepest node it can reach.
func (d *decoder) locate(root ast.Node, loc []string) (value, key ast.Node) {
	cur := d.resolve(root)
	for _, tok := range loc {
		switch t := cur.(type) {
		case *ast.MappingNode:
			ps := d.pairs(t)
			i := slices.IndexFunc(ps, func(p pair) bool { return p.key == tok })
			if i < 0 {
				return cur, key
			}
			p := ps[i]
			cur, key = d.resolve(p.value), p.keyNode
		case *ast.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t.Values) {
				return cur, key
			}
			cur, key = d.resolve(t.Values[i]), nil
		default:
			return cur, key
		}
	}
	return cur, key
}

// keyOf is the position of a mapping's key name, or fallback.
func (d *decoder) keyOf(n ast.Node, name string, fallback Pos) Pos {
	if m, ok := n.(*ast.MappingNode); ok {
		for _, p := range d.pairs(m) {
			if p.key == name {
				return nodePos(p.keyNode)
			}
		}
	}
	return fallback
}

// JoinSchema adds CheckSchema's diagnostics to Load's error, for lint: one
// sorted list. A schema diagnostic on a line the loader already reported is
// left out (the loader's message names the same mistake more precisely).
// An error that is not Diagnostics is kept as is.
func JoinSchema(loadErr, schemaErr error) error {
	switch {
	case schemaErr == nil:
		return loadErr
	case loadErr == nil:
		return schemaErr
	}
	var load, schema Diagnostics
	if !errors.As(loadErr, &load) || !errors.As(schemaErr, &schema) {
		return errors.Join(loadErr, schemaErr)
	}
	type line struct {
		file string
		n    int
	}
	reported := map[line]bool{}
	for _, x := range load {
		reported[line{x.File, x.Line}] = true
	}
	out := slices.Clone(load)
	for _, x := range schema {
		if !reported[line{x.File, x.Line}] {
			out = append(out, x)
		}
	}
	return out.sorted()
}
