package observe_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/check"
	"github.com/gwconform/gwconform/conformance/observe"
	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// chatCompletion is a chat completion that meets 2.3 for gen-5.5.
const chatCompletion = `{"id":"c1","object":"chat.completion","created":1,"model":"gen-5.5",` +
	`"choices":[{"index":0,"message":{"role":"assistant","content":"The sea is calm."},"finish_reason":"stop"}]}`

// answered is a round of s answered with status and body.
func answered(t *testing.T, s sent, status int, body string) record.Round {
	t.Helper()
	r := s.round(t, status)
	r.Response.Body = &record.Body{Bytes: len(body), JSON: []byte(body)}
	if body != "" && body[0] != '{' {
		r.Response.Body = &record.Body{Bytes: len(body), Text: body}
	}
	return r
}

// session judges rounds in order and returns what it emitted, after
// Close.
func session(t *testing.T, rounds ...record.Round) []results.Result {
	t.Helper()
	judge, store := newJudge(t)
	var out []results.Result
	s := observe.NewSession(judge, func(r results.Result) { out = append(out, r) })
	for _, r := range rounds {
		s.Round(r, "", store)
	}
	s.Close()
	return out
}

// gatewaySide is the gateway's results among rs.
func gatewaySide(rs []results.Result) []results.Result {
	var out []results.Result
	for _, r := range rs {
		if r.Side == results.SideGateway {
			out = append(out, r)
		}
	}
	return out
}

// TestSessionDecidesAsTheRun: what one exchange alone cannot settle is
// settled as the run settles it: a request within the verified rows owes
// its row's answer, a negative counts with its control only, attempts of
// one request are one result, and a cut exchange is judged on what arrived.
func TestSessionDecidesAsTheRun(t *testing.T) {
	chat := valid()["chat"]
	noModel := with(chat, nil, map[string]any{"model": nil})
	cutStream := answered(t, with(chat, nil, map[string]any{"stream": true}), 200,
		"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"gen-5.5\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"The sea\"}}]}\n\n")
	cutStream.Response.Header["Content-Type"] = []string{"text/event-stream"}
	cutStream.Cut = "the client stopped reading"
	unfinished := cutStream
	unfinished.Cut = ""
	messagesList := answered(t, sent{path: "/v1/models", key: "messages"}, 200,
		`{"object":"list","data":[{"id":"msg-sonnet-5","object":"model","owned_by":"msg"}]}`)
	unknownModel := with(valid()["messages"], nil, map[string]any{"model": "msg-no-such-model-0000"})
	const message = `{"id":"m1","type":"message","role":"assistant","model":"msg-sonnet-5","content":[{"type":"text","text":"Calm."}],` +
		`"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`

	for _, tc := range []struct {
		name   string
		rounds []record.Round
		// want are the gateway side's tier, status, attempts and flaky, in order.
		want []string
	}{
		{"a refusal of a verified request fails its row", []record.Round{answered(t, chat, 400, `{"error":{}}`)},
			[]string{"verified fail 1 false"}},
		{"a 404 of a verified request fails too", []record.Round{answered(t, chat, 404, `{"error":{}}`)},
			[]string{"verified fail 1 false"}},
		{"a request beyond the verified rows may be refused", []record.Round{answered(t, with(chat, nil, map[string]any{"n": 3}), 400, `{"error":{}}`)},
			[]string{"explore unsupported 1 false"}},
		{"a negative without its control is inconclusive", []record.Round{answered(t, noModel, 400, `{"error":{}}`)},
			[]string{"negative inconclusive 1 false"}},
		{"a negative with its control served before passes", []record.Round{answered(t, chat, 200, chatCompletion), answered(t, noModel, 400, `{"error":{}}`)},
			[]string{"verified pass 1 false", "negative pass 1 false"}},
		{"a negative waits for a control served after it", []record.Round{answered(t, noModel, 400, `{"error":{}}`), answered(t, chat, 200, chatCompletion)},
			[]string{"verified pass 1 false", "negative pass 1 false"}},
		{"a control refused does not count", []record.Round{answered(t, chat, 400, `{"error":{}}`), answered(t, noModel, 400, `{"error":{}}`)},
			[]string{"verified fail 1 false", "negative inconclusive 1 false"}},
		{"a negative accepted needs no control", []record.Round{answered(t, noModel, 200, chatCompletion)},
			[]string{"negative fail 1 false"}},
		{"a pass after a 503 is one flaky result", []record.Round{answered(t, chat, 503, `{"error":{}}`), answered(t, chat, 200, chatCompletion)},
			[]string{"verified pass 2 true"}},
		{"a pass after a 429 is pacing, not flakiness", []record.Round{answered(t, chat, 429, `{"error":{}}`), answered(t, chat, 200, chatCompletion)},
			[]string{"verified pass 2 false"}},
		{"a 503 never resent is judged as it ended", []record.Round{answered(t, chat, 503, `{"error":{}}`)},
			[]string{"verified fail 1 false"}},
		{"a model the key's list left out is owed 404", []record.Round{messagesList, answered(t, unknownModel, 404, `{"error":{}}`), answered(t, valid()["messages"], 200, message)},
			[]string{"verified pass 1 false", "verified pass 1 false", "negative pass 1 false"}},
		{"a model the key's list left out, served", []record.Round{messagesList, answered(t, unknownModel, 200, message)},
			[]string{"verified pass 1 false", "negative fail 1 false"}},
		{"before its list, an unknown model is beyond the verified rows", []record.Round{answered(t, unknownModel, 404, `{"error":{}}`)},
			[]string{"explore unsupported 1 false"}},
		{"a cut stream is judged on what arrived", []record.Round{cutStream}, []string{"verified pass 1 false"}},
		{"the same stream ended by the gateway owes its end", []record.Round{unfinished}, []string{"verified fail 1 false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := session(t, tc.rounds...)
			var got []string
			for _, r := range gatewaySide(rs) {
				got = append(got, fmt.Sprintf("%s %s %d %t", r.Tier, r.Status, r.Attempts, r.Flaky))
			}
			assert.Equal(t, tc.want, got, "%v", rs)
			for _, r := range rs {
				if r.Side == results.SideClient {
					assert.True(t, r.Aside, "a relay's client side is reported aside")
					assert.False(t, r.Decides(true))
				}
			}
		})
	}
}

