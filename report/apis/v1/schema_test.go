package v1_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/report"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	. "github.com/gwconform/gwconform/report/internal/reporttest"
)

const schemaPath = "report.schema.json"

// compileSchema compiles report/apis/v1/report.schema.json. With closed set, every
// object schema that lists properties also refuses others, except the ones
// whose $comment starts with "open:" (results may gain fields): the published
// schema is open for forward compatibility, the test is closed to catch a Go
// field that the schema does not describe.
func compileSchema(t *testing.T, closed bool) *jsonschema.Schema {
	t.Helper()
	raw, err := reportv1.SchemaFS.ReadFile(schemaPath)
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	if closed {
		closeObjects(doc)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	const url = "https://github.com/gwconform/gwconform/report/report.schema.json"
	require.NoError(t, c.AddResource(url, doc))
	s, err := c.Compile(url)
	require.NoError(t, err)
	return s
}

func closeObjects(v any) {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["properties"]; ok {
			comment, _ := x["$comment"].(string)
			if !strings.HasPrefix(comment, "open:") {
				x["additionalProperties"] = false
			}
		}
		for _, c := range x {
			closeObjects(c)
		}
	case []any:
		for _, c := range x {
			closeObjects(c)
		}
	}
}

func instance(t *testing.T, r *reportv1.Report) any {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, r.WriteJSON(&b))
	v, err := jsonschema.UnmarshalJSON(&b)
	require.NoError(t, err)
	return v
}

func TestReportValidatesAgainstSchema(t *testing.T) {
	full := Sample()
	full[0].Request = &results.Request{Method: "GET", Path: "/v1/models"}
	full[0].HTTPStatus = 200
	full[0].Events = 3
	full[0].FirstEventMS = 50
	full[0].EventTypes = []string{"a", "b", "c"}
	tests := []struct {
		name string
		r    *reportv1.Report
	}{
		{"sample", report.Build(SampleMeta(), full)},
		{"empty", report.Build(reportv1.Meta{SuiteVersion: "dev"}, nil)},
		{"waivers, re-runs, cost, uncovered models", report.Build(Nightly())},
		{"strict", report.Build(func() reportv1.Meta { m := SampleMeta(); m.Strict = true; return m }(), full)},
		{"a model map of every source", report.Build(func() reportv1.Meta { m := SampleMeta(); m.ModelMap = NamedModels(); return m }(), full)},
		{"replay: request ids, cancelled calls, transcripts", report.Build(Replayed())},
		{"causes deciding and reported only", report.Build(SampleMeta(), append(Sample(),
			Res("chat-usage", "chat.basic", "gen-text-1", TS, F, WithReason("usage.total_tokens is not the sum")),
			Res("chat-json", "chat.basic", "gen-text-2", TV, F)))},
		{"capability map", report.Build(SampleMeta(), append(append(full, DeclineRun()...),
			Call("gen-image-2.5-sunburst", "e-6", F, "partial_images=3", "stream=true"),
			Call("gen-image-2.5-sunburst", "e-7", E, "partial_images=2", "stream=true"),
			Call("gen-image-2.5-sunburst", "e-8", S, "partial_images=1", "stream=true")))},
	}
	for _, closed := range []bool{false, true} {
		s := compileSchema(t, closed)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				assert.NoError(t, s.Validate(instance(t, tt.r)))
			})
		}
	}
}

