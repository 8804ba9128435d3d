package observe_test

import (
	"cmp"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/check"
	"github.com/gwconform/gwconform/conformance/observe"
	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

const dataURL = "data:image/png;base64,iVBORw0KGgo="

// sent is one request as a relay records it.
type sent struct {
	method                       string // POST with a body, GET without, unless given
	path, key, auth, contentType string
	json                         map[string]any
	parts                        []record.Part
}

// valid are requests the spec verifies, one per endpoint: the judge finds
// nothing in them and notes nothing.
func valid() map[string]sent {
	return map[string]sent{
		"chat": {path: "/v1/chat/completions", key: "text", json: map[string]any{"model": "gen-5.5", "max_tokens": 256,
			"messages": []any{map[string]any{"role": "user", "content": "Hi"}}}},
		"messages": {path: "/v1/messages", key: "messages", json: map[string]any{"model": "msg-sonnet-5", "max_tokens": 256,
			"messages": []any{map[string]any{"role": "user", "content": "Hi"}}}},
		"alt": {path: "/v1/messages", key: "alt", json: map[string]any{"model": "alt-flash", "max_tokens": 256,
			"messages": []any{map[string]any{"role": "user", "content": "Hi"}}}},
		"generation": {path: "/v1/images/generations", key: "image", json: map[string]any{"model": "gen-image-2", "prompt": "A lighthouse", "size": "1024x1024"}},
		"generation stream": {path: "/v1/images/generations", key: "image", json: map[string]any{"model": "gen-image-2.5-flare", "prompt": "A lighthouse",
			"size": "1024x1024", "stream": true, "partial_images": 2}},
		"edit": {path: "/v1/images/edits", key: "image", json: map[string]any{"model": "gen-image-2.5-flare", "prompt": "Make it blue",
			"images": []any{map[string]any{"image_url": dataURL}}, "size": "1024x1024"}},
		"edit multipart": {path: "/v1/images/edits", key: "image", parts: []record.Part{
			{Name: "model", Value: "gen-image-2.5-flare"}, {Name: "prompt", Value: "Make it blue"},
			{Name: "image[]", Filename: "a.png", Blob: "x.png"}, {Name: "image[]", Filename: "b.png", Blob: "y.png"}}},
		"models": {path: "/v1/models", key: "text"},
	}
}

// with is a valid request changed: set members (nil deletes one).
func with(base sent, f func(s *sent), set map[string]any) sent {
	s := base
	s.json = maps.Clone(base.json)
	s.parts = slices.Clone(base.parts)
	for k, v := range set {
		if v == nil {
			delete(s.json, k)
		} else {
			s.json[k] = v
		}
	}
	if f != nil {
		f(&s)
	}
	return s
}

func (s sent) round(t *testing.T, status int) record.Round {
	t.Helper()
	req := record.Request{Method: "POST", Path: s.path, Key: s.key, Auth: s.auth, Header: map[string][]string{"User-Agent": {"OpenAI/Go 3.1.0"}}}
	if s.auth == "" {
		req.Auth = record.AuthBearer
	} else if s.auth == "none" {
		req.Auth, req.Key = "", record.KeyNone
	}
	switch {
	case s.parts != nil:
		req.Body = &record.Body{Bytes: 100, Multipart: s.parts}
		req.Header["Content-Type"] = []string{"multipart/form-data; boundary=x"}
	case s.json != nil:
		raw, err := json.Marshal(s.json)
		require.NoError(t, err)
		req.Body = &record.Body{Bytes: len(raw), JSON: raw}
		req.Header["Content-Type"] = []string{"application/json"}
	default:
		req.Method = "GET"
	}
	if s.method != "" {
		req.Method = s.method
	}
	if s.contentType != "" {
		req.Header["Content-Type"] = []string{s.contentType}
	}
	now := time.Now().UTC()
	body := []byte(`{"error":{"message":"refused"}}`)
	if status == 200 {
		body = []byte(`{"created":1}`)
	}
	return record.Round{Sent: now, Request: req, Response: &record.Response{Received: now, Status: status,
		Header: map[string][]string{"Content-Type": {"application/json"}}, Body: &record.Body{Bytes: len(body), JSON: body}}}
}

var breaks = regexp.MustCompile(`\(spec (\S+):`)

// rowsOf are the rows a client result's findings name, in order, once each.
func rowsOf(res results.Result) []string {
	var out []string
	for _, r := range res.Reasons {
		if m := breaks.FindStringSubmatch(r.Message); m != nil && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

func newJudge(t testing.TB, modelMap ...string) (*observe.Judge, *record.Store) {
	t.Helper()
	suite, err := conformance.LoadSuite("")
	require.NoError(t, err)
	store, err := record.Create(t.TempDir(), record.Meta{Source: record.SourceRelay})
	require.NoError(t, err)
	given := map[string]string{}
	for _, pair := range modelMap {
		spec, gw, _ := strings.Cut(pair, "=")
		given[spec] = gw
	}
	return observe.New(suite.Catalog, suite.Schemas, check.Limits{MaxBodyBytes: 1 << 20}, observe.Options{ModelMap: given}), store
}

// TestMalformedRequests: each request breaks one rule alone, and the judge
// names exactly that rule; where the spec states the answer the gateway
// owes it, the gateway's answer is judged against that (a 400 passes).
func TestMalformedRequests(t *testing.T) {
	v := valid()
	judge, store := newJudge(t)
	for name, s := range v {
		t.Run("valid "+name, func(t *testing.T) {
			rs := judge.Round(s.round(t, 400), "", store)
			require.NotEmpty(t, rs)
			assert.Equal(t, results.SideClient, rs[0].Side)
			assert.Equal(t, vocab.StatusPass, rs[0].Status, "%v", rs[0].Reasons)
			assert.Empty(t, rs[0].Notes)
		})
	}
	msgs := func(role string) []any { return []any{map[string]any{"role": role, "content": "Hi"}} }
	// says is what a finding shows besides its row: the path as sent, the
	// endpoint meant.
	says := map[string]string{
		"a typo in the generations path": "did you mean /v1/images/generations",
		"an empty segment before /v1":    "//v1/chat/completions",
	}
	for _, tc := range []struct {
		name string
		req  sent
		row  string
		owed string // the error row the gateway's answer is judged by ("" none)
	}{
		{"path without /v1", with(v["chat"], func(s *sent) { s.path = "/chat/completions" }, nil), "intro/paths-v1", ""},
		{"a prefix before the messages path", with(v["messages"], func(s *sent) { s.path = "/v1/anthropic/v1/messages" }, nil), "4.3/exact-path", ""},
		{"a prefix before the chat path", with(v["chat"], func(s *sent) { s.path = "/v1/openai/chat/completions" }, nil), "4/base-url-plus-path", ""},
		{"no credential", with(v["chat"], func(s *sent) { s.auth = "none" }, nil), "5.1/bearer", ""},
		{"x-api-key", with(v["messages"], func(s *sent) { s.auth = record.AuthAPIKey }, nil), "5.1/bearer", ""},
		{"JSON sent as text/plain", with(v["chat"], func(s *sent) { s.contentType = "text/plain" }, nil), "4/json-content-type", ""},
		{"chat without model", with(v["chat"], nil, map[string]any{"model": nil}), "4.2/model-omitted", "7/chat-no-model"},
		{"chat without messages", with(v["chat"], nil, map[string]any{"messages": nil}), "4.2/messages-omitted", "7/chat-no-messages"},
		{"chat max_tokens as a string", with(v["chat"], nil, map[string]any{"max_tokens": "256"}), "4.2/max-tokens", ""},
		{"chat stream not a boolean", with(v["chat"], nil, map[string]any{"stream": "yes"}), "4.2/stream-true", ""},
		{"chat temperature not a number", with(v["chat"], nil, map[string]any{"temperature": "warm"}), "4.2/temperature", ""},
		{"chat message without a role", with(v["chat"], nil, map[string]any{"messages": []any{map[string]any{"content": "Hi"}}}), "4.2/messages", ""},
		{"messages without model", with(v["messages"], nil, map[string]any{"model": nil}), "4.3/model-omitted", "7/messages-no-model"},
		{"messages without messages", with(v["messages"], nil, map[string]any{"messages": nil}), "4.3/messages", ""},
		{"alternative model without max_tokens", with(v["alt"], nil, map[string]any{"max_tokens": nil}), "4.3/max-tokens-alt-required", ""},
		{"alternative model with the messages key", with(v["alt"], func(s *sent) { s.key = "messages" }, nil), "5.3/alt-key", ""},
		{"chat with the messages key", with(v["chat"], func(s *sent) { s.key = "messages" }, nil), "5.2/use-matching-key", ""},
		{"messages with the text key", with(v["messages"], func(s *sent) { s.key = "text" }, map[string]any{"messages": msgs("user")}), "5.2/use-matching-key", ""},
		{"generation with the text key", with(v["generation"], func(s *sent) { s.key = "text" }, nil), "5.2/image-permission", "5.2/image-permission"},
		{"generation without prompt", with(v["generation"], nil, map[string]any{"prompt": nil}), "4.4/prompt", ""},
		{"generation size as a number", with(v["generation"], nil, map[string]any{"size": 1024}), "4.4/size", ""},
		{"generation partial_images 5", with(v["generation stream"], nil, map[string]any{"partial_images": 5}), "4.4/partial-images", ""},
		{"generation partial_images 4", with(v["generation stream"], nil, map[string]any{"partial_images": 4}), "7/stream-partial-images", "7/stream-partial-images"},
		{"generation partial_images without stream", with(v["generation stream"], nil, map[string]any{"stream": nil}), "4.4/partial-images", ""},
		{"edit without prompt", with(v["edit"], nil, map[string]any{"prompt": nil}), "4.5/prompt-omitted", "7/edit-no-prompt"},
		{"edit without a reference image", with(v["edit"], nil, map[string]any{"images": nil}), "4.5/rule-1", "7/edit-no-image"},
		{"edit with images[].file_id", with(v["edit"], nil, map[string]any{"images": []any{map[string]any{"file_id": "file-1"}}}), "4.5/rule-2", "7/edit-file-id"},
		{"edit with mask.file_id", with(v["edit"], nil, map[string]any{"mask": map[string]any{"file_id": "file-1"}}), "4.5/rule-2", "7/edit-file-id"},
		{"edit with a data URL without data", with(v["edit"], nil, map[string]any{"images": []any{map[string]any{"image_url": "data:image/png;base64,"}}}), "4.5/json-images", ""},
		{"edit with a mask over http", with(v["edit"], nil, map[string]any{"mask": map[string]any{"image_url": "http://example.test/m.png"}}), "4.5/json-mask", ""},
		{"edit images not objects", with(v["edit"], nil, map[string]any{"images": []any{dataURL}}), "4.5/json-images", ""},
		{"edit n as a fraction", with(v["edit"], nil, map[string]any{"n": 1.5}), "4.5/n", ""},
		{"edit partial_images -1", with(v["edit"], nil, map[string]any{"stream": true, "partial_images": -1}), "7/stream-partial-images", "7/stream-partial-images"},
		{"multipart file under another name", with(v["edit multipart"], func(s *sent) {
			s.parts = append(s.parts, record.Part{Name: "reference", Filename: "c.png", Blob: "z.png"})
		}, nil), "4.5/multipart-image", ""},
		{"multipart two image fields", with(v["edit multipart"], func(s *sent) {
			s.parts[2].Name, s.parts[3].Name = "image", "image"
		}, nil), "4.5/multipart-two-refs", ""},
		{"multipart n not an integer", with(v["edit multipart"], func(s *sent) {
			s.parts = append(s.parts, record.Part{Name: "n", Value: "two"})
		}, nil), "4.5/n", ""},
		// Issue 33: methods, payloads, paths, closed lists and the
		// alternative model by any name.
		{"PUT on the messages path", with(v["messages"], func(s *sent) { s.method = "PUT" }, nil), "4.3/method", ""},
		{"POST on the model list", with(v["models"], func(s *sent) { s.method = "POST" }, nil), "4.1/method", ""},
		{"a body on GET /v1/models", with(v["models"], func(s *sent) {
			s.method, s.json = "GET", map[string]any{"model": "gen-5.5"}
		}, nil), "4.1/no-payload", ""},
		{"a typo in the generations path", with(v["generation"], func(s *sent) { s.path = "/v1/images/generation" }, nil), "4/base-url-plus-path", ""},
		{"a typo in the messages path", with(v["messages"], func(s *sent) { s.path = "/v1/message" }, nil), "4.3/exact-path", ""},
		{"an empty segment before /v1", with(v["chat"], func(s *sent) { s.path = "//v1/chat/completions" }, nil), "4/base-url-plus-path", ""},
		{"a prefix before /v1 of the messages path", with(v["messages"], func(s *sent) { s.path = "/anthropic/v1/messages" }, nil), "4.3/exact-path", ""},
		{"generation output_format gif", with(v["generation"], nil, map[string]any{"output_format": "gif"}), "2.2/output-format", ""},
		{"edit output_format gif", with(v["edit"], nil, map[string]any{"output_format": "gif"}), "4.5/output-format", ""},
		{"multipart partial_images 9", with(v["edit multipart"], func(s *sent) {
			s.parts = append(s.parts, record.Part{Name: "stream", Value: "true"}, record.Part{Name: "partial_images", Value: "9"})
		}, nil), "4.5/partial-images", ""},
		{"a messages model with the alt key", with(v["messages"], func(s *sent) { s.key = "alt" }, nil), "5.2/use-matching-key", ""},
		{"a vendor-named alternative model with the messages key", with(v["alt"], func(s *sent) { s.key = "messages" }, map[string]any{"model": "gemini-flash"}), "5.3/alt-key", ""},
		{"a vendor-named alternative model without max_tokens", with(v["alt"], func(s *sent) { s.key = record.KeyOther }, map[string]any{"model": "gemini-flash", "max_tokens": nil}), "4.3/max-tokens-alt-required", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := judge.Round(tc.req.round(t, 400), "", store)
			require.NotEmpty(t, rs)
			client := rs[0]
			assert.Equal(t, vocab.StatusFail, client.Status)
			assert.Equal(t, []string{tc.row}, rowsOf(client), "%v", client.Reasons)
			for _, r := range client.Reasons {
				assert.Regexp(t, `\(spec \S+: \S.*\)$`, r.Message, "a finding quotes its row's sentence")
			}
			if want, ok := says[tc.name]; ok && assert.NotEmpty(t, client.Reasons) {
				assert.Contains(t, client.Reasons[0].Expected+" "+client.Reasons[0].Actual, want)
			}
			if tc.owed == "" {
				assert.Len(t, rs, 1, "the spec states no answer to this request: the gateway's is not judged")
				return
			}
			require.Len(t, rs, 2)
			gw := rs[1]
			assert.Equal(t, vocab.TierNegative, gw.Tier)
			assert.Equal(t, tc.owed, gw.Spec)
			assert.Equal(t, vocab.StatusPass, gw.Status, "%v", gw.Reasons)
			// The same request answered with a success: the gateway broke
			// the row that states its answer.
			rs = judge.Round(tc.req.round(t, 200), "", store)
			require.Len(t, rs, 2)
			assert.Equal(t, vocab.StatusFail, rs[1].Status)
		})
	}
}

// TestNotes: a request outside the verified rows breaks nothing and is
// noted, citing the row it goes beyond.
func TestNotes(t *testing.T) {
	v := valid()
	judge, store := newJudge(t)
	for _, tc := range []struct {
		name string
		req  sent
		says string
		tier vocab.Tier // of the answer's judgement (default explore)
	}{
		{"a quality gen-image-2 does not verify", with(v["edit"], nil, map[string]any{"model": "gen-image-2", "quality": "xhigh"}), "quality xhigh is not verified for gen-image-2", ""},
		{"two references for gen-image-2", with(v["edit"], nil, map[string]any{"model": "gen-image-2", "images": []any{map[string]any{"image_url": dataURL}, map[string]any{"image_url": dataURL}}}), "spec 4.5/rule-5", ""},
		{"a mask for gen-image-2", with(v["edit"], nil, map[string]any{"model": "gen-image-2", "mask": map[string]any{"image_url": dataURL}}), "a mask for gen-image-2 (spec 4.5/rule-5", ""},
		{"two references for a 2.5 model beyond its rows", with(v["edit"], nil, map[string]any{"images": []any{map[string]any{"image_url": dataURL}, map[string]any{"image_url": dataURL}},
			"quality": "high", "output_format": "webp", "background": "auto", "output_compression": 50}), "spec 4.5/rule-4", ""},
		{"a model the spec does not verify for chat", with(v["chat"], nil, map[string]any{"model": "gen-6-astra"}), "spec 1/chat-models", ""},
		{"a system role", with(v["chat"], nil, map[string]any{"messages": []any{map[string]any{"role": "system", "content": "Be brief"}, map[string]any{"role": "user", "content": "Hi"}}}), "4.2/other-roles", ""},
		{"a temperature", with(v["chat"], nil, map[string]any{"temperature": 0.2}), "temperature 0.2 is listed in 4.2, no verified value (spec 4.2/temperature)", ""},
		{"an image for a messages model", with(v["messages"], nil, map[string]any{"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}}}}}), "4.3/alt-image-input", ""},
		{"a generation parameter 4.4 does not list", with(v["generation"], nil, map[string]any{"background": "transparent"}), "4.4/further-params", ""},
		{"an empty prompt", with(v["edit"], nil, map[string]any{"prompt": ""}), "prompt is empty", ""},
		{"a retired model", with(v["messages"], nil, map[string]any{"model": "claude-sonnet-4-6"}), "claude-sonnet-4-6 is retired", vocab.TierNegative},
		// Issue 33: each note cites the row that says what was verified.
		{"png with output_compression", with(v["edit"], nil, map[string]any{"output_format": "png", "output_compression": 50}), "spec 4.5/compression-png-omitted", ""},
		{"output_compression 50 with jpeg", with(v["edit"], nil, map[string]any{"output_format": "jpeg", "output_compression": 50}), "spec 4.5/compression-jpeg", ""},
		{"an empty size", with(v["edit multipart"], func(s *sent) { s.parts = append(s.parts, record.Part{Name: "size", Value: ""}) }, nil), "size is empty", ""},
		{"a size gen-image-2 does not verify", with(v["edit"], nil, map[string]any{"model": "gen-image-2", "size": "1536x1024"}), "spec 4.5/size-gen-image-2", ""},
		{"a quality row of gen-image-2", with(v["edit"], nil, map[string]any{"model": "gen-image-2", "quality": "xhigh"}), "spec 4.5/quality-gen-image-2", ""},
		{"n 2 for gen-image-2", with(v["edit"], nil, map[string]any{"model": "gen-image-2", "n": 2}), "spec 4.5/n)", ""},
		{"background opaque with png", with(v["edit"], nil, map[string]any{"background": "opaque", "output_format": "png"}), "spec 4.5/background-opaque", ""},
		{"a generation parameter 4.4 does not list, in 4.4's words", with(v["generation"], nil, map[string]any{"background": "transparent"}),
			"Further parameters of generation for the 2.5 models beyond those above: not shown", ""},
		{"an image for the alternative model", with(v["alt"], nil, map[string]any{"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": dataURL}}}}}}), "spec 4.3/image-shape", vocab.TierVerified},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := judge.Round(tc.req.round(t, 400), "", store)
			require.NotEmpty(t, rs)
			assert.Equal(t, vocab.StatusPass, rs[0].Status, "%v", rs[0].Reasons)
			require.NotEmpty(t, rs[0].Notes)
			assert.Contains(t, rs[0].Notes[0], tc.says)
			// Its answer is reported, never deciding: the spec
			// guarantees such a request nothing (but the 404 of a
			// retired model, which section 7 states, and the image
			// input of the alternative model served in a shape a
			// verified row tries: its refusal alone decides nothing,
			// its answer is owed the row's).
			rs = judge.Round(tc.req.round(t, 200), "", store)
			require.Len(t, rs, 2)
			assert.Equal(t, cmp.Or(tc.tier, vocab.TierExplore), rs[1].Tier, "%v", rs[1].Reasons)
		})
	}
}

