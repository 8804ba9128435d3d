package catalog

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/cases"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// schemaHeader is the first line of every case file: editors running the
// YAML language server validate and complete the file with the schema.
const schemaHeader = "# yaml-language-server: $schema=./cases.schema.json\n"

// TestShippedFilesPassSchema: every case file of the catalog, embedded and
// on disk, conforms to cases.schema.json and names it on its first line.
func TestShippedFilesPassSchema(t *testing.T) {
	names, err := fs.Glob(cases.FS, "*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data, err := fs.ReadFile(cases.FS, name)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(string(data), schemaHeader), "first line must be %q", strings.TrimSpace(schemaHeader))
			assert.NoError(t, CheckSchema(fstest.MapFS{name: {Data: data}}))
		})
	}
	assert.NoError(t, CheckSchema(os.DirFS("../../cases"), WithDisplayDir("../../cases")))
}

// TestLoaderExamplesPassSchema: the files the loader's own tests accept
// (every part of the format) conform too.
func TestLoaderExamplesPassSchema(t *testing.T) {
	for name, file := range map[string]string{"good": goodFile, "defaults": defaultsFile} {
		t.Run(name, func(t *testing.T) {
			assert.NoError(t, CheckSchema(fstest.MapFS{"x.yaml": {Data: []byte(file)}}))
		})
	}
}

