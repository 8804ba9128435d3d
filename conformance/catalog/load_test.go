package catalog

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testSchemas = []string{"image_result", "message", "chat_completion", "model_list"}

func testFixtures() fstest.MapFS {
	return fstest.MapFS{
		"ref-a-1024.png": {Data: []byte("\x89PNG-a")},
		"ref-b-1024.png": {Data: []byte("\x89PNG-b")},
		"mask-1024.png":  {Data: []byte("\x89PNG-mask")},
		"photo.jpg":      {Data: []byte("\xff\xd8jpeg")},
	}
}

// goodFile exercises every part of the format.
const goodFile = `feature_group: images.edit
cases:
  - id: edit-multipart-two-refs
    feature: images.edit.multipart_two_refs
    tier: verified
    spec: [4.5/multipart-two-refs, 4.5/rule-5]
    requirement: "image[]: two fields for two reference images (2.5 models)"
    key: image
    models: [gen-image-2.5-flare, gen-image-2.5-sunburst]
    request:
      method: POST
      path: /v1/images/edits
      multipart:
        model: "{{ .Model }}"
        prompt: Combine both pictures
        image[]: ["@ref-a-1024.png", "@ref-b-1024.png"]
        n: 1
        stream: "false"
    expect:
      status: 200
      schema: image_result
      json:
        data.#: 1
        error: {exists: false}
        background: null
        size: {one_of: [1024x1024, 1536x1024]}
        created: {type: integer, min: 0}
      images: {format: png, size: 1024x1024, count: 1, alpha: false}
  - id: messages-stream
    feature: messages.stream
    tier: strict
    spec: "6.3"
    requirement: "Events seen, in this order of kind"
    why: because
    key: messages
    models: [msg-sonnet-5]
    requires: [public_image_url]
    request:
      method: POST
      path: /v1/messages
      headers: {X-Trace: "case-{{ .Model }}"}
      json:
        model: "{{ .Model }}"
        max_tokens: 256
        stream: true
        messages: [{role: user, content: "{{ publicImageURL }}"}]
    expect:
      status: 200
      sse: {protocol: messages, stop_reason: end_turn, min_text: 1}
`

func load(t *testing.T, files map[string]string) (*Catalog, error) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, body := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(body)}
	}
	return Load(fsys, testFixtures(), testSchemas)
}

func TestLoadGood(t *testing.T) {
	cat, err := load(t, map[string]string{"images_edits.yaml": goodFile})
	require.NoError(t, err)
	require.Len(t, cat.Cases, 2)
	assert.Equal(t, []string{"cases/images_edits.yaml"}, cat.Files)

	c := cat.Cases[0]
	assert.Equal(t, "edit-multipart-two-refs", c.ID)
	assert.Equal(t, vocab.TierVerified, c.Tier)
	assert.Equal(t, KeyImage, c.Key)
	assert.Equal(t, "cases/images_edits.yaml:3:5", c.Pos)
	assert.Equal(t, []string{"gen-image-2.5-flare", "gen-image-2.5-sunburst"}, c.Models)
	// Multipart keeps the written order; a list repeats the field.
	assert.Equal(t, []FormField{
		{Name: "model", Value: "{{ .Model }}"},
		{Name: "prompt", Value: "Combine both pictures"},
		{Name: "image[]", File: "ref-a-1024.png"},
		{Name: "image[]", File: "ref-b-1024.png"},
		{Name: "n", Value: "1"},
		{Name: "stream", Value: "false"},
	}, c.Request.Multipart)
	assert.Nil(t, c.Request.JSON)

	m := c.Expect.JSON
	assert.Equal(t, Matcher{Equals: uint64(1), HasEquals: true}, m["data.#"])
	assert.Equal(t, Matcher{HasEquals: true}, m["background"], "null is equality with null")
	assert.False(t, *m["error"].Exists)
	assert.False(t, m["error"].HasEquals)
	assert.Equal(t, []any{"1024x1024", "1536x1024"}, m["size"].OneOf)
	assert.Equal(t, "integer", m["created"].Type)
	assert.Equal(t, 0.0, *m["created"].Min)
	assert.Equal(t, &ImageExpect{Format: "png", Size: "1024x1024", Count: 1, Alpha: new(false)}, c.Expect.Images)

	s := cat.Cases[1]
	assert.Equal(t, map[string]any{
		"model": "{{ .Model }}", "max_tokens": uint64(256), "stream": true,
		"messages": []any{map[string]any{"role": "user", "content": "{{ publicImageURL }}"}},
	}, s.Request.JSON)
	assert.Equal(t, &SSEExpect{Protocol: "messages", StopReason: &Matcher{Equals: "end_turn", HasEquals: true}, MinText: 1}, s.Expect.SSE)
	v, ok := s.Request.Param("stream")
	assert.True(t, ok)
	assert.Equal(t, true, v)
	v, ok = c.Request.Param("n")
	assert.True(t, ok)
	assert.Equal(t, "1", v)
	assert.Len(t, cat.Hash(), 64)
}

