package conformance_test

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// A variation rewrites the reference gateway's answers in one way that the
// spec allows. Each must leave every selected verified case passing: a false
// alarm against a conforming gateway is as serious as a missed fault.
type variation struct {
	name  string
	cases []string // case id globs to run through it
	// json rewrites a JSON body (and every stream event's JSON).
	json func(v any) any
	// events rewrites a parsed stream.
	events func(evs []wireEvent) []wireEvent
	// wire controls how a stream is written back.
	wire wireStyle
	// request plays a gateway that takes other request shapes than the
	// reference gateway: it rewrites a JSON request body for it, or refuses
	// the request (false: 400, or refusal).
	request func(v any) (any, bool)
	// refusal is the status request refuses with, when not 400: a 200 with
	// an error member is a refusal too (2.2, 7).
	refusal int
	// variant is the shape a case with variants must report accepted.
	variant string
	// tiers are the tiers of the selected cases run; verified when nil. A
	// variation the strict tier must pass too names it.
	tiers []string
	// status rewrites the status of an answer to path (code: the
	// gateway's), as a gateway answering success or refusal otherwise does.
	status func(path string, code int) int
	// jsonType replaces the media type of JSON answers.
	jsonType string
	// contentType appends parameters to the media type.
	charset bool
	gzip    bool
	pretty  bool
}

type wireEvent struct {
	name string // event: line, "" for none
	data string
}

type wireStyle struct {
	eol         string // "\n" (default), "\r\n", "\r"
	dataNoSpace bool   // "data:{...}"
	dropNames   bool   // no event: lines
	addNames    bool   // event: lines on every event (from the JSON type, or "message")
	comments    bool   // ": keep-alive" comment lines between events
	bom         bool   // a UTF-8 BOM first
	nameAs      string // every event named this
	unended     bool   // no blank line after the last event: the stream ends after its data line
	bare        bool   // with unended, and no line end after that data line either
}

// The cases run through every variation: each body and stream kind once,
// with images kept few (they dominate the time under the race detector).
var streamCases = []string{"chat-stream", "messages-stream", "messages-alt-stream", "gen-stream-partials-2", "edit-stream-partials-3"}
var jsonCases = []string{"models-*", "chat-json", "messages-json", "messages-alt-json", "messages-alt-image-input",
	"messages-max-tokens-256", "messages-alt-max-tokens-1024", "gen-basic", "edit-json-one-ref", "edit-n-2", "edit-transparent-png"}

