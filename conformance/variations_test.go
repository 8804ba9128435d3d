package conformance_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
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
	// the request (false: 400).
	request func(v any) (any, bool)
	// variant is the shape a case with variants must report accepted.
	variant string
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
	multiline   bool   // JSON pretty-printed over several data: lines
	bom         bool   // a UTF-8 BOM first
}

// The cases run through every variation: each body and stream kind once,
// with images kept few (they dominate the time under the race detector).
var streamCases = []string{"chat-stream", "messages-stream", "messages-alt-stream", "gen-stream-partials-2", "edit-stream-partials-3"}
var jsonCases = []string{"models-*", "chat-json", "messages-json", "messages-alt-json", "messages-alt-image-input",
	"messages-max-tokens-256", "messages-alt-max-tokens-1024", "gen-basic", "edit-json-one-ref", "edit-n-2", "edit-transparent-png"}

func variations() []variation {
	all := append(append([]string{}, jsonCases...), streamCases...)
	return []variation{
		{name: "extra fields at every level", cases: all, json: addExtraFields},
		{name: "event lines absent", cases: streamCases, wire: wireStyle{dropNames: true}},
		{name: "event lines present", cases: streamCases, wire: wireStyle{addNames: true}},
		{name: "comments and ping events", cases: streamCases, wire: wireStyle{comments: true}, events: addPings},
		{name: "CRLF line ends", cases: streamCases, wire: wireStyle{eol: "\r\n"}},
		{name: "CR line ends and a BOM", cases: streamCases, wire: wireStyle{eol: "\r", bom: true}},
		{name: "data without a space", cases: streamCases, wire: wireStyle{dataNoSpace: true}},
		{name: "pretty-printed JSON", cases: all, pretty: true, wire: wireStyle{multiline: true}},
		{name: "charset parameter", cases: all, charset: true},
		{name: "gzip", cases: jsonCases, gzip: true},
		{name: "role-only first chat chunk", cases: []string{"chat-stream"}, events: roleOnlyFirstChunk},
		{name: "usage-only last chat chunk", cases: []string{"chat-stream"}, events: usageChunk(true)},
		// The shapes issue 9 loosened: what the spec does not show, a
		// conforming gateway may do either way.
		{name: "usage-only chat chunk without choices", cases: []string{"chat-stream"}, events: usageChunk(false)},
		{name: "stop_reason on the message_delta event", cases: []string{"messages-stream", "messages-alt-stream"}, events: stopReasonOnEvent},
		{name: "an image event of a type 6.1 does not name", cases: []string{"gen-stream-partials-2", "edit-stream-partials-3"}, events: unknownImageEvent},
		{name: "model named with a release date", cases: []string{"chat-json", "messages-json", "messages-alt-json"}, json: datedModel},
		{name: "image input only as an image_url part", cases: []string{"messages-alt-image-input"}, request: onlyImageURLParts,
			variant: "image_url part with a data URL"},
		{name: "two text blocks in one message", cases: []string{"messages-json", "messages-stream", "messages-alt-*"}, json: splitTextBlocks, events: splitStreamBlocks},
		{name: "fewer image previews than requested", cases: []string{"gen-stream-partials-*", "edit-stream-partials-*"}, events: dropPreviews},
	}
}

func TestNoFalseAlarmsOnLegalVariation(t *testing.T) {
	loc := startLocal(t, refgateway.Config{})
	suite := loadSuite(t)
	for _, v := range variations() {
		t.Run(v.name, func(t *testing.T) {
			var changed atomic.Int64
			proxy := httptest.NewServer(v.proxy(t, loc.srv.BaseURL, &changed))
			defer proxy.Close()
			target := loc.target
			target.BaseURL = proxy.URL
			calls, err := conformance.Plan(suite.Catalog, target, conformance.Selection{Cases: v.cases, Tiers: []string{"verified"}})
			require.NoError(t, err)
			require.NotEmpty(t, calls, "the variation selects no case")
			runner := &conformance.Runner{Suite: suite, Target: target, Options: conformance.Options{MaxRetries: -1}}
			ran, varied := 0, 0
			runner.Run(context.Background(), calls, func(r results.Result) {
				if r.Status == results.StatusSkip {
					return
				}
				ran++
				assert.Equal(t, results.StatusPass, r.Status, "%s/%s: %v", r.Model, r.Case, r.Reasons)
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
				w.WriteHeader(http.StatusBadRequest)
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
		if name != "" {
			b.WriteString("event: " + name + eol)
		}
		for _, line := range strings.Split(ev.data, "\n") {
			b.WriteString(prefix + line + eol)
		}
		b.WriteString(eol)
	}
	if w.comments {
		b.WriteString(": end" + eol + eol)
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
	if len(evs) == 0 {
		return evs
	}
	family, _, ok := strings.Cut(jsonType(evs[0].data), ".")
	if !ok {
		return evs
	}
	typ := family + ".in_progress"
	extra := wireEvent{name: typ, data: encode(map[string]any{"type": typ, "sequence_number": 0})}
	return append([]wireEvent{evs[0], extra}, evs[1:]...)
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

// onlyImageURLParts plays a gateway that takes message image input only as
// an image_url part holding a data URL (4.3 shows no shape): an image block
// is refused, and the part is handed on as the block the reference gateway
// reads.
func onlyImageURLParts(v any) (any, bool) {
	m, _ := v.(map[string]any)
	msgs, _ := m["messages"].([]any)
	for _, msg := range msgs {
		mm, _ := msg.(map[string]any)
		content, _ := mm["content"].([]any)
		for i, part := range content {
			p, _ := part.(map[string]any)
			switch p["type"] {
			case "image":
				return v, false
			case "image_url":
				u, _ := p["image_url"].(map[string]any)
				s, _ := u["url"].(string)
				meta, data, _ := strings.Cut(strings.TrimPrefix(s, "data:"), ",")
				content[i] = map[string]any{"type": "image", "source": map[string]any{
					"type": "base64", "media_type": strings.TrimSuffix(meta, ";base64"), "data": data}}
			}
		}
	}
	return v, true
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