// TestSessionStrict: with Strict, an answer within the verified rows is
// also judged by the strict readings, in a strict result of its own.
func TestSessionStrict(t *testing.T) {
	suite, err := conformance.LoadSuite("")
	require.NoError(t, err)
	_, store := newJudge(t)
	judge := observe.New(suite.Catalog, suite.Schemas, check.Limits{MaxBodyBytes: 1 << 20}, observe.Options{Strict: true})
	otherSpelling := `{"id":"c1","object":"chat.completion","created":1,"model":"gen-5.5-2026-01-01",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"The sea is calm."},"finish_reason":"stop"}]}`
	rs := judge.Round(answered(t, valid()["chat"], 200, otherSpelling), "", store)
	require.Len(t, gatewaySide(rs), 2)
	verified, strict := gatewaySide(rs)[0], gatewaySide(rs)[1]
	assert.Equal(t, vocab.StatusPass, verified.Status, "%v", verified.Reasons)
	assert.Equal(t, vocab.TierStrict, strict.Tier)
	assert.Equal(t, vocab.StatusFail, strict.Status, "the model used spelt otherwise than requested")
}

// TestBasePaths: a request under a declared base path is judged as that
// base URL plus the path; an undeclared prefix breaks the exact paths,
// and an empty segment is never a base.
func TestBasePaths(t *testing.T) {
	suite, err := conformance.LoadSuite("")
	require.NoError(t, err)
	_, store := newJudge(t)
	judge := observe.New(suite.Catalog, suite.Schemas, check.Limits{MaxBodyBytes: 1 << 20}, observe.Options{BasePaths: []string{"/anthropic", "/gw/openai"}})
	for _, tc := range []struct {
		path  string
		rows  []string
		under string // the valid request sent
	}{
		{"/anthropic/v1/messages", nil, "messages"},
		{"/gw/openai/v1/chat/completions", nil, "chat"},
		{"/gw/v1/chat/completions", []string{"4/base-url-plus-path"}, "chat"},
		{"/other/v1/messages", []string{"4.3/exact-path"}, "messages"},
		{"//v1/chat/completions", []string{"4/base-url-plus-path"}, "chat"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			s := valid()[tc.under]
			s.path = tc.path
			rs := judge.Round(s.round(t, 400), "", store)
			assert.Equal(t, tc.rows, rowsOf(rs[0]), "%v", rs[0].Reasons)
			assert.Equal(t, tc.path, rs[0].Request.Path, "the path as sent")
		})
	}
	for _, bad := range []string{"anthropic", "/", "/a/", "/a//b", "/a/v1"} {
		assert.Error(t, observe.CheckBasePath(bad), bad)
	}
	assert.NoError(t, observe.CheckBasePath("/anthropic"))
}