// TestRetiredModelIsOwedA404: a request for the model the spec names
// retired breaks no client rule, but the gateway owes it 404 (section 7).
func TestRetiredModelIsOwedA404(t *testing.T) {
	judge, store := newJudge(t)
	req := with(valid()["messages"], nil, map[string]any{"model": "msg-sonnet-4-6"})
	for status, want := range map[int]vocab.Status{404: vocab.StatusPass, 200: vocab.StatusFail, 400: vocab.StatusFail} {
		rs := judge.Round(req.round(t, status), "", store)
		require.Len(t, rs, 2)
		assert.Equal(t, vocab.StatusPass, rs[0].Status)
		assert.Equal(t, vocab.TierNegative, rs[1].Tier)
		assert.Equal(t, "7/messages-unknown-model", rs[1].Spec)
		assert.Equal(t, want, rs[1].Status, "answered %d", status)
	}
}

// TestModelMap: a gateway's own name for a spec model, given as run's
// --model-map gives it, is weighed against that model's verified rows;
// without the map it is a model the spec does not verify, and its answer
// decides nothing.
func TestModelMap(t *testing.T) {
	req := with(valid()["chat"], nil, map[string]any{"model": "company-chat"})
	for _, tc := range []struct {
		name     string
		modelMap []string
		tier     vocab.Tier
	}{
		{"mapped", []string{"gen-5.5=company-chat"}, vocab.TierVerified},
		{"not mapped", nil, vocab.TierExplore},
	} {
		t.Run(tc.name, func(t *testing.T) {
			judge, store := newJudge(t, tc.modelMap...)
			rs := judge.Round(req.round(t, 200), "", store)
			require.Len(t, rs, 2)
			assert.Equal(t, tc.tier == vocab.TierExplore, len(rs[0].Notes) > 0, "%v", rs[0].Notes)
			assert.Equal(t, tc.tier, rs[1].Tier)
			assert.Equal(t, "chat.basic", rs[1].Feature)
		})
	}
}