// replace edits goodFile for one bad-input case; the text must occur once.
func replace(t *testing.T, old, new string) string {
	t.Helper()
	require.Equal(t, 1, strings.Count(goodFile, old), "fragment %q", old)
	return strings.Replace(goodFile, old, new, 1)
}

func TestLoadBad(t *testing.T) {
	const f = "cases/x.yaml:"
	tests := []struct {
		name string
		old  string
		new  string
		want []string
	}{
		{"unknown key in case", "    key: image\n", "    key: image\n    modles: [a]\n",
			[]string{f + `9:5: unknown field "modles" in case; did you mean "models"?`}},
		{"unknown key in request", "      path: /v1/images/edits\n", "      path: /v1/images/edits\n      body: x\n",
			[]string{f + `13:7: unknown field "body" in request; known fields: method, path, headers, auth, json, raw, multipart, omit`}},
		{"unknown matcher operator", "{exists: false}", "{exist: false}",
			[]string{f + `24:17: unknown field "exist" in matcher; did you mean "exists"?`}},
		{"bad tier", "tier: verified", "tier: verifed",
			[]string{f + `5:11: tier "verifed" is not one of verified, negative, strict, explore`}},
		{"unknown feature", "feature: images.edit.multipart_two_refs", "feature: images.edit.multipart_2refs",
			[]string{f + `4:14: unknown feature "images.edit.multipart_2refs"; did you mean "images.edit.multipart_two_refs"?`}},
		{"bad key", "key: image", "key: images",
			[]string{f + `8:10: key "images" is not one of text, messages, image, alt`}},
		{"missing fixture", `"@ref-b-1024.png"`, `"@ref-c-1024.png"`,
			[]string{f + `16:38: fixture "ref-c-1024.png" not found in fixtures/`}},
		{"fixture outside fixtures", `"@ref-b-1024.png"`, `"@../go.mod"`,
			[]string{f + `16:38: fixture name "../go.mod" is not a path inside fixtures/`}},
		{"missing fixture in template", `prompt: Combine both pictures`, `prompt: '{{ dataURL "nope.png" }}'`,
			[]string{f + `15:17: fixture "nope.png" not found in fixtures/`}},
		{"template syntax", `prompt: Combine both pictures`, `prompt: "{{ .Model "`,
			[]string{f + `15:17: invalid template: unclosed action`}},
		{"template unknown function", `prompt: Combine both pictures`, `prompt: "{{ env \"HOME\" }}"`,
			[]string{f + `15:17: invalid template: function "env" not defined`}},
		{"template field", `prompt: Combine both pictures`, `prompt: "{{ .Key }}"`,
			[]string{f + `15:17: invalid template: unknown field .Key: templates see only .Model`}},
		{"template loop", `prompt: Combine both pictures`, `prompt: "{{ range 9 }}x{{ end }}"`,
			[]string{f + `15:17: invalid template: {{range 9}}x{{end}} is not allowed in templates; use only {{ .Model }}, dataURL, base64, publicImageURL and printf`}},
		{"public URL without requires", "    requires: [public_image_url]\n", "",
			[]string{f + `45:42: the request uses publicImageURL: add requires: [public_image_url]`}},
		{"type mismatch list", "models: [msg-sonnet-5]", "models: msg-sonnet-5",
			[]string{f + `36:13: models: expected a list, got a string`}},
		{"type mismatch int", "status: 200\n      schema", "status: \"200\"\n      schema",
			[]string{f + `20:15: expect.status: expected an integer, got a string`}},
		{"type mismatch mapping", "      sse: {protocol", "      sse: [protocol",
			[]string{f + `49:12: sequence end token ']' not found`}},
		{"bad id", "id: messages-stream", "id: Messages_Stream",
			[]string{f + `29:9: id "Messages_Stream" must match ^[a-z0-9][a-z0-9.-]*$`}},
		{"duplicate id", "id: messages-stream", "id: edit-multipart-two-refs",
			[]string{f + `29:9: duplicate id "edit-multipart-two-refs" (first declared at cases/x.yaml:3:9)`}},
		{"bad method", "method: POST\n      path: /v1/messages", "method: PUT\n      path: /v1/messages",
			[]string{f + `39:15: request.method "PUT" is not GET or POST`}},
		{"bad path", "path: /v1/messages", "path: /messages",
			[]string{f + `40:13: request.path "/messages" must start with /v1/`,
				f + `49:23: expect.sse.protocol messages belongs to /v1/messages, not /messages`}},
		{"two bodies", "      json:\n        model", "      raw: x\n      jsn: 1\n      json:\n        model",
			[]string{f + `42:7: request: exactly one of json, multipart, raw (found json and raw)`,
				f + `43:7: unknown field "jsn" in request; did you mean "json"?`}},
		{"GET with body", "method: POST\n      path: /v1/messages", "method: GET\n      path: /v1/messages",
			[]string{f + `42:7: request: a GET request has no body (found json)`}},
		{"authorization header", "X-Trace:", "Authorization:",
			[]string{f + `41:17: request.headers: Authorization is set from the case's key; use auth: none or invalid`}},
		{"unknown schema", "schema: image_result", "schema: image_results",
			[]string{f + `21:15: unknown schema "image_results"; did you mean "image_result"?`}},
		{"bad protocol", "protocol: messages", "protocol: message",
			[]string{f + `49:23: expect.sse.protocol "message" is not one of chat, messages, image_generation, image_edit, responses`}},
		{"stream without sse", "      sse: {protocol: messages, stop_reason: end_turn, min_text: 1}\n", "",
			[]string{f + `48:7: a streaming request expecting 200 needs expect.sse`}},
		{"strict without why", "    why: because\n", "",
			[]string{f + `29:5: a strict case needs why (the reason it matters)`}},
		{"bad image size", "size: 1024x1024, count", "size: 1024, count",
			[]string{f + `28:35: expect.images.size "1024" is not WIDTHxHEIGHT (e.g. 1024x1024)`}},
		{"bad image format", "format: png", "format: gif",
			[]string{f + `28:24: expect.images.format "gif" is not one of png, jpeg, webp`}},
		{"bad regex", "{type: integer, min: 0}", "{regex: \"[\"}",
			[]string{f + `27:26: expect.json[created]: invalid regex: error parsing regexp: missing closing ]: ` + "`[`"}},
		{"bad matcher type", "{type: integer, min: 0}", "{type: int}",
			[]string{f + `27:25: expect.json[created]: type "int" is not one of string, number, integer, boolean, array, object, null`}},
		{"empty matcher", "{type: integer, min: 0}", "{}",
			[]string{f + `27:18: expect.json[created]: empty matcher; give a value or at least one operator (eq, exists, type, one_of, regex, min, max, not_empty, contains, model, unix_seconds, if_present)`}},
		{"missing status", "      status: 200\n      sse", "      sse",
			[]string{f + `48:7: expect: missing field status`}},
		{"missing field", "    spec: \"6.3\"\n", "",
			[]string{f + `29:5: missing field spec (the requirement ids this case checks)`}},
		{"bad requirement name", "requires: [public_image_url]", "requires: [public_image_url, gpu]",
			[]string{f + `37:15: unknown precondition "gpu" (known: public_image_url)`}},
		{"multipart nested", `n: 1`, `n: {a: 1}`,
			[]string{f + `17:12: request.multipart.n: expected a string or a list of strings, got a mapping`}},
		{"unknown top-level key", "feature_group: images.edit\n", "feature_group: images.edit\nversion: 2\n",
			[]string{f + `2:1: unknown field "version" in file; known fields: feature_group, defaults, cases, explore, model_additions`}},
		{"generated text of an image result", "created: {type: integer, min: 0}", "$text: {not_empty: true}",
			[]string{f + `27:9: expect.json: $text is the generated text of /v1/chat/completions and /v1/messages answers, not of /v1/images/edits`}},
		{"unknown derived field", "created: {type: integer, min: 0}", "$txt: {not_empty: true}",
			[]string{f + `27:9: expect.json: "$txt" is no derived field (the one known is $text)`}},
		{"YAML tag", "tier: verified", "tier: !!binary dmVyaWZpZWQ=",
			[]string{f + `5:11: YAML tag !!binary is not supported (only !!str)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := replace(t, tt.old, tt.new)
			_, err := load(t, map[string]string{"x.yaml": src})
			require.Error(t, err)
			var ds Diagnostics
			require.ErrorAs(t, err, &ds)
			assert.Equal(t, strings.Join(tt.want, "\n"), err.Error())
		})
	}
}

func TestModelAdditions(t *testing.T) {
	base := `feature_group: chat
cases:
  - id: chat-a
    feature: chat.basic
    tier: verified
    spec: "4.2"
    requirement: "r"
    key: text
    models: [gen-5.5]
    request:
      method: POST
      path: /v1/chat/completions
      json: {model: "{{ .Model }}", messages: [{role: user, content: hi}]}
    expect: {status: 200}
`
	t.Run("adds the model to the named cases", func(t *testing.T) {
		fsys := fstest.MapFS{
			"chat.yaml":  {Data: []byte(base)},
			"added.yaml": {Data: []byte("model_additions:\n  - model: gen-9\n    cases: [chat-a]\n")},
		}
		cat, err := Load(fsys, fstest.MapFS{}, nil)
		require.NoError(t, err)
		assert.Equal(t, []string{"gen-5.5", "gen-9"}, cat.Case("chat-a").Models)
	})
	t.Run("an unknown case id is reported at its position", func(t *testing.T) {
		fsys := fstest.MapFS{
			"chat.yaml":  {Data: []byte(base)},
			"added.yaml": {Data: []byte("model_additions:\n  - model: gen-9\n    cases: [chat-a, chat-zz]\n")},
		}
		_, err := Load(fsys, fstest.MapFS{}, nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), `cases/added.yaml:3:21: model_additions: no case with id "chat-zz"`)
	})
	t.Run("missing fields", func(t *testing.T) {
		fsys := fstest.MapFS{
			"chat.yaml":  {Data: []byte(base)},
			"added.yaml": {Data: []byte("model_additions:\n  - cases: [chat-a]\n")},
		}
		_, err := Load(fsys, fstest.MapFS{}, nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "missing field model")
	})
}
