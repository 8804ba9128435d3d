package refgateway

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ---- GET /v1/models ----

func (c *call) models() {
	list := c.g.lists[c.kind]
	data := make([]any, 0, len(list))
	for i, m := range list {
		if i == 0 && c.fs.has(fModelMissing) {
			continue // the key's first verified model
		}
		e := map[string]any{"id": m.ID, "object": "model", "owned_by": m.OwnedBy, "created": m.Created}
		if c.fs.has(fWrongType) {
			e["owned_by"] = 7
		}
		data = append(data, e)
	}
	body := map[string]any{"object": "list", "data": data}
	if c.fs.has(fMissingField) {
		delete(body, "object")
	}
	c.writeJSON(http.StatusOK, body)
}

// ---- deterministic text ----

var vocabulary = strings.Fields(`the a gateway answers every request with plain words drawn
from a fixed list so that tests can compare outputs across runs and models while the
text still reads like a sentence about light water stone river quiet bright morning
signal careful simple steady clear green blue amber field harbour window`)

var wantLength = regexp.MustCompile(`(?i)\b(\d{1,6})\s*(?:words?|tokens?)\b`)

// maxGenerated bounds the length a prompt may ask for.
const maxGenerated = 16384

// generate returns the words of a deterministic answer to prompt: a short
// echo of the prompt, then words picked by a hash of the prompt and model.
// A prompt naming "N words" (or tokens) gets N words; otherwise 24 to 40.
// prefix words come first (e.g. the image description of alt-flash).
func generate(modelID, prompt string, prefix []string) []string {
	h := fnv.New64a()
	h.Write([]byte(modelID + "\x00" + prompt))
	seed := h.Sum64()
	n := 24 + int(seed%17)
	if m := wantLength.FindStringSubmatch(prompt); m != nil {
		if v, err := strconv.Atoi(m[1]); err == nil && v > 0 {
			n = min(v, maxGenerated)
		}
	}
	words := append([]string(nil), prefix...)
	if pw := strings.Fields(prompt); len(pw) > 0 {
		words = append(words, "About")
		for _, w := range pw[:min(len(pw), 5)] {
			words = append(words, strings.Trim(w, `.,;:!?"'`))
		}
		words[len(words)-1] += ":"
	}
	x := seed | 1
	for len(words) < n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		words = append(words, vocabulary[x%uint64(len(vocabulary))])
	}
	words = words[:max(n, len(prefix))]
	words[len(words)-1] = strings.TrimSuffix(words[len(words)-1], ":") + "."
	return words
}

// limitWords applies max_tokens (one word is one token). It reports whether
// the output reached the bound (and was cut to it). Under max-tokens-ignored nothing is cut.
func (c *call) limitWords(words []string, maxTokens int) ([]string, bool) {
	if maxTokens > 0 && len(words) >= maxTokens && !c.fs.has(fMaxTokensIgnored) {
		return words[:maxTokens], true
	}
	if maxTokens > 0 && c.fs.has(fMaxTokensIgnored) && len(words) <= maxTokens {
		// Make sure the fault is visible: run past the bound.
		extra := generate("overflow", strings.Join(words, " "), nil)
		for len(words) <= maxTokens {
			words = append(words, extra...)
		}
	}
	return words, false
}

// chunks splits words into stream fragments of a few words, each fragment
// carrying its leading space so that concatenation restores the text.
func chunks(words []string) []string {
	var out []string
	for i := 0; i < len(words); i += 3 {
		part := strings.Join(words[i:min(i+3, len(words))], " ")
		if i > 0 {
			part = " " + part
		}
		out = append(out, part)
	}
	return out
}

func countWords(s string) int { return len(strings.Fields(s)) }

// textOf reads a message content: a string, or an array of parts whose text
// parts are joined. ok is false for any other shape.
func textOf(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []map[string]any
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var texts []string
	for _, p := range parts {
		if t, _ := p["text"].(string); t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, " "), true
}