// TestImageCountBeyondTheVerifiedN (issue 34): where 4.5 verified n (2 for
// the 2.5 models), an answer of another number of images fails its row,
// citing 4.5/n and 8/n; beyond it (n 2 for gen-image-2) the count is
// explored, reported in the explore tier citing 2.2/data.
func TestImageCountBeyondTheVerifiedN(t *testing.T) {
	judge, store := newJudge(t)
	for _, tc := range []struct {
		model string
		tier  vocab.Tier
		says  string
	}{
		{"gen-image-2.5-flare", vocab.TierVerified, "the number of images differs from n (spec 4.5/n, 8/n"},
		{"gen-image-2", vocab.TierExplore, "2.2/data: the client iterates the array actually returned"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			r := with(valid()["edit"], nil, map[string]any{"model": tc.model, "n": 2}).round(t, 200)
			body := []byte(`{"created":1,"data":[{"b64_json":"iVBORw0KGgo="}]}`)
			r.Response.Body = &record.Body{Bytes: len(body), JSON: body}
			rs := judge.Round(r, "", store)
			require.Len(t, rs, 2)
			assert.Equal(t, tc.tier, rs[1].Tier)
			var count []string
			for _, reason := range rs[1].Reasons {
				if reason.Where == "data" {
					count = append(count, reason.Message)
				}
			}
			require.Len(t, count, 1, "%v", rs[1].Reasons)
			assert.Contains(t, count[0], tc.says)
		})
	}
}