// TestSchemaViolations: a file the schema does not describe fails with the
// field, the rule and the line:col of the offending value (of the key, for
// a property not allowed), aliases and merge keys followed as the loader
// follows them.
func TestSchemaViolations(t *testing.T) {
	const f = "cases/x.yaml:"
	const head = `cases:
  - id: c
    feature: chat.basic
    tier: verified
    spec: 4.2/model
    key: text
    models: [gen-5.5]
    request: {method: POST, path: /v1/chat/completions, json: {model: m}}
`
	for _, tt := range []struct {
		name, file string
		want       []string
	}{
		{"unknown property, at its key",
			head + "    expect:\n      status: 200\n      colour: red\n",
			[]string{f + `11:7: schema: cases[0].expect: property "colour" is not allowed (cases.schema.json#/$defs/expect)`}},
		{"wrong enum value, at the value",
			strings.Replace(head, "tier: verified", "tier: gold", 1) + "    expect: {status: 200}\n",
			[]string{f + `4:11: schema: cases[0].tier: value must be one of 'verified', 'negative', 'strict', 'explore' (cases.schema.json#/$defs/tier)`}},
		{"missing property, at the case",
			head,
			[]string{f + `2:5: schema: cases[0]: missing property "expect" (cases.schema.json#/$defs/case)`}},
		{"a key neither the case nor the defaults give",
			strings.Replace(head, "    key: text\n", "", 1) + "    expect: {status: 200}\n",
			[]string{f + `2:5: schema: cases[0]: missing property "key" (cases.schema.json#/$defs/itemsNeedKey/properties/cases/items)`}},
		{"the defaults give it",
			"defaults: {key: text}\n" + strings.Replace(head, "    key: text\n", "", 1) + "    expect: {status: 200}\n",
			nil},
		{"unknown field of the defaults",
			"defaults: {key: text, modles: [gen-5.5]}\n" + head + "    expect: {status: 200}\n",
			[]string{f + `1:23: schema: defaults: property "modles" is not allowed (cases.schema.json#/$defs/defaults)`}},
		{"two bodies",
			strings.Replace(head, "json: {model: m}", "json: {model: m}, raw: x", 1) + "    expect: {status: 200}\n",
			[]string{f + `8:80: schema: cases[0].request.raw: not allowed here (cases.schema.json#/$defs/request/dependentSchemas/json/properties/raw)`}},
		{"status and status_in",
			head + "    expect: {status: 400, status_in: {class: [4xx]}}\n",
			[]string{f + `9:5: schema: cases[0].expect: matches more than one of the alternatives; give exactly one (cases.schema.json#/$defs/expect)`}},
		{"a field of another stream protocol",
			head + "    expect: {status: 200, sse: {protocol: chat, max_previews: 1}}\n",
			[]string{f + `9:63: schema: cases[0].expect.sse.max_previews: not allowed here (cases.schema.json#/$defs/sse/allOf/0/then/properties/max_previews)`}},
		{"a negative case without control",
			strings.Replace(head, "tier: verified", "tier: negative", 1) + "    expect: {status: 400}\n",
			[]string{f + `2:5: schema: cases[0]: missing property "control" (cases.schema.json#/$defs/case/allOf/1/then)`}},
		{"a matcher operator misspelt",
			head + "    expect:\n      status: 200\n      json:\n        id: {typ: string}\n",
			[]string{
				f + `12:9: schema: cases[0].expect.json.id: got object, want null or boolean or number or string (cases.schema.json#/$defs/matcher/anyOf/0)`,
				f + `12:14: schema: cases[0].expect.json.id: property "typ" is not allowed (cases.schema.json#/$defs/matcherOps)`,
			}},
		{"through an alias, at the anchor",
			"cases:\n  - &c\n    id: c\n    feature: chat.basic\n    tier: verified\n    spec: 4.2/model\n    key: text\n    models: [gen-5.5]\n    request: {method: POST, path: /v1/chat/completions, json: {}}\n    expect: {status: 20}\n  - *c\n",
			[]string{
				f + `10:22: schema: cases[0].expect.status: minimum: got 20, want 100 (cases.schema.json#/$defs/expect/properties/status)`,
				f + `10:22: schema: cases[1].expect.status: minimum: got 20, want 100 (cases.schema.json#/$defs/expect/properties/status)`,
			}},
		{"not a case file",
			"- a\n- b\n",
			[]string{f + `1:1: schema: (file): got array, want object (cases.schema.json)`}},
		{"an explore domain with a raw base request",
			"explore:\n  - id: e\n    feature: images.edit.explore\n    spec: 4.5/rule-4\n    why: w\n    key: image\n    models: [m]\n    request: {method: POST, path: /v1/images/edits, raw: x}\n    parameters: {n: [1, 2]}\n",
			[]string{f + `8:58: schema: explore[0].request.raw: not allowed here (cases.schema.json#/$defs/exploreDomain/properties/request/allOf/1/properties/raw)`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSchema(fstest.MapFS{"x.yaml": {Data: []byte(tt.file)}})
			if tt.want == nil {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			var ds Diagnostics
			require.ErrorAs(t, err, &ds)
			assert.Equal(t, strings.Join(tt.want, "\n"), err.Error())
		})
	}
}

// TestSchemaKnowsTheCatalog: the schema's closed lists are the catalog's,
// so a feature, tier or protocol added in Go must be added to the schema.
func TestSchemaKnowsTheCatalog(t *testing.T) {
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	require.NoError(t, json.Unmarshal(cases.Schema, &doc))
	enum := func(def string, at ...string) []string {
		var node any
		require.NoError(t, json.Unmarshal(doc.Defs[def], &node))
		for _, k := range at {
			node = node.(map[string]any)[k]
		}
		var out []string
		for _, v := range node.(map[string]any)["enum"].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	strs := func(xs ...string) []string { return xs }
	assert.Equal(t, Features, enum("feature"))
	assert.Equal(t, asStrings(vocab.Tiers), enum("tier"))
	assert.Equal(t, asStrings(KeyKinds), enum("keyKind"))
	assert.Equal(t, asStrings(Protocols), enum("sse", "properties", "protocol"))
	assert.Equal(t, MatcherTypes, enum("matcherOps", "properties", "type"))
	assert.Equal(t, strs(ModelRequested, ModelExact), enum("matcherOps", "properties", "model"))
	assert.Equal(t, ImageFormats, enum("images", "properties", "format"))
	assert.Equal(t, Preconditions, enum("requires", "items"))
	assert.Equal(t, Omittable, enum("request", "properties", "omit", "items"))
	assert.Equal(t, asStrings(Auths), enum("request", "properties", "auth"))
	assert.Equal(t, strs("GET", "POST"), enum("method"))
	// The patterns of ids and references are the loader's.
	var defs map[string]map[string]any
	require.NoError(t, json.Unmarshal(mustJSON(t, doc.Defs), &defs))
	assert.Equal(t, idPattern.String(), defs["id"]["pattern"])
	assert.Equal(t, sizePattern.String(), defs["images"]["properties"].(map[string]any)["size"].(map[string]any)["pattern"])
}

func asStrings[S ~string](xs []S) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// TestJoinSchema: lint's one list. A schema diagnostic on a line the loader
// reported is left out; other errors are kept whole.
func TestJoinSchema(t *testing.T) {
	load := Diagnostics{{File: "a.yaml", Line: 3, Col: 5, Message: "unknown field"}}
	schema := Diagnostics{
		{File: "a.yaml", Line: 3, Col: 1, Message: "schema: same line"},
		{File: "a.yaml", Line: 1, Col: 1, Message: "schema: elsewhere"},
		{File: "b.yaml", Line: 3, Col: 5, Message: "schema: other file"},
	}
	for _, tt := range []struct {
		name           string
		load, schema   error
		want           string
		wantDiagnostic bool
	}{
		{"both", load, schema, "a.yaml:1:1: schema: elsewhere\na.yaml:3:5: unknown field\nb.yaml:3:5: schema: other file", true},
		{"load only", load, nil, "a.yaml:3:5: unknown field", true},
		{"schema only", nil, schema[:1], "a.yaml:3:1: schema: same line", true},
		{"neither", nil, nil, "", false},
		{"a load error that is no diagnostic", assert.AnError, schema[1:2], assert.AnError.Error() + "\na.yaml:1:1: schema: elsewhere", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := JoinSchema(tt.load, tt.schema)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tt.want)
			var ds Diagnostics
			assert.Equal(t, tt.wantDiagnostic, errors.As(err, &ds))
		})
	}
}

