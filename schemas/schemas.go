// Package schemas holds the JSON Schemas (draft 2020-12) of every response
// body and every stream event of the Model-Gateway API, and compiles and
// applies them.
//
// Each file requires exactly the fields and types the spec names (and values
// where the spec fixes them) and allows unknown extra fields at every level,
// because real gateways add fields the spec does not show; a schema that
// rejected them would raise false alarms against conforming gateways. Every
// schema's description cites the spec section it comes from.
//
// The validator is github.com/santhosh-tekuri/jsonschema/v6 rather than
// gojsonschema: gojsonschema has had no release since 2019 and is declared
// unmaintained (xeipuuv/gojsonschema#347), stops at draft-07, reports no
// schema path, and downstream users had to patch data races in it
// (open-policy-agent/opa#5188), while the runner here validates in parallel.
// A compiled *jsonschema.Schema is immutable and each Validate call builds its
// own validator state, so a *Set is safe for concurrent use.
package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/gwconform/gwconform/conformance/results"
)

// FS holds the schema files shipped with gwconform. Every *.json file at the
// root is a schema; its name is the file name without ".json".
//
//go:embed *.json
var FS embed.FS

// baseURL is where Load registers each file, so that relative "$ref"s between
// files resolve even for a schema without an "$id".
const baseURL = "https://github.com/gwconform/gwconform/schemas/"

// Set is a compiled collection of schemas, looked up by name. It is read-only
// after Load and safe for concurrent use.
type Set struct {
	byName map[string]*jsonschema.Schema
	names  []string
}

// Load compiles every *.json file at the root of fsys (draft 2020-12 unless a
// file's "$schema" says otherwise). All files are registered before any is
// compiled, so schemas may "$ref" each other by file name or "$id". Errors
// name the offending file.
func Load(fsys fs.FS) (*Set, error) {
	files, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("schemas: no *.json files found")
	}
	sort.Strings(files)

	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// Refuse to fetch anything from the network or disk: every schema must be
	// in fsys. The default loader would read file:// URLs.
	c.UseLoader(noLoader{})
	for _, f := range files {
		raw, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("%s: not JSON: %w", f, err)
		}
		if err := c.AddResource(baseURL+f, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}

	s := &Set{byName: make(map[string]*jsonschema.Schema, len(files))}
	for _, f := range files {
		sch, err := c.Compile(baseURL + f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		name := strings.TrimSuffix(path.Base(f), ".json")
		s.byName[name] = sch
		s.names = append(s.names, name)
	}
	return s, nil
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema %s is not among the loaded files", url)
}

// Names returns the schema names, sorted.
func (s *Set) Names() []string {
	return append([]string(nil), s.names...)
}

// Violation is one way an instance breaks a schema.
type Violation struct {
	// Path is the JSON pointer (RFC 6901) of the offending instance value,
	// "" for the document root, e.g. "/data/0/b64_json". For a missing
	// required property it is the pointer the property would have, so a
	// report can say which field is absent, not just which object lacks it.
	Path string
	// Message says what is wrong, in English, with the actual value where
	// the library's message does not already show it.
	Message string
}

func (v Violation) String() string {
	p := v.Path
	if p == "" {
		p = "(root)"
	}
	return p + ": " + v.Message
}

// printer renders library messages; a message.Printer is safe for concurrent
// use (each Sprintf takes its own state from a pool).
var printer = message.NewPrinter(language.English)

// Validate checks body against the named schema. It returns the violations
// (nil when the body conforms), sorted by path then message. The error is
// non-nil only when the schema name is unknown or body is not a single JSON
// value. Numbers are compared exactly (json.Number), so 1.0 is an integer
// as draft 2020-12 says and large integers keep their precision.
func (s *Set) Validate(name string, body []byte) ([]Violation, error) {
	sch, ok := s.byName[name]
	if !ok {
		return nil, fmt.Errorf("schemas: unknown schema %q", name)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("schemas: body is not JSON: %w", err)
	}
	return s.validateValue(sch, inst)
}

func (s *Set) validateValue(sch *jsonschema.Schema, inst any) ([]Violation, error) {
	err := sch.Validate(inst)
	if err == nil {
		return nil, nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil, err
	}
	var out []Violation
	collect(verr, &out)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Message < out[j].Message
	})
	// The same leaf can be reached twice (e.g. through a $ref and directly).
	out = dedupe(out)
	return out, nil
}

// collect flattens the error tree to its leaves: inner nodes (the schema, a
// $ref, allOf, then, ...) only group the leaves that say what is wrong.
func collect(e *jsonschema.ValidationError, out *[]Violation) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collect(c, out)
		}
		return
	}
	at := pointer(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, Violation{Path: at + "/" + escape(m), Message: fmt.Sprintf("missing required property %q", m)})
		}
	case *kind.Const:
		*out = append(*out, Violation{Path: at, Message: k.LocalizedString(printer) + ", got " + show(k.Got)})
	case *kind.Enum:
		*out = append(*out, Violation{Path: at, Message: k.LocalizedString(printer) + ", got " + show(k.Got)})
	default:
		*out = append(*out, Violation{Path: at, Message: e.ErrorKind.LocalizedString(printer)})
	}
}

func dedupe(v []Violation) []Violation {
	if len(v) < 2 {
		return v
	}
	out := v[:1]
	for _, x := range v[1:] {
		if x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}

// show renders an instance value for a message, cut short so a huge value
// (a base64 image in the wrong place) does not flood a report.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return results.Truncate(string(b), 80)
}

func pointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(escape(t))
	}
	return sb.String()
}

func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}