// TestFormsNoRowShowsAreStrict: the rows show stream omitted and true,
// and a message's text as a string; a request sending stream false or
// text blocks is owed its answer at the strict tier, as the run's
// stream-false and text-block cases are, so a refusal of it decides
// nothing where the same refusal of the request without it is a verified
// failure.
func TestFormsNoRowShowsAreStrict(t *testing.T) {
	v := valid()
	judge, store := newJudge(t)
	for _, tc := range []struct {
		name string
		req  sent
		tier vocab.Tier
	}{
		{"chat without stream", v["chat"], vocab.TierVerified},
		{"chat with stream false", with(v["chat"], nil, map[string]any{"stream": false}), vocab.TierStrict},
		{"messages with stream false", with(v["messages"], nil, map[string]any{"stream": false}), vocab.TierStrict},
		{"messages with text blocks", with(v["messages"], nil, map[string]any{"messages": []any{map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "text", "text": "Hi"}}}}}), vocab.TierStrict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := judge.Round(tc.req.round(t, 400), "", store)
			require.Len(t, rs, 2)
			assert.Equal(t, results.SideGateway, rs[1].Side)
			assert.Equal(t, tc.tier, rs[1].Tier)
			assert.Equal(t, vocab.StatusFail, rs[1].Status, "%v", rs[1].Reasons)
			assert.Equal(t, tc.tier == vocab.TierVerified, rs[1].Decides(false), "deciding without --strict")
		})
	}
}