// TestCompileSchemaRefusesOutsideRefs: the schema is self-contained; a
// reference elsewhere is an error, never a fetch.
func TestCompileSchemaRefusesOutsideRefs(t *testing.T) {
	_, err := CompileSchema([]byte(`{"$ref": "https://example.invalid/other.json"}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refers to nothing outside itself")
	_, err = CompileSchema([]byte(`{`))
	assert.ErrorContains(t, err, "not JSON")
}

// TestSelfAliasBounded: an alias inside its own anchor nests without end;
// the loader reports it once and the schema check declines the file, both
// at once rather than after minutes.
func TestSelfAliasBounded(t *testing.T) {
	for _, file := range []string{
		"cases:\n  - {id: x, request: {json: &a [*a]}}\n",
		"cases:\n  - {id: x, expect: {json: {p: {eq: &a {k: [*a, *a]}}}}}\n",
		"a: &a [*a]\ncases: *a\n",
	} {
		fsys := fstest.MapFS{"x.yaml": {Data: []byte(file)}}
		_, err := Load(fsys, nil, nil)
		require.Error(t, err)
		assert.LessOrEqual(t, strings.Count(err.Error(), "nests deeper than"), 1, file)
		assert.EqualError(t, CheckSchema(fsys), "cases/x.yaml:1:1: schema: not checked: the file nests deeper than 64 levels or expands past 200000 YAML nodes", file)
	}
}

// TestNodeBudgetReported: an alias expansion past the node budget inside a
// json body or a matcher's value is reported as a file too large, where
// the loader went on with what it had and reported something else.
func TestNodeBudgetReported(t *testing.T) {
	bomb := "{l1: &a [1,1,1,1,1,1,1,1,1,1], l2: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a], l3: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b], " +
		"l4: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c], l5: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d], l6: [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]}"
	for _, file := range []string{
		"cases:\n  - {id: x, request: {json: " + bomb + "}}\n",
		"cases:\n  - {id: x, expect: {json: {p: {eq: " + bomb + "}}}}\n",
	} {
		_, err := Load(fstest.MapFS{"x.yaml": {Data: []byte(file)}}, nil, nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "file too large: more than 200000 YAML nodes after alias expansion")
	}
}
