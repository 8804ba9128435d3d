package catalog

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// defaultsFile exercises every default: key, models, method, path and the
// body's model in json, multipart and variant bodies, with cases that take
// them, override them and leave the model out.
const defaultsFile = `feature_group: images.edit
defaults:
  key: image
  models: [gen-image-2.5-flare, gen-image-2]
  request:
    method: POST
    path: /v1/images/edits
    model: "{{ .Model }}"
cases:
  - id: takes-all-json
    feature: images.edit.json
    tier: verified
    spec: 4.5/json-images
    request:
      json: {prompt: p, images: [{image_url: '{{ dataURL "ref-a-1024.png" }}'}]}
    expect: {status: 200}
  - id: takes-all-multipart
    feature: images.edit.multipart
    tier: verified
    spec: 4.5/multipart-image
    request:
      multipart: {prompt: p, image: "@ref-a-1024.png"}
    expect: {status: 200}
  - id: overrides
    feature: images.edit.errors
    tier: strict
    spec: 9/retired-404-images
    requirement: "Model identifiers are the selection mechanism for behaviour."
    why: w
    key: text
    models: [gen-image-2]
    request:
      path: /v1/images/generations
      json: {model: no-such-model, prompt: p}
    expect: {status: 404}
  - id: omits-model
    feature: images.edit.json
    tier: verified
    spec: 4.5/model-omitted
    request:
      omit: [model]
      multipart: {prompt: p, image: "@ref-a-1024.png"}
    expect: {status: 200}
  - id: variants
    feature: images.edit.json
    tier: verified
    spec: [4.5/json-images, 4.5/rule-3]
    variants:
      - {name: a, json: {prompt: p}}
      - {name: b, json: {prompt: q, model: fixed}}
    expect: {status: 200}
`

func TestDefaultsApply(t *testing.T) {
	cat, err := load(t, map[string]string{"e.yaml": defaultsFile})
	require.NoError(t, err)
	byID := func(id string) *Case { c := cat.Case(id); require.NotNil(t, c, id); return c }
	for _, tt := range []struct {
		id        string
		key       KeyKind
		models    []string
		method    string
		path      string
		json      any
		multipart []FormField
		variants  []Variant
	}{
		{id: "takes-all-json", key: KeyImage, models: []string{"gen-image-2.5-flare", "gen-image-2"},
			method: "POST", path: "/v1/images/edits",
			json: map[string]any{"model": "{{ .Model }}", "prompt": "p", "images": []any{map[string]any{"image_url": `{{ dataURL "ref-a-1024.png" }}`}}}},
		{id: "takes-all-multipart", key: KeyImage, models: []string{"gen-image-2.5-flare", "gen-image-2"},
			method: "POST", path: "/v1/images/edits",
			multipart: []FormField{{Name: "model", Value: "{{ .Model }}"}, {Name: "prompt", Value: "p"}, {Name: "image", File: "ref-a-1024.png"}}},
		{id: "overrides", key: KeyText, models: []string{"gen-image-2"}, method: "POST", path: "/v1/images/generations",
			json: map[string]any{"model": "no-such-model", "prompt": "p"}},
		{id: "omits-model", key: KeyImage, models: []string{"gen-image-2.5-flare", "gen-image-2"},
			method: "POST", path: "/v1/images/edits",
			multipart: []FormField{{Name: "prompt", Value: "p"}, {Name: "image", File: "ref-a-1024.png"}}},
		{id: "variants", key: KeyImage, models: []string{"gen-image-2.5-flare", "gen-image-2"},
			method: "POST", path: "/v1/images/edits",
			variants: []Variant{
				{Name: "a", JSON: map[string]any{"model": "{{ .Model }}", "prompt": "p"}},
				{Name: "b", JSON: map[string]any{"model": "fixed", "prompt": "q"}},
			}},
	} {
		t.Run(tt.id, func(t *testing.T) {
			c := byID(tt.id)
			assert.Equal(t, tt.key, c.Key)
			assert.Equal(t, tt.models, c.Models)
			assert.Equal(t, tt.method, c.Request.Method)
			assert.Equal(t, tt.path, c.Request.Path)
			assert.Equal(t, tt.json, c.Request.JSON)
			assert.Equal(t, tt.multipart, c.Request.Multipart)
			assert.Equal(t, tt.variants, c.Variants)
		})
	}
	// Each case has models of its own: additions to one leave the others alone.
	byID("takes-all-json").Models[0] = "changed"
	assert.Equal(t, "gen-image-2.5-flare", byID("takes-all-multipart").Models[0])
}

