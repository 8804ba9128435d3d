package catalog

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oneCase wraps a request and expectation in a minimal valid case file.
func oneCase(request, expect string) string {
	return `cases:
  - id: c
    feature: images.edit.json
    tier: verified
    spec: "4.5"
    requirement: "r"
    key: image
    models: [m]
    request:
` + request + `
    expect:
` + expect + "\n"
}

func renderOne(t *testing.T, src string, env Env) (*Rendered, error) {
	t.Helper()
	cat, err := load(t, map[string]string{"a.yaml": src})
	require.NoError(t, err)
	return cat.Render(&cat.Cases[0], "gen-image-2.5-flare", env)
}

func TestRenderJSON(t *testing.T) {
	r, err := renderOne(t, oneCase(`      method: POST
      path: /v1/images/edits
      headers: {X-Case: "{{ .Model }}"}
      json:
        model: "{{ .Model }}"
        prompt: "a <b> & c"
        n: 2
        quality: 0.5
        stream: false
        images:
          - image_url: '{{ dataURL "ref-a-1024.png" }}'
          - image_url: '{{ dataURL "photo.jpg" }}'
        raw: '{{ base64 "mask-1024.png" }}'
        label: '{{ printf "%s-x" .Model }}'
        none: null`, `      status: 200`), Env{})
	require.NoError(t, err)
	assert.Equal(t, "POST", r.Method)
	assert.Equal(t, "/v1/images/edits", r.Path)
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.Equal(t, "gen-image-2.5-flare", r.Header.Get("X-Case"))
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	// encoding/json sorts keys: the body is the same bytes on every run.
	assert.JSONEq(t, `{"images":[{"image_url":"data:image/png;base64,`+b64("\x89PNG-a")+`"},`+
		`{"image_url":"data:image/jpeg;base64,`+b64("\xff\xd8jpeg")+`"}],`+
		`"label":"gen-image-2.5-flare-x","model":"gen-image-2.5-flare","n":2,"none":null,`+
		`"prompt":"a <b> & c","quality":0.5,"raw":"`+b64("\x89PNG-mask")+`","stream":false}`, string(r.Body))
	assert.Contains(t, string(r.Body), `"a <b> & c"`, "HTML characters stay readable")
	assert.False(t, bytes.HasSuffix(r.Body, []byte("\n")))
}

func TestRenderMultipart(t *testing.T) {
	src := oneCase(`      method: POST
      path: /v1/images/edits
      multipart:
        model: "{{ .Model }}"
        image[]: ["@ref-a-1024.png", "@ref-b-1024.png"]
        prompt: Combine
        mask: "@mask-1024.png"
        partial_images: 2`, `      status: 200`)
	r, err := renderOne(t, src, Env{})
	require.NoError(t, err)
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	require.NoError(t, err)
	assert.Equal(t, "multipart/form-data", mt)
	assert.Equal(t, Boundary, params["boundary"])

	type part struct{ name, file, ctype, body string }
	var got []part
	mr := multipart.NewReader(bytes.NewReader(r.Body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		b, _ := io.ReadAll(p)
		got = append(got, part{p.FormName(), p.FileName(), p.Header.Get("Content-Type"), string(b)})
	}
	assert.Equal(t, []part{
		{"model", "", "", "gen-image-2.5-flare"},
		{"image[]", "ref-a-1024.png", "image/png", "\x89PNG-a"},
		{"image[]", "ref-b-1024.png", "image/png", "\x89PNG-b"},
		{"prompt", "", "", "Combine"},
		{"mask", "mask-1024.png", "image/png", "\x89PNG-mask"},
		{"partial_images", "", "", "2"},
	}, got)

	again, err := renderOne(t, src, Env{})
	require.NoError(t, err)
	assert.Equal(t, r.Body, again.Body, "a fixed boundary makes bodies reproducible")
}

func TestRenderRawAndGet(t *testing.T) {
	r, err := renderOne(t, oneCase(`      method: POST
      path: /v1/chat/completions
      raw: '{"model": "{{ .Model }}", "messages": ['`, `      status: 400`), Env{})
	require.NoError(t, err)
	assert.Equal(t, `{"model": "gen-image-2.5-flare", "messages": [`, string(r.Body))
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))

	r, err = renderOne(t, oneCase(`      method: POST
      path: /v1/chat/completions
      headers: {Content-Type: text/plain}
      raw: hello`, `      status: 400`), Env{})
	require.NoError(t, err)
	assert.Equal(t, "text/plain", r.Header.Get("Content-Type"), "a raw body may set its own type")

	r, err = renderOne(t, oneCase(`      method: GET
      path: /v1/models`, `      status: 200`), Env{})
	require.NoError(t, err)
	assert.Equal(t, "GET", r.Method)
	assert.Equal(t, "/v1/models", r.Path)
	assert.Empty(t, r.Body)
	assert.Empty(t, r.Header.Get("Content-Type"))
}