func variations() []variation {
	all := append(append([]string{}, jsonCases...), streamCases...)
	messageCases := []string{"messages-json", "messages-alt-json", "messages-max-tokens-256", "messages-alt-max-tokens-1024", "messages-alt-image-input"}
	modelCases := append([]string{"chat-json", "chat-max-tokens-256"}, messageCases...)
	refusals := []string{"gen-text-key-refused", "gen-messages-key-refused", "edit-text-key-refused"}
	return []variation{
		{name: "extra fields at every level", cases: all, json: addExtraFields},
		{name: "event lines absent", cases: streamCases, wire: wireStyle{dropNames: true}},
		{name: "event lines present", cases: streamCases, wire: wireStyle{addNames: true}},
		{name: "comments and ping events", cases: streamCases, wire: wireStyle{comments: true}, events: addPings},
		{name: "CRLF line ends", cases: streamCases, wire: wireStyle{eol: "\r\n"}},
		{name: "CR line ends and a BOM", cases: streamCases, wire: wireStyle{eol: "\r", bom: true}},
		{name: "data without a space", cases: streamCases, wire: wireStyle{dataNoSpace: true}},
		// JSON answers only: a stream's event spread over several data:
		// lines breaks 6 ("each data: line holds a JSON event").
		{name: "pretty-printed JSON", cases: jsonCases, pretty: true},
		{name: "charset parameter", cases: all, charset: true},
		{name: "gzip", cases: jsonCases, gzip: true},
		{name: "role-only first chat chunk", cases: []string{"chat-stream"}, events: roleOnlyFirstChunk},
		{name: "usage-only last chat chunk", cases: []string{"chat-stream"}, events: usageChunk(true)},
		// The shapes issue 9 loosened: what the spec does not show, a
		// conforming gateway may do either way.
		{name: "usage-only chat chunk without choices", cases: []string{"chat-stream"}, events: usageChunk(false)},
		{name: "stop_reason on the message_delta event", cases: []string{"messages-stream", "messages-alt-stream"}, events: stopReasonOnEvent},
		{name: "an image event of a type 6.1 does not name", cases: []string{"gen-stream-partials-2", "edit-stream-partials-3"}, events: unknownImageEvent},
		{name: "an in_progress event of the other family", cases: []string{"gen-stream-partials-2", "edit-stream-partials-3"}, events: imageEventOf(true)},
		{name: "an untyped heartbeat event in a messages stream", cases: []string{"messages-stream", "messages-alt-stream"}, events: untypedHeartbeat},
		{name: "model named with a release date", cases: []string{"chat-json", "messages-json", "messages-alt-json"}, json: datedModel},
		{name: "image input only as an image_url part", cases: []string{"messages-alt-image-input"}, request: onlyImageParts("image_url"),
			variant: "image_url part with a data URL"},
		{name: "two text blocks in one message", cases: []string{"messages-json", "messages-stream", "messages-alt-*"}, json: splitTextBlocks, events: splitStreamBlocks},
		{name: "fewer image previews than requested", cases: []string{"gen-stream-partials-*", "edit-stream-partials-*"}, events: dropPreviews},
		// The JSON readings issue 17 loosened. "model used" (2.3, 2.4) is
		// the same model in any of its spellings (modelid.Same), with a
		// provider prefix of the vendor table (cases/vendors).
		{name: "model with a vendor prefix", cases: modelCases, json: respelledModel(func(id string) string { return "openai/" + id })},
		// The clouds' spellings of the fourth audit (issue 34).
		{name: "model behind Azure's two segments", cases: modelCases, json: respelledModel(func(id string) string { return "azure/openai/" + id })},
		{name: "model behind a path and Bedrock's region.vendor.", cases: modelCases, json: respelledModel(func(id string) string { return "bedrock/us.anthropic." + id + "-v1:0" })},
		{name: "model as Vertex's resource name", cases: modelCases, json: respelledModel(func(id string) string { return "publishers/google/models/" + id })},
		{name: "model with a -MMDD snapshot", cases: modelCases, json: respelledModel(func(id string) string { return id + "-0613" })},
		{name: "model with an @YYYYMMDD snapshot", cases: modelCases, json: respelledModel(func(id string) string { return id + "@20260501" })},
		// The model used named in a vendor's words (the spec's preamble),
		// as an alias is answered with the model it stands for.
		{name: "model used named in a vendor's words", cases: modelCases, json: respelledModel(func(id string) string {
			word, rest, _ := strings.Cut(id, "-")
			return map[string]string{"gen": "gpt", "msg": "claude", "alt": "gemini"}[word] + "-" + rest + "-2026-01-01"
		})},
		// The spellings of relays and clouds (issue 22).
		{name: "model with a provider segment holding an underscore", cases: modelCases, json: respelledModel(func(id string) string { return "vertex_ai/" + id })},
		{name: "model in Bedrock's region.vendor. form with its version", cases: modelCases, json: respelledModel(func(id string) string { return "us.anthropic." + id + "-v1:0" })},
		{name: "model with -latest", cases: modelCases, json: respelledModel(func(id string) string { return id + "-latest" })},
		{name: "model with a numbered stable version", cases: modelCases, json: respelledModel(func(id string) string { return id + "-001" })},
		{name: "dated model named by its undated alias", cases: []string{"messages-json", "messages-max-tokens-256"}, json: respelledModel(func(id string) string {
			if undated := datedID.FindStringSubmatch(id); undated != nil {
				return undated[1]
			}
			return id
		})},
		// A reasoning model may spend the whole max_tokens before it writes:
		// an empty text that says the limit ended it is a string (2.3, 2.4).
		{name: "an empty text at the max_tokens limit", cases: []string{"chat-max-tokens-256", "messages-max-tokens-256"}, json: emptyAtLimit},
		// 2.4: "read text from blocks whose type is text and join their text".
		{name: "an empty text block before the text", cases: messageCases, json: prependBlock(map[string]any{"type": "text", "text": ""})},
		{name: "a block of another type before the text", cases: messageCases, json: prependBlock(map[string]any{"type": "thinking", "thinking": "", "signature": "c2ln"})},
		// 4 states the media type of requests only; 2.2 says "200-class".
		{name: "JSON answers labelled text/plain", cases: jsonCases, jsonType: "text/plain; charset=utf-8"},
		{name: "success answered 201", cases: all, status: func(_ string, code int) int {
			if code == http.StatusOK {
				return http.StatusCreated
			}
			return code
		}},
		// 5.2 states the refusal, not its form; 2.2 tells clients that a
		// 200-class answer with an error member or an empty data list failed.
		{name: "key-permission refusal as a 200 with an error member", cases: refusals, tiers: []string{"negative"}, status: refusedAs200},
		{name: "key-permission refusal as a 200 with an empty data list", cases: refusals, tiers: []string{"negative"}, status: refusedAs200, json: errorAsEmptyData},
		// A refusal is whatever serves no image: a 500 "not supported by
		// this provider" too, once the official clients' retries are spent.
		{name: "key-permission refusal as a 500", cases: refusals, tiers: []string{"negative"}, status: refusedAs(http.StatusInternalServerError)},
		// 4.3: "the exact shape of a content array for image input: not shown".
		{name: "image input only as an input_image part", cases: []string{"messages-alt-image-input"}, request: onlyImageParts("input_image"),
			variant: "input_image part with a data URL"},
		// A shape refused in any form section 7 allows moves on to the next.
		{name: "the image block refused as a 200 with an error member", cases: []string{"messages-alt-image-input"}, request: onlyImageParts("image_url"),
			refusal: http.StatusOK, variant: "image_url part with a data URL"},
		// The stream shapes issue 17 loosened: 6 shows no event: lines and
		// does not say a blank line follows the last event; 6.1 shows no
		// image event field but type, b64_json and partial_image_index; 6.3
		// orders only the kinds it names, shows no payload field but
		// delta.text, and confirms completion by "the final message's
		// stop_reason" wherever it sits.
		{name: "every event named message", cases: streamCases, wire: wireStyle{nameAs: "message"}},
		{name: "messages events typed by their event: lines alone", cases: []string{"messages-stream", "messages-alt-stream"}, events: typeOnlyInNames},
		{name: "no blank line after the last event", cases: streamCases, wire: wireStyle{unended: true}},
		{name: "no line end after the last event's data", cases: streamCases, wire: wireStyle{unended: true, bare: true}},
		{name: "image events naming another size and output_format", cases: []string{"gen-stream-partials-*", "edit-stream-partials-*"}, events: otherImageEventFields},
		{name: "events of other kinds before message_start and after message_stop", cases: []string{"messages-stream", "messages-alt-stream"}, events: eventsOutsideMessage},
		{name: "stop_reason on message_stop", cases: []string{"messages-stream", "messages-alt-stream"}, events: stopReasonOnMessageStop(false)},
		{name: "stop_reason in message_stop's message", cases: []string{"messages-stream", "messages-alt-stream"}, events: stopReasonOnMessageStop(true)},
		// Fragments of one character each are fragments (6.2), never
		// cumulative deltas, whatever the text.
		{name: "text deltas of one character", cases: []string{"chat-stream", "messages-stream", "messages-alt-stream"}, events: oneCharDeltas},
		{name: "a first delta of a line end, repeated at the start of the next", cases: []string{"chat-stream", "messages-stream", "messages-alt-stream"}, events: leadingDelta("\n")},
		{name: "a first delta of a star, repeated at the start of the next", cases: []string{"chat-stream", "messages-stream", "messages-alt-stream"}, events: leadingDelta("*")},
		// A repetitive text (issue 34): a fragment equal to the text
		// before it, then one repeating the whole text, is no cumulative
		// stream.
		{name: "a repetitive text", cases: []string{"chat-stream", "messages-stream", "messages-alt-stream"}, events: repetitiveText},
		// An untyped event is ignored in an image stream as in a messages
		// stream (issue 34).
		{name: "an untyped heartbeat event in an image stream", cases: []string{"gen-stream-partials-2", "edit-stream-partials-3"}, events: untypedHeartbeat},
		// 6.3 names no event for the final stop_reason: without
		// message_delta, on message_stop, it passes verified (strict
		// reports the missing message_delta).
		{name: "no message_delta, the stop_reason on message_stop", cases: []string{"messages-stream", "messages-alt-stream"}, events: withoutMessageDelta},
		// A stream's model is judged in the strict tier only, in the
		// spellings the JSON checks accept for "model used" (2.3, 2.4).
		{name: "stream model with a vendor prefix, a snapshot or an undated alias", cases: []string{"chat-stream*", "messages-stream*", "messages-alt-stream"},
			tiers: []string{"verified", "strict"}, json: respelledStreamModel},
	}
}