// TestLegalRequests: a request the spec allows breaks no rule, whatever
// else it does; what it does beyond the verified rows is noted (note:
// what the first note says; "" for none at all; "*" for any).
func TestLegalRequests(t *testing.T) {
	v := valid()
	judge, store := newJudge(t)
	for _, tc := range []struct {
		name string
		req  sent
		note string
	}{
		{"an https URL in capitals", with(v["edit"], nil, map[string]any{"images": []any{map[string]any{"image_url": "HTTPS://example.test/ref.png"}}}), "*"},
		{"max_tokens beyond 2^31", with(v["chat"], nil, map[string]any{"max_tokens": 4294967296}), ""},
		{"a JSON member in a multipart edit", with(v["edit multipart"], func(s *sent) {
			s.parts = append(s.parts, record.Part{Name: "images", Value: `[{"image_url":"` + dataURL + `"}]`})
		}, nil), "spec 4.5/rule-3"},
		{"a mask as multipart text", with(v["edit multipart"], func(s *sent) {
			s.parts = append(s.parts, record.Part{Name: "mask", Value: `{"image_url":"` + dataURL + `"}`})
		}, nil), "spec 4.5/rule-3"},
		{"a health probe at the root", sent{path: "/", auth: "none"}, "no call of the API"},
		{"a health probe", sent{path: "/health", auth: "none"}, "no call of the API"},
		{"a path outside /v1 that names no endpoint", with(v["chat"], func(s *sent) { s.path = "/chat/completion" }, nil), "no call of the API"},
		{"the Responses interface", sent{path: "/v1/responses", key: "text", json: map[string]any{"model": "gen-5.5", "input": "Hi"}}, "spec 4.6/responses"},
		{"a path under /v1 that is no endpoint", sent{path: "/v1/embeddings", key: "text", json: map[string]any{"model": "gen-5.5", "input": "Hi"}}, "no endpoint of the spec"},
		{"a model read by id", sent{path: "/v1/models/gen-5.5", key: "text"}, "no endpoint of the spec"},
		{"the default n for gen-image-2", with(v["generation"], nil, map[string]any{"n": 1}), ""},
		{"stream false for gen-image-2", with(v["generation"], nil, map[string]any{"stream": false}), ""},
		{"every 4.4 row for gen-image-2", with(v["generation"], nil, map[string]any{"n": 1, "quality": "high", "output_format": "png"}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := judge.Round(tc.req.round(t, 200), "", store)
			require.NotEmpty(t, rs)
			assert.Equal(t, vocab.StatusPass, rs[0].Status, "%v", rs[0].Reasons)
			assert.Empty(t, rs[0].Reasons)
			switch tc.note {
			case "":
				assert.Empty(t, rs[0].Notes)
			case "*":
			default:
				require.NotEmpty(t, rs[0].Notes)
				assert.Contains(t, rs[0].Notes[0], tc.note)
			}
		})
	}
}