// ---- POST /v1/chat/completions ----

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type chatRequest struct {
	Model               *string        `json:"model"`
	Messages            *[]chatMessage `json:"messages"`
	Stream              *bool          `json:"stream"`
	Temperature         *float64       `json:"temperature"`
	MaxTokens           *int           `json:"max_tokens"`
	MaxCompletionTokens *int           `json:"max_completion_tokens"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

var chatRoles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true}

func (c *call) chat() {
	var req chatRequest
	if !c.readJSON(&req) {
		return
	}
	accept := c.fs.has(fAcceptInvalid)
	modelID := ""
	if req.Model != nil {
		modelID = *req.Model
	}
	if modelID == "" {
		if !accept {
			c.failParam(http.StatusBadRequest, "model", "you must provide a model parameter")
			return
		}
		modelID = "gen-5.5"
	}
	if req.Messages == nil || len(*req.Messages) == 0 {
		if !accept {
			c.failParam(http.StatusBadRequest, "messages", "messages is required and must be a non-empty array")
			return
		}
		req.Messages = &[]chatMessage{{Role: "user", Content: json.RawMessage(`""`)}}
	}
	prompt := ""
	inputTokens := 0
	for i, m := range *req.Messages {
		if !chatRoles[m.Role] {
			c.failParam(http.StatusBadRequest, fmt.Sprintf("messages[%d].role", i), fmt.Sprintf("invalid role %q", m.Role))
			return
		}
		t, ok := textOf(m.Content)
		if !ok && m.Role != "assistant" {
			c.failParam(http.StatusBadRequest, fmt.Sprintf("messages[%d].content", i), "content must be a string or an array of content parts")
			return
		}
		inputTokens += countWords(t) + 3
		if m.Role == "user" {
			prompt = t
		}
	}
	if t := req.Temperature; t != nil && (*t < 0 || *t > 2) {
		c.failParam(http.StatusBadRequest, "temperature", "temperature must be between 0 and 2")
		return
	}
	maxTokens := 0
	for _, p := range []*int{req.MaxTokens, req.MaxCompletionTokens} {
		if p != nil {
			if *p < 1 {
				c.failParam(http.StatusBadRequest, "max_tokens", "max_tokens must be at least 1")
				return
			}
			maxTokens = *p
		}
	}
	m, found := c.lookupModel(modelID)
	if !found && accept && req.Model == nil {
		m, found = model{ID: modelID, Family: KindText}, true
	}
	if !found || m.Family != KindText {
		c.modelNotFound(modelID)
		return
	}
	words, cut := c.limitWords(generate(m.ID, prompt, nil), maxTokens)
	finish := "stop"
	if cut {
		finish = "length"
	}
	id := "chatcmpl-" + randHex(12)
	created := time.Now().Unix()
	usage := map[string]any{
		"prompt_tokens": inputTokens, "completion_tokens": len(words), "total_tokens": inputTokens + len(words),
		"prompt_tokens_details":     map[string]any{"cached_tokens": 0, "audio_tokens": 0},
		"completion_tokens_details": map[string]any{"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
	}
	if req.Stream == nil || !*req.Stream {
		msg := map[string]any{"role": "assistant", "content": strings.Join(words, " "), "refusal": nil, "annotations": []any{}}
		if c.fs.has(fMissingField) {
			delete(msg, "content")
		}
		choice := map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}
		if c.fs.has(fWrongType) {
			choice["index"] = "0"
		}
		c.writeJSON(http.StatusOK, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": m.ID,
			"choices": []any{choice}, "usage": usage, "service_tier": "default", "system_fingerprint": nil,
		})
		return
	}
	includeUsage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	chunk := func(delta map[string]any, finish any) map[string]any {
		choice := map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}
		if c.fs.has(fWrongType) {
			choice["index"] = "0"
		}
		chunkID := id
		if c.fs.has(fChatIDChanges) {
			chunkID = "chatcmpl-" + randHex(12)
		}
		ch := map[string]any{
			"id": chunkID, "object": "chat.completion.chunk", "created": created, "model": m.ID,
			"choices": []any{choice}, "service_tier": "default", "system_fingerprint": nil,
		}
		if includeUsage {
			ch["usage"] = nil
		}
		if c.fs.has(fMissingField) {
			delete(ch, "object")
		}
		return ch
	}
	s := c.startSSE()
	if !s.send("", chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil), false) {
		return
	}
	for _, part := range chunks(words) {
		if !s.send("", chunk(map[string]any{"content": part}, nil), true) {
			return
		}
	}
	if !s.send("", chunk(map[string]any{}, finish), false) {
		return
	}
	if includeUsage {
		u := chunk(nil, nil)
		u["choices"] = []any{}
		u["usage"] = usage
		if !s.send("", u, false) {
			return
		}
	}
	if !c.fs.has(fChatNoDone) {
		s.send("", "[DONE]", false)
	}
}

// ---- POST /v1/messages ----

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type messagesRequest struct {
	Model       *string             `json:"model"`
	MaxTokens   *int                `json:"max_tokens"`
	Messages    *[]anthropicMessage `json:"messages"`
	Stream      *bool               `json:"stream"`
	System      json.RawMessage     `json:"system"`
	Temperature *float64            `json:"temperature"`
}

type contentBlock struct {
	Type   string `json:"type"`
	Text   string `json:"text"`
	Source *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

func (c *call) messages() {
	var req messagesRequest
	if !c.readJSON(&req) {
		return
	}
	accept := c.fs.has(fAcceptInvalid)
	modelID := ""
	if req.Model != nil {
		modelID = *req.Model
	}
	var m model
	if modelID == "" {
		if !accept {
			c.failParam(http.StatusBadRequest, "model", "model: field required")
			return
		}
		// Served as the key's first model would be.
		if list := c.g.lists[c.kind]; len(list) > 0 {
			m = list[0]
		}
		if m.Family != KindMessages && m.Family != KindAlt {
			m = model{ID: "msg-sonnet-5", Family: KindMessages}
		}
	} else {
		var found bool
		m, found = c.lookupModel(modelID)
		if !found || (m.Family != KindMessages && m.Family != KindAlt) {
			c.modelNotFound(modelID)
			return
		}
	}
	maxTokens := 0
	if req.MaxTokens != nil {
		if *req.MaxTokens < 1 {
			c.failParam(http.StatusBadRequest, "max_tokens", "max_tokens: must be greater than or equal to 1")
			return
		}
		maxTokens = *req.MaxTokens
	} else if m.Family == KindAlt {
		c.failParam(http.StatusBadRequest, "max_tokens", "max_tokens: field required")
		return
	}
	if req.Messages == nil || len(*req.Messages) == 0 {
		c.failParam(http.StatusBadRequest, "messages", "messages: field required (at least one message)")
		return
	}
	if t := req.Temperature; t != nil && (*t < 0 || *t > 1) {
		c.failParam(http.StatusBadRequest, "temperature", "temperature: must be between 0 and 1")
		return
	}
	prompt := ""
	inputTokens := 0
	images := 0
	var prefix []string
	for i, msg := range *req.Messages {
		if msg.Role != "user" && msg.Role != "assistant" {
			c.failParam(http.StatusBadRequest, fmt.Sprintf("messages.%d.role", i), fmt.Sprintf("messages.%d.role: unexpected role %q", i, msg.Role))
			return
		}
		var text string
		var s string
		if json.Unmarshal(msg.Content, &s) == nil {
			text = s
		} else {
			var blocks []contentBlock
			if err := json.Unmarshal(msg.Content, &blocks); err != nil || len(blocks) == 0 {
				c.failParam(http.StatusBadRequest, fmt.Sprintf("messages.%d.content", i), fmt.Sprintf("messages.%d.content: must be a string or a non-empty array of content blocks", i))
				return
			}
			var texts []string
			for j, b := range blocks {
				switch b.Type {
				case "text":
					texts = append(texts, b.Text)
				case "image":
					images++
					if m.Family == KindAlt && images > 1 {
						c.failParam(http.StatusBadRequest, "messages", "this model accepts a single image per request")
						return
					}
					w, h, tokens, errMsg := decodeImageBlock(b)
					if errMsg != "" {
						c.failParam(http.StatusBadRequest, fmt.Sprintf("messages.%d.content.%d.source", i, j), fmt.Sprintf("messages.%d.content.%d: %s", i, j, errMsg))
						return
					}
					inputTokens += tokens
					if msg.Role == "user" {
						prefix = strings.Fields(fmt.Sprintf("The image is %dx%d pixels.", w, h))
					}
				default:
					c.failParam(http.StatusBadRequest, fmt.Sprintf("messages.%d.content.%d.type", i, j), fmt.Sprintf("messages.%d.content.%d.type: unsupported block type %q", i, j, b.Type))
					return
				}
			}
			text = strings.Join(texts, " ")
		}
		inputTokens += countWords(text) + 3
		if msg.Role == "user" {
			prompt = text
		}
	}
	if sys, ok := textOf(req.System); ok {
		inputTokens += countWords(sys)
	}
	words, cut := c.limitWords(generate(m.ID, prompt, prefix), maxTokens)
	stop := "end_turn"
	if cut {
		stop = "max_tokens"
	}
	id := "msg_" + randHex(12)
	usage := func(output int) map[string]any {
		return map[string]any{
			"input_tokens": inputTokens, "output_tokens": output,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "service_tier": "standard",
		}
	}
	if req.Stream == nil || !*req.Stream {
		u := usage(len(words))
		if c.fs.has(fWrongType) {
			u["input_tokens"] = strconv.Itoa(inputTokens)
		}
		body := map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": m.ID,
			"content":     []any{map[string]any{"type": "text", "text": strings.Join(words, " ")}},
			"stop_reason": stop, "stop_sequence": nil, "usage": u,
		}
		if c.fs.has(fMissingField) {
			delete(body, "type")
		}
		c.writeJSON(http.StatusOK, body)
		return
	}
	s := c.startSSE()
	event := func(typ string, fields map[string]any) map[string]any {
		fields["type"] = typ
		return fields
	}
	start := event("message_start", map[string]any{"message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": m.ID, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage(1),
	}})
	du := usage(len(words))
	delete(du, "service_tier")
	if c.fs.has(fWrongType) {
		du["output_tokens"] = strconv.Itoa(len(words))
	}
	msgDelta := event("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": du,
	})
	if !s.send("message_start", start, false) {
		return
	}
	outOfOrder := c.fs.has(fMessagesOutOfOrder)
	block := 0
	if c.fs.has(fBlockIndexGap) {
		block = 1
	}
	if outOfOrder && !s.send("message_delta", msgDelta, false) {
		return
	}
	if !s.send("content_block_start", event("content_block_start", map[string]any{"index": block, "content_block": map[string]any{"type": "text", "text": ""}}), false) {
		return
	}
	if !s.send("ping", event("ping", map[string]any{}), false) {
		return
	}
	for _, part := range chunks(words) {
		d := event("content_block_delta", map[string]any{"index": block, "delta": map[string]any{"type": "text_delta", "text": part}})
		if c.fs.has(fMissingField) {
			delete(d, "type")
		}
		if !s.send("content_block_delta", d, true) {
			return
		}
	}
	if !s.send("content_block_stop", event("content_block_stop", map[string]any{"index": block}), false) {
		return
	}
	if !outOfOrder && !s.send("message_delta", msgDelta, false) {
		return
	}
	if !c.fs.has(fMessagesNoStop) {
		s.send("message_stop", event("message_stop", map[string]any{}), false)
	}
}

// ---- POST /v1/responses (explore tier: the spec leaves its shape unshown; this follows the OpenAI Responses API) ----

type responsesRequest struct {
	Model           *string         `json:"model"`
	Input           json.RawMessage `json:"input"`
	Instructions    *string         `json:"instructions"`
	Stream          *bool           `json:"stream"`
	MaxOutputTokens *int            `json:"max_output_tokens"`
	Temperature     *float64        `json:"temperature"`
}

func (c *call) responses() {
	var req responsesRequest
	if !c.readJSON(&req) {
		return
	}
	if req.Model == nil || *req.Model == "" {
		c.failParam(http.StatusBadRequest, "model", "you must provide a model parameter")
		return
	}
	prompt, ok := responsesInput(req.Input)
	if !ok {
		c.failParam(http.StatusBadRequest, "input", "input must be a string or an array of input messages")
		return
	}
	maxTokens := 0
	if req.MaxOutputTokens != nil {
		if *req.MaxOutputTokens < 16 {
			c.failParam(http.StatusBadRequest, "max_output_tokens", "max_output_tokens must be at least 16")
			return
		}
		maxTokens = *req.MaxOutputTokens
	}
	m, found := c.lookupModel(*req.Model)
	if !found || m.Family != KindText {
		c.modelNotFound(*req.Model)
		return
	}
	words, cut := c.limitWords(generate(m.ID, prompt, nil), maxTokens)
	text := strings.Join(words, " ")
	inTok := countWords(prompt) + 3
	respID, itemID := "resp_"+randHex(12), "msg_"+randHex(12)
	created := time.Now().Unix()
	part := func(t string) map[string]any {
		return map[string]any{"type": "output_text", "text": t, "annotations": []any{}, "logprobs": []any{}}
	}
	item := func(status string, content []any) map[string]any {
		return map[string]any{"id": itemID, "type": "message", "status": status, "role": "assistant", "content": content}
	}
	resp := func(status string, output []any, usage any) map[string]any {
		r := map[string]any{
			"id": respID, "object": "response", "created_at": created, "status": status, "model": m.ID,
			"output": output, "usage": usage, "error": nil, "incomplete_details": nil,
			"parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}, "text": map[string]any{"format": map[string]any{"type": "text"}},
		}
		if status == "incomplete" {
			r["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
		}
		return r
	}
	usage := map[string]any{
		"input_tokens": inTok, "output_tokens": len(words), "total_tokens": inTok + len(words),
		"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
	}
	final := "completed"
	if cut {
		final = "incomplete"
	}
	done := resp(final, []any{item("completed", []any{part(text)})}, usage)
	if req.Stream == nil || !*req.Stream {
		done["output_text"] = text
		c.writeJSON(http.StatusOK, done)
		return
	}
	s := c.startSSE()
	seq := 0
	ev := func(typ string, fields map[string]any) bool {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		return s.send(typ, fields, typ == "response.output_text.delta")
	}
	if !ev("response.created", map[string]any{"response": resp("in_progress", []any{}, nil)}) ||
		!ev("response.in_progress", map[string]any{"response": resp("in_progress", []any{}, nil)}) ||
		!ev("response.output_item.added", map[string]any{"output_index": 0, "item": item("in_progress", []any{})}) ||
		!ev("response.content_part.added", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "part": part("")}) {
		return
	}
	for _, p := range chunks(words) {
		if !ev("response.output_text.delta", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "delta": p, "logprobs": []any{}}) {
			return
		}
	}
	if !ev("response.output_text.done", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "text": text, "logprobs": []any{}}) ||
		!ev("response.content_part.done", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "part": part(text)}) ||
		!ev("response.output_item.done", map[string]any{"output_index": 0, "item": item("completed", []any{part(text)})}) {
		return
	}
	typ := "response.completed"
	if cut {
		typ = "response.incomplete"
	}
	ev(typ, map[string]any{"response": done})
}

// responsesInput reads the Responses input: a string, or messages whose
// content is a string or input_text parts. It returns the last user text.
func responsesInput(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var items []chatMessage
	if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return "", false
	}
	prompt := ""
	for _, it := range items {
		t, ok := textOf(it.Content)
		if !ok {
			return "", false
		}
		if it.Role == "user" || it.Role == "" {
			prompt = t
		}
	}
	return prompt, true
}