func TestNoFalseAlarmsOnLegalVariation(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes real images through every variation (make test runs it in its non-race pass)")
	}
	loc := startLocal(t, refgateway.Config{})
	suite := loadSuite(t)
	for _, v := range variations() {
		t.Run(v.name, func(t *testing.T) {
			var changed atomic.Int64
			proxy := httptest.NewServer(v.proxy(t, loc.srv.BaseURL, &changed))
			defer proxy.Close()
			target := loc.target
			target.BaseURL = proxy.URL
			tiers := v.tiers
			if tiers == nil {
				tiers = []string{"verified"}
			}
			calls, err := plan.Make(suite.Catalog, target, plan.Selection{Cases: v.cases, Tiers: tiers})
			require.NoError(t, err)
			require.NotEmpty(t, calls, "the variation selects no case")
			runner := suite.Runner(target, execute.Options{MaxRetries: -1})
			ran, varied := 0, 0
			runner.Run(context.Background(), calls, func(r results.Result) {
				if r.Status == vocab.StatusSkip {
					return
				}
				ran++
				assert.Equal(t, vocab.StatusPass, r.Status, "%s/%s: %v", r.Model, r.Case, r.Reasons)
				if v.variant != "" && len(suite.Catalog.Case(r.Case).Variants) > 0 {
					varied++
					assert.Equal(t, v.variant, r.Variant, "%s/%s: the shape reported accepted", r.Model, r.Case)
				}
			})
			assert.NotZero(t, ran)
			if v.variant != "" {
				assert.NotZero(t, varied, "no case with variants ran")
			}
			// The variation must really have been applied, or the test proves nothing.
			assert.NotZero(t, changed.Load(), "the variation changed no response")
		})
	}
}