// TestAlternativeModelByAnyName: the alternative model's rules (4.3
// max_tokens, 5.3's key) follow the model by a --model-map name too; a
// name the judge cannot place leaves the key to decide.
func TestAlternativeModelByAnyName(t *testing.T) {
	alt := with(valid()["alt"], func(s *sent) { s.key = "messages" }, map[string]any{"model": "company-alt"})
	for _, tc := range []struct {
		name     string
		modelMap []string
		req      sent
		rows     []string
	}{
		{"mapped, with the messages key", []string{"alt-flash=company-alt"}, alt, []string{"5.3/alt-key"}},
		{"mapped, without max_tokens", []string{"alt-flash=company-alt"}, with(alt, func(s *sent) { s.key = "alt" }, map[string]any{"max_tokens": nil}), []string{"4.3/max-tokens-alt-required"}},
		{"not mapped, with the messages key", nil, alt, nil},
		{"not mapped, with the alt key, without max_tokens", nil, with(alt, func(s *sent) { s.key = "alt" }, map[string]any{"max_tokens": nil}), []string{"4.3/max-tokens-alt-required"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			judge, store := newJudge(t, tc.modelMap...)
			rs := judge.Round(tc.req.round(t, 200), "", store)
			require.NotEmpty(t, rs)
			assert.Equal(t, tc.rows, rowsOf(rs[0]), "%v", rs[0].Reasons)
		})
	}
}