// TestDefaultsExplore: an explore domain takes the defaults like a case.
func TestDefaultsExplore(t *testing.T) {
	const file = `defaults:
  key: image
  models: [gen-image-2]
  request: {method: POST, model: "{{ .Model }}"}
explore:
  - id: ex
    feature: images.edit.explore
    spec: 4.5/rule-4
    why: w
    request:
      path: /v1/images/edits
      json: {prompt: p, images: [{image_url: '{{ dataURL "ref-a-1024.png" }}'}]}
    parameters:
      quality: [low, high]
`
	cat, err := load(t, map[string]string{"x.yaml": file})
	require.NoError(t, err)
	require.Len(t, cat.Cases, 2)
	for _, c := range cat.Cases {
		assert.Equal(t, KeyImage, c.Key)
		assert.Equal(t, []string{"gen-image-2"}, c.Models)
		assert.Equal(t, "POST", c.Request.Method)
		assert.Equal(t, "{{ .Model }}", c.Request.JSON.(map[string]any)["model"])
	}
}

// TestDefaultsBad: every mistake in or about defaults is reported once, at
// file:line:col, with did-you-mean for unknown fields.
func TestDefaultsBad(t *testing.T) {
	const f = "cases/x.yaml:"
	const oneCase = `cases:
  - id: c
    feature: chat.basic
    tier: verified
    spec: 4.2/model
    request:
      json: {messages: []}
    expect: {status: 200}
`
	for _, tt := range []struct {
		name, file string
		want       []string
	}{
		{"unknown field, did you mean",
			"defaults: {key: text, modles: [gen-5.5], request: {method: POST, path: /v1/chat/completions}}\n" + oneCase,
			[]string{
				f + `1:23: unknown field "modles" in defaults; did you mean "models"?`,
				f + `3:5: missing field models`,
			}},
		{"unknown request field",
			"defaults:\n  key: text\n  models: [gen-5.5]\n  request:\n    method: POST\n    path: /v1/chat/completions\n    bdy: {}\n" + oneCase,
			[]string{f + `7:5: unknown field "bdy" in defaults request; known fields: method, path, model`}},
		{"bad key reported once, at the default",
			"defaults: {key: txt, models: [gen-5.5], request: {method: POST, path: /v1/chat/completions}}\n" + oneCase + strings.Replace(oneCase[len("cases:\n"):], "id: c", "id: d", 1),
			[]string{f + `1:17: key "txt" is not one of text, messages, image, alt`}},
		{"bad method and path",
			"defaults: {key: text, models: [gen-5.5], request: {method: PUT, path: /chat}}\n" + oneCase,
			[]string{
				f + `1:60: request.method "PUT" is not GET or POST`,
				f + `1:71: request.path "/chat" must start with /v1/`,
			}},
		{"models listed twice",
			"defaults: {key: text, models: [gen-5.5, gen-5.5], request: {method: POST, path: /v1/chat/completions}}\n" + oneCase,
			[]string{f + `1:31: models[1]: model "gen-5.5" listed twice`}},
		{"not a mapping",
			"defaults: [key, text]\n" + oneCase,
			[]string{
				f + `1:11: defaults: expected a mapping of key, models and request, got a list`,
				f + `3:5: missing field key`,
				f + `3:5: missing field models`,
				f + `8:7: request: missing field method`,
				f + `8:7: request: missing field path`,
			}},
		{"empty",
			"defaults: {}\n" + oneCase,
			[]string{
				f + `1:11: defaults: empty; give key, models or request (method, path, model), or leave defaults out`,
				f + `3:5: missing field key`,
				f + `3:5: missing field models`,
				f + `8:7: request: missing field method`,
				f + `8:7: request: missing field path`,
			}},
		{"model starting with @",
			"defaults: {key: text, models: [gen-5.5], request: {method: POST, path: /v1/chat/completions, model: '@x'}}\n" + oneCase,
			[]string{f + `1:101: defaults.request.model: "@x" would be a file part in a multipart body; a model id does not start with @`}},
		{"a request the case lacks is the case's to complete",
			"defaults: {key: text, models: [gen-5.5], request: {method: POST}}\n" + strings.Replace(oneCase, "    request:\n      json: {messages: []}\n", "", 1),
			[]string{
				f + `3:5: request: a POST request needs exactly one of json, multipart, raw`,
				f + `3:5: request: missing field path`,
			}},
		{"omit without a default model",
			"defaults: {key: text, models: [gen-5.5], request: {method: POST, path: /v1/chat/completions}}\n" + strings.Replace(oneCase, "request:\n", "request:\n      omit: [model]\n", 1),
			[]string{f + `8:14: request.omit: the file's defaults (defaults.request.model) add no model to leave out`}},
		{"omit names no default",
			"defaults: {key: text, models: [gen-5.5], request: {method: POST, path: /v1/chat/completions, model: m}}\n" + strings.Replace(oneCase, "request:\n", "request:\n      omit: [modl]\n", 1),
			[]string{f + `8:14: request.omit: "modl" is no member the file's defaults add (model); did you mean "model"?`}},
		{"omit and a model in the body",
			"defaults: {key: text, models: [gen-5.5], request: {method: POST, path: /v1/chat/completions, model: m}}\n" + strings.Replace(oneCase, "{messages: []}", "{model: x, messages: []}", 1) + "",
			nil},
		{"omit and a model in the body contradict",
			"defaults: {key: text, models: [gen-5.5], request: {method: POST, path: /v1/chat/completions, model: m}}\n" + strings.Replace(strings.Replace(oneCase, "{messages: []}", "{model: x, messages: []}", 1), "request:\n", "request:\n      omit: [model]\n", 1),
			[]string{f + `8:14: request.omit leaves model out, yet the body gives it`}},
		{"omit without a body",
			"defaults: {key: text, models: [gen-5.5], request: {method: GET, path: /v1/models, model: m}}\n" + strings.Replace(oneCase, "      json: {messages: []}\n", "      omit: [model]\n", 1),
			[]string{f + `8:14: request.omit leaves model out of a json, multipart or variants body; this request has none`}},
		{"omit not a list",
			"defaults: {key: text, models: [gen-5.5], request: {method: POST, path: /v1/chat/completions, model: m}}\n" + strings.Replace(oneCase, "request:\n", "request:\n      omit: model\n", 1),
			[]string{f + `8:13: request.omit: expected a list of body members, e.g. [model], got a string`}},
		{"defaults with nothing to take them",
			"defaults: {key: text}\nmodel_additions:\n  - {model: m, cases: [x]}\n",
			[]string{
				f + `1:1: defaults: the file has no cases or explore domains to take them`,
				f + `3:24: model_additions: no case with id "x"`,
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, map[string]string{"x.yaml": tt.file})
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, strings.Join(tt.want, "\n"), err.Error())
		})
	}
}