// proxy forwards to the gateway and rewrites each answer, and each request
// when the variation plays a gateway taking other request shapes.
func (v variation) proxy(t *testing.T, upstream string, changed *atomic.Int64) http.Handler {
	u, err := url.Parse(upstream)
	require.NoError(t, err)
	p := httputil.NewSingleHostReverseProxy(u)
	p.ModifyResponse = func(resp *http.Response) error {
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		original := body
		ct := resp.Header.Get("Content-Type")
		gz := v.gzip && strings.Contains(resp.Request.Header.Get("Accept-Encoding"), "gzip")
		switch {
		case strings.HasPrefix(ct, "text/event-stream"):
			evs := parseWire(body)
			if v.json != nil || v.pretty {
				for i := range evs {
					evs[i].data = v.rewriteJSON(evs[i].data)
				}
			}
			if v.events != nil {
				evs = v.events(evs)
			}
			body = v.wire.write(evs)
		case strings.HasPrefix(ct, "application/json"):
			body = []byte(v.rewriteJSON(string(body)))
			if v.jsonType != "" {
				resp.Header.Set("Content-Type", v.jsonType)
				changed.Add(1)
			}
		}
		if v.status != nil {
			if code := v.status(resp.Request.URL.Path, resp.StatusCode); code != resp.StatusCode {
				resp.StatusCode, resp.Status = code, fmt.Sprintf("%d %s", code, http.StatusText(code))
				changed.Add(1)
			}
		}
		if v.charset && !strings.Contains(ct, "charset") {
			resp.Header.Set("Content-Type", ct+"; charset=utf-8")
			changed.Add(1)
		}
		if gz {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(body)
			zw.Close()
			body = buf.Bytes()
			resp.Header.Set("Content-Encoding", "gzip")
		}
		if !bytes.Equal(original, body) {
			changed.Add(1)
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	if v.request == nil {
		return p
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		var doc any
		if json.Unmarshal(body, &doc) == nil {
			before, _ := json.Marshal(doc)
			doc, ok := v.request(doc)
			if !ok {
				changed.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(cmp.Or(v.refusal, http.StatusBadRequest))
				io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"unsupported content block"}}`)
				return
			}
			if body, _ = json.Marshal(doc); !bytes.Equal(before, body) {
				changed.Add(1)
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		p.ServeHTTP(w, r)
	})
}

func (v variation) rewriteJSON(s string) string {
	var doc any
	if json.Unmarshal([]byte(s), &doc) != nil {
		return s // [DONE] and other non-JSON data stay as they are
	}
	if v.json != nil {
		doc = v.json(doc)
	}
	var b []byte
	if v.pretty {
		b, _ = json.MarshalIndent(doc, "", "  ")
	} else {
		b, _ = json.Marshal(doc)
	}
	return string(b)
}

// parseWire splits the reference gateway's LF-framed stream into events.
func parseWire(body []byte) []wireEvent {
	var evs []wireEvent
	for _, block := range strings.Split(string(body), "\n\n") {
		var ev wireEvent
		var data []string
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, "event:"):
				ev.name = strings.TrimSpace(line[len("event:"):])
			case strings.HasPrefix(line, "data:"):
				data = append(data, strings.TrimPrefix(line[len("data:"):], " "))
			}
		}
		if len(data) > 0 {
			ev.data = strings.Join(data, "\n")
			evs = append(evs, ev)
		}
	}
	return evs
}

func (w wireStyle) write(evs []wireEvent) []byte {
	eol := w.eol
	if eol == "" {
		eol = "\n"
	}
	prefix := "data: "
	if w.dataNoSpace {
		prefix = "data:"
	}
	var b strings.Builder
	if w.bom {
		b.WriteString("\uFEFF")
	}
	for i, ev := range evs {
		if i > 0 && w.unended {
			b.WriteString(eol) // the blank line of the event before
		}
		if w.comments {
			fmt.Fprintf(&b, ": keep-alive %d%s", i, eol)
		}
		name := ev.name
		if w.dropNames {
			name = ""
		}
		if w.addNames && name == "" {
			name = jsonType(ev.data)
		}
		if w.nameAs != "" {
			name = w.nameAs
		}
		if name != "" {
			b.WriteString("event: " + name + eol)
		}
		for _, line := range strings.Split(ev.data, "\n") {
			b.WriteString(prefix + line + eol)
		}
		if !w.unended {
			b.WriteString(eol)
		}
	}
	if w.comments {
		b.WriteString(": end" + eol + eol)
	}
	if w.bare {
		return []byte(strings.TrimSuffix(b.String(), eol))
	}
	return []byte(b.String())
}

func jsonType(data string) string {
	var v struct {
		Type string `json:"type"`
	}
	if json.Unmarshal([]byte(data), &v) == nil && v.Type != "" {
		return v.Type
	}
	return "message"
}

// addExtraFields adds an unknown field to every object, at every level.
func addExtraFields(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = addExtraFields(x)
		}
		t["x_gwconform_extra"] = map[string]any{"nested": []any{1, "two", nil}}
	case []any:
		for i := range t {
			t[i] = addExtraFields(t[i])
		}
	}
	return v
}

func decode(data string) map[string]any {
	var m map[string]any
	json.Unmarshal([]byte(data), &m)
	return m
}

func encode(m map[string]any) string {
	b, _ := json.Marshal(m)
	return string(b)
}

// addPings puts a messages ping event after every other event but the last.
func addPings(evs []wireEvent) []wireEvent {
	if len(evs) == 0 || jsonType(evs[0].data) != "message_start" {
		return evs
	}
	var out []wireEvent
	for i, ev := range evs {
		out = append(out, ev)
		if i < len(evs)-1 {
			out = append(out, wireEvent{name: "ping", data: `{"type":"ping"}`})
		}
	}
	return out
}

// roleOnlyFirstChunk makes the first chunk carry only the role.
func roleOnlyFirstChunk(evs []wireEvent) []wireEvent {
	if len(evs) == 0 {
		return evs
	}
	first := decode(evs[0].data)
	if first == nil {
		return evs
	}
	role := map[string]any{"id": first["id"], "object": "chat.completion.chunk", "created": first["created"], "model": first["model"],
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": ""}, "finish_reason": nil}}}
	if choices, ok := first["choices"].([]any); ok && len(choices) > 0 {
		if d, ok := choices[0].(map[string]any)["delta"].(map[string]any); ok {
			delete(d, "role")
		}
	}
	evs[0].data = encode(first)
	return append([]wireEvent{{data: encode(role)}}, evs...)
}

// usageChunk adds a chunk with usage and empty choices, or with no choices
// member at all (6.2 shows none but choices[].delta.content), before [DONE].
func usageChunk(withChoices bool) func([]wireEvent) []wireEvent {
	return func(evs []wireEvent) []wireEvent {
		if len(evs) < 2 {
			return evs
		}
		first := decode(evs[0].data)
		usage := map[string]any{"id": first["id"], "object": "chat.completion.chunk", "created": first["created"], "model": first["model"],
			"usage": map[string]any{"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}}
		if withChoices {
			usage["choices"] = []any{}
		}
		last := evs[len(evs)-1]
		return append(append(evs[:len(evs)-1:len(evs)-1], wireEvent{data: encode(usage)}), last)
	}
}

// stopReasonOnEvent moves message_delta's stop_reason out of its delta onto
// the event (6.3 shows no payload field of message_delta).
func stopReasonOnEvent(evs []wireEvent) []wireEvent {
	for i, ev := range evs {
		m := decode(ev.data)
		d, ok := m["delta"].(map[string]any)
		if m["type"] != "message_delta" || !ok {
			continue
		}
		m["stop_reason"] = d["stop_reason"]
		delete(d, "stop_reason")
		evs[i].data = encode(m)
	}
	return evs
}

// unknownImageEvent adds, after the first event of an image stream, an
// event of its family whose type 6.1 does not name.
func unknownImageEvent(evs []wireEvent) []wireEvent {
	return imageEventOf(false)(evs)
}

// imageEventOf inserts, after the first event, an in_progress event of the
// stream's own family, or of the other one (image_generation.in_progress
// in an edit stream): a type 6.1 does not name, whatever its prefix.
func imageEventOf(otherFamily bool) func(evs []wireEvent) []wireEvent {
	return func(evs []wireEvent) []wireEvent {
		if len(evs) == 0 {
			return evs
		}
		family, _, ok := strings.Cut(jsonType(evs[0].data), ".")
		if !ok {
			return evs
		}
		if otherFamily {
			family = map[string]string{"image_edit": "image_generation", "image_generation": "image_edit"}[family]
		}
		typ := family + ".in_progress"
		extra := wireEvent{name: typ, data: encode(map[string]any{"type": typ, "sequence_number": 0})}
		return append([]wireEvent{evs[0], extra}, evs[1:]...)
	}
}

// untypedHeartbeat inserts, after the first event, an event with neither a
// type nor an event: line, as a relay's keep-alive: an unknown kind.
func untypedHeartbeat(evs []wireEvent) []wireEvent {
	if len(evs) == 0 {
		return evs
	}
	return append([]wireEvent{evs[0], {data: `{"heartbeat":1}`}}, evs[1:]...)
}

// datedModel names the model of a chat completion or a message with a
// release date appended, as a gateway resolving an alias does (2.3, 2.4:
// "model used").
func datedModel(v any) any {
	if m, ok := v.(map[string]any); ok && (m["object"] == "chat.completion" || m["type"] == "message") {
		if id, ok := m["model"].(string); ok {
			m["model"] = id + "-2026-05-01"
		}
	}
	return v
}

// respelledModel names the model of a chat completion or a message as
// respell spells the id requested.
func respelledModel(respell func(id string) string) func(any) any {
	return func(v any) any {
		if m, ok := v.(map[string]any); ok && (m["object"] == "chat.completion" || m["type"] == "message") {
			if id, ok := m["model"].(string); ok {
				m["model"] = respell(id)
			}
		}
		return v
	}
}

// prependBlock puts block before the content blocks of a message.
// emptyAtLimit answers with no text, stopped by max_tokens: a chat
// completion's content "" with finish_reason length, a message without
// text blocks with stop_reason max_tokens.
func emptyAtLimit(v any) any {
	m, ok := v.(map[string]any)
	switch {
	case !ok:
	case m["object"] == "chat.completion":
		for _, c := range m["choices"].([]any) {
			choice := c.(map[string]any)
			choice["message"].(map[string]any)["content"] = ""
			choice["finish_reason"] = "length"
		}
	case m["type"] == "message":
		m["content"], m["stop_reason"] = []any{}, "max_tokens"
	}
	return v
}

func prependBlock(block map[string]any) func(any) any {
	return func(v any) any {
		if m, ok := v.(map[string]any); ok && m["type"] == "message" {
			content, _ := m["content"].([]any)
			m["content"] = append([]any{maps.Clone(block)}, content...)
		}
		return v
	}
}

// refusedAs200 answers a refusal of an image request (the reference
// gateway's 403) with 200, the body unchanged: its error member says it
// failed.
var refusedAs200 = refusedAs(http.StatusOK)

// refusedAs answers an image endpoint's key-permission refusal with status.
func refusedAs(status int) func(path string, code int) int {
	return func(path string, code int) int {
		if strings.HasPrefix(path, "/v1/images/") && code == http.StatusForbidden {
			return status
		}
		return code
	}
}

// errorAsEmptyData replaces an error body with an image result of no image.
func errorAsEmptyData(v any) any {
	if m, ok := v.(map[string]any); ok && m["error"] != nil {
		return map[string]any{"created": 1767225600, "data": []any{}}
	}
	return v
}

// onlyImageParts plays a gateway that takes message image input in one
// shape only (4.3 shows none), an image_url part ({"image_url": {"url":
// DATA_URL}}) or an input_image part ({"image_url": DATA_URL}): any other
// image shape is refused, and the part is handed on as the block the
// reference gateway reads.
func onlyImageParts(accepted string) func(v any) (any, bool) {
	return func(v any) (any, bool) {
		m, _ := v.(map[string]any)
		msgs, _ := m["messages"].([]any)
		for _, msg := range msgs {
			mm, _ := msg.(map[string]any)
			content, _ := mm["content"].([]any)
			for i, part := range content {
				p, _ := part.(map[string]any)
				typ, _ := p["type"].(string)
				if typ != "image" && typ != "image_url" && typ != "input_image" {
					continue
				}
				if typ != accepted {
					return v, false
				}
				s, _ := p["image_url"].(string)
				if u, ok := p["image_url"].(map[string]any); ok {
					s, _ = u["url"].(string)
				}
				meta, data, _ := strings.Cut(strings.TrimPrefix(s, "data:"), ",")
				content[i] = map[string]any{"type": "image", "source": map[string]any{
					"type": "base64", "media_type": strings.TrimSuffix(meta, ";base64"), "data": data}}
			}
		}
		return v, true
	}
}

// splitTextBlocks turns one text block of a message into two.
func splitTextBlocks(v any) any {
	m, ok := v.(map[string]any)
	if !ok || m["type"] != "message" {
		return v
	}
	content, _ := m["content"].([]any)
	var out []any
	for _, b := range content {
		blk, _ := b.(map[string]any)
		text, _ := blk["text"].(string)
		if blk["type"] == "text" && len(text) > 1 {
			half := len(text) / 2
			out = append(out, map[string]any{"type": "text", "text": text[:half]}, map[string]any{"type": "text", "text": text[half:]})
			continue
		}
		out = append(out, b)
	}
	m["content"] = out
	return m
}

// splitStreamBlocks closes the text block after its first delta and opens a
// second one at the next index for the rest.
func splitStreamBlocks(evs []wireEvent) []wireEvent {
	var out []wireEvent
	split := false
	deltas := 0
	for _, ev := range evs {
		m := decode(ev.data)
		if m == nil {
			out = append(out, ev)
			continue
		}
		switch m["type"] {
		case "content_block_delta":
			deltas++
			if split {
				m["index"] = 1
				ev.data = encode(m)
			}
			out = append(out, ev)
			if deltas == 1 {
				split = true
				out = append(out,
					wireEvent{name: "content_block_stop", data: `{"type":"content_block_stop","index":0}`},
					wireEvent{name: "content_block_start", data: `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`})
			}
			continue
		case "content_block_stop":
			if split {
				m["index"] = 1
				ev.data = encode(m)
			}
		}
		out = append(out, ev)
	}
	return out
}

// dropPreviews keeps only the first preview of an image stream.
func dropPreviews(evs []wireEvent) []wireEvent {
	var out []wireEvent
	kept := false
	for _, ev := range evs {
		if strings.HasSuffix(jsonType(ev.data), ".partial_image") {
			if kept {
				continue
			}
			kept = true
		}
		out = append(out, ev)
	}
	return out
}

// typeOnlyInNames names each messages event by its type, then takes the
// type out of its payload: the event: line alone gives the kind (6.3 shows
// no payload field but delta.text).
func typeOnlyInNames(evs []wireEvent) []wireEvent {
	for i, ev := range evs {
		m := decode(ev.data)
		typ, ok := m["type"].(string)
		if !ok {
			continue
		}
		delete(m, "type")
		evs[i] = wireEvent{name: typ, data: encode(m)}
	}
	return evs
}

// otherImageEventFields makes every image event name a size and an
// output_format other than its image's (6.1 shows neither field).
func otherImageEventFields(evs []wireEvent) []wireEvent {
	for i, ev := range evs {
		m := decode(ev.data)
		if m == nil {
			continue
		}
		m["size"], m["output_format"] = "256x256", "gif"
		evs[i].data = encode(m)
	}
	return evs
}

// eventsOutsideMessage puts an event of a kind 6.3 does not name before
// message_start and another after message_stop.
func eventsOutsideMessage(evs []wireEvent) []wireEvent {
	if len(evs) == 0 || jsonType(evs[0].data) != "message_start" {
		return evs
	}
	before := wireEvent{name: "gateway_hello", data: `{"type":"gateway_hello","region":"eu"}`}
	after := wireEvent{name: "gateway_usage", data: `{"type":"gateway_usage","cost_usd":0.0001}`}
	return append(append([]wireEvent{before}, evs...), after)
}

// stopReasonOnMessageStop moves message_delta's stop_reason out of its
// delta onto message_stop, or into the message message_stop carries.
func stopReasonOnMessageStop(inMessage bool) func(evs []wireEvent) []wireEvent {
	return func(evs []wireEvent) []wireEvent {
		var reason any
		for i, ev := range evs {
			m := decode(ev.data)
			switch m["type"] {
			case "message_delta":
				if d, ok := m["delta"].(map[string]any); ok {
					reason = d["stop_reason"]
					delete(d, "stop_reason")
				}
			case "message_stop":
				if inMessage {
					m["message"] = map[string]any{"stop_reason": reason}
				} else {
					m["stop_reason"] = reason
				}
			default:
				continue
			}
			evs[i].data = encode(m)
		}
		return evs
	}
}

// oneCharDeltas splits every text delta (chat delta.content, messages
// delta.text) into deltas of one character each.
func oneCharDeltas(evs []wireEvent) []wireEvent {
	var out []wireEvent
	for _, ev := range evs {
		m := decode(ev.data)
		delta, key := textDelta(m)
		text, _ := delta[key].(string)
		if len([]rune(text)) < 2 {
			out = append(out, ev)
			continue
		}
		for _, r := range text {
			delta[key] = string(r)
			out = append(out, wireEvent{name: ev.name, data: encode(m)})
		}
	}
	return out
}

// leadingDelta puts a delta of lead before the first text delta, and lead
// again at the start of that delta: "\n" then "\nThe sea is calm.", as a
// model that opens with a line end streams it. A fragment that begins with
// the text before it by chance, once, is no cumulative delta.
func leadingDelta(lead string) func(evs []wireEvent) []wireEvent {
	return func(evs []wireEvent) []wireEvent {
		for i, ev := range evs {
			m := decode(ev.data)
			delta, key := textDelta(m)
			text, _ := delta[key].(string)
			if text == "" {
				continue
			}
			delta[key] = lead
			first := wireEvent{name: ev.name, data: encode(m)}
			delta[key] = lead + text
			evs[i].data = encode(m)
			return append(append(slices.Clone(evs[:i]), first), evs[i:]...)
		}
		return evs
	}
}

// repetitiveText makes the stream's text "ABCDEFGHIJ", "ABCDEFGHIJ",
// "ABCDEFGHIJABCDEFGHIJ": the first text delta becomes those three
// fragments, and the other text deltas are dropped.
func repetitiveText(evs []wireEvent) []wireEvent {
	var out []wireEvent
	done := false
	for _, ev := range evs {
		m := decode(ev.data)
		delta, key := textDelta(m)
		if text, _ := delta[key].(string); text == "" {
			out = append(out, ev)
			continue
		}
		if done {
			continue
		}
		done = true
		for _, text := range []string{"ABCDEFGHIJ", "ABCDEFGHIJ", "ABCDEFGHIJABCDEFGHIJ"} {
			delta[key] = text
			out = append(out, wireEvent{name: ev.name, data: encode(m)})
		}
	}
	return out
}

// withoutMessageDelta drops a messages stream's message_delta events and
// puts their stop_reason on message_stop.
func withoutMessageDelta(evs []wireEvent) []wireEvent {
	var out []wireEvent
	var reason any
	for _, ev := range evs {
		m := decode(ev.data)
		switch m["type"] {
		case "message_delta":
			if d, ok := m["delta"].(map[string]any); ok {
				reason = d["stop_reason"]
			}
			continue
		case "message_stop":
			m["stop_reason"] = reason
			ev.data = encode(m)
		}
		out = append(out, ev)
	}
	return out
}

// textDelta is the object holding an event's text delta and its key: a chat
// chunk's first choice's delta (content), or a content_block_delta's delta
// (text); nil when the event carries none.
func textDelta(m map[string]any) (map[string]any, string) {
	if m["type"] == "content_block_delta" {
		d, _ := m["delta"].(map[string]any)
		return d, "text"
	}
	if choices, ok := m["choices"].([]any); ok && len(choices) > 0 {
		c, _ := choices[0].(map[string]any)
		d, _ := c["delta"].(map[string]any)
		return d, "content"
	}
	return nil, ""
}

// respelledStreamModel spells a stream's model as a gateway may: with a
// provider prefix of the vendor table, and the undated alias of a dated id or a -MMDD snapshot
// of an undated one (chat chunks and message_start).
func respelledStreamModel(v any) any {
	m, _ := v.(map[string]any)
	holder := m
	if m["type"] == "message_start" {
		holder, _ = m["message"].(map[string]any)
	} else if m["object"] != "chat.completion.chunk" {
		return v
	}
	if id, ok := holder["model"].(string); ok {
		if undated := datedID.FindStringSubmatch(id); undated != nil {
			holder["model"] = "anthropic/" + undated[1]
		} else {
			holder["model"] = "openai/" + id + "-0613"
		}
	}
	return v
}

// datedID is a model id ending in a -YYYYMMDD release date.
var datedID = regexp.MustCompile(`^(.+)-\d{8}$`)