// TestPipeline: rounds judged by many workers are settled in the order
// they came (a resend after a 503 is one flaky result whatever worker
// judged it); a queue with no room counts what it could not take; a
// sample judges its share and counts the rest apart.
func TestPipeline(t *testing.T) {
	judge, store := newJudge(t)
	chat := valid()["chat"]
	var rounds []record.Round
	for range 50 {
		rounds = append(rounds, answered(t, chat, 503, `{"error":{}}`), answered(t, chat, 200, chatCompletion))
	}
	w, err := results.Create(filepath.Join(t.TempDir(), results.FileName))
	require.NoError(t, err)
	defer w.Close()

	var got []results.Result
	p := observe.NewPipeline(judge, observe.PipelineOptions{Workers: 8}, w, func(r results.Result) { got = append(got, r) })
	for _, r := range rounds {
		p.Put(r, "", store)
	}
	counts, err := p.Close()
	require.NoError(t, err)
	assert.Equal(t, observe.Counts{Offered: 100, Judged: 100}, counts)
	gw := gatewaySide(got)
	require.Len(t, gw, 50, "each resend is one result with its failed attempt")
	for _, r := range gw {
		assert.Equal(t, vocab.StatusPass, r.Status)
		assert.True(t, r.Flaky)
		assert.Equal(t, 2, r.Attempts)
	}

	full := observe.NewPipeline(judge, observe.PipelineOptions{Workers: 1, Queue: 1}, w, func(results.Result) {})
	for _, r := range rounds {
		full.Push(r, "", store)
	}
	counts, err = full.Close()
	require.NoError(t, err)
	assert.Positive(t, counts.QueueFull, "a live push never waits: a full queue counts")
	assert.Equal(t, 100, counts.Judged+counts.QueueFull)
	assert.Contains(t, observe.Judged(counts), "not judged: the queue was full")

	half := observe.NewPipeline(judge, observe.PipelineOptions{Sample: 0.5}, w, func(results.Result) {})
	for _, r := range rounds {
		half.Put(r, "", store)
	}
	counts, err = half.Close()
	require.NoError(t, err)
	assert.Equal(t, 100, counts.Judged+counts.SampledOut)
	assert.InDelta(t, 50, counts.Judged, 20, "about half")
	assert.Zero(t, counts.QueueFull)
}

// TestImageInputShapes: 4.3 verifies the alternative model's image input,
// not the shape of its content. A refused shape alone decides nothing;
// every shape a verified row tries refused fails the image input, as the
// run's case fails; one served passes it.
func TestImageInputShapes(t *testing.T) {
	alt := valid()["alt"]
	shaped := func(block map[string]any) sent {
		return with(alt, nil, map[string]any{"messages": []any{map[string]any{"role": "user", "content": []any{block,
			map[string]any{"type": "text", "text": "Describe this image."}}}}})
	}
	image := shaped(map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}})
	imageURL := shaped(map[string]any{"type": "image_url", "image_url": map[string]any{"url": dataURL}})
	inputImage := shaped(map[string]any{"type": "input_image", "image_url": dataURL})
	const message = `{"id":"m1","type":"message","role":"assistant","model":"alt-flash","content":[{"type":"text","text":"A square."}],` +
		`"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`
	refused := func(s sent) record.Round { return answered(t, s, 400, `{"error":{}}`) }
	for _, tc := range []struct {
		name   string
		rounds []record.Round
		fails  bool
	}{
		{"one shape refused decides nothing", []record.Round{refused(image)}, false},
		{"every shape refused fails the image input", []record.Round{refused(image), refused(imageURL), refused(inputImage)}, true},
		{"one shape served passes it", []record.Round{refused(image), refused(imageURL), answered(t, inputImage, 200, message)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var verified []results.Result
			for _, r := range gatewaySide(session(t, tc.rounds...)) {
				if r.Tier.Decides(false) {
					verified = append(verified, r)
				}
			}
			if !tc.fails {
				// A refused shape is explore; a served one is owed the
				// row's answer, and this one keeps it.
				for _, r := range verified {
					assert.Equal(t, vocab.StatusPass, r.Status, "%v", r.Reasons)
				}
				return
			}
			require.Len(t, verified, 1)
			assert.Equal(t, vocab.StatusFail, verified[0].Status)
			assert.Equal(t, "messages.image_input", verified[0].Feature)
			assert.Contains(t, verified[0].Reasons[0].Message, "refused image input in every shape tried")
		})
	}
}