func TestRenderPublicImageURL(t *testing.T) {
	src := strings.Replace(oneCase(`      method: POST
      path: /v1/images/edits
      json:
        images: [{image_url: "{{ publicImageURL }}"}]`, `      status: 200`), "    models: [m]\n", "    models: [m]\n    requires: [public_image_url]\n", 1)
	r, err := renderOne(t, src, Env{PublicImageURL: "https://img.example/a.png"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"images":[{"image_url":"https://img.example/a.png"}]}`, string(r.Body))

	_, err = renderOne(t, src, Env{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "case c (cases/a.yaml:2:5): rendering json: images")
	assert.Contains(t, err.Error(), "no public image URL configured")
}

func TestHashAndDisplayDir(t *testing.T) {
	a, err := load(t, map[string]string{"a.yaml": goodFile})
	require.NoError(t, err)
	b, err := load(t, map[string]string{"a.yaml": goodFile})
	require.NoError(t, err)
	c, err := load(t, map[string]string{"a.yaml": goodFile + "\n# changed\n"})
	require.NoError(t, err)
	assert.Equal(t, a.Hash(), b.Hash())
	assert.NotEqual(t, a.Hash(), c.Hash())

	_, err = Load(fstest.MapFS{"x.yaml": {Data: []byte("cases: 1")}}, nil, nil, WithDisplayDir("my/cases"))
	assert.EqualError(t, err, "my/cases/x.yaml:1:8: cases: expected a list of cases, got an integer")
	_, err = Load(fstest.MapFS{"x.yaml": {Data: []byte("cases: 1")}}, nil, nil, WithDisplayDir(""))
	assert.EqualError(t, err, "x.yaml:1:8: cases: expected a list of cases, got an integer")
	_, err = Load(fstest.MapFS{"README.md": {Data: []byte("x")}}, nil, nil)
	assert.EqualError(t, err, "no case files (*.yaml) found")
}

// TestAllErrorsAllFiles: every problem of every file, sorted by file, line
// and column, not only the first.
func TestAllErrorsAllFiles(t *testing.T) {
	second := strings.Replace(goodFile, "id: messages-stream", "id: other", 1)
	second = strings.Replace(second, "tier: verified", "tier: gold", 1)
	_, err := load(t, map[string]string{
		"b.yaml": second,
		"a.yaml": strings.Replace(goodFile, "key: messages", "key: msgs", 1),
		"c.yaml": "cases:\n  - id: x\n   bad: indent\n",
		"d.yaml": "",
	})
	require.Error(t, err)
	assert.Equal(t, strings.Join([]string{
		`cases/a.yaml:35:10: key "msgs" is not one of text, messages, image, alt`,
		`cases/b.yaml:3:9: duplicate id "edit-multipart-two-refs" (first declared at cases/a.yaml:3:9)`,
		`cases/b.yaml:5:11: tier "gold" is not one of verified, negative, strict, explore`,
		`cases/c.yaml:3:4: value is not allowed in this context`,
		`cases/d.yaml:1:1: empty file: expected a mapping with feature_group and cases`,
	}, "\n"), err.Error())
}

func TestAnchorsAndMerge(t *testing.T) {
	src := `cases:
  - &base
    id: a
    feature: chat.basic
    tier: verified
    spec: "4.2"
    requirement: r
    key: text
    models: [gen-5.5]
    request: &req
      method: POST
      path: /v1/chat/completions
      json: {model: "{{ .Model }}", messages: [{role: user, content: hi}]}
    expect: {status: 200}
  - <<: *base
    id: b
    expect: {status: 201}
`
	cat, err := load(t, map[string]string{"a.yaml": src})
	require.NoError(t, err)
	require.Len(t, cat.Cases, 2)
	assert.Equal(t, "b", cat.Cases[1].ID)
	assert.Equal(t, 201, cat.Cases[1].Expect.Status)
	assert.Equal(t, cat.Cases[0].Request, cat.Cases[1].Request)

	_, err = load(t, map[string]string{"a.yaml": "cases: *nope\n"})
	assert.EqualError(t, err, "cases/a.yaml:1:8: alias *nope refers to no anchor defined before it")
}

// TestMatcherUnmarshalYAML: the same decoding through goccy/go-yaml's own
// Unmarshal, for code that reads matchers outside the loader.
func TestMatcherUnmarshalYAML(t *testing.T) {
	var got map[string]Matcher
	require.NoError(t, yaml.Unmarshal([]byte("a: 1\nb: null\nc: {regex: '^x', not_empty: true}\nd: {eq: [1, 2]}\n"), &got))
	assert.Equal(t, Matcher{Equals: uint64(1), HasEquals: true}, got["a"])
	// goccy/go-yaml never calls an unmarshaler for null (it stores the zero
	// value), so "b: null" means "no expectation" here; the loader, which
	// reads the AST itself, gives equality with null.
	assert.Equal(t, Matcher{}, got["b"])
	assert.Equal(t, Matcher{Regex: "^x", NotEmpty: true}, got["c"])
	assert.Equal(t, Matcher{Equals: []any{uint64(1), uint64(2)}, HasEquals: true}, got["d"])

	var bad map[string]Matcher
	err := yaml.Unmarshal([]byte("a: {nope: 1}\n"), &bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown field "nope" in matcher`)
}