// TestRequirementFromRows: without requirement: a case shows its rows'
// sentences in the order of spec:, each row once; with one, the rows'
// sentences and then its own words.
func TestRequirementFromRows(t *testing.T) {
	spec, err := embeddedSpec()
	require.NoError(t, err)
	sentence := func(id string) string {
		rows, err := spec.Resolve(SpecRef(id))
		require.NoError(t, err)
		return rows[0].Sentence
	}
	cat, err := load(t, map[string]string{"e.yaml": defaultsFile})
	require.NoError(t, err)
	for _, tt := range []struct{ id, want string }{
		{"takes-all-json", sentence("4.5/json-images")},
		{"variants", sentence("4.5/json-images") + " " + sentence("4.5/rule-3")},
		{"overrides", sentence("9/retired-404-images") + " Model identifiers are the selection mechanism for behaviour."},
	} {
		assert.Equal(t, tt.want, cat.Case(tt.id).Requirement, tt.id)
	}
	assert.Equal(t, "a b", spec.Sentences(SpecRefs{"nope/x"}, " a b "), "an unknown reference adds nothing")
	rows, err := spec.Resolve("4.5")
	require.NoError(t, err)
	once := spec.Sentences(SpecRefs{"4.5", SpecRef(rows[0].ID)}, "")
	assert.Equal(t, 1, strings.Count(once, rows[0].Sentence), "a row cited twice (its id and its section) shows once")

	_, err = Load(fstest.MapFS{"x.yaml": {Data: []byte(strings.Replace(defaultsFile, `requirement: "Model identifiers are the selection mechanism for behaviour."`, `requirement: " "`, 1))}}, testFixtures(), testSchemas)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "requirement: empty; leave it out to show the cited rows' sentences alone")
}