// TestOverTheCap: an exchange recorded only up to the relay's cap is
// judged on neither side, whatever it holds (here a request that breaks a
// rule, and an answer that would fail): one skipped result per side,
// "not judged (over the cap)", so that it is counted and never failed.
func TestOverTheCap(t *testing.T) {
	judge, store := newJudge(t)
	suite, err := conformance.LoadSuite("")
	require.NoError(t, err)
	clientOnly := observe.New(suite.Catalog, suite.Schemas, check.Limits{MaxBodyBytes: 1 << 20}, observe.Options{ClientOnly: true})
	broken := with(valid()["chat"], nil, map[string]any{"messages": nil}).round(t, 200)
	for _, tc := range []struct {
		name  string
		judge *observe.Judge
		sides []string
	}{
		{"a relay: both sides", judge, []string{results.SideClient, results.SideGateway}},
		{"the stand-in: the client's", clientOnly, []string{results.SideClient}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := broken
			judged := tc.judge.Round(r, "", store)
			require.Equal(t, vocab.StatusFail, judged[0].Status, "under the cap the request is judged")
			r.OverCap = 1 << 10
			rs := tc.judge.Round(r, "", store)
			var sides []string
			for _, res := range rs {
				sides = append(sides, res.Side)
				assert.Equal(t, vocab.StatusSkip, res.Status)
				require.Len(t, res.Reasons, 1)
				assert.Equal(t, vocab.CheckOverCap, res.Reasons[0].Check)
				assert.Equal(t, "not judged (over the cap)", res.Reasons[0].Message)
				assert.False(t, res.Failed())
			}
			assert.Equal(t, tc.sides, sides)
			assert.Equal(t, observe.ClientRow("OpenAI/Go"), rs[0].Model)
			if len(rs) > 1 {
				assert.Equal(t, "gen-5.5", rs[1].Model)
			}
		})
	}
}