func TestSchemaRejects(t *testing.T) {
	s := compileSchema(t, true)
	tests := []struct {
		name   string
		mutate func(doc map[string]any)
	}{
		{"wrong apiVersion", func(d map[string]any) { d["apiVersion"] = "v2" }},
		{"wrong kind", func(d map[string]any) { d["kind"] = "Report" }},
		{"bearer token in a reason", func(d map[string]any) {
			res := d["results"].([]any)[0].(map[string]any)
			res["reasons"] = []any{map[string]any{"check": "json", "message": "echo: Bearer abcdefgh12345"}}
		}},
		{"credentials in base URL", func(d map[string]any) {
			d["metadata"].(map[string]any)["baseURL"] = "https://u:p@gw.test/"
		}},
		{"script thumbnail", func(d map[string]any) {
			for _, r := range d["results"].([]any) {
				if imgs, ok := r.(map[string]any)["images"].([]any); ok {
					imgs[0].(map[string]any)["thumb"] = "javascript:alert(1)"
				}
			}
		}},
		{"unknown cell status", func(d map[string]any) { d["cells"].([]any)[0].(map[string]any)["status"] = "green" }},
		{"unknown field in a cell (closed test schema)", func(d map[string]any) { d["cells"].([]any)[0].(map[string]any)["colour"] = "red" }},
		{"missing counts", func(d map[string]any) { delete(d["total"].(map[string]any), "flaky") }},
		{"bearer token in a transcript", func(d map[string]any) {
			for _, r := range d["results"].([]any) {
				if tr, ok := r.(map[string]any)["transcript"].(map[string]any); ok {
					tr["rounds"].([]any)[0].(map[string]any)["response_body"] = "echo: Bearer abcdefgh12345"
				}
			}
		}},
		{"a key in a transcript round is a kind, never a key", func(d map[string]any) {
			for _, r := range d["results"].([]any) {
				if tr, ok := r.(map[string]any)["transcript"].(map[string]any); ok {
					tr["rounds"].([]any)[0].(map[string]any)["key"] = "sk-abcdefgh12345"
				}
			}
		}},
		{"a replay without its recording", func(d map[string]any) {
			delete(d["metadata"].(map[string]any)["replay"].(map[string]any), "recording")
		}},
		{"unknown waiver state", func(d map[string]any) { d["waivers"].([]any)[0].(map[string]any)["state"] = "ignored" }},
		{"unknown model name source", func(d map[string]any) { modelNameDoc(d, "gen-5.5")["source"] = "guessed" }},
		{"a resolved model name without the id sent", func(d map[string]any) { delete(modelNameDoc(d, "gen-5.5"), "gateway") }},
		{"an unread model list without what it answered", func(d map[string]any) { delete(modelNameDoc(d, "msg-sonnet-5"), "why") }},
		{"a key in the model map is a kind, never a key", func(d map[string]any) { modelNameDoc(d, "gen-5.5")["key"] = "sk-abcdefgh12345" }},
		{"a waiver without its link", func(d map[string]any) { delete(d["waivers"].([]any)[0].(map[string]any), "link") }},
		{"negative cost", func(d map[string]any) { d["cost"].(map[string]any)["actual"] = -1 }},
		{"unknown capability verdict", func(d map[string]any) { capCellDoc(d)["verdict"] = "partly" }},
		{"unknown field in a capability cell (closed test schema)", func(d map[string]any) { capCellDoc(d)["colour"] = "red" }},
		{"capability value not param=value", func(d map[string]any) {
			d["capabilities"].([]any)[0].(map[string]any)["summary"].([]any)[0].(map[string]any)["unsupported"] = []any{"xhigh"}
		}},
		{"a cause without its example", func(d map[string]any) { delete(causeDoc(d), "example") }},
		{"a cause of no result", func(d map[string]any) { causeDoc(d)["results"] = 0 }},
		{"a cause's example without its reason", func(d map[string]any) { delete(causeDoc(d)["example"].(map[string]any), "reason") }},
		{"a bearer token in a cause", func(d map[string]any) { causeDoc(d)["cause"] = "HTTP 401: Bearer abcdefgh12345 is not a key" }},
		{"unknown field in a cause (closed test schema)", func(d map[string]any) { causeDoc(d)["colour"] = "red" }},
		{"non-string parameter", func(d map[string]any) {
			for _, r := range d["results"].([]any) {
				if p, ok := r.(map[string]any)["params"].(map[string]any); ok {
					p["n"] = 2
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			m, night := Nightly()
			rm, rs := Replayed()
			m.Replay, m.ModelMap = rm.Replay, NamedModels()
			require.NoError(t, report.Build(m, append(append(append(Sample(), DeclineRun()...), night...), rs...)).WriteJSON(&b))
			var doc map[string]any
			require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
			tt.mutate(doc)
			raw, err := json.Marshal(doc)
			require.NoError(t, err)
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			require.NoError(t, err)
			assert.Error(t, s.Validate(inst))
		})
	}
}

// capCellDoc returns the first cell of the first capability row of a decoded report.json.
func capCellDoc(d map[string]any) map[string]any {
	c := d["capabilities"].([]any)[0].(map[string]any)
	return c["rows"].([]any)[0].(map[string]any)["cells"].([]any)[0].(map[string]any)
}

// causeDoc returns the first cause of a decoded report.json.
func causeDoc(d map[string]any) map[string]any {
	return d["causes"].([]any)[0].(map[string]any)
}

// modelNameDoc returns the model map's record of spec in a decoded report.json.
func modelNameDoc(d map[string]any, spec string) map[string]any {
	for _, n := range d["metadata"].(map[string]any)["modelMap"].([]any) {
		if n := n.(map[string]any); n["spec"] == spec {
			return n
		}
	}
	panic("no model map record of " + spec)
}
